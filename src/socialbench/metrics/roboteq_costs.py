"""What a RobotEQ run cost: requests, tokens, latency and the RAG retrieval figures of
paper Table 2 (:func:`request_costs`), and how many answers each parse rung produced
(:func:`parse_method_counts`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from socialbench.metrics.roboteq_results import RagCosts, RequestCosts, no_requests
from socialbench.types import SampleRecord

__all__ = ["request_costs", "parse_method_counts"]


def request_costs(records: Sequence[SampleRecord]) -> RequestCosts:
    """Per-request accounting, counting each request once (records that share a
    ``request_hash`` came from one per-scene request).

    Latency is averaged over the requests that reached the model: a request answered from
    the response cache has latency 0 and would understate the time per query. When every
    request was cached the averages are None and ``latency_note`` says why.

    ``reasoning_tokens`` (only when a reasoning model reported some) is the part of
    ``completion_tokens`` spent thinking.

    RAG fields (``rag_added_tokens``, ``rag_retrieval_us`` in a record's usage) give the
    Table 2 figures: added prompt tokens and retrieval seconds per query (retrieval runs for
    cached requests too, so these cover every query), plus the mean time per query (model
    latency + retrieval, over the non-cached queries).
    """
    seen: dict[str, SampleRecord] = {}
    for i, r in enumerate(records):
        seen.setdefault(r.request_hash or f"#{i}", r)
    unique = [r for r in seen.values() if r.raw is not None or r.error is not None]
    if not unique:
        return no_requests()
    live = [r for r in unique if not r.cached]
    out: RequestCosts = {
        "requests": len(unique),
        "cached": len(unique) - len(live),
        "prompt_tokens": sum(int(r.usage.get("prompt_tokens", 0)) for r in unique),
        "completion_tokens": sum(int(r.usage.get("completion_tokens", 0)) for r in unique),
        "latency_s_per_request": sum(r.latency_s for r in live) / len(live) if live else None,
    }
    if not live:
        out["latency_note"] = "every request was answered from the response cache: no latency was measured"
    reasoning = sum(int(r.usage.get("reasoning_tokens", 0)) for r in unique)
    if reasoning:  # a reasoning model's thinking, part of completion_tokens (billed as such)
        out["reasoning_tokens"] = reasoning
    rag = [r for r in unique if "rag_added_tokens" in r.usage]
    if rag:

        def retrieval(r: SampleRecord) -> float:
            return r.usage.get("rag_retrieval_us", 0) / 1e6

        rag_live = [r for r in rag if not r.cached]
        out["rag"] = RagCosts(
            {
                "queries": len(rag),
                "added_prompt_tokens_per_query": sum(r.usage["rag_added_tokens"] for r in rag) / len(rag),
                "retrieval_s_per_query": sum(retrieval(r) for r in rag) / len(rag),
                "time_s_per_query": (
                    sum(r.latency_s + retrieval(r) for r in rag_live) / len(rag_live) if rag_live else None
                ),
            }
        )
    return out


def parse_method_counts(records: Sequence[SampleRecord]) -> dict[str, int]:
    """How many answers each parse rung produced (``invalid`` for None)."""
    return dict(sorted(Counter(r.parse_method or "invalid" for r in records).items()))
