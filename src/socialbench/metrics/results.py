"""Typed results of scoring, and the JSON objects of ``metrics.json`` they stand for.

Every result is a frozen dataclass whose :meth:`~JsonResult.to_json` gives exactly the
JSON object ``metrics.json`` holds for it (same keys, same order, same numbers) and whose
``from_json`` reads that object back. A result also reads like its JSON object
(``result["PA"]``, ``dict(result)``, ``result == {...}``): the values it hands out that
way are plain JSON, so code that reads ``metrics.json`` reads a fresh result the same way.

Cells: :class:`Score` (value, SE, optional n) and :class:`AgreementCell` (PA, CWPA and
their SEs over n items). SocialNav-SUB: :class:`AgreementBlock` (one scorer's cells by
group), :class:`AgreementScores` (the model and the two human rows),
:class:`FailureSummary`. Every benchmark's result starts with a :class:`ScoringHeader`.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "JsonObject",
    "JsonResult",
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
    "json_object",
    "optional_float",
    "optional_int",
    "required_float",
    "required_int",
]

#: A JSON object as ``json.loads`` returns it (the data really is untyped JSON).
JsonObject = dict[str, Any]


class JsonResult(Mapping[str, Any]):
    """A typed result that reads like the JSON object it serialises to."""

    @abstractmethod
    def to_json(self) -> JsonObject:
        """The JSON object of this result, as written to ``metrics.json``."""

    @classmethod
    def from_json(cls, data: object, what: str = "metrics.json") -> JsonResult:
        """The result of this type in ``data`` (the JSON that :meth:`to_json` writes);
        ``ValueError`` naming the field (``what``) that does not fit."""
        raise NotImplementedError(f"{cls.__name__} is not read from JSON")

    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_json())

    def __len__(self) -> int:
        return len(self.to_json())


def json_object(data: object, what: str) -> Mapping[str, Any]:
    """``data`` when it is a JSON object; ``ValueError`` naming ``what`` otherwise."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{what} must be a JSON object, got {type(data).__name__}")
    return data


def optional_float(value: object, what: str) -> float | None:
    """A JSON number (or null) as a float; ``ValueError`` naming ``what`` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} must be a number or null, got {value!r}")
    return value  # an integer stays one, so it is written back as it was read


def required_float(value: object, what: str) -> float:
    """A JSON number; ``ValueError`` naming ``what`` otherwise (null included)."""
    out = optional_float(value, what)
    if out is None:
        raise ValueError(f"{what} must be a number, got null")
    return out


def optional_int(value: object, what: str) -> int | None:
    """A JSON integer (or null); ``ValueError`` naming ``what`` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer or null, got {value!r}")
    return value


def required_int(value: object, what: str) -> int:
    """A JSON integer; ``ValueError`` naming ``what`` otherwise (null included)."""
    out = optional_int(value, what)
    if out is None:
        raise ValueError(f"{what} must be an integer, got null")
    return out


# --------------------------------------------------------------------------- cells


@dataclass(frozen=True, eq=False)
class Score(JsonResult):
    """A mean (or other estimate) with its standard error, and optionally its count.

    JSON: ``{"value", "se"}`` plus ``"n"`` when ``n`` is set. ``value`` is ``None`` when
    nothing could be scored, ``se`` when it is undefined (fewer than 2 units).
    """

    value: float | None
    se: float | None
    n: int | None = None

    def to_json(self) -> JsonObject:
        out: JsonObject = {"value": self.value, "se": self.se}
        if self.n is not None:
            out["n"] = self.n
        return out

    @classmethod
    def from_json(cls, data: object, what: str = "score") -> Score:
        d = json_object(data, what)
        return cls(
            optional_float(d.get("value"), f"{what}.value"),
            optional_float(d.get("se"), f"{what}.se"),
            optional_int(d.get("n"), f"{what}.n"),
        )


