"""Tests for socialbench.metrics.protocols: one object per agreement protocol."""

from __future__ import annotations

import pytest

from socialbench.errors import UsageError
from socialbench.metrics.agreement import ItemScore, ScoringEntry
from socialbench.metrics.protocols import (
    OFFICIAL,
    PAPER,
    PROTOCOL_NAMES,
    OfficialProtocol,
    PaperProtocol,
    UnknownProtocolError,
    as_protocol,
    protocol_named,
)
from socialbench.types import HumanVotes, Question

YES_NO = Question("q_robot_affected_p1", "q_robot_affected", "Social reasoning", "single", "?", ("yes", "no"))
DIRECTION = Question(
    "q_robot_moving_direction",
    "q_robot_moving_direction",
    "Spatiotemporal reasoning",
    "multi",
    "?",
    ("moving ahead", "turning left", "turning right"),
)
FIVE_TWO = HumanVotes(("yes", "no"), (5 / 7, 2 / 7), 7)


def _entry(
    parsed: object, raw: str | None = None, error: str | None = None, q: Question = YES_NO, votes: HumanVotes = FIVE_TWO
) -> ScoringEntry:
    return ScoringEntry("s1", q, votes, parsed, raw, error)


def test_names_choose_the_protocol_objects() -> None:
    assert PROTOCOL_NAMES == ("paper", "official", "official-gemini")
    assert protocol_named("paper") is PAPER and isinstance(PAPER, PaperProtocol)
    assert protocol_named("official") is OFFICIAL and isinstance(OFFICIAL, OfficialProtocol)


def test_unknown_name_is_a_usage_error_listing_the_known_names() -> None:
    with pytest.raises(
        UnknownProtocolError, match="unknown protocol 'best'; use one of paper, official, official-gemini"
    ) as info:
        protocol_named("best")
    assert isinstance(info.value, UsageError) and isinstance(info.value, ValueError)


def test_as_protocol_passes_objects_through_and_converts_names() -> None:
    assert as_protocol(OFFICIAL) is OFFICIAL
    assert as_protocol("official") is OFFICIAL


def test_se_ddof_is_sample_for_paper_and_population_for_official() -> None:
    assert (PAPER.se_ddof, OFFICIAL.se_ddof) == (1, 0)


def test_multiple_select_is_valid_in_any_order_only_under_paper() -> None:
    e = _entry(
        ["turning right", "moving ahead"],
        q=DIRECTION,
        votes=HumanVotes((("moving ahead", "turning right"),), (1.0,), 3),
    )
    assert PAPER.valid_answer(e) == ("moving ahead", "turning right")
    assert OFFICIAL.valid_answer(e) is None


def test_official_reads_the_raw_text_when_there_is_one() -> None:
    e = _entry("yes", raw='{"answer": "no"}')
    assert PAPER.valid_answer(e) == "yes"
    assert OFFICIAL.valid_answer(e) == "no"


def test_a_failed_call_has_no_valid_answer_under_either_protocol() -> None:
    e = _entry(None, error="timeout")
    assert PAPER.valid_answer(e) is None and OFFICIAL.valid_answer(e) is None


def test_invalid_answer_scores_zero_under_paper_and_as_the_first_option_under_official() -> None:
    e = _entry("maybe")
    assert PAPER.item_scores(e)["model"] == ItemScore(0.0, 0.0)
    assert OFFICIAL.item_scores(e)["model"] == OFFICIAL.item_scores(_entry("yes"))["model"]


def test_a_failed_call_scores_zero_for_the_model_under_official() -> None:
    scores = OFFICIAL.item_scores(_entry(None, error="refusal"))
    assert scores["model"] == ItemScore(0.0, 0.0)
    assert scores["human:oracle"] == OFFICIAL.item_scores(_entry("yes"))["human:oracle"]


def test_model_score_is_undefined_under_official_with_one_human_answer() -> None:
    lone = _entry("yes", votes=HumanVotes(("yes",), (1.0,), 1))
    assert OFFICIAL.model_score(lone) is None
    assert PAPER.model_score(lone) == ItemScore(1.0, 1.0)


def test_str_of_a_protocol_is_its_name() -> None:
    assert f"{PAPER}/{OFFICIAL}" == "paper/official"
