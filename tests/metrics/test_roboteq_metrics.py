"""RobotEQ group metrics, subset averages, robustness drop and request accounting."""

from __future__ import annotations

import math

import pytest

from socialbench.metrics.roboteq import (
    GroundingRow,
    JudgmentRow,
    breakdown,
    cwpa_basis,
    grounding_metrics,
    human_average,
    judgment_metrics,
    subset_breakdown,
    table1,
)
from socialbench.metrics.roboteq_costs import request_costs
from socialbench.metrics.roboteq_summary import format_summary, robustness_drop
from socialbench.types import HumanVotes, SampleRecord


def row(gold: str, pred: str | None, proper: int = 0, improper: int = 0, **kw) -> JudgmentRow:
    if proper + improper:
        n = proper + improper
        answers = tuple(a for a, c in (("proper", proper), ("improper", improper)) if c)
        probs = tuple(c / n for c in (proper, improper) if c)
        votes, has = HumanVotes(answers, probs, n), True
    else:
        votes, has = HumanVotes((gold,), (1.0,), 1), False
    return JudgmentRow(
        item_id=kw.pop("item_id", "x"), key=kw.pop("key", "b1"), gold=gold, pred=pred, votes=votes, has_votes=has, **kw
    )


def test_pa_and_cwpa_use_the_vote_shares() -> None:
    rows = [row("proper", "proper", 2, 1), row("proper", "improper", 2, 1), row("improper", None, 0, 3)]
    m = judgment_metrics(rows)
    assert m["pa"]["value"] == pytest.approx((2 / 3 + 1 / 3 + 0) / 3)
    assert m["cwpa"]["value"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert m["accuracy"]["value"] == pytest.approx(1 / 3)
    assert m["invalid_rate"]["value"] == pytest.approx(1 / 3)
    # SE of the mean with the sample std
    values = [2 / 3, 1 / 3, 0.0]
    mean = sum(values) / 3
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 2)
    assert m["pa"]["se"] == pytest.approx(sd / math.sqrt(3))


def test_without_votes_pa_and_cwpa_equal_accuracy() -> None:
    rows = [row("proper", "proper"), row("improper", "proper"), row("improper", "improper"), row("proper", None)]
    m = judgment_metrics(rows)
    assert m["pa"]["value"] == m["cwpa"]["value"] == m["accuracy"]["value"] == 0.5
    assert cwpa_basis(rows) == "majority"


def test_cwpa_basis_names_votes_and_mixed() -> None:
    assert cwpa_basis([row("proper", "proper", 3, 0)]) == "votes"
    assert cwpa_basis([row("proper", "proper", 3, 0), row("proper", "proper")]) == "mixed"


def test_subset_average_is_the_unweighted_mean_with_combined_se() -> None:
    rows = [row("proper", "proper", subset="synthetic")] * 3 + [row("proper", "improper", subset="synthetic")]
    rows += [row("proper", "proper", subset="real"), row("proper", "improper", subset="real")]
    out = subset_breakdown(rows, judgment_metrics)
    syn, real = out["synthetic"]["accuracy"], out["real"]["accuracy"]
    assert out["average"]["accuracy"]["value"] == pytest.approx((0.75 + 0.5) / 2)
    assert out["average"]["accuracy"]["se"] == pytest.approx(math.sqrt(syn["se"] ** 2 + real["se"] ** 2) / 2)


def test_table1_is_in_percent() -> None:
    rows = [row("proper", "proper", 2, 1, subset="synthetic"), row("proper", "proper", 3, 0, subset="real")]
    t = table1(subset_breakdown(rows, judgment_metrics))
    assert t["synthetic"]["PA"] == pytest.approx(66.67)
    assert t["real"]["CWPA"] == 100.0
    assert set(t["avg"]) == {"CWPA", "MacF1"}


def test_a_behavior_counts_in_every_facet_it_carries() -> None:
    rows = [
        row("proper", "proper", facets=("safety", "privacy")),
        row("proper", "improper", facets=("safety",)),
        row("proper", "proper"),
    ]
    out = breakdown(rows, lambda r: r.facets, judgment_metrics)
    assert {k: v["n"] for k, v in out.items()} == {"privacy": 1, "safety": 2}
    assert out["safety"]["accuracy"]["value"] == 0.5


def test_human_average_is_leave_one_out() -> None:
    out = human_average([row("proper", "proper", 2, 1), row("improper", "improper", 0, 3)])
    # 2-1 split: sum c(c-1) / n(n-1) = 2/6; unanimous: 1
    assert out is not None and out["pa"]["value"] == pytest.approx((1 / 3 + 1) / 2)
    assert human_average([row("proper", "proper")]) is None