@dataclass(frozen=True, eq=False)
class AgreementCell(JsonResult):
    """PA and CWPA of one scorer over the ``n`` items of one group, each with its SE."""

    pa: float
    cwpa: float
    pa_se: float
    cwpa_se: float
    n: int

    def to_json(self) -> JsonObject:
        return {"PA": self.pa, "CWPA": self.cwpa, "PA_se": self.pa_se, "CWPA_se": self.cwpa_se, "n": self.n}

    @classmethod
    def from_json(cls, data: object, what: str = "cell") -> AgreementCell:
        d = json_object(data, what)
        return cls(
            required_float(d.get("PA"), f"{what}.PA"),
            required_float(d.get("CWPA"), f"{what}.CWPA"),
            required_float(d.get("PA_se"), f"{what}.PA_se"),
            required_float(d.get("CWPA_se"), f"{what}.CWPA_se"),
            required_int(d.get("n"), f"{what}.n"),
        )


# --------------------------------------------------------------------------- SocialNav-SUB


@dataclass(frozen=True, eq=False)
class AgreementBlock(JsonResult):
    """One scorer's cells by group, in row order: ``"All"``, the categories, then the base
    question keys (see :func:`socialbench.metrics.scoring.score_entries`)."""

    cells: Mapping[str, AgreementCell]

    def cell(self, group: str) -> AgreementCell | None:
        """The cell of ``group``, or ``None`` when no item of the group was scored."""
        return self.cells.get(group)

    def to_json(self) -> JsonObject:
        return {g: c.to_json() for g, c in self.cells.items()}

    @classmethod
    def from_json(cls, data: object, what: str = "block") -> AgreementBlock:
        d = json_object(data, what)
        return cls({str(g): AgreementCell.from_json(c, f"{what}.{g}") for g, c in d.items()})


@dataclass(frozen=True, eq=False)
class AgreementScores(JsonResult):
    """PA / CWPA blocks of ``"model"``, ``"human:average"`` and ``"human:oracle"``."""

    rows: Mapping[str, AgreementBlock]

    def row(self, scorer: str) -> AgreementBlock | None:
        """The block of ``scorer`` (``"model"``, ``"human:average"``, ``"human:oracle"``)."""
        return self.rows.get(scorer)

    def to_json(self) -> JsonObject:
        return {s: b.to_json() for s, b in self.rows.items()}

    @classmethod
    def from_json(cls, data: object, what: str = "scores") -> AgreementScores:
        d = json_object(data, what)
        return cls({str(s): AgreementBlock.from_json(b, f"{what}.{s}") for s, b in d.items()})


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

    def to_json(self) -> JsonObject:
        return {
            "protocol": self.protocol,
            "n": self.n,
            "failure_rate": self.failure_rate,
            "failure_rate_se": self.failure_rate_se,
            "failure_rate_valid_only": self.failure_rate_valid_only,
            "failure_rate_valid_only_se": self.failure_rate_valid_only_se,
            "n_valid": self.n_valid,
            "invalid_rate": self.invalid_rate,
            "invalid_rate_se": self.invalid_rate_se,
            "error_rate": self.error_rate,
            "error_rate_se": self.error_rate_se,
        }

    @classmethod
    def from_json(cls, data: object, what: str = "failures") -> FailureSummary:
        d = json_object(data, what)

        def num(key: str) -> float:
            return required_float(d.get(key), f"{what}.{key}")

        return cls(
            protocol=str(d.get("protocol")),
            n=required_int(d.get("n"), f"{what}.n"),
            failure_rate=num("failure_rate"),
            failure_rate_se=num("failure_rate_se"),
            failure_rate_valid_only=optional_float(d.get("failure_rate_valid_only"), f"{what}.failure_rate_valid_only"),
            failure_rate_valid_only_se=optional_float(
                d.get("failure_rate_valid_only_se"), f"{what}.failure_rate_valid_only_se"
            ),
            n_valid=required_int(d.get("n_valid"), f"{what}.n_valid"),
            invalid_rate=num("invalid_rate"),
            invalid_rate_se=num("invalid_rate_se"),
            error_rate=num("error_rate"),
            error_rate_se=num("error_rate_se"),
        )


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
    note: str | None = None

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "benchmark": self.benchmark,
            "protocol": self.protocol,
            "n_scored": self.n_scored,
            "n_missing": self.n_missing,
            "n_unknown_predictions": self.n_unknown_predictions,
        }
        if self.note is not None:
            out["note"] = self.note
        return out

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

    def to_json(self) -> JsonObject:
        return {
            "consistency": self.consistency,
            "se": self.se,
            "n": self.n,
            "n_failed": self.n_failed,
            "n_invalid": self.n_invalid,
        }

    @classmethod
    def from_json(cls, data: object, what: str = "consistency") -> ConsistencyRate:
        d = json_object(data, what)
        return cls(
            optional_float(d.get("consistency"), f"{what}.consistency"),
            optional_float(d.get("se"), f"{what}.se"),
            required_int(d.get("n"), f"{what}.n"),
            required_int(d.get("n_failed"), f"{what}.n_failed"),
            required_int(d.get("n_invalid"), f"{what}.n_invalid"),
        )


