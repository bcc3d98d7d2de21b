"""Import of Label Studio JSON exports into one annotation row per (kind, item, annotator):
cancelled annotations are skipped, and of an annotator's repeated submissions the later one
wins (``updated_at``, else ``created_at``, as ISO 8601 times, a time without an offset in UTC;
then the annotation id). Rows of different kinds never replace each other."""

from __future__ import annotations

import dataclasses
import re
import reprlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from socialbench.construction.annotation_config import KINDS, NO_IMAGE_KIND
from socialbench.construction.annotation_results import (
    EXPORT_FIX,
    TASK_FIX,
    AnnotationRow,
    BadField,
    annotation_row,
    behavior_number,
    check_id,
    id_text,
    json_kind,
)
from socialbench.errors import DataError, Problem

__all__ = ["ImportResult", "annotation_time", "import_export", "MAX_EXPORT_BYTES"]

#: Largest Label Studio export read (bytes); an export of the paper's ~6,000 judgment tasks
#: with three annotations each is ~20 MB.
MAX_EXPORT_BYTES = 256 * 1024**2


@dataclass
class ImportResult:
    """The rows of one import, per kind, and what was left out."""

    rows: dict[str, list[AnnotationRow]]  # kind -> rows
    superseded: int = 0  # earlier annotations replaced by a later one of the same annotator
    cancelled: int = 0
    skipped_tasks: int = 0  # tasks without annotations


def _kind_of(data: Mapping[str, object]) -> str | None:
    if data.get("kind") in KINDS:
        return str(data["kind"])
    if "behavior" in data:
        return "judgment"
    if "original" in data and "edited" in data:
        return "verification"
    if "options_text" in data:
        return "grounding"
    return None


_EPOCH = datetime.min.replace(tzinfo=timezone.utc)
_ISO_TIME = re.compile(r"(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?(Z|z|[+-]\d{2}:?\d{2})?")


def annotation_time(value: object) -> datetime | None:
    """``updated_at`` / ``created_at`` of a Label Studio annotation as an aware datetime.

    Accepts ISO 8601 with any fraction precision and ``Z`` or an offset; a time without an
    offset counts as UTC. Returns None for a missing value; raises ValueError for text that
    is not an ISO 8601 time.
    """
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not an ISO 8601 time")
    text = value.strip()
    m = _ISO_TIME.fullmatch(text)
    if m:  # normalise what Python 3.10's fromisoformat refuses: any fraction length, Z, +HHMM
        base, frac, offset = m.groups()
        text = base + (f".{frac[:6].ljust(6, '0')}" if frac else "")
        if offset:
            text += "+00:00" if offset in ("Z", "z") else f"{offset[:3]}:{offset[-2:]}"
    parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=timezone.utc)


def _order(ann: Mapping[str, object]) -> tuple[datetime, float]:
    """Sort key of an annotation: (its time, else the epoch; its id)."""
    stamp = ann.get("updated_at") or ann.get("created_at")
    when = annotation_time(stamp)
    aid = ann.get("id")
    return (when or _EPOCH, aid if isinstance(aid, (int, float)) else 0)


def read_export(path: Path) -> list[object]:
    """The tasks of one export file, read as untrusted (:func:`socialbench.files.safe_read.read_json`:
    a regular file of at most :data:`MAX_EXPORT_BYTES`, strict UTF-8 JSON, bounded depth)."""
    from socialbench.files.safe_read import read_json

    try:
        doc = read_json(path, MAX_EXPORT_BYTES)
    except DataError as exc:
        raise DataError([dataclasses.replace(p, fix=EXPORT_FIX) for p in exc.problems]) from None
    if not isinstance(doc, list):
        raise DataError.single(
            path,
            "",
            f"export is {json_kind(doc)}, not a list of tasks",
            "use Label Studio's JSON export (not JSON-MIN or CSV)",
        )
    return doc


