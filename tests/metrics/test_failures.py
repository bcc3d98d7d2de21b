"""Tests for socialbench.metrics.failures (paper App. 7.6: failure = answer with p_h = 0)."""

from __future__ import annotations

import math

import pytest

from socialbench.metrics.agreement import ScoringEntry
from socialbench.metrics.failures import failure_summary
from socialbench.types import HumanVotes, Question


def _q(kind: str = "single") -> Question:
    if kind == "multi":
        return Question(
            "q_robot_moving_direction",
            "q_robot_moving_direction",
            "Spatiotemporal reasoning",
            "multi",
            "?",
            ("moving ahead", "turning left", "turning right"),
        )
    return Question("q_robot_affected_p1", "q_robot_affected", "Social reasoning", "single", "?", ("yes", "no"))


UNANIMOUS_YES = HumanVotes(("yes",), (1.0,), 4)


def _e(
    parsed: object,
    raw: str | None = None,
    error: str | None = None,
    votes: HumanVotes = UNANIMOUS_YES,
    kind: str = "single",
) -> ScoringEntry:
    return ScoringEntry("s1", _q(kind), votes, parsed, raw, error)


def _four() -> list[ScoringEntry]:
    return [
        _e("yes"),  # success
        _e("no"),  # valid, zero human probability -> failure
        _e("maybe"),  # invalid -> failure
        _e(None, error="timeout"),  # model error -> failure
    ]


def test_rates_count_invalid_and_errors_as_failures() -> None:
    s = failure_summary(_four())
    assert s["n"] == 4
    assert s["failure_rate"] == 0.75
    assert s["invalid_rate"] == 0.25
    assert s["error_rate"] == 0.25


def test_valid_only_rate_excludes_invalid_and_errors() -> None:
    s = failure_summary(_four())
    assert s["n_valid"] == 2
    assert s["failure_rate_valid_only"] == 0.5


def test_se_uses_protocol_ddof() -> None:
    # failure flags [0, 1, 1, 1]: squared deviations sum to 0.75
    paper = failure_summary(_four(), "paper")
    official = failure_summary(_four(), "official")
    assert paper["failure_rate_se"] == pytest.approx(math.sqrt(0.75 / 3) / 2)
    assert official["failure_rate_se"] == pytest.approx(math.sqrt(0.75 / 4) / 2)


def test_official_invalid_is_failure_not_first_option() -> None:
    # "maybe" would be scored as "yes" by the official PA, but it is still a failure here
    s = failure_summary([_e("maybe")], "official")
    assert s["failure_rate"] == 1.0 and s["invalid_rate"] == 1.0


def test_multi_select_order_matters_only_in_official() -> None:
    v = HumanVotes((("moving ahead", "turning right"),), (1.0,), 5)
    e = _e(["turning right", "moving ahead"], votes=v, kind="multi")
    assert failure_summary([e], "paper")["failure_rate"] == 0.0
    assert failure_summary([e], "official")["failure_rate"] == 1.0


def test_official_uses_raw_text_when_present() -> None:
    e = _e("yes", raw='{"answer": "no"}')
    assert failure_summary([e], "paper")["failure_rate"] == 0.0
    assert failure_summary([e], "official")["failure_rate"] == 1.0


def test_no_valid_answers_gives_none_valid_only_rate() -> None:
    s = failure_summary([_e("maybe"), _e(None, error="refusal")])
    assert s["n_valid"] == 0
    assert s["failure_rate_valid_only"] is None
    assert s["failure_rate_valid_only_se"] is None


def test_empty_entries_raise() -> None:
    with pytest.raises(ValueError, match="no entries"):
        failure_summary([])
