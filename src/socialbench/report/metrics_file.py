"""Read a run's ``metrics.json`` safely, with the top-level fields the report reads of their
JSON kinds and every value of its score blocks a number (or null)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from socialbench.errors import DataError, Problem
from socialbench.files.safe_read import read_json
from socialbench.files.schema import FieldRule, check_fields, json_kind

#: The top-level fields of metrics.json the report reads, and their JSON kinds.
METRICS_FIELDS: tuple[FieldRule, ...] = (
    FieldRule("benchmark", ("str", "null")),
    FieldRule("model", ("str", "null")),
    FieldRule("protocol", ("str", "null")),
    FieldRule("note", ("str", "null")),
    FieldRule("context", ("str", "null")),
    FieldRule("n_scored", ("int", "null")),
    *(
        FieldRule(name, ("object", "null"))
        for name in (
            "scores",
            "overall",
            "by_category",
            "by_facet",
            "by_subset",
            "run",
            "source",
            "epochs",
            "requests",
            "context_run",
        )
    ),
)
#: metrics.json's ``run``: what the seconds-per-query column reads.
METRICS_RUN_FIELDS: tuple[FieldRule, ...] = (
    FieldRule("wall_time_s", ("number", "null")),
    FieldRule("answered", ("number", "null")),
)
_METRICS_FIX = "re-create it with `socialbench score` or restore the file"


def read_metrics_json(path: Path) -> dict[str, object]:
    """A run's ``metrics.json``, read safely (:func:`~socialbench.files.safe_read.read_json`:
    a regular file, size-capped, strict UTF-8 and JSON) with its top-level fields of their
    kinds (:data:`METRICS_FIELDS`); :class:`DataError` naming the file and field otherwise."""
    data = read_json(path)
    problem = check_fields(data, METRICS_FIELDS, str(path), _METRICS_FIX)
    if problem is None and isinstance(data.get("run"), Mapping):
        problem = check_fields(data["run"], METRICS_RUN_FIELDS, str(path), _METRICS_FIX, prefix="run.")
    for name in SCORE_BLOCKS if problem is None else ():
        found = _not_a_number(data.get(name), name)
        if found is not None:
            where, value = found
            problem = Problem(str(path), where, f"must be a number or null, found {json_kind(value)}", _METRICS_FIX)
            break
    if problem is not None:
        raise DataError(problem)
    metrics: dict[str, object] = data  # a JSON object: check_fields refuses anything else
    return metrics


#: metrics.json's blocks of scores: every value in them is a number (or null), at any depth.
SCORE_BLOCKS = ("scores", "overall", "by_category", "by_facet", "by_subset")


def _not_a_number(block: object, name: str) -> tuple[str, object] | None:
    """The first (path, value) in ``block`` (objects and lists, walked without recursion)
    whose value is neither a number nor null, or None."""
    stack: list[tuple[str, object]] = [(name, block)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, Mapping):
            stack += [(f"{where}.{k}", v) for k, v in reversed(list(value.items()))]
        elif isinstance(value, list):
            stack += [(f"{where}[{i}]", v) for i, v in reversed(list(enumerate(value)))]
        elif value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return where, value
    return None
