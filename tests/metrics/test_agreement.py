"""Tests for socialbench.metrics.agreement.

Hand-computed cases for the paper's Eq. 1 (PA = p_h(a)) and Eq. 2 (CWPA = p_h(a)/max p_h),
the exact leave-one-out (LOO) human baselines, and the official postprocessing
(reference socialnav-sub-official.md §d, §e, §9), including its int() truncation bug.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction

import pytest

from agreement_builders import entry, question, votes
from socialbench.metrics.agreement import (
    INVALID,
    ItemScore,
    cwpa_paper,
    human_average_paper,
    pa_paper,
    paper_item_scores,
)
from socialbench.metrics.official_agreement import official_answer, official_item_scores, official_parse
from socialbench.metrics.scoring import score_entries
from socialbench.types import HumanVotes, Question

SPATIAL = ("ahead of", "to the left of", "to the right of", "behind")
DIRECTIONS = ("moving ahead", "turning left", "turning right")


def multi_question() -> Question:
    return question(
        DIRECTIONS,
        key="q_robot_moving_direction",
        base_key="q_robot_moving_direction",
        category="Spatiotemporal reasoning",
        kind="multi",
    )


# --------------------------------------------------------------------------- paper protocol


def test_unanimous_item_paper() -> None:
    v = votes({"yes": 7})
    assert pa_paper(v, "yes") == 1.0 and cwpa_paper(v, "yes") == 1.0  # Eq. 1, Eq. 2
    assert pa_paper(v, "no") == 0.0 and cwpa_paper(v, "no") == 0.0
    assert human_average_paper(v) == ItemScore(1.0, 1.0)
    assert paper_item_scores(v, None)["human:oracle"] == ItemScore(1.0, 1.0)


def test_unanimous_item_official() -> None:
    scores = official_item_scores(question(), votes({"yes": 7}), "yes")
    assert scores == {
        "model": ItemScore(1.0, 1.0),
        "human:average": ItemScore(1.0, 1.0),
        "human:oracle": ItemScore(1.0, 1.0),
    }


def test_half_half_tie_paper() -> None:
    v = votes({"yes": 2, "no": 2})
    # Eq. 1: 2/4; Eq. 2: (2/4)/(2/4)
    assert pa_paper(v, "no") == 0.5 and cwpa_paper(v, "no") == 1.0
    # LOO: each human agrees with 1 of the other 3 -> PA 1/3; q_j = (1/3, 2/3) -> CWPA 1/2
    avg = human_average_paper(v)
    assert avg.pa == pytest.approx(1 / 3) and avg.cwpa == pytest.approx(0.5)
    assert paper_item_scores(v, None)["human:oracle"] == ItemScore(0.5, 1.0)


def test_half_half_tie_official_oracle_is_loo_mode_frequency() -> None:
    # Every LOO distribution is (1/3, 2/3): the official oracle PA is 2/3, not max p_h = 1/2.
    scores = official_item_scores(question(), votes({"yes": 2, "no": 2}), "yes")
    assert scores["human:oracle"].pa == pytest.approx(2 / 3)
    assert scores["human:average"].pa == pytest.approx(1 / 3)
    assert scores["model"].pa == pytest.approx(0.5)


def test_three_way_tie_paper() -> None:
    v = votes({"ahead of": 1, "to the left of": 1, "behind": 1})
    assert pa_paper(v, "behind") == pytest.approx(1 / 3)
    assert cwpa_paper(v, "behind") == 1.0
    assert pa_paper(v, "to the right of") == 0.0
    # nobody agrees with anybody else
    assert human_average_paper(v) == ItemScore(0.0, 0.0)
    oracle = paper_item_scores(v, None)["human:oracle"]
    assert oracle.pa == pytest.approx(1 / 3) and oracle.cwpa == 1.0


def test_three_way_tie_official() -> None:
    q = question(
        SPATIAL,
        key="q_person_spatial_position_begin_p1",
        base_key="q_person_spatial_position_begin",
        category="Spatial reasoning",
    )
    v = votes({"ahead of": 1, "to the left of": 1, "behind": 1})
    scores = official_item_scores(q, v, "behind")
    # held-out x: q_j = 1/2 on the other two answers, 0 on x
    assert scores["human:average"] == ItemScore(0.0, 0.0)
    assert scores["human:oracle"] == ItemScore(0.5, 1.0)
    # model "behind": q_j(behind) = 1/2 for two of the three held-out humans
    assert scores["model"].pa == pytest.approx(1 / 3)
    assert scores["model"].cwpa == pytest.approx(2 / 3)


def test_invalid_answer_scores_zero_in_paper_protocol() -> None:
    q, v = question(), votes({"yes": 5, "no": 2})
    result = score_entries([entry(q, v, "maybe")], "paper")
    assert result["model"]["All"]["PA"] == 0.0
    assert result["model"]["All"]["CWPA"] == 0.0


def test_invalid_answer_is_first_option_in_official_protocol() -> None:
    q, v = question(), votes({"yes": 5, "no": 2})
    assert official_answer(q, "maybe") == "yes"
    invalid = official_item_scores(q, v, "maybe")["model"]
    assert invalid == official_item_scores(q, v, "yes")["model"]
    assert invalid.pa == pytest.approx(5 / 7)


@pytest.mark.parametrize(
    "raw",
    ["not json", '["yes"]', '{"choice": "yes"}', '"yes"', "", '{"answer": "yes"'],
)
def test_official_parse_failures_give_invalid(raw: str) -> None:
    assert official_parse(raw) == INVALID


def test_official_parse_takes_answer_field_verbatim() -> None:
    assert official_parse('{"answer": " Yes"}') == " Yes"
    assert official_parse('{"answer": ["moving ahead", "turning left"]}') == [
        "moving ahead",
        "turning left",
    ]


def test_official_single_choice_rejects_lists_and_paraphrases() -> None:
    q = question()
    assert official_answer(q, ["no"]) == "yes"
    assert official_answer(q, "No") == "yes"
    assert official_answer(q, {"answer": "no"}) == "yes"
    assert official_answer(q, "no") == "no"


def test_multi_select_paper_is_order_insensitive() -> None:
    q = multi_question()
    v = votes({("moving ahead", "turning right"): 3, ("moving ahead",): 1})
    answer = q.canonical(["turning right", "moving ahead"])
    assert answer == ("moving ahead", "turning right")
    assert pa_paper(v, answer) == 0.75
    result = score_entries([entry(q, v, ["turning right", "moving ahead"])], "paper")
    assert result["model"]["All"]["PA"] == 0.75


def test_multi_select_official_is_order_sensitive() -> None:
    q = multi_question()
    v = votes({("moving ahead", "turning right"): 3, ("moving ahead",): 1})
    # wrong order -> invalid -> first choice ('moving ahead',), which 1 of 4 humans chose
    assert official_answer(q, ["turning right", "moving ahead"]) == ("moving ahead",)
    assert official_item_scores(q, v, ["turning right", "moving ahead"])["model"].pa == (pytest.approx(0.25))
    assert official_item_scores(q, v, ["moving ahead", "turning right"])["model"].pa == (pytest.approx(0.75))


def test_multi_select_official_string_and_duplicates() -> None:
    q = multi_question()
    assert official_answer(q, "turning left") == ("turning left",)
    assert official_answer(q, ["turning left", "turning left"]) == ("moving ahead",)
    assert official_answer(q, INVALID) == ("moving ahead",)


# --------------------------------------------------------------------------- truncation bug


def test_truncation_bug_lowers_official_average_human() -> None:
    # votes 3/5, 2/5 (Python floats 0.6, 0.4). (0.6 - 1/5)*5 = 1.9999999999999998 -> int 1.
    # held-out yes (x3): counts yes 1, no 2, Z 3: q(yes) = 1/3, M = 2/3, ratio 1/2
    # held-out no  (x2): counts yes 3, no 1, Z 4: q(no)  = 1/4, M = 3/4, ratio 1/3
    # official PA = (3/3 + 2/4)/5 = 0.3; exact LOO = (3*2 + 2*1)/(5*4) = 0.4
    v = votes({"yes": 3, "no": 2})
    official = official_item_scores(question(), v, "yes")["human:average"]
    assert official.pa == pytest.approx(0.3, abs=1e-15)
    assert official.cwpa == pytest.approx((3 * 0.5 + 2 / 3) / 5, abs=1e-15)
    exact = human_average_paper(v)
    assert exact.pa == pytest.approx(0.4, abs=1e-15)
    # exact LOO CWPA: held-out yes -> (2/4)/(2/4) = 1; held-out no -> (1/4)/(3/4) = 1/3
    assert exact.cwpa == pytest.approx((3 * 1 + 2 / 3) / 5, abs=1e-15)


def test_truncation_bug_official_oracle_and_model() -> None:
    # same item: oracle PA = (3 * 2/3 + 2 * 3/4)/5 = 0.7; model "yes": (3 * 1/3 + 2 * 3/4)/5 = 0.5
    scores = official_item_scores(question(), votes({"yes": 3, "no": 2}), "yes")
    assert scores["human:oracle"].pa == pytest.approx(0.7, abs=1e-15)
    assert scores["model"].pa == pytest.approx(0.5, abs=1e-15)  # p_h(yes) = 0.6


def test_five_ninths_four_ninths_survive_loo_exactly() -> None:
    # The reference's example (5/9 - 1/9)*9 in fact evaluates to 4.0 in IEEE doubles, so
    # this item is NOT hit by the truncation bug: official equals the exact LOO value.
    assert (5 / 9 - 1 / 9) * 9 == 4.0 and (4 / 9 - 1 / 9) * 9 == 3.0
    v = votes({"yes": 5, "no": 4})
    official = official_item_scores(question(), v, "yes")["human:average"]
    assert official.pa == pytest.approx(32 / 72, abs=1e-15)
    assert human_average_paper(v).pa == pytest.approx(32 / 72, abs=1e-15)


# --------------------------------------------------------------------------- official LOO vs paper


def test_official_model_pa_equals_p_h_when_truncation_does_not_bite() -> None:
    q = question(
        SPATIAL,
        key="q_person_spatial_position_end_p2",
        base_key="q_person_spatial_position_end",
        category="Spatial reasoning",
    )
    v = votes({"ahead of": 2, "to the left of": 1, "behind": 1})
    for a in SPATIAL:
        assert official_item_scores(q, v, a)["model"].pa == pytest.approx(pa_paper(v, a), abs=1e-15)


def test_official_cwpa_is_loo_ratio_not_eq2() -> None:
    # votes ahead 2, left 1, behind 1 (n=4); model "to the left of".
    # Eq. 2: (1/4)/(2/4) = 0.5.
    # Official: held-out ahead (x2): q = (1/3,1/3,0,1/3) -> ratio 1;
    #           held-out left: q(left) = 0 -> 0; held-out behind: (2/3,1/3,0,0) -> 1/2.
    #           mean = (1 + 1 + 0 + 0.5)/4 = 0.625
    q = question(SPATIAL, category="Spatial reasoning")
    v = votes({"ahead of": 2, "to the left of": 1, "behind": 1})
    assert cwpa_paper(v, "to the left of") == 0.5
    assert official_item_scores(q, v, "to the left of")["model"].cwpa == pytest.approx(0.625)


def test_official_human_oracle_cwpa_is_one() -> None:
    for counts in ({"yes": 3, "no": 2}, {"yes": 6, "no": 1}, {"yes": 4, "no": 4}):
        assert official_item_scores(question(), votes(counts), "no")["human:oracle"].cwpa == 1.0


def test_official_rejects_single_human() -> None:
    with pytest.raises(ValueError, match="n >= 2"):
        official_item_scores(question(), votes({"yes": 1}), "yes")


def test_official_rejects_human_answer_outside_choices_naming_each_question() -> None:
    for key in ("q_first", "q_second"):  # the check is memoized; the message names the asker
        with pytest.raises(ValueError, match=f"{key}: human answer 'perhaps' is not one of the question's choices"):
            official_item_scores(question(key=key), votes({"perhaps": 2, "yes": 1}), "yes")


def _official_loop_label_by_label(options: tuple[str, ...], v: HumanVotes, answer: str) -> list[float]:
    """The official leave-one-out loop (reference §e) transcribed literally: one pass per
    human label, rebuilding the truncated distribution every time."""
    n = v.n
    p_h = {c: 0.0 for c in options}
    p_h.update(zip(v.answers, v.probabilities))
    labels = [c for c in options for _ in range(int(p_h[c] * n))]
    sums = [0.0] * 6
    for held in labels:
        probs = dict(p_h)
        probs[held] -= 1.0 / n
        counts = {c: int(p * n) for c, p in probs.items()}
        z = sum(counts.values()) or 1
        q = {c: k / z for c, k in counts.items()}
        top = max(q.values()) or 1.0
        for i, term in enumerate(
            (q[answer], q[answer] / top, q[held], q[held] / top, max(q.values()), max(q.values()) / top)
        ):
            sums[i] += term
    return [s / len(labels) for s in sums]


def random_items(seed: int, count: int) -> Iterator[tuple[tuple[str, ...], list[str], HumanVotes, str]]:
    """``count`` random items: (options, the n human labels, their votes, a model answer),
    2-5 options and 2-14 humans each."""
    rng = random.Random(seed)
    for _ in range(count):
        options = tuple(f"opt{i}" for i in range(rng.randint(2, 5)))
        labels = [rng.choice(options) for _ in range(rng.randint(2, 14))]
        yield options, labels, votes({o: labels.count(o) for o in options if labels.count(o)}), rng.choice(options)


def test_official_scores_equal_the_label_by_label_loop_to_the_last_bit() -> None:
    for options, _, v, a in random_items(20261203, 500):
        s = official_item_scores(question(options), v, a)
        got = [getattr(s[row], name) for row in ("model", "human:average", "human:oracle") for name in ("pa", "cwpa")]
        assert got == _official_loop_label_by_label(options, v, a)


def test_official_names_the_question_on_every_call_when_no_label_survives() -> None:
    # int(0.4 * 2) = 0: no label is recovered; the memoized computation must raise each
    # time, naming the question that asked
    v = HumanVotes(("yes",), (0.4,), 2)
    for key in ("q_first", "q_second"):
        with pytest.raises(ValueError, match=f"{key}: no human labels recovered"):
            official_item_scores(question(key=key), v, "yes")


# --------------------------------------------------------------------------- property tests


def _brute_force_average_human(labels: list[str]) -> tuple[Fraction, Fraction]:
    """Each human against the other n-1, by enumeration (paper §3.4, Eq. 1 and Eq. 2)."""
    n = len(labels)
    pa = cw = Fraction(0)
    for j, h in enumerate(labels):
        others = labels[:j] + labels[j + 1 :]
        agree = Fraction(others.count(h), n - 1)
        top = Fraction(max(others.count(x) for x in set(others)), n - 1)
        pa += agree
        cw += agree / top
    return pa / n, cw / n


def test_property_random_distributions() -> None:
    for options, labels, v, a in random_items(20240607, 400):
        n = len(labels)
        scores = official_item_scores(question(options), v, a)
        # official model PA stays within 1/n of Eq. 1
        assert abs(scores["model"].pa - pa_paper(v, a)) <= 1 / n
        assert scores["human:oracle"].cwpa == 1.0
        # paper average human: closed form equals the enumerated leave-one-out definition
        pa, cw = _brute_force_average_human(labels)
        avg = human_average_paper(v)
        assert avg.pa == pytest.approx(float(pa), abs=1e-12)
        assert avg.cwpa == pytest.approx(float(cw), abs=1e-12)


def _loo_average_human(counts: dict[str, int]) -> ItemScore:
    """The average human by its definition: each of the n humans scored (Eq. 1, Eq. 2)
    against the distribution of the other n - 1 answers."""
    humans = [a for a, c in counts.items() for _ in range(c)]
    n = len(humans)
    pa = cwpa = 0.0
    for j, answer in enumerate(humans):
        others = humans[:j] + humans[j + 1 :]
        share = {a: others.count(a) / (n - 1) for a in counts}
        pa += share[answer] / n
        cwpa += share[answer] / max(share.values()) / n
    return ItemScore(pa, cwpa)


@pytest.mark.parametrize(
    "counts",
    [{"a": 5, "b": 5, "c": 1}, {"a": 4, "b": 1, "c": 1, "d": 1}, {"a": 1, "b": 6}, {"a": 2}, {"a": 3, "b": 3, "c": 3}],
)
def test_average_human_is_the_leave_one_out_mean(counts: dict[str, int]) -> None:
    got, want = human_average_paper(votes(counts)), _loo_average_human(counts)
    assert (got.pa, got.cwpa) == (pytest.approx(want.pa, abs=1e-12), pytest.approx(want.cwpa, abs=1e-12))


@pytest.mark.parametrize("answer", ["a", "b", "z", None])
def test_paper_item_scores_are_the_four_paper_functions(answer: str | None) -> None:
    v = votes({"a": 4, "b": 1, "c": 1})
    assert paper_item_scores(v, answer) == {
        "model": ItemScore(pa_paper(v, answer), cwpa_paper(v, answer)),
        "human:average": human_average_paper(v),
        "human:oracle": ItemScore(max(v.probabilities), 1.0),
    }


def test_paper_item_scores_name_the_item_in_errors() -> None:
    with pytest.raises(ValueError, match="q_x: human votes list no answers"):
        paper_item_scores(HumanVotes((), (), 0), "a", "q_x")


def test_average_human_rejects_inconsistent_counts_on_every_call() -> None:
    # round(0.5 * 10) + round(0.3 * 10) = 8 != n: the memoized computation must not cache
    # a result (or swallow the error) for such a distribution
    bad = HumanVotes(("a", "b"), (0.5, 0.3), 10)
    for _ in range(2):
        with pytest.raises(ValueError, match="add up to 8, not n=10"):
            human_average_paper(bad)