@dataclass(frozen=True, eq=False)
class ConsistencySummary(JsonResult):
    """Consistency overall (JSON ``"All"``), per category, per question type, per item."""

    overall: ConsistencyRate
    by_category: Mapping[str, ConsistencyRate]
    by_question: Mapping[str, ConsistencyRate]
    by_item: Mapping[str, ConsistencyRate]

    def to_json(self) -> JsonObject:
        return {
            "All": self.overall.to_json(),
            "by_category": {k: v.to_json() for k, v in self.by_category.items()},
            "by_question": {k: v.to_json() for k, v in self.by_question.items()},
            "by_item": {k: v.to_json() for k, v in self.by_item.items()},
        }

    @classmethod
    def from_json(cls, data: object, what: str = "consistency") -> ConsistencySummary:
        d = json_object(data, what)

        def rates(key: str) -> dict[str, ConsistencyRate]:
            return {
                str(k): ConsistencyRate.from_json(v, f"{what}.{key}.{k}")
                for k, v in json_object(d.get(key, {}), f"{what}.{key}").items()
            }

        return cls(
            ConsistencyRate.from_json(d.get("All"), f"{what}.All"),
            rates("by_category"),
            rates("by_question"),
            rates("by_item"),
        )


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

    header: ScoringHeader
    context: str
    accuracy: Score
    n_errors: int
    n_invalid: int
    n_left_out: int
    chance: float | None
    context_run: Mapping[str, Any] | None = None

    def to_json(self) -> JsonObject:
        out = self.header.to_json()
        out.update(
            {
                "context": self.context,
                "context_run": None if self.context_run is None else dict(self.context_run),
                "overall": {"accuracy": self.accuracy.to_json()},
                "n_errors": self.n_errors,
                "n_invalid": self.n_invalid,
                "n_left_out": self.n_left_out,
                "chance": self.chance,
            }
        )
        return out

    @classmethod
    def from_json(cls, data: object, what: str = "metrics.json") -> WaypointResult:
        d = json_object(data, what)
        overall = json_object(d.get("overall", {}), f"{what}.overall")
        return cls(
            header=ScoringHeader.from_json(d, what),
            context=str(d.get("context", "none")),
            accuracy=Score.from_json(overall.get("accuracy"), f"{what}.overall.accuracy"),
            n_errors=required_int(d.get("n_errors"), f"{what}.n_errors"),
            n_invalid=required_int(d.get("n_invalid"), f"{what}.n_invalid"),
            n_left_out=required_int(d.get("n_left_out"), f"{what}.n_left_out"),
            chance=optional_float(d.get("chance"), f"{what}.chance"),
            context_run=None if d.get("context_run") is None else json_object(d["context_run"], f"{what}.context_run"),
        )


# --------------------------------------------------------------------------- any other benchmark


@dataclass(frozen=True, eq=False)
class PlainResult(JsonResult):
    """The header followed by a benchmark's own figures, given as JSON: the result of a
    benchmark without a typed result of its own. ``from_json`` keeps every key after the
    header (what the runner adds, ``run`` and ``source``, included)."""

    header: ScoringHeader
    figures: Mapping[str, Any]

    def to_json(self) -> JsonObject:
        out = self.header.to_json()
        out.update(self.figures)
        return out

    @classmethod
    def from_json(cls, data: object, what: str = "metrics.json") -> PlainResult:
        header = ScoringHeader.from_json(data, what)
        own = header.to_json()
        return cls(header, {k: v for k, v in json_object(data, what).items() if k not in own})
