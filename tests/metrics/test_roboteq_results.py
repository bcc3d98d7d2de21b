"""Tests for socialbench.metrics.roboteq_results: typed RobotEQ results and their JSON."""

from __future__ import annotations

import json

import pytest

from socialbench.metrics.results import ScoringHeader
from socialbench.metrics.roboteq import (
    GroundingRow,
    JudgmentRow,
    breakdown,
    grounding_metrics,
    human_average,
    judgment_metrics,
    subset_breakdown,
    table1,
)
from socialbench.metrics.roboteq_costs import request_costs
from socialbench.metrics.roboteq_results import (
    GroundingResult,
    GroundingScores,
    JudgmentMetrics,
    JudgmentResult,
    JudgmentScores,
    SubsetBreakdown,
)
from socialbench.types import HumanVotes, SampleRecord


def _row(gold: str, pred: str | None, subset: str, proper: int, improper: int) -> JudgmentRow:
    n = proper + improper
    answers = tuple(a for a, c in (("proper", proper), ("improper", improper)) if c)
    probs = tuple(c / n for c in (proper, improper) if c)
    return JudgmentRow(
        "i", "b", gold, pred, HumanVotes(answers, probs, n), True, subset=subset, category="service", facets=("safety",)
    )


ROWS = [
    _row("proper", "proper", "synthetic", 2, 1),
    _row("improper", "proper", "synthetic", 1, 2),
    _row("proper", None, "real", 3, 0),
    _row("proper", "proper", "real", 2, 1),
]
RECORDS = [
    SampleRecord(
        "i",
        "b",
        "{}",
        "proper",
        "json",
        None,
        0.5,
        {"prompt_tokens": 10, "completion_tokens": 2, "rag_added_tokens": 5, "rag_retrieval_us": 100},
        "h1",
    )
]


def _bytes(obj: object) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False)


def _judgment_result() -> JudgmentResult:
    by_subset = subset_breakdown(ROWS, judgment_metrics)
    scores = JudgmentScores(
        cwpa_basis="votes",
        note="n",
        overall=judgment_metrics(ROWS),
        by_subset=by_subset,
        table1=table1(by_subset),
        by_category=breakdown(ROWS, lambda r: [r.category or "unknown"], judgment_metrics),
        by_subcategory={},
        by_facet=breakdown(ROWS, lambda r: r.facets, judgment_metrics),
        parse_methods={"json": 3, "invalid": 1},
        requests=request_costs(RECORDS),
        human_average=human_average(ROWS),
    )
    return JudgmentResult(ScoringHeader("roboteq-bj", "paper", 4, 0, 0), scores)


def test_judgment_result_reads_back_to_the_same_json() -> None:
    out = json.loads(_bytes(_judgment_result().to_json()))
    assert list(out)[:7] == [
        "benchmark",
        "protocol",
        "n_scored",
        "n_missing",
        "n_unknown_predictions",
        "cwpa_basis",
        "note",
    ]
    assert _bytes(JudgmentResult.from_json(out).to_json()) == _bytes(out)


def test_judgment_result_with_nothing_scored_is_the_header() -> None:
    header = ScoringHeader("roboteq-bj", "paper", 0, 4, 0, "nothing could be scored")
    result = JudgmentResult.from_json(JudgmentResult(header, None).to_json())
    assert result.scores is None and result.header.note == "nothing could be scored"


def test_subset_breakdown_puts_the_average_last_and_reads_it_back() -> None:
    by_subset = subset_breakdown(ROWS, judgment_metrics)
    assert list(by_subset) == ["real", "synthetic", "average"]
    again = SubsetBreakdown.read(by_subset.to_json(), JudgmentMetrics)
    assert again.average is not None and again.average["cwpa"].value == pytest.approx(
        by_subset["average"]["cwpa"]["value"]
    )
    assert isinstance(again.groups["real"], JudgmentMetrics)


def test_metrics_give_typed_scores_by_name() -> None:
    m = judgment_metrics(ROWS)
    acc = m.score("accuracy")
    assert acc is not None and acc.value == pytest.approx(0.5)
    assert m.score("jaccard") is None


def test_grounding_result_reads_back_to_the_same_json() -> None:
    rows = [GroundingRow("g1", ("A", "C"), ("A", "C"), subset="real"), GroundingRow("g2", ("B",), None, error=True)]
    scores = GroundingScores(
        note="n",
        overall=grounding_metrics(rows),
        by_subset=subset_breakdown(rows, grounding_metrics),
        by_category={},
        by_subcategory={},
        by_facet={},
        parse_methods={"json": 1},
        requests=request_costs([]),
    )
    out = json.loads(_bytes(GroundingResult(ScoringHeader("roboteq-sg", "paper", 2, 0, 0), scores).to_json()))
    assert out["requests"] == {"requests": 0}
    assert _bytes(GroundingResult.from_json(out).to_json()) == _bytes(out)


def test_request_costs_with_rag_read_back() -> None:
    out = _judgment_result().to_json()
    assert out["requests"]["rag"]["queries"] == 1
    assert JudgmentResult.from_json(out).scores.requests == out["requests"]  # type: ignore[union-attr]
