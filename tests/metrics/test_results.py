"""Tests for socialbench.metrics.results: typed results and the JSON of metrics.json."""

from __future__ import annotations

import json

import pytest

from socialbench.metrics.agreement import ScoringEntry
from socialbench.metrics.consistency import ConsistencyPair, consistency_summary
from socialbench.metrics.failures import failure_summary
from socialbench.metrics.results import (
    AgreementCell,
    AgreementScores,
    ConsistencySummary,
    FailureSummary,
    Score,
    ScoringHeader,
    SocialNavResult,
    WaypointResult,
)
from socialbench.metrics.scoring import score_entries
from socialbench.types import HumanVotes, Question

Q1 = Question("q_robot_affected_p1", "q_robot_affected", "Social reasoning", "single", "?", ("yes", "no"))
Q2 = Question(
    "q_goal_position_begin",
    "q_goal_position_begin",
    "Spatial reasoning",
    "single",
    "?",
    ("ahead", "to the left", "to the right"),
)


def _entries() -> list[ScoringEntry]:
    return [
        ScoringEntry("s1", Q1, HumanVotes(("yes", "no"), (0.75, 0.25), 4), "yes"),
        ScoringEntry("s1", Q2, HumanVotes(("ahead",), (1.0,), 3), "maybe"),
        ScoringEntry("s2", Q1, HumanVotes(("no", "yes"), (0.6, 0.4), 5), None, error="timeout"),
    ]


def _header(n_scored: int = 3) -> ScoringHeader:
    note = None if n_scored else "no predictions matched the dataset: nothing could be scored"
    return ScoringHeader("socialnav-sub", "paper", n_scored, 2, 0, note)


def _bytes(obj: object) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False)


def test_agreement_cell_json_names_and_order() -> None:
    cell = AgreementCell(pa=0.5, cwpa=0.75, pa_se=0.1, cwpa_se=0.2, n=4)
    assert list(cell.to_json().items()) == [("PA", 0.5), ("CWPA", 0.75), ("PA_se", 0.1), ("CWPA_se", 0.2), ("n", 4)]


def test_agreement_scores_read_back_to_the_same_json() -> None:
    scores = score_entries(_entries(), "official")
    again = AgreementScores.from_json(json.loads(_bytes(scores.to_json())))
    assert _bytes(again.to_json()) == _bytes(scores.to_json())


def test_agreement_scores_give_typed_cells() -> None:
    scores = score_entries(_entries(), "paper")
    model = scores.row("model")
    assert model is not None
    cell = model.cell("Social reasoning")
    assert cell is not None and cell.n == 2 and cell.pa == pytest.approx(0.75 / 2)
    assert model.cell("Spatiotemporal reasoning") is None


def test_a_result_reads_like_its_json() -> None:
    scores = score_entries(_entries(), "paper")
    assert scores["model"]["All"]["n"] == 3
    assert dict(scores) == scores.to_json()
    assert scores == scores.to_json()


def test_failure_summary_reads_back_to_the_same_json() -> None:
    summary = failure_summary(_entries(), "official")
    assert isinstance(summary, FailureSummary) and summary.protocol == "official"
    again = FailureSummary.from_json(json.loads(_bytes(summary.to_json())))
    assert _bytes(again.to_json()) == _bytes(summary.to_json())


def test_score_writes_n_only_when_known() -> None:
    assert Score(0.5, None).to_json() == {"value": 0.5, "se": None}
    assert Score(0.5, 0.1, 7).to_json() == {"value": 0.5, "se": 0.1, "n": 7}
    assert Score.from_json({"value": 0.5, "se": None}).n is None


def test_header_note_only_when_nothing_was_scored() -> None:
    assert "note" not in _header(3).to_json()
    empty = _header(0)
    assert list(empty.to_json())[-1] == "note"
    assert ScoringHeader.from_json(empty.to_json()).note == empty.note
    # a note after other results (RobotEQ's) is not the header's
    assert ScoringHeader.from_json({**_header(3).to_json(), "note": "votes"}).note is None


def test_from_json_names_the_bad_field() -> None:
    bad = {**_header(3).to_json(), "n_missing": "two"}
    with pytest.raises(ValueError, match=r"metrics.json.n_missing must be an integer"):
        ScoringHeader.from_json(bad)


def test_socialnav_result_with_nothing_scored_writes_empty_blocks() -> None:
    out = SocialNavResult(_header(0), None, None).to_json()
    assert (out["scores"], out["failures"]) == ({}, {})
    assert "consistency" not in out and "clean_scores" not in out
    again = SocialNavResult.from_json(out)
    assert again.scores is None and again.failures is None


def test_socialnav_result_under_a_perturbation_reads_back() -> None:
    pairs = [ConsistencyPair("s1", Q1, "yes", "yes"), ConsistencyPair("s2", Q1, "no", None)]
    result = SocialNavResult(
        _header(),
        score_entries(_entries(), "paper"),
        failure_summary(_entries()),
        clean_scores=None,
        consistency=consistency_summary(pairs),
    )
    out = json.loads(_bytes(result.to_json()))
    assert list(out)[-2:] == ["clean_scores", "consistency"] and out["clean_scores"] == {}
    again = SocialNavResult.from_json(out)
    assert isinstance(again.consistency, ConsistencySummary) and again.consistency.overall.n == 1
    assert _bytes(again.to_json()) == _bytes(out)


def test_from_json_ignores_what_the_runner_adds() -> None:
    result = SocialNavResult(_header(), score_entries(_entries(), "paper"), failure_summary(_entries()))
    written = {**result.to_json(), "run": {"wall_time_s": 1.0}, "source": {"data": "d"}}
    assert _bytes(SocialNavResult.from_json(written).to_json()) == _bytes(result.to_json())


def test_waypoint_result_reads_back() -> None:
    result = WaypointResult(
        ScoringHeader("socialnav-waypoint", "paper", 2, 0, 0),
        context="none",
        accuracy=Score(0.5, 0.5, 2),
        n_errors=1,
        n_invalid=0,
        n_left_out=3,
        chance=0.2,
    )
    out = result.to_json()
    assert out["overall"] == {"accuracy": {"value": 0.5, "se": 0.5, "n": 2}}
    assert _bytes(WaypointResult.from_json(out).to_json()) == _bytes(out)