def import_export(paths: Sequence[str | Path]) -> ImportResult:
    """Rows per kind from Label Studio JSON exports (see the module docstring).

    Raises :class:`DataError` with one problem per bad task or annotation, each naming the
    file, the task (and annotation) and the field, for: a file that is not a regular JSON
    file of at most :data:`MAX_EXPORT_BYTES` (a FIFO or ``/dev/zero`` is refused without
    being read), an export that is not a list of tasks, tasks without ``item_id`` or kind,
    fields of the wrong type (``k``, ``annotations``, ``result``, ``value``, ``choices``,
    ...), choices outside the allowed values and times that are not ISO 8601.
    """
    problems: list[Problem] = []
    # keyed by (kind, row id): a verification and a grounding task may share an item_id
    latest: dict[tuple[str, str], tuple[tuple[datetime, float], AnnotationRow]] = {}
    result = ImportResult(rows={k: [] for k in KINDS})
    for path in paths:
        p = Path(path)
        for t_index, task in enumerate(read_export(p)):
            data = task.get("data") if isinstance(task, dict) else None
            where = f"task {id_text(task.get('id'), t_index) if isinstance(task, dict) else f'#{t_index}'}"
            if not isinstance(task, dict) or not isinstance(data, dict):  # data is None when task is no object
                problems.append(Problem(str(p), where, "task has no data", TASK_FIX))
                continue
            if "kind" in data and data["kind"] not in KINDS:
                problems.append(
                    Problem(
                        str(p), f"{where}.data.kind", f"{reprlib.repr(data['kind'])} is not one of {KINDS}", TASK_FIX
                    )
                )
                continue
            kind = _kind_of(data)
            item = data.get("item_id")
            if kind is None or not isinstance(item, str):
                problems.append(Problem(str(p), f"{where}.data", "task has no kind/item_id", TASK_FIX))
                continue
            try:
                task_id = check_id(task.get("id"), "id")
                k = behavior_number(data) if kind in ("judgment", NO_IMAGE_KIND) else None
                anns = task.get("annotations")
                if anns is None:
                    anns = []
                if not isinstance(anns, list):
                    raise BadField("annotations", f"is {json_kind(anns)}, not a list of annotations")
                for a_index, ann in enumerate(anns):
                    if not isinstance(ann, dict):
                        raise BadField(f"annotations[{a_index}]", f"is {json_kind(ann)}, not an annotation object")
            except BadField as bad:
                problems.append(Problem(str(p), f"{where}.{bad.field}", bad.message, bad.fix))
                continue
            if not anns:
                result.skipped_tasks += 1
            for a_index, ann in enumerate(anns):
                at = f"{where}.annotation {id_text(ann.get('id'), a_index)}"
                cancelled = ann.get("was_cancelled")
                if cancelled is not None and not isinstance(cancelled, bool):
                    problems.append(
                        Problem(str(p), f"{at}.was_cancelled", f"is {json_kind(cancelled)}, not true/false", EXPORT_FIX)
                    )
                    continue
                if cancelled:
                    result.cancelled += 1
                    continue
                try:
                    row = annotation_row(kind, item, k, task_id, ann)
                except BadField as bad:
                    problems.append(Problem(str(p), f"{at}.{bad.field}" if bad.field else at, bad.message, bad.fix))
                    continue
                try:
                    order = _order(ann)
                except ValueError:
                    stamp = ann.get("updated_at") or ann.get("created_at")
                    problems.append(
                        Problem(
                            str(p),
                            f"{at}.updated_at",
                            f"{reprlib.repr(stamp)} is not an ISO 8601 time",
                            "keep Label Studio's updated_at / created_at values as exported",
                        )
                    )
                    continue
                slot = (kind, row["id"])
                if slot in latest:
                    result.superseded += 1
                    if latest[slot][0] > order:
                        continue
                latest[slot] = (order, row)
    if problems:
        raise DataError(problems)
    for _, row in latest.values():
        result.rows[row["kind"]].append(row)
    for rows in result.rows.values():
        rows.sort(key=lambda r: (r["item_id"], r.get("k", 0), r["annotator"]))
    return result
