"""§7.6 failure analyses: FRI by scene attribute (Table 4), action distribution (Table 5),
and the entropy rule that orders failure / success cases."""

from __future__ import annotations

import math

import pytest

from socialbench.metrics.agreement import ScoringEntry
from socialbench.metrics.case_ranking import answers_entropy, entropy_bits, rank_cases
from socialbench.metrics.failure_analysis import action_distribution, failure_rate_by_attribute
from socialbench.metrics.failures import entry_failed
from socialbench.types import HumanVotes, Question

YESNO = Question("q_robot_affected_p1", "q_robot_affected", "Social reasoning", "single", "?", ("yes", "no"))
ACTION = Question(
    "q_robot_action_p1",
    "q_robot_action",
    "Social reasoning",
    "single",
    "?",
    ("avoiding", "overtaking", "not considering", "following", "yielding to"),
)
ALL_YES = HumanVotes(("yes",), (1.0,), 4)
SPLIT = HumanVotes(("yes", "no"), (0.5, 0.5), 4)


def _e(
    parsed: object, votes: HumanVotes = ALL_YES, error: str | None = None, item: str = "s1", q: Question = YESNO
) -> ScoringEntry:
    return ScoringEntry(item, q, votes, parsed, None, error)


def test_entry_failed_counts_zero_probability_invalid_and_errors() -> None:
    assert not entry_failed(_e("yes"))
    assert entry_failed(_e("no"))
    assert entry_failed(_e("maybe"))
    assert entry_failed(_e(None, error="timeout"))


def test_fri_is_group_rate_over_overall_rate() -> None:
    # indoors: 2 of 2 fail; outdoors: 1 of 4 fails; overall 3/6 = 0.5
    entries = [_e("no"), _e("no"), _e("no"), _e("yes"), _e("yes"), _e("yes")]
    values = [True, True, False, False, False, False]
    res = failure_rate_by_attribute(entries, values, attribute="indoors")
    assert res["overall"]["failure_rate"] == 0.5
    indoors, outdoors = res["groups"]
    assert (indoors.value, indoors.n, indoors.failure_rate, indoors.fri) == (True, 2, 1.0, 2.0)
    assert (outdoors.value, outdoors.n, outdoors.failure_rate, outdoors.fri) == (False, 4, 0.25, 0.5)


def test_group_se_uses_protocol_ddof() -> None:
    entries = [_e("no"), _e("yes"), _e("yes"), _e("yes")]
    res = failure_rate_by_attribute(entries, ["a"] * 4, protocol="official")
    # flags [1,0,0,0]: population variance 0.1875
    assert res["groups"][0].failure_rate_se == pytest.approx(math.sqrt(0.1875) / 2)


def test_unknown_values_count_overall_only_and_lists_count_in_each_group() -> None:
    entries = [_e("no"), _e("yes"), _e("yes")]
    res = failure_rate_by_attribute(entries, [["safety", "privacy"], None, "safety"])
    assert res["n_unknown"] == 1
    assert res["overall"]["n"] == 3
    by_value = {g.value: g for g in res["groups"]}
    assert by_value["privacy"].n == 1 and by_value["privacy"].failures == 1
    assert by_value["safety"].n == 2 and by_value["safety"].failures == 1


def test_fri_undefined_when_model_never_fails() -> None:
    res = failure_rate_by_attribute([_e("yes"), _e("yes")], [True, False])
    assert all(g.fri is None for g in res["groups"])


def test_attribute_values_must_match_entries() -> None:
    with pytest.raises(ValueError, match="one value per entry"):
        failure_rate_by_attribute([_e("yes")], [True, False])


def test_action_distribution_shares_and_per_action_failure_rates() -> None:
    votes = HumanVotes(("avoiding", "yielding to"), (0.75, 0.25), 4)
    entries = [
        _e("avoiding", votes, q=ACTION),  # chosen, humans gave it
        _e("avoiding", votes, q=ACTION),
        _e("overtaking", votes, q=ACTION),  # chosen, no human gave it -> failure
        _e("overtaking", votes, q=ACTION),
        _e("flying", votes, q=ACTION),  # invalid: excluded from the shares
        _e("yes"),  # another question: ignored
    ]
    res = action_distribution(entries)
    assert (res["n"], res["n_valid"], res["n_invalid"]) == (5, 4, 1)
    rows = {a.action: a for a in res["actions"]}
    assert [a.action for a in res["actions"]] == list(ACTION.options)
    assert (rows["avoiding"].share, rows["avoiding"].failure_rate) == (0.5, 0.0)
    assert (rows["overtaking"].share, rows["overtaking"].failure_rate) == (0.5, 1.0)
    assert rows["following"].chosen == 0 and rows["following"].failure_rate is None


def test_action_distribution_without_that_question_is_empty() -> None:
    assert action_distribution([_e("yes")])["actions"] == []


def test_entropy_closed_forms() -> None:
    assert entropy_bits([0.25] * 4) == pytest.approx(2.0)
    assert entropy_bits([1.0]) == 0.0
    assert answers_entropy(["a", "a", None, None]) == pytest.approx(1.0)
    assert answers_entropy(["a"]) == 0.0


def test_rank_cases_puts_confident_failures_first() -> None:
    # q0: humans split 50/50, the runs give the two human answers -> success
    # q1: all 4 humans say yes, both runs say no -> failure on a unanimous question
    # q2: humans 3 avoiding / 1 yielding, one run says overtaking -> failure, less consensus
    q2 = HumanVotes(("avoiding", "yielding to"), (0.75, 0.25), 4)
    run_a = [_e("yes", SPLIT), _e("no"), _e("avoiding", q2, q=ACTION)]
    run_b = [_e("no", SPLIT), _e("no"), _e("overtaking", q2, q=ACTION)]
    ranked = rank_cases([run_a, run_b])
    assert [c.kind for c in ranked] == ["failure", "failure", "success"]
    assert [c.index for c in ranked] == [1, 2, 0]
    assert ranked[0].n_failed == 2 and ranked[0].model_entropy == 0.0
    assert ranked[1].human_entropy == pytest.approx(entropy_bits([0.75, 0.25]))


def test_rank_cases_orders_successes_by_model_disagreement() -> None:
    # both unanimous questions; on q0 the runs disagree (one invalid), on q1 they agree
    run_a = [_e("yes"), _e("yes")]
    run_b = [_e("maybe"), _e("yes")]
    ranked = rank_cases([run_a, run_b])
    assert [c.index for c in ranked] == [0, 1]
    assert ranked[0].model_entropy == pytest.approx(1.0)


def test_rank_cases_requires_aligned_runs() -> None:
    with pytest.raises(ValueError, match="same questions"):
        rank_cases([[_e("yes")], [_e("yes"), _e("no")]])
