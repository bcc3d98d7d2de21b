"""Leave-one-out human baselines (socialbench.metrics.human), checked against hand
computations (the arithmetic is in each test's comment)."""

from __future__ import annotations

import pytest

from socialbench.metrics.human import (
    human_grounding_baseline,
    human_judgment_baseline,
    loo_option_references,
    loo_references,
)


def test_loo_reference_is_the_others_majority():
    # the improper voter of 2-1 faces two proper votes
    assert loo_references({"proper": 2, "improper": 1}, "improper") == [("proper", 1.0)]


def test_loo_reference_splits_a_tie_evenly():
    # a proper voter of 2-1 faces one proper and one improper vote
    assert loo_references({"proper": 2, "improper": 1}, "proper") == [("improper", 0.5), ("proper", 0.5)]


def test_loo_option_reference_enumerates_half_chosen_options():
    sels = [frozenset("AC"), frozenset("A"), frozenset("AC")]
    # others of annotator 0: {A}, {A, C}: A by 2 of 2 (in), C by 1 of 2 (tie)
    assert sorted(loo_option_references(sels, 0), key=lambda x: len(x[0])) == [
        (frozenset("A"), 0.5),
        (frozenset("AC"), 0.5),
    ]


def test_judgment_pa_and_cwpa_of_a_two_one_split():
    # PA = (2*1)/(3*2) = 1/3; CWPA: proper voters 1 each (others 1-1), improper voter 0 -> 2/3
    res = human_judgment_baseline([{"proper": 2, "improper": 1}])
    assert res["pa"] == pytest.approx(1 / 3) and res["cwpa"] == pytest.approx(2 / 3)


def test_judgment_f1_of_a_two_one_split():
    # proper voters x2 vs tie: TP_p 1, FP_p 1, FN_i 1; improper voter vs proper: FP_i 1, FN_p 1
    # F1_p = 0.5, F1_i = 0 -> macro 0.25; pooled TP 1, FP 2, FN 2 -> micro 1/3
    res = human_judgment_baseline([{"proper": 2, "improper": 1}])
    assert res["micro_f1"] == pytest.approx(1 / 3) and res["macro_f1"] == pytest.approx(0.25)


def test_judgment_pools_f1_over_behaviors():
    # + a unanimous 3-0: TP_p += 3 -> proper TP 4 FP 1 FN 1 (F1 .8), improper F1 0
    # macro 0.4; micro TP 4, FP 2, FN 2 -> 2/3; PA (1/3 + 1) / 2
    res = human_judgment_baseline([{"proper": 2, "improper": 1}, {"proper": 3}])
    assert (res["n"], res["pairs"]) == (2, 6)
    assert res["micro_f1"] == pytest.approx(2 / 3) and res["macro_f1"] == pytest.approx(0.4)
    assert res["pa"] == pytest.approx(2 / 3)


def test_judgment_skips_behaviors_with_one_vote():
    assert human_judgment_baseline([{"proper": 1}]) is None


def test_grounding_exact_and_jaccard_by_hand():
    # a0 {A,C} vs {A}|{A,C}: exact .5, Jaccard .5*.5 + .5*1 = .75; a1 {A} vs {A,C}: 0, .5;
    # a2 as a0 -> exact 1/3, Jaccard 2/3
    res = human_grounding_baseline([[["A", "C"], ["A"], ["A", "C"]]])
    assert res["exact_match"] == pytest.approx(1 / 3) and res["jaccard"] == pytest.approx(2 / 3)


def test_grounding_option_f1_by_hand():
    # A: TP 3; C: TP 1, FP 1, FN 1 (F1 .5) -> macro (1 + .5) / 2 = .75; micro TP 4 FP 1 FN 1 = .8
    res = human_grounding_baseline([[["A", "C"], ["A"], ["A", "C"]]])
    assert res["micro_f1"] == pytest.approx(0.8) and res["macro_f1"] == pytest.approx(0.75)


def test_unanimous_grounding_scores_one():
    res = human_grounding_baseline([[["B"], ["B"]]])
    assert (res["exact_match"], res["jaccard"], res["micro_f1"]) == (1.0, 1.0, 1.0)


def test_judgment_rejects_unknown_labels():
    with pytest.raises(ValueError, match="outside"):
        human_judgment_baseline([{"proper": 1, "maybe": 1}])
