"""Leave-one-out and final-label human baselines (socialbench.metrics.human), checked against hand
computations (the arithmetic is in each test's comment)."""

from __future__ import annotations

import pytest

from socialbench.metrics.human import (
    human_grounding_baseline,
    human_grounding_vs_final,
    human_judgment_baseline,
    human_judgment_vs_final,
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


# final-label definition: each annotator against the released label


def test_final_label_micro_f1_is_above_pa_where_leave_one_out_equals_it():
    # 3-0 and 2-1, final proper for both: 5 of 6 annotator labels match -> micro 5/6;
    # PA (1 + 1/3) / 2 = 2/3. Leave-one-out on the same votes: micro = PA = 2/3
    items = [({"proper": 3}, "proper"), ({"proper": 2, "improper": 1}, "proper")]
    final = human_judgment_vs_final(items)
    loo = human_judgment_baseline([c for c, _ in items])
    assert final["micro_f1"] == pytest.approx(5 / 6) and final["pa"] == pytest.approx(2 / 3)
    assert loo["micro_f1"] == pytest.approx(loo["pa"])


def test_final_label_macro_f1_by_hand():
    # proper TP 5, FN 1 -> F1 10/11; improper FP 1 -> F1 0 (it occurs) -> macro 5/11
    res = human_judgment_vs_final([({"proper": 3}, "proper"), ({"proper": 2, "improper": 1}, "proper")])
    assert res["macro_f1"] == pytest.approx(5 / 11)


def test_final_label_uses_the_released_label_not_the_vote_majority():
    # an expert-calibrated final label against the 2-1 majority: the two proper votes are wrong
    res = human_judgment_vs_final([({"proper": 2, "improper": 1}, "improper")])
    assert res["micro_f1"] == pytest.approx(1 / 3)


def test_final_label_keeps_the_leave_one_out_pa_and_cwpa():
    items = [({"proper": 2, "improper": 1}, "proper"), ({"improper": 3}, "improper")]
    final = human_judgment_vs_final(items)
    loo = human_judgment_baseline([c for c, _ in items])
    assert (final["pa"], final["cwpa"], final["n"], final["pairs"]) == (loo["pa"], loo["cwpa"], loo["n"], loo["pairs"])


def test_final_label_skips_behaviors_with_one_vote():
    assert human_judgment_vs_final([({"proper": 1}, "proper")]) is None


def test_final_label_rejects_an_unknown_final_label():
    with pytest.raises(ValueError, match="final label"):
        human_judgment_vs_final([({"proper": 2}, "maybe")])


def test_grounding_final_label_exact_and_jaccard_by_hand():
    # answer {A,C}: {A,C} exact 1 J 1; {A} 0, 1/2; {A,C} 1, 1 -> exact 2/3, Jaccard 5/6
    res = human_grounding_vs_final([([["A", "C"], ["A"], ["A", "C"]], ["A", "C"])])
    assert res["exact_match"] == pytest.approx(2 / 3) and res["jaccard"] == pytest.approx(5 / 6)


def test_grounding_final_label_option_f1_by_hand():
    # A: TP 3 (F1 1); C: TP 2, FN 1 (F1 4/5) -> macro 0.9; micro TP 5, FN 1 -> 10/11
    res = human_grounding_vs_final([([["A", "C"], ["A"], ["A", "C"]], ["A", "C"])])
    assert res["micro_f1"] == pytest.approx(10 / 11) and res["macro_f1"] == pytest.approx(0.9)


def test_grounding_final_label_skips_questions_with_one_vote():
    assert human_grounding_vs_final([([["A"]], ["A"])]) is None


@pytest.mark.parametrize("n_proper", [(3,), (2,), (1, 3), (2, 1, 0), (0, 2, 2, 1)])
def test_leave_one_out_micro_f1_equals_pa_for_three_binary_annotators(n_proper):
    # why the leave-one-out row cannot be compared with the paper's (MicF1 93.21 vs PA 81.04)
    res = human_judgment_baseline([{"proper": p, "improper": 3 - p} for p in n_proper])
    assert res["micro_f1"] == pytest.approx(res["pa"])
