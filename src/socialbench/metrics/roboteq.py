"""RobotEQ scores and breakdowns: behavior judgment (Table 1) and spatial grounding.

Behavior judgment, per behavior ``u`` with human votes ``p_h`` and model answer ``a``
(RobotEQ §5, the equations of :mod:`socialbench.metrics.agreement`): ``PA_u = p_h(a)``
(Eq. 1), ``CWPA_u = p_h(a) / max_x p_h(x)`` (Eq. 2), accuracy against the majority (gold)
label, micro / macro F1 over proper / improper (:mod:`socialbench.metrics.classification`),
the invalid rate (no valid answer, or a failed call) and the error rate (a failed call).
An invalid answer scores 0 everywhere. Without per-annotator votes the distribution is the
gold label with probability 1, so PA = CWPA = accuracy; ``cwpa_basis`` says which applies
(``"votes"``, ``"majority"``, or ``"mixed"``). Spatial grounding: exact-set accuracy,
Jaccard, option-level micro / macro F1 (:mod:`socialbench.metrics.grounding`) and the same
rates. Costs: :mod:`socialbench.metrics.roboteq_costs`; the CLI summary:
:mod:`socialbench.metrics.roboteq_summary`.

Every mean comes with ``n`` and its SE ``std(ddof=1) / sqrt(n)``; F1 SEs are bootstrap
estimates (200 resamples, seed 0). Breakdowns: by subset (``synthetic``, ``real`` and
their unweighted ``average``, Table 1's Avg columns, SE ``sqrt(se_s^2 + se_r^2) / 2``), by
category, by subcategory and by facet (a behavior counts in every facet it carries).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from socialbench.metrics.agreement import cwpa_paper, human_average_paper, pa_paper
from socialbench.metrics.classification import bootstrap_f1_se, f1_from_counts, per_label, unit_counts
from socialbench.metrics.grounding import exact_set_match, jaccard, option_unit_counts
from socialbench.metrics.results import Score
from socialbench.metrics.roboteq_results import (
    GroundingMetrics,
    HumanAverage,
    JudgmentMetrics,
    SubsetBreakdown,
)
from socialbench.metrics.stats import mean_se
from socialbench.types import HumanVotes

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
    "human_average",
    "INVALID_VOTE",
]

JUDGMENT_LABELS = ("proper", "improper")
#: The paper's third annotator label (RobotEQ §4.3: "proper, improper, or invalid"): a vote
#: cast on a behavior that stayed in the benchmark (one whose majority is invalid was
#: removed). It counts among the behavior's N_H annotators in PA / CWPA (Eq. 1-2) and matches
#: no answer; a model never gives it.
INVALID_VOTE = "invalid"
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
