"""What the Inspect tasks and ``export inspect`` share: a sample's PA, its targets and the stop
reasons (issue 42)."""

from __future__ import annotations

import pytest

pytest.importorskip("inspect_ai", reason="inspect_ai (optional extra inspect) is not installed")

from socialbench.export.inspect_format import item_agreement, item_targets, stop_reason_of  # noqa: E402
from socialbench.types import HumanVotes, Item, Question, SampleRecord  # noqa: E402


def _item() -> Item:
    q1 = Question("q1", "q1", "Spatial reasoning", "single", "Where?", ("left", "right"))
    q2 = Question("q2", "q2", "Social reasoning", "single", "Who?", ("a", "b"))
    votes = {"q1": HumanVotes(("left", "right"), (0.75, 0.25), 4), "q2": HumanVotes(("a", "b"), (0.5, 0.5), 4)}
    return Item("s1", (q1, q2), votes)


def _rec(key: str, parsed: str | None, error: str | None = None) -> SampleRecord:
    return SampleRecord("s1", key, parsed, parsed, "json", error, 0.1, {})


def test_a_samples_pa_is_the_mean_share_of_human_votes_for_its_answers():
    assert item_agreement(_item(), [_rec("q1", "left"), _rec("q2", "b")]) == pytest.approx((0.75 + 0.5) / 2)


def test_a_failed_answer_scores_zero_and_an_unknown_question_is_left_out():
    records = [_rec("q1", None, error="timeout"), _rec("q2", "a"), _rec("q_gone", "left")]
    assert item_agreement(_item(), records) == pytest.approx((0.0 + 0.5) / 2)


def test_targets_are_the_human_modes_ties_to_the_first_option():
    assert item_targets(_item()) == ["q1=left", "q2=a"]


@pytest.mark.parametrize(
    "finish,stop",
    [
        ("length", "max_tokens"),
        ("max_tokens", "max_tokens"),
        ("stop", "stop"),
        ("end_turn", "stop"),
        ("content_filter", "content_filter"),
        (None, "unknown"),
        ("odd", "unknown"),
    ],
)
def test_finish_reasons_become_inspects_stop_reasons(finish, stop):
    assert stop_reason_of(finish) == stop
