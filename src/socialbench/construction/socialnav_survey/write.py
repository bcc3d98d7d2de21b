"""``socialbench build socialnav-answers``: a completed survey's Label Studio export into the
dataset's human answer files (:func:`import_answers`).

Writes ``human_labels/<S>/common_answers.json`` and ``raw_answers.json`` for every
scenario (:mod:`.labels`), ``human_labels/sample_info.json`` (a copy of the sample list, as
the release has) and ``human_labels/survey_answers.json`` (the survey, the exports, the
counts and the agreement statistics). The new ``human_labels`` folder is written whole
beside the old one and then takes its place: an export that is refused, or a run that
stops, leaves the dataset as it was. Labels that an earlier import did not write (the
simulator's, a release's) are kept as ``human_labels.before-survey`` (``-2``, ... when
taken); an earlier import's are replaced."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from socialbench.construction.socialnav_survey.answers import read_survey_export
from socialbench.construction.socialnav_survey.dataset import read_survey_dataset
from socialbench.construction.socialnav_survey.labels import agreement, common_answers, raw_answers
from socialbench.construction.socialnav_survey.staging import discard, publish, staging_folder, write_staged
from socialbench.errors import DataError, UsageError
from socialbench.files.safe_read import read_json, read_regular_bytes

__all__ = ["AnswersImport", "import_answers", "SUMMARY_FILE", "SUMMARY_KIND"]

SUMMARY_FILE = "survey_answers.json"
SUMMARY_KIND = "socialnav-survey-answers"


@dataclass(frozen=True)
class AnswersImport:
    """What :func:`import_answers` wrote."""

    labels: Path
    scenarios: int
    annotators: int  # distinct annotators
    annotations: int  # (scenario, annotator) answer sets used
    cancelled: int
    superseded: int
    previous: Path | None  # where the labels that were there before are kept
    agreement: dict[str, Any]


def _ours(labels: Path) -> bool:
    """Whether ``labels`` was written by an earlier import."""
    path = labels / SUMMARY_FILE
    if labels.is_symlink() or not path.is_file() or path.is_symlink():
        return False
    try:
        doc = read_json(path)
    except (DataError, OSError):  # unreadable: not ours, so it is kept
        return False
    return isinstance(doc, dict) and doc.get("kind") == SUMMARY_KIND


def _backup_name(root: Path) -> Path:
    for i in range(1, 1000):
        path = root / ("human_labels.before-survey" + ("" if i == 1 else f"-{i}"))
        if not path.exists() and not path.is_symlink():
            return path
    raise UsageError(f"{root}: too many human_labels.before-survey folders (fix: remove the old ones)")


def _json(obj: object) -> bytes:
    return (json.dumps(obj, indent=4, ensure_ascii=False) + "\n").encode("utf-8")


def import_answers(data: Path, exports: Sequence[Path], *, min_annotators: int | None = None) -> AnswersImport:
    """Import the Label Studio JSON ``exports`` of the survey of dataset ``data`` (see the
    module docstring); ``min_annotators`` overrides the K the survey asked for.

    Raises :class:`UsageError` for no export or ``min_annotators`` < 2, and
    :class:`~socialbench.errors.DataError` (nothing written) for every problem of
    :func:`~.answers.read_survey_export`."""
    if not exports:
        raise UsageError("give the Label Studio JSON export file(s) of the survey")
    if min_annotators is not None and (isinstance(min_annotators, bool) or min_annotators < 2):
        raise UsageError(
            f"--min-annotators must be at least 2 (got {min_annotators}): PA and CWPA compare each answer with the others"
        )
    ds = read_survey_dataset(data)
    read = read_survey_export(list(exports), ds, min_annotators=min_annotators)
    stats = agreement(ds.bank, ds.samples, read.answers)
    people = {who for panel in read.answers.values() for who in panel}
    summary = {
        "kind": SUMMARY_KIND,
        "survey_id": ds.survey_id,
        "exports": [str(Path(p).absolute()) for p in exports],
        "annotators_asked": read.annotators_asked,
        "min_annotators": min_annotators if min_annotators is not None else max(read.annotators_asked, 2),
        "annotators": len(people),
        "annotations": sum(len(p) for p in read.answers.values()),
        "cancelled": read.cancelled,
        "superseded": read.superseded,
        "annotators_per_scenario": {sid: len(read.answers[sid]) for sid, _ in ds.samples},
        "agreement": stats,
    }
    labels = ds.root / "human_labels"
    empty = labels.is_dir() and not labels.is_symlink() and not any(labels.iterdir())
    present = labels.exists() or labels.is_symlink()
    previous = None if not present or empty or _ours(labels) else _backup_name(ds.root)
    stage = staging_folder(labels)
    try:
        for sid, n in ds.samples:
            panel = read.answers[sid]
            write_staged(stage, f"{sid}/common_answers.json", _json(common_answers(ds.bank, n, panel)))
            write_staged(stage, f"{sid}/raw_answers.json", _json(raw_answers(sid, ds.survey_id, panel)))
        write_staged(stage, "sample_info.json", read_regular_bytes(ds.sample_info))
        write_staged(stage, SUMMARY_FILE, _json(summary))
        publish(stage, labels, previous=previous)
    except BaseException:
        discard(stage)
        raise
    return AnswersImport(
        labels,
        len(ds.samples),
        len(people),
        int(summary["annotations"]),  # type: ignore[call-overload]
        read.cancelled,
        read.superseded,
        previous,
        stats,
    )
