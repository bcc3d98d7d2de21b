"""Typed results of scoring, and the JSON objects of ``metrics.json`` they stand for.

Every result is a frozen dataclass whose :meth:`~JsonResult.to_json` gives exactly the
JSON object ``metrics.json`` holds for it and whose ``from_json`` reads it back
(:mod:`socialbench.metrics.json_result`). A result also reads like its JSON object
(``result["PA"]``, ``dict(result)``, ``result == {...}``), handing out plain JSON values.

Cells: :class:`Score` (value, SE, optional n) and :class:`AgreementCell` (PA, CWPA and
their SEs over n items). SocialNav-SUB: :class:`AgreementBlock` (one scorer's cells by
group), :class:`AgreementScores` (the model and the two human rows),
:class:`FailureSummary`. Every benchmark's result starts with a :class:`ScoringHeader`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from socialbench.metrics.json_result import (
    JsonObject,
    JsonResult,
    json_key,
    json_object,
    required_int,
)

__all__ = [
    "Score",
    "AgreementCell",
    "AgreementBlock",
    "AgreementScores",
    "FailureSummary",
    "ScoringHeader",
    "ConsistencyRate",
    "ConsistencySummary",
    "SocialNavResult",
    "WaypointResult",
    "PlainResult",
]


# --------------------------------------------------------------------------- cells


@dataclass(frozen=True, eq=False)
class Score(JsonResult):
    """A mean (or other estimate) with its standard error, and optionally its count.

    JSON: ``{"value", "se"}`` plus ``"n"`` when ``n`` is set. ``value`` is ``None`` when
    nothing could be scored, ``se`` when it is undefined (fewer than 2 units).
    """

    value: float | None
    se: float | None
    n: int | None = field(default=None, metadata=json_key(omit_none=True))


@dataclass(frozen=True, eq=False)
class AgreementCell(JsonResult):
    """PA and CWPA of one scorer over the ``n`` items of one group, each with its SE."""

    pa: float = field(metadata=json_key("PA"))
    cwpa: float = field(metadata=json_key("CWPA"))
    pa_se: float = field(metadata=json_key("PA_se"))
    cwpa_se: float = field(metadata=json_key("CWPA_se"))
    n: int


# --------------------------------------------------------------------------- SocialNav-SUB


@dataclass(frozen=True, eq=False)
class AgreementBlock(JsonResult):
    """One scorer's cells by group, in row order: ``"All"``, the categories, then the base
    question keys (see :func:`socialbench.metrics.scoring.score_entries`)."""

    cells: Mapping[str, AgreementCell] = field(metadata=json_key(flat=True))

    def cell(self, group: str) -> AgreementCell | None:
        """The cell of ``group``, or ``None`` when no item of the group was scored."""
        return self.cells.get(group)


@dataclass(frozen=True, eq=False)
class AgreementScores(JsonResult):
    """PA / CWPA blocks of ``"model"``, ``"human:average"`` and ``"human:oracle"``."""

    rows: Mapping[str, AgreementBlock] = field(metadata=json_key(flat=True))

    def row(self, scorer: str) -> AgreementBlock | None:
        """The block of ``scorer`` (``"model"``, ``"human:average"``, ``"human:oracle"``)."""
        return self.rows.get(scorer)


@dataclass(frozen=True, eq=False)
class FailureSummary(JsonResult):
    """Failure, invalid-answer and error rates with their SEs (paper App. 7.6; see
    :func:`socialbench.metrics.failures.failure_summary`)."""

    protocol: str
    n: int
    failure_rate: float
    failure_rate_se: float
    failure_rate_valid_only: float | None
    failure_rate_valid_only_se: float | None
    n_valid: int
    invalid_rate: float
    invalid_rate_se: float
    error_rate: float
    error_rate_se: float


# --------------------------------------------------------------------------- every benchmark


@dataclass(frozen=True, eq=False)
class ScoringHeader(JsonResult):
    """The counts every ``metrics.json`` starts with: the benchmark, the protocol, how many
    questions were scored, how many have no prediction, how many predictions name no
    question of the dataset, and a note when nothing could be scored."""

    benchmark: str
    protocol: str
    n_scored: int
    n_missing: int
    n_unknown_predictions: int
    note: str | None = field(default=None, metadata=json_key(omit_none=True))

    @classmethod
    def from_json(cls, data: object, what: str = "metrics.json") -> ScoringHeader:
        """The header of a ``metrics.json`` object. The header has a note only when nothing
        was scored (``n_scored`` 0); any other ``note`` belongs to the scores after it."""
        d = json_object(data, what)
        n_scored = required_int(d.get("n_scored"), f"{what}.n_scored")
        note = d.get("note") if n_scored == 0 else None
        return cls(
            benchmark=str(d.get("benchmark", "")),
            protocol=str(d.get("protocol", "")),
            n_scored=n_scored,
            n_missing=required_int(d.get("n_missing"), f"{what}.n_missing"),
            n_unknown_predictions=required_int(d.get("n_unknown_predictions"), f"{what}.n_unknown_predictions"),
            note=None if note is None else str(note),
        )


# --------------------------------------------------------------------------- consistency


@dataclass(frozen=True, eq=False)
class ConsistencyRate(JsonResult):
    """Metamorphic consistency of one group of pairs (see
    :mod:`socialbench.metrics.consistency`): the rate (``None`` when no pair could be
    scored), its SE (sample std / sqrt n, ``None`` below 2 pairs), the scored pairs and the
    failed and invalid ones left out."""

    consistency: float | None
    se: float | None
    n: int
    n_failed: int
    n_invalid: int


@dataclass(frozen=True, eq=False)
class ConsistencySummary(JsonResult):
    """Consistency overall (JSON ``"All"``), per category, per question type, per item."""

    overall: ConsistencyRate = field(metadata=json_key("All"))
    by_category: Mapping[str, ConsistencyRate]
    by_question: Mapping[str, ConsistencyRate]
    by_item: Mapping[str, ConsistencyRate]


# --------------------------------------------------------------------------- SocialNav-SUB result


@dataclass(frozen=True, eq=False)
class SocialNavResult(JsonResult):
    """What SocialNav-SUB scoring writes to ``metrics.json``.

    ``scores`` and ``failures`` are ``None`` (JSON ``{}``) when nothing was scored. Under a
    metamorphic perturbation ``consistency`` is set, ``scores`` / ``failures`` are the
    variants' and ``clean_scores`` the original questions' (``None``, JSON ``{}``, when
    none were answered); without one neither ``clean_scores`` nor ``consistency`` is written.
    """

    header: ScoringHeader
    scores: AgreementScores | None
    failures: FailureSummary | None
    clean_scores: AgreementScores | None = None
    consistency: ConsistencySummary | None = None

    def to_json(self) -> JsonObject:
        out = self.header.to_json()
        out["scores"] = self.scores.to_json() if self.scores is not None else {}
        out["failures"] = self.failures.to_json() if self.failures is not None else {}
        if self.consistency is not None:
            out["clean_scores"] = self.clean_scores.to_json() if self.clean_scores is not None else {}
            out["consistency"] = self.consistency.to_json()
        return out

    @classmethod
    def from_json(cls, data: object, what: str = "metrics.json") -> SocialNavResult:
        d = json_object(data, what)
        scores, failures, clean = d.get("scores") or None, d.get("failures") or None, d.get("clean_scores") or None
        consistency = d.get("consistency")
        return cls(
            header=ScoringHeader.from_json(d, what),
            scores=AgreementScores.from_json(scores, f"{what}.scores") if scores is not None else None,
            failures=FailureSummary.from_json(failures, f"{what}.failures") if failures is not None else None,
            clean_scores=AgreementScores.from_json(clean, f"{what}.clean_scores") if clean is not None else None,
            consistency=ConsistencySummary.from_json(consistency, f"{what}.consistency")
            if consistency is not None
            else None,
        )


# --------------------------------------------------------------------------- waypoint result


@dataclass(frozen=True, eq=False)
class WaypointResult(JsonResult):
    """What ``socialnav-waypoint`` scoring writes to ``metrics.json``: the header, the scene
    context the prompts carried, the accuracy (JSON ``overall.accuracy``, with its n), the
    failed calls and invalid answers (scored 0), the samples left out of the dataset, the
    chance accuracy (``None`` for an empty dataset) and, for ``--context model:RUN_DIR``, what
    identifies the checked Same-Model run whose answers the prompts carried (``context_run``:
    benchmark, model, model identity, dataset fingerprint, method, images; ``None`` for other
    contexts)."""

    header: ScoringHeader = field(metadata=json_key(flat=True))
    context: str = field(default="none", kw_only=True)
    context_run: Mapping[str, object] | None = field(default=None, kw_only=True)
    accuracy: Score = field(metadata=json_key(("overall", "accuracy")))
    n_errors: int
    n_invalid: int
    n_left_out: int
    chance: float | None


# --------------------------------------------------------------------------- any other benchmark


@dataclass(frozen=True, eq=False)
class PlainResult(JsonResult):
    """The header followed by a benchmark's own figures, given as JSON: the result of a
    benchmark without a typed result of its own. ``from_json`` keeps every key after the
    header (what the runner adds, ``run`` and ``source``, included)."""

    header: ScoringHeader = field(metadata=json_key(flat=True))
    figures: Mapping[str, object] = field(metadata=json_key(flat=True))

    @classmethod
    def from_json(cls, data: object, what: str = "metrics.json") -> PlainResult:
        header = ScoringHeader.from_json(data, what)
        own = header.to_json()
        return cls(header, {k: v for k, v in json_object(data, what).items() if k not in own})