def test_grounding_metrics_by_hand() -> None:
    rows = [
        GroundingRow("g1", ("A", "C"), ("A", "C")),
        GroundingRow("g2", ("B",), ("A", "B")),
        GroundingRow("g3", ("D",), None, error=True),
    ]
    m = grounding_metrics(rows)
    assert m["exact_match"]["value"] == pytest.approx(1 / 3)
    assert m["jaccard"]["value"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert m["error_rate"]["value"] == pytest.approx(1 / 3)
    # TP 3 (A, C, B), FP 1 (A in g2), FN 1 (D) -> micro 6/8
    assert m["micro_f1"]["value"] == pytest.approx(6 / 8)


def record(key: str, request_hash: str, prompt: int, **usage: int) -> SampleRecord:
    return SampleRecord(
        "s",
        key,
        "{}",
        "proper",
        "json",
        None,
        0.5,
        {"prompt_tokens": prompt, "completion_tokens": 3, **usage},
        request_hash,
    )


def test_request_costs_count_a_shared_request_once() -> None:
    recs = [record("b1", "h1", 100), record("b2", "h1", 100), record("b1", "h2", 40)]
    out = request_costs(recs)
    assert (out["requests"], out["prompt_tokens"], out["completion_tokens"]) == (2, 140, 6)
    assert "rag" not in out


def test_request_costs_report_rag_per_query() -> None:
    recs = [
        record("b1", "h1", 100, rag_added_tokens=30, rag_retrieval_us=2000),
        record("b1", "h2", 80, rag_added_tokens=50, rag_retrieval_us=0),
    ]
    rag = request_costs(recs)["rag"]
    assert rag["added_prompt_tokens_per_query"] == 40
    assert rag["retrieval_s_per_query"] == pytest.approx(0.001)
    assert rag["time_s_per_query"] == pytest.approx(0.501)


def metrics(value: float, real: float) -> dict:
    return {
        "benchmark": "roboteq-bj",
        "overall": {"n": 10, "macro_f1": {"value": value, "se": 0.01}, "invalid_rate": {"value": 0.1, "se": 0.0}},
        "by_subset": {"real": {"n": 4, "macro_f1": {"value": real, "se": 0.02}}},
    }


def test_robustness_drop_is_clean_minus_perturbed() -> None:
    out = robustness_drop(metrics(0.70, 0.60), metrics(0.63, 0.45))
    assert out["overall"]["macro_f1"]["drop"] == pytest.approx(0.07)
    assert out["overall"]["macro_f1"]["relative_drop"] == pytest.approx(0.1)
    assert out["by_subset"]["real"]["macro_f1"]["drop"] == pytest.approx(0.15)
    assert out["overall"]["invalid_rate"]["drop"] == 0.0


def test_robustness_drop_refuses_different_benchmarks() -> None:
    other = metrics(0.5, 0.5) | {"benchmark": "roboteq-sg"}
    with pytest.raises(ValueError, match="cannot compare"):
        robustness_drop(metrics(0.7, 0.6), other)


def test_format_summary_prints_percentages() -> None:
    text = format_summary(metrics(0.7, 0.6))
    assert "70.00 ± 1.00" in text and "real (n=4)" in text


def _timed(key: str, latency: float, cached: bool, **usage: int) -> SampleRecord:
    return SampleRecord(
        "s", "b1", "{}", "proper", "json", None, latency, {"prompt_tokens": 10, **usage}, key, cached=cached
    )


def test_request_latency_is_averaged_over_requests_not_answered_from_the_cache() -> None:
    out = request_costs([_timed("h1", 2.0, False), _timed("h2", 0.0, True), _timed("h3", 4.0, False)])
    assert out["cached"] == 1 and out["latency_s_per_request"] == pytest.approx(3.0)


def test_request_latency_is_none_with_a_note_when_every_request_was_cached() -> None:
    out = request_costs([_timed("h1", 0.0, True, rag_added_tokens=5, rag_retrieval_us=1000)])
    assert out["latency_s_per_request"] is None and "cache" in out["latency_note"]
    assert out["rag"]["time_s_per_query"] is None and out["rag"]["retrieval_s_per_query"] == pytest.approx(0.001)


def test_rag_time_per_query_skips_cached_requests() -> None:
    recs = [
        _timed("h1", 1.0, False, rag_added_tokens=5, rag_retrieval_us=2000),
        _timed("h2", 0.0, True, rag_added_tokens=5, rag_retrieval_us=4000),
    ]
    rag = request_costs(recs)["rag"]
    assert rag["time_s_per_query"] == pytest.approx(1.002)
    assert rag["retrieval_s_per_query"] == pytest.approx(0.003)
