"""Typed RobotEQ results (behavior judgment and spatial grounding) and their JSON.

As in :mod:`socialbench.metrics.results`, each result's ``to_json()`` is exactly what
``metrics.json`` holds and ``from_json`` reads it back, both following the field
declarations (:mod:`socialbench.metrics.json_result`). Every mean is a
:class:`~socialbench.metrics.results.Score` (JSON ``{"value", "se"}``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Generic, TypedDict, TypeVar

from socialbench.metrics.classification import LabelScores
from socialbench.metrics.json_result import JsonObject, JsonResult, json_key, json_object
from socialbench.metrics.results import Score, ScoringHeader

__all__ = [
    "JudgmentMetrics",
    "GroundingMetrics",
    "HumanAverage",
    "SubsetBreakdown",
    "RagCosts",
    "RequestCosts",
    "no_requests",
    "JudgmentScores",
    "JudgmentResult",
    "GroundingScores",
    "GroundingResult",
]


class RagCosts(TypedDict):
    """Retrieval costs per query of a RAG run (paper Table 2)."""

    queries: int
    added_prompt_tokens_per_query: float
    retrieval_s_per_query: float
    time_s_per_query: float | None


class _Requests(TypedDict):
    requests: int


class RequestCosts(_Requests, total=False):
    """Per-request accounting (see :func:`socialbench.metrics.roboteq_costs.request_costs`), keys in
    the order it writes them; only ``requests`` when there were none."""

    cached: int
    prompt_tokens: int
    completion_tokens: int
    latency_s_per_request: float | None
    latency_note: str
    reasoning_tokens: int
    rag: RagCosts


def no_requests() -> RequestCosts:
    """The costs of a run that sent no request."""
    return {"requests": 0}


class _NamedScores(JsonResult):
    """Scores kept as fields named by their JSON keys."""

    def score(self, name: str) -> Score | None:
        """The score called ``name`` (a JSON key such as ``"cwpa"``), or ``None``."""
        value = getattr(self, name, None)
        return value if isinstance(value, Score) else None


@dataclass(frozen=True, eq=False)
class JudgmentMetrics(_NamedScores):
    """Behavior-judgment scores of a set of behaviors (RobotEQ Table 1)."""

    n: int
    pa: Score
    cwpa: Score
    accuracy: Score
    micro_f1: Score
    macro_f1: Score
    invalid_rate: Score
    error_rate: Score
    per_label: Mapping[str, LabelScores]


@dataclass(frozen=True, eq=False)
class GroundingMetrics(_NamedScores):
    """Spatial-grounding scores of a set of questions (RobotEQ Figure 5)."""

    n: int
    exact_match: Score
    jaccard: Score
    micro_f1: Score
    macro_f1: Score
    invalid_rate: Score
    error_rate: Score
    per_option: Mapping[str, LabelScores]


@dataclass(frozen=True, eq=False)
class HumanAverage(JsonResult):
    """Leave-one-out average-human PA / CWPA over the ``n`` behaviors with >= 2 votes."""

    n: int
    pa: Score
    cwpa: Score


M = TypeVar("M", JudgmentMetrics, GroundingMetrics)


@dataclass(frozen=True, eq=False)
class SubsetBreakdown(JsonResult, Generic[M]):
    """Scores per subset (sorted by name) and, when both ``synthetic`` and ``real`` are
    there, their unweighted ``average`` (Table 1 Avg; JSON key ``"average"``, last)."""

    groups: Mapping[str, M]
    average: Mapping[str, Score] | None = None

    def to_json(self) -> JsonObject:
        out: JsonObject = {g: m.to_json() for g, m in self.groups.items()}
        if self.average is not None:
            out["average"] = {k: v.to_json() for k, v in self.average.items()}
        return out

    @staticmethod
    def read(data: object, metrics: type[M], what: str = "by_subset") -> SubsetBreakdown[M]:
        """The breakdown of ``metrics`` results in a ``by_subset`` JSON object."""
        d = json_object(data, what)
        groups = {str(g): metrics.from_json(v, f"{what}.{g}") for g, v in d.items() if g != "average"}
        avg = d.get("average")
        average = None
        if avg is not None:
            average = {
                str(k): Score.from_json(v, f"{what}.average.{k}")
                for k, v in json_object(avg, f"{what}.average").items()
            }
        return SubsetBreakdown(groups, average)

    @classmethod
    def from_json_of(cls, type_args: tuple[object, ...], data: object, what: str) -> JsonResult:
        """The breakdown of ``SubsetBreakdown[JudgmentMetrics]`` or ``[GroundingMetrics]``."""
        if type_args == (JudgmentMetrics,):
            return SubsetBreakdown.read(data, JudgmentMetrics, what)
        if type_args == (GroundingMetrics,):
            return SubsetBreakdown.read(data, GroundingMetrics, what)
        raise TypeError(f"{what}: SubsetBreakdown of {type_args!r}")


@dataclass(frozen=True, eq=False)
class JudgmentScores(JsonResult):
    """Behavior-judgment scores of a run, after the header in ``metrics.json``."""

    cwpa_basis: str
    note: str
    overall: JudgmentMetrics
    by_subset: SubsetBreakdown[JudgmentMetrics]
    table1: Mapping[str, Mapping[str, float]]
    by_category: Mapping[str, JudgmentMetrics]
    by_subcategory: Mapping[str, JudgmentMetrics]
    by_facet: Mapping[str, JudgmentMetrics]
    parse_methods: Mapping[str, int]
    requests: RequestCosts = field(default_factory=no_requests)
    human_average: HumanAverage | None = field(default=None, metadata=json_key(omit_none=True))


@dataclass(frozen=True, eq=False)
class GroundingScores(JsonResult):
    """Spatial-grounding scores of a run, after the header in ``metrics.json``."""

    note: str
    overall: GroundingMetrics
    by_subset: SubsetBreakdown[GroundingMetrics]
    by_category: Mapping[str, GroundingMetrics]
    by_subcategory: Mapping[str, GroundingMetrics]
    by_facet: Mapping[str, GroundingMetrics]
    parse_methods: Mapping[str, int]
    requests: RequestCosts = field(default_factory=no_requests)


@dataclass(frozen=True, eq=False)
class JudgmentResult(JsonResult):
    """What ``roboteq-bj`` scoring writes to ``metrics.json``: the header, then the scores
    (``None`` when nothing was scored: the header's note says so)."""

    header: ScoringHeader = field(metadata=json_key(flat=True))
    scores: JudgmentScores | None = field(metadata=json_key(flat=True))

    @classmethod
    def from_json(cls, data: object, what: str = "metrics.json") -> JudgmentResult:
        header = ScoringHeader.from_json(data, what)
        return cls(header, JudgmentScores.from_json(data, what) if header.n_scored else None)


@dataclass(frozen=True, eq=False)
class GroundingResult(JsonResult):
    """What ``roboteq-sg`` scoring writes to ``metrics.json`` (see :class:`JudgmentResult`)."""

    header: ScoringHeader = field(metadata=json_key(flat=True))
    scores: GroundingScores | None = field(metadata=json_key(flat=True))

    @classmethod
    def from_json(cls, data: object, what: str = "metrics.json") -> GroundingResult:
        header = ScoringHeader.from_json(data, what)
        return cls(header, GroundingScores.from_json(data, what) if header.n_scored else None)
