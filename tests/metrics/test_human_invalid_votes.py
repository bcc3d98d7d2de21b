"""RobotEQ human rows with the paper's ``invalid`` annotator votes (issue 39.4), and why the
paper's Human row cannot be recomputed from per-annotator votes
(:func:`socialbench.metrics.human.paper_consistent_pa`)."""

from __future__ import annotations

import random

import pytest

from socialbench.metrics.human import (
    human_judgment_baseline,
    human_judgment_vs_final,
    loo_references,
    paper_consistent_pa,
)


def test_an_invalid_vote_counts_among_the_annotators_in_pa():
    # labels proper, proper, invalid: agreeing pairs 2*1 of 3*2 -> PA 1/3 (Eq. 1, N_H = 3)
    row = human_judgment_vs_final([({"proper": 2, "invalid": 1}, "proper")])
    assert row is not None and row["pa"] == pytest.approx(1 / 3) and row["pairs"] == 3


def test_an_invalid_vote_is_a_miss_of_the_final_label_not_a_false_positive():
    # 2 TP and 1 FN for proper, nothing for improper: P 1, R 2/3 -> F1 0.8; an FP for
    # improper would give micro P = R = 2/3
    row = human_judgment_vs_final([({"proper": 2, "invalid": 1}, "proper")])
    assert row is not None and row["micro_f1"] == pytest.approx(0.8)


def test_leave_one_out_takes_the_majority_of_the_others_class_votes():
    assert loo_references({"proper": 1, "invalid": 2}, "proper", ("proper", "improper")) == []
    assert loo_references({"proper": 2, "invalid": 2}, "invalid", ("proper", "improper")) == [("proper", 1.0)]


def test_leave_one_out_with_an_invalid_vote_does_not_raise():
    # the proper voters' references: the other proper vote (1 TP each); the invalid voter's:
    # proper (1 FN) -> P 1, R 2/3, F1 0.8
    row = human_judgment_baseline([{"proper": 2, "invalid": 1}])
    assert row is not None and row["micro_f1"] == pytest.approx(0.8) and row["pa"] == pytest.approx(1 / 3)


def test_a_label_that_is_no_vote_is_still_refused():
    with pytest.raises(ValueError, match="outside"):
        human_judgment_vs_final([({"proper": 2, "maybe": 1}, "proper")])


def test_with_three_binary_votes_final_label_pa_is_twice_micro_f1_minus_one():
    rng = random.Random(0)
    items = []
    for _ in range(200):
        votes = [rng.choice(("proper", "improper")) for _ in range(3)]
        counts = {x: votes.count(x) for x in set(votes)}
        items.append((counts, max(counts, key=lambda x: counts[x])))
    row = human_judgment_vs_final(items)
    assert row is not None
    assert row["pa"] == pytest.approx(paper_consistent_pa(float(row["micro_f1"])))


def test_the_papers_human_row_is_off_that_line_in_opposite_directions():
    # RobotEQ Table 1 Human: synthetic PA 81.04 / MicF1 93.21, real PA 83.11 / MicF1 86.93
    synthetic = 0.8104 - paper_consistent_pa(0.9321)
    real = 0.8311 - paper_consistent_pa(0.8693)
    assert synthetic == pytest.approx(-0.0538) and real == pytest.approx(0.0925)
