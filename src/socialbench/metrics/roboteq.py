"""RobotEQ scores and breakdowns: behavior judgment (Table 1) and spatial grounding.

Behavior judgment, per behavior ``u`` with human votes ``p_h`` and model answer ``a``
(RobotEQ §5, the same equations as SocialNav-SUB, see :mod:`socialbench.metrics.agreement`):

* ``PA_u = p_h(a)`` — the share of annotators who gave ``a``;
* ``CWPA_u = p_h(a) / HA_u`` with ``HA_u = max_x p_h(x)``;
* accuracy: ``a`` equals the majority (gold) label;
* micro-F1 / macro-F1 over the labels proper / improper
  (:mod:`socialbench.metrics.classification`);
* invalid rate: the share of behaviors without a valid answer (unparseable or missing
  judgment, or a failed call); error rate: the share whose call failed.

An invalid answer scores 0 everywhere. When the data has no per-annotator votes the vote
distribution is the gold label with probability 1, and PA = CWPA = accuracy; metrics.json
says which applies in ``cwpa_basis`` (``"votes"``, ``"majority"``, or ``"mixed"`` when only
some behaviors have votes).

Spatial grounding: exact-set accuracy, Jaccard, option-level micro/macro F1
(:mod:`socialbench.metrics.grounding`) and the same invalid / error rates.

Every mean comes with ``n`` and its standard error ``std(ddof=1) / sqrt(n)``
(:func:`socialbench.metrics.stats.mean_se`); F1 SEs are bootstrap estimates (200 resamples,
seed 0). Breakdowns: by subset (``synthetic``, ``real`` and their unweighted ``average``,
as the Avg columns of Table 1, with SE ``sqrt(se_s^2 + se_r^2) / 2``), by category, by
subcategory and by facet (a behavior counts in every facet it carries).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypedDict, TypeVar

from socialbench.metrics.agreement import cwpa_paper, human_average_paper, pa_paper
from socialbench.metrics.classification import bootstrap_f1_se, f1_from_counts, per_label, unit_counts
from socialbench.metrics.grounding import exact_set_match, jaccard, option_unit_counts
from socialbench.metrics.results import Score
from socialbench.metrics.roboteq_results import (
    GroundingMetrics,
    HumanAverage,
    JudgmentMetrics,
    RagCosts,
    RequestCosts,
    SubsetBreakdown,
    no_requests,
)
from socialbench.metrics.stats import mean_se
from socialbench.types import HumanVotes, SampleRecord

R = TypeVar("R")
T = TypeVar("T")
M = TypeVar("M", JudgmentMetrics, GroundingMetrics)


class _InSubset(Protocol):
    @property
    def subset(self) -> str: ...


S = TypeVar("S", bound=_InSubset)

__all__ = [
    "JudgmentRow",
    "GroundingRow",
    "JUDGMENT_METRICS",
    "GROUNDING_METRICS",
    "judgment_metrics",
    "grounding_metrics",
    "breakdown",
    "subset_breakdown",
    "table1",
    "cwpa_basis",
    "request_costs",
    "MetricDrop",
    "RobustnessDrop",
    "robustness_drop",
    "format_summary",
]

JUDGMENT_LABELS = ("proper", "improper")
OPTIONS = ("A", "B", "C", "D")
JUDGMENT_METRICS = ("pa", "cwpa", "accuracy", "micro_f1", "macro_f1", "invalid_rate", "error_rate")
GROUNDING_METRICS = ("exact_match", "jaccard", "micro_f1", "macro_f1", "invalid_rate", "error_rate")
_AVERAGED = ("pa", "cwpa", "accuracy", "micro_f1", "macro_f1", "exact_match", "jaccard")


@dataclass(frozen=True)
class JudgmentRow:
    """One scored behavior."""

    item_id: str
    key: str
    gold: str
    pred: str | None
    votes: HumanVotes
    has_votes: bool
    error: bool = False
    subset: str = "unknown"
    category: str | None = None
    subcategory: str | None = None
    facets: tuple[str, ...] = ()


@dataclass(frozen=True)
class GroundingRow:
    """One scored grounding question."""

    item_id: str
    gold: tuple[str, ...]
    pred: tuple[str, ...] | None
    error: bool = False
    subset: str = "unknown"
    category: str | None = None
    subcategory: str | None = None
    facets: tuple[str, ...] = ()


def _stat(values: Sequence[float]) -> Score:
    mean, se, _ = mean_se(values, ddof=1)
    return Score(mean, se if len(values) > 1 else None)


def judgment_metrics(rows: Sequence[JudgmentRow], *, resamples: int = 200, seed: int = 0) -> JudgmentMetrics:
    """PA, CWPA, accuracy, micro/macro F1, invalid and error rates of ``rows`` (non-empty)."""
    if not rows:
        raise ValueError("judgment_metrics needs at least one behavior")
    counts = unit_counts([r.gold for r in rows], [r.pred for r in rows], JUDGMENT_LABELS)
    micro, macro = f1_from_counts(counts.sum(axis=0))
    se_micro, se_macro = bootstrap_f1_se(counts, resamples=resamples, seed=seed)
    return JudgmentMetrics(
        n=len(rows),
        pa=_stat([pa_paper(r.votes, r.pred) for r in rows]),
        cwpa=_stat([cwpa_paper(r.votes, r.pred) for r in rows]),
        accuracy=_stat([1.0 if r.pred == r.gold else 0.0 for r in rows]),
        micro_f1=Score(micro, se_micro),
        macro_f1=Score(macro, se_macro),
        invalid_rate=_stat([1.0 if r.pred is None else 0.0 for r in rows]),
        error_rate=_stat([1.0 if r.error else 0.0 for r in rows]),
        per_label=per_label(counts.sum(axis=0), JUDGMENT_LABELS),
    )


def grounding_metrics(rows: Sequence[GroundingRow], *, resamples: int = 200, seed: int = 0) -> GroundingMetrics:
    """Exact-set accuracy, Jaccard, option micro/macro F1, invalid and error rates."""
    if not rows:
        raise ValueError("grounding_metrics needs at least one question")
    golds = [set(r.gold) for r in rows]
    preds = [None if r.pred is None else set(r.pred) for r in rows]
    counts = option_unit_counts(golds, preds, OPTIONS)
    micro, macro = f1_from_counts(counts.sum(axis=0))
    se_micro, se_macro = bootstrap_f1_se(counts, resamples=resamples, seed=seed)
    return GroundingMetrics(
        n=len(rows),
        exact_match=_stat([exact_set_match(g, p) for g, p in zip(golds, preds)]),
        jaccard=_stat([jaccard(g, p) for g, p in zip(golds, preds)]),
        micro_f1=Score(micro, se_micro),
        macro_f1=Score(macro, se_macro),
        invalid_rate=_stat([1.0 if p is None else 0.0 for p in preds]),
        error_rate=_stat([1.0 if r.error else 0.0 for r in rows]),
        per_option=per_label(counts.sum(axis=0), OPTIONS),
    )


def human_average(rows: Sequence[JudgmentRow]) -> HumanAverage | None:
    """Leave-one-out average-human PA / CWPA over behaviors with >= 2 votes (None if none)."""
    scores = [human_average_paper(r.votes) for r in rows if r.has_votes and r.votes.n >= 2]
    if not scores:
        return None
    return HumanAverage(len(scores), _stat([s.pa for s in scores]), _stat([s.cwpa for s in scores]))


def breakdown(
    rows: Sequence[R],
    groups: Callable[[R], Iterable[str]],
    metric: Callable[[Sequence[R]], T],
) -> dict[str, T]:
    """``metric`` per group; ``groups(row)`` names every group a row belongs to (a row with
    several facets counts in each). Groups are sorted by name."""
    members: dict[str, list[R]] = defaultdict(list)
    for r in rows:
        for g in groups(r):
            members[g].append(r)
    return {g: metric(members[g]) for g in sorted(members)}


def subset_breakdown(rows: Sequence[S], metric: Callable[[Sequence[S]], M]) -> SubsetBreakdown[M]:
    """Per subset, plus ``average`` = unweighted mean of synthetic and real (Table 1 Avg),
    with SE ``sqrt(se_s^2 + se_r^2) / 2`` (``None`` unless both SEs are known)."""
    out = breakdown(rows, lambda r: [r.subset], metric)
    if "synthetic" not in out or "real" not in out:
        return SubsetBreakdown(out)
    syn, real = out["synthetic"], out["real"]
    avg: dict[str, Score] = {}
    for name in _AVERAGED:
        a, b = syn.score(name), real.score(name)
        if a is None or b is None or a.value is None or b.value is None:
            continue
        se = None
        if a.se is not None and b.se is not None:
            se = math.sqrt(a.se**2 + b.se**2) / 2
        avg[name] = Score((a.value + b.value) / 2, se)
    return SubsetBreakdown(out, avg)


def table1(by_subset: SubsetBreakdown[JudgmentMetrics]) -> dict[str, dict[str, float]]:
    """The columns of the paper's Table 1 in percent: PA, CWPA, MicF1, MacF1 per subset and
    the Avg CWPA / MacF1 (only the subsets present)."""
    cols = {"PA": "pa", "CWPA": "cwpa", "MicF1": "micro_f1", "MacF1": "macro_f1"}

    def percent(score: Score | None) -> float:
        if score is None or score.value is None:
            raise ValueError("table1: a Table 1 column has no value")
        return round(100 * score.value, 2)

    out: dict[str, dict[str, float]] = {}
    for subset in ("synthetic", "real"):
        if subset in by_subset.groups:
            out[subset] = {c: percent(by_subset.groups[subset].score(m)) for c, m in cols.items()}
    if by_subset.average is not None:
        out["avg"] = {c: percent(by_subset.average.get(cols[c])) for c in ("CWPA", "MacF1")}
    return out


def cwpa_basis(rows: Sequence[JudgmentRow]) -> str:
    """``votes`` (every behavior has votes), ``majority`` (none has) or ``mixed``."""
    with_votes = sum(1 for r in rows if r.has_votes)
    if with_votes == len(rows):
        return "votes"
    return "majority" if with_votes == 0 else "mixed"


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


class MetricDrop(TypedDict):
    """One metric's value in a clean and a perturbed run and its drop (see
    :func:`robustness_drop`)."""

    clean: float
    perturbed: float
    drop: float
    relative_drop: float | None


class RobustnessDrop(TypedDict):
    """What :func:`robustness_drop` returns: the drops overall and per subset."""

    benchmark: object
    perturbation: object
    overall: dict[str, MetricDrop]
    by_subset: dict[str, dict[str, MetricDrop]]


def _block(metrics: Mapping[str, object], key: str) -> Mapping[str, object]:
    """The JSON object ``metrics[key]`` ({} when absent, null or not an object)."""
    value = metrics.get(key)
    return value if isinstance(value, Mapping) else {}


def _drops(a: Mapping[str, object], b: Mapping[str, object]) -> dict[str, MetricDrop]:
    out: dict[str, MetricDrop] = {}
    for name, va in a.items():
        vb = b.get(name)
        if not (isinstance(va, Mapping) and isinstance(vb, Mapping)):
            continue
        x, y = va.get("value"), vb.get("value")
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            drop = x - y
            out[name] = {"clean": x, "perturbed": y, "drop": drop, "relative_drop": drop / x if x else None}
    return out


def robustness_drop(clean: Mapping[str, object], perturbed: Mapping[str, object]) -> RobustnessDrop:
    """Drop of every metric from a clean run's metrics.json to a perturbed run's.

    For each metric value present in both (``overall`` and each ``by_subset`` group):
    ``clean``, ``perturbed``, ``drop = clean - perturbed`` and
    ``relative_drop = drop / clean`` (None when clean is 0). Rates where lower is better
    (invalid_rate, error_rate) are reported the same way, so their drop is negative when
    they get worse. Raises ``ValueError`` when the two come from different benchmarks.
    """
    if clean.get("benchmark") != perturbed.get("benchmark"):
        raise ValueError(f"cannot compare {clean.get('benchmark')!r} with {perturbed.get('benchmark')!r}")
    result: RobustnessDrop = {
        "benchmark": clean.get("benchmark"),
        "perturbation": perturbed.get("perturbation"),
        "overall": _drops(_block(clean, "overall"), _block(perturbed, "overall")),
        "by_subset": {},
    }
    other_subsets = _block(perturbed, "by_subset")
    for group, values in _block(clean, "by_subset").items():
        other = other_subsets.get(group)
        if isinstance(values, Mapping) and isinstance(other, Mapping):
            result["by_subset"][group] = _drops(values, other)
    return result


def _fmt(stat: object) -> str:
    value = stat.get("value") if isinstance(stat, Mapping) else None
    if not isinstance(value, (int, float)):
        return "—"
    se = stat.get("se") if isinstance(stat, Mapping) else None
    return f"{100 * value:.2f}" + (f" ± {100 * se:.2f}" if isinstance(se, (int, float)) else "")


def format_summary(metrics: Mapping[str, object]) -> str:
    """A few plain-text lines of a RobotEQ metrics.json (percent ± SE) for the CLI."""
    bench = metrics.get("benchmark", "roboteq")
    names = JUDGMENT_METRICS if bench == "roboteq-bj" else GROUNDING_METRICS
    lines = [f"{bench} — {metrics.get('note', '')}".rstrip(" —")]
    rows: list[tuple[str, object]] = [("overall", _block(metrics, "overall"))]
    rows += [(f"  {k}", v) for k, v in _block(metrics, "by_subset").items()]
    header = f"{'group':<24}" + "".join(f"{n:>16}" for n in names)
    lines.append(header)
    for label, values in rows:
        block = values if isinstance(values, Mapping) else {}
        n = block.get("n")
        lines.append(f"{label + (f' (n={n})' if n else ''):<24}" + "".join(f"{_fmt(block.get(m)):>16}" for m in names))
    return "\n".join(lines)


def parse_method_counts(records: Sequence[SampleRecord]) -> dict[str, int]:
    """How many answers each parse rung produced (``invalid`` for None)."""
    return dict(sorted(Counter(r.parse_method or "invalid" for r in records).items()))


__all__ += ["human_average", "parse_method_counts"]
