"""One RobotEQ label-file row: which task it belongs to and the fields every task reads
(image path, subset, optional text). :mod:`~.judgment_rows` and :mod:`~.grounding_rows` turn
rows into records; every problem of a row is reported through ``report(field, message,
fix)`` (:data:`RowReport`), and a row with problems gives None."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from socialbench.benchmarks.roboteq.fields import parse_letters, parse_list_field
from socialbench.benchmarks.roboteq.schema import TASK_BJ, TASK_SG, normalise_label, normalise_subset

__all__ = [
    "ANSWER_FIELDS",
    "Counted",
    "RowReport",
    "row_task",
    "task_of_folder",
    "image_value",
    "filled",
    "infer_subset",
    "opt_str",
]

#: ``report(field, message, fix)``: records one problem of the row being read.
RowReport = Callable[[str, str, str], None]


class Counted:
    """A :data:`RowReport` that passes each problem on and counts them in ``n``."""

    def __init__(self, report: RowReport) -> None:
        self._report = report
        self.n = 0

    def __call__(self, field_name: str, message: str, fix: str) -> None:
        self.n += 1
        self._report(field_name, message, fix)


_TASKS = {
    "behavior_judgment": TASK_BJ,
    "behavior-judgment": TASK_BJ,
    "judgment": TASK_BJ,
    "bj": TASK_BJ,
    "action_judgment": TASK_BJ,
    "action-judgment": TASK_BJ,
    "spatial_grounding": TASK_SG,
    "spatial-grounding": TASK_SG,
    "grounding": TASK_SG,
    "sg": TASK_SG,
}
ANSWER_FIELDS = ("answer", "answers", "gt_labels", "gt_answer", "gt")


def row_task(row: Mapping[str, object], folder_hint: str | None) -> str | None:
    """The task of a row: its ``task`` field, else what its fields look like, else ``folder_hint``."""
    task = row.get("task")
    if isinstance(task, str) and task.strip().casefold() in _TASKS:
        return _TASKS[task.strip().casefold()]
    # CSV rows keep every column (empty ones as None): a column counts only when filled
    if filled(row.get("labels")) or filled(row.get("behaviors")):
        return TASK_BJ
    for name in ANSWER_FIELDS:
        raw = row.get(name)
        if raw in (None, "", []):
            continue
        values = parse_list_field(raw)
        if values and all(normalise_label(v) is not None for v in values):
            return TASK_BJ
        if parse_letters(raw)[1] is None:
            return TASK_SG
    if any(row.get(name) not in (None, "", []) for name in ("answer", "answers", "gt_answer", "gt")):
        return TASK_SG  # a grounding row with a malformed answer: report it as such
    return folder_hint


def filled(value: object) -> bool:
    """True unless ``value`` is absent: None, blank text or an empty list / object."""
    if value is None:
        return False
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, (list, tuple, dict)):
        return bool(value)
    return True


def task_of_folder(meta_dir: Path) -> str | None:
    """The task a metadata folder's name suggests (``behavior_judgment/``, ``grounding/``...), or None."""
    for part in reversed(meta_dir.parts):
        p = part.casefold()
        if "ground" in p:
            return TASK_SG
        if "judg" in p or "behavio" in p or "action" in p:
            return TASK_BJ
    return None


def infer_subset(*paths: str) -> str | None:
    for path in paths:
        for part in Path(path).parts:
            guess = normalise_subset(part)
            if guess is not None:
                return guess
    return None


def image_value(row: Mapping[str, object], canonical: bool) -> object:
    """The raw image path field of a row."""
    if canonical:
        return row.get("image")
    return row.get("file_name") or row.get("image") or row.get("image_path")


def opt_str(row: Mapping[str, object], key: str) -> str | None:
    v = row.get(key)
    return v.strip() if isinstance(v, str) and v.strip() else None
