"""Typed RobotEQ results (behavior judgment and spatial grounding) and their JSON.

As in :mod:`socialbench.metrics.results`, each result's ``to_json()`` is exactly what
``metrics.json`` holds and ``from_json`` reads it back. Every mean is a
:class:`~socialbench.metrics.results.Score` (JSON ``{"value", "se"}``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Generic, TypedDict, TypeVar

from socialbench.metrics.classification import LabelScores
from socialbench.metrics.results import (
    JsonObject,
    JsonResult,
    Score,
    ScoringHeader,
    json_object,
    optional_float,
    required_float,
    required_int,
)

__all__ = [
    "JudgmentMetrics",
    "GroundingMetrics",
    "HumanAverage",
    "SubsetBreakdown",
    "RagCosts",
    "RequestCosts",
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


class RequestCosts(TypedDict, total=False):
    """Per-request accounting (see :func:`socialbench.metrics.roboteq.request_costs`); only
    ``requests`` when there were none."""

    requests: int
    cached: int
    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int
    latency_s_per_request: float | None
    latency_note: str
    rag: RagCosts


def _label_scores(data: object, what: str) -> dict[str, LabelScores]:
    out: dict[str, LabelScores] = {}
    for label, v in json_object(data, what).items():
        d = json_object(v, f"{what}.{label}")
        out[str(label)] = LabelScores(
            precision=required_float(d.get("precision"), f"{what}.{label}.precision"),
            recall=required_float(d.get("recall"), f"{what}.{label}.recall"),
            f1=required_float(d.get("f1"), f"{what}.{label}.f1"),
            support=required_int(d.get("support"), f"{what}.{label}.support"),
        )
    return out


class _NamedScores(JsonResult):
    """Scores kept as fields named by their JSON keys (:attr:`SCORES`, in JSON order)."""

    SCORES: ClassVar[tuple[str, ...]] = ()

    def score(self, name: str) -> Score | None:
        """The score called ``name`` (a JSON key such as ``"cwpa"``), or ``None``."""
        value = getattr(self, name, None) if name in self.SCORES else None
        return value if isinstance(value, Score) else None

    def _scores_json(self) -> JsonObject:
        return {name: getattr(self, name).to_json() for name in self.SCORES}


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

    SCORES: ClassVar[tuple[str, ...]] = ("pa", "cwpa", "accuracy", "micro_f1", "macro_f1", "invalid_rate", "error_rate")

    def to_json(self) -> JsonObject:
        return {"n": self.n, **self._scores_json(), "per_label": {k: dict(v) for k, v in self.per_label.items()}}

    @classmethod
    def from_json(cls, data: object, what: str = "judgment") -> JudgmentMetrics:
        d = json_object(data, what)

        def score(name: str) -> Score:
            return Score.from_json(d.get(name), f"{what}.{name}")

        return cls(
            n=required_int(d.get("n"), f"{what}.n"),
            pa=score("pa"),
            cwpa=score("cwpa"),
            accuracy=score("accuracy"),
            micro_f1=score("micro_f1"),
            macro_f1=score("macro_f1"),
            invalid_rate=score("invalid_rate"),
            error_rate=score("error_rate"),
            per_label=_label_scores(d.get("per_label", {}), f"{what}.per_label"),
        )


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

    SCORES: ClassVar[tuple[str, ...]] = ("exact_match", "jaccard", "micro_f1", "macro_f1", "invalid_rate", "error_rate")

    def to_json(self) -> JsonObject:
        return {"n": self.n, **self._scores_json(), "per_option": {k: dict(v) for k, v in self.per_option.items()}}

    @classmethod
    def from_json(cls, data: object, what: str = "grounding") -> GroundingMetrics:
        d = json_object(data, what)

        def score(name: str) -> Score:
            return Score.from_json(d.get(name), f"{what}.{name}")

        return cls(
            n=required_int(d.get("n"), f"{what}.n"),
            exact_match=score("exact_match"),
            jaccard=score("jaccard"),
            micro_f1=score("micro_f1"),
            macro_f1=score("macro_f1"),
            invalid_rate=score("invalid_rate"),
            error_rate=score("error_rate"),
            per_option=_label_scores(d.get("per_option", {}), f"{what}.per_option"),
        )


@dataclass(frozen=True, eq=False)
class HumanAverage(JsonResult):
    """Leave-one-out average-human PA / CWPA over the ``n`` behaviors with >= 2 votes."""

    n: int
    pa: Score
    cwpa: Score

    def to_json(self) -> JsonObject:
        return {"n": self.n, "pa": self.pa.to_json(), "cwpa": self.cwpa.to_json()}

    @classmethod
    def from_json(cls, data: object, what: str = "human_average") -> HumanAverage:
        d = json_object(data, what)
        return cls(
            required_int(d.get("n"), f"{what}.n"),
            Score.from_json(d.get("pa"), f"{what}.pa"),
            Score.from_json(d.get("cwpa"), f"{what}.cwpa"),
        )


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


def _groups(data: object, metrics: type[M], what: str) -> dict[str, M]:
    return {str(g): metrics.from_json(v, f"{what}.{g}") for g, v in json_object(data, what).items()}


def _table1(data: object, what: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for subset, cols in json_object(data, what).items():
        row: dict[str, float] = {}
        for col, v in json_object(cols, f"{what}.{subset}").items():
            x = optional_float(v, f"{what}.{subset}.{col}")
            if x is None:
                raise ValueError(f"{what}.{subset}.{col} must be a number")
            row[str(col)] = x
        out[str(subset)] = row
    return out


def _counts(data: object, what: str) -> dict[str, int]:
    return {str(k): required_int(v, f"{what}.{k}") for k, v in json_object(data, what).items()}


def _requests(data: object, what: str) -> RequestCosts:
    d = json_object(data, what)
    out: RequestCosts = {"requests": required_int(d.get("requests"), f"{what}.requests")}
    if "cached" in d:
        out["cached"] = required_int(d["cached"], f"{what}.cached")
    if "prompt_tokens" in d:
        out["prompt_tokens"] = required_int(d["prompt_tokens"], f"{what}.prompt_tokens")
    if "completion_tokens" in d:
        out["completion_tokens"] = required_int(d["completion_tokens"], f"{what}.completion_tokens")
    if "reasoning_tokens" in d:
        out["reasoning_tokens"] = required_int(d["reasoning_tokens"], f"{what}.reasoning_tokens")
    if "latency_s_per_request" in d:
        out["latency_s_per_request"] = optional_float(d["latency_s_per_request"], f"{what}.latency_s_per_request")
    if "latency_note" in d:
        out["latency_note"] = str(d["latency_note"])
    if "rag" in d:
        rag = json_object(d["rag"], f"{what}.rag")
        out["rag"] = RagCosts(
            queries=required_int(rag.get("queries"), f"{what}.rag.queries"),
            added_prompt_tokens_per_query=required_float(
                rag.get("added_prompt_tokens_per_query"), f"{what}.rag.added_prompt_tokens_per_query"
            ),
            retrieval_s_per_query=required_float(rag.get("retrieval_s_per_query"), f"{what}.rag.retrieval_s_per_query"),
            time_s_per_query=optional_float(rag.get("time_s_per_query"), f"{what}.rag.time_s_per_query"),
        )
    return out


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
    requests: RequestCosts
    human_average: HumanAverage | None = None

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "cwpa_basis": self.cwpa_basis,
            "note": self.note,
            "overall": self.overall.to_json(),
            "by_subset": self.by_subset.to_json(),
            "table1": {k: dict(v) for k, v in self.table1.items()},
            "by_category": {k: v.to_json() for k, v in self.by_category.items()},
            "by_subcategory": {k: v.to_json() for k, v in self.by_subcategory.items()},
            "by_facet": {k: v.to_json() for k, v in self.by_facet.items()},
            "parse_methods": dict(self.parse_methods),
            "requests": dict(self.requests),
        }
        if self.human_average is not None:
            out["human_average"] = self.human_average.to_json()
        return out

    @classmethod
    def from_json(cls, data: object, what: str = "metrics.json") -> JudgmentScores:
        d = json_object(data, what)
        human = d.get("human_average")
        return cls(
            cwpa_basis=str(d.get("cwpa_basis")),
            note=str(d.get("note")),
            overall=JudgmentMetrics.from_json(d.get("overall"), f"{what}.overall"),
            by_subset=SubsetBreakdown.read(d.get("by_subset", {}), JudgmentMetrics, f"{what}.by_subset"),
            table1=_table1(d.get("table1", {}), f"{what}.table1"),
            by_category=_groups(d.get("by_category", {}), JudgmentMetrics, f"{what}.by_category"),
            by_subcategory=_groups(d.get("by_subcategory", {}), JudgmentMetrics, f"{what}.by_subcategory"),
            by_facet=_groups(d.get("by_facet", {}), JudgmentMetrics, f"{what}.by_facet"),
            parse_methods=_counts(d.get("parse_methods", {}), f"{what}.parse_methods"),
            requests=_requests(d.get("requests", {"requests": 0}), f"{what}.requests"),
            human_average=HumanAverage.from_json(human, f"{what}.human_average") if human is not None else None,
        )


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
    requests: RequestCosts

    def to_json(self) -> JsonObject:
        return {
            "note": self.note,
            "overall": self.overall.to_json(),
            "by_subset": self.by_subset.to_json(),
            "by_category": {k: v.to_json() for k, v in self.by_category.items()},
            "by_subcategory": {k: v.to_json() for k, v in self.by_subcategory.items()},
            "by_facet": {k: v.to_json() for k, v in self.by_facet.items()},
            "parse_methods": dict(self.parse_methods),
            "requests": dict(self.requests),
        }

    @classmethod
    def from_json(cls, data: object, what: str = "metrics.json") -> GroundingScores:
        d = json_object(data, what)
        return cls(
            note=str(d.get("note")),
            overall=GroundingMetrics.from_json(d.get("overall"), f"{what}.overall"),
            by_subset=SubsetBreakdown.read(d.get("by_subset", {}), GroundingMetrics, f"{what}.by_subset"),
            by_category=_groups(d.get("by_category", {}), GroundingMetrics, f"{what}.by_category"),
            by_subcategory=_groups(d.get("by_subcategory", {}), GroundingMetrics, f"{what}.by_subcategory"),
            by_facet=_groups(d.get("by_facet", {}), GroundingMetrics, f"{what}.by_facet"),
            parse_methods=_counts(d.get("parse_methods", {}), f"{what}.parse_methods"),
            requests=_requests(d.get("requests", {"requests": 0}), f"{what}.requests"),
        )


@dataclass(frozen=True, eq=False)
class JudgmentResult(JsonResult):
    """What ``roboteq-bj`` scoring writes to ``metrics.json``: the header, then the scores
    (``None`` when nothing was scored: the header's note says so)."""

    header: ScoringHeader
    scores: JudgmentScores | None

    def to_json(self) -> JsonObject:
        out = self.header.to_json()
        if self.scores is not None:
            out.update(self.scores.to_json())
        return out

    @classmethod
    def from_json(cls, data: object, what: str = "metrics.json") -> JudgmentResult:
        header = ScoringHeader.from_json(data, what)
        return cls(header, JudgmentScores.from_json(data, what) if header.n_scored else None)


@dataclass(frozen=True, eq=False)
class GroundingResult(JsonResult):
    """What ``roboteq-sg`` scoring writes to ``metrics.json`` (see :class:`JudgmentResult`)."""

    header: ScoringHeader
    scores: GroundingScores | None

    def to_json(self) -> JsonObject:
        out = self.header.to_json()
        if self.scores is not None:
            out.update(self.scores.to_json())
        return out

    @classmethod
    def from_json(cls, data: object, what: str = "metrics.json") -> GroundingResult:
        header = ScoringHeader.from_json(data, what)
        return cls(header, GroundingScores.from_json(data, what) if header.n_scored else None)
