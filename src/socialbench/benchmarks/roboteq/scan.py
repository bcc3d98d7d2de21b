"""Read every label file of a RobotEQ dataset folder into records, collecting every problem
(tagged by task) instead of stopping at the first; ids are checked and derived here."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TypeVar

from socialbench.benchmarks.roboteq.fields import surrogate_fields
from socialbench.benchmarks.roboteq.grounding_rows import grounding_question
from socialbench.benchmarks.roboteq.judgment_rows import judgment_scene
from socialbench.benchmarks.roboteq.label_files import find_label_files, read_rows, unreadable_label_files
from socialbench.benchmarks.roboteq.paths import label_file_problem, resolve_image
from socialbench.benchmarks.roboteq.rows import image_value, row_task, task_of_folder
from socialbench.benchmarks.roboteq.schema import (
    CANONICAL_FILE,
    ID_FIELDS,
    TASK_BJ,
    TASK_SG,
    GroundingQuestion,
    JudgmentScene,
)
from socialbench.errors import Problem

__all__ = ["Scan", "scan_roboteq"]

_Record = TypeVar("_Record", JudgmentScene, GroundingQuestion)


@dataclass
class Scan:
    """Everything parsed from a dataset folder, with the problems found (tagged by task)."""

    root: Path
    files: list[Path]
    scenes: list[JudgmentScene] = field(default_factory=list)
    questions: list[GroundingQuestion] = field(default_factory=list)
    problems: list[tuple[str | None, Problem]] = field(default_factory=list)
    #: (task, file, line, image path relative to the root) of every row whose image path
    #: resolved inside the folder, valid or not (``validate`` checks them all)
    images: list[tuple[str, str, int, str]] = field(default_factory=list)

    def add(
        self, task: str | None, file: object, field_name: str, message: str, fix: str, line: int | None = None
    ) -> None:
        """Record one problem of rows of ``task`` (None: of no known task)."""
        self.problems.append((task, Problem(str(file), field_name, message, fix, line)))

    def problems_for(self, task: str) -> list[Problem]:
        """Problems of rows of ``task`` plus those whose task is unknown."""
        return [p for t, p in self.problems if t is None or t == task]


def _assign_ids(
    records: list[_Record], attr: str, task: str, scan: Scan, with_id: Callable[[_Record, str], _Record]
) -> list[_Record]:
    """Explicit ids must be unique; a derived id is the image path without its suffix,
    with ``#j`` (j = 1, 2, ...) appended when several rows share an image. ``with_id`` gives
    a record with another id (in ``attr``)."""
    explicit = Counter(getattr(r, attr) for r in records if getattr(r, attr))
    for r in records:
        rid = getattr(r, attr)
        if rid and explicit[rid] > 1:
            scan.add(
                task, r.source, "id", f"id {rid!r} is used by {explicit[rid]} rows", "give every row its own id", r.line
            )

    def stem(r: _Record) -> str:
        return PurePosixPath(r.image).with_suffix("").as_posix()

    shared = Counter(stem(r) for r in records if not getattr(r, attr))
    seen: Counter[str] = Counter()
    out = []
    for r in records:
        if getattr(r, attr):
            out.append(r)
            continue
        base = stem(r)
        seen[base] += 1
        rid = base if shared[base] == 1 else f"{base}#{seen[base]}"
        if rid in explicit:
            rid = f"{rid}@{r.line}"
        out.append(with_id(r, rid))
    return out


def scan_roboteq(root: Path) -> Scan:
    """Read every label file of ``root``; collect records and all problems found."""
    root = Path(root)
    files = find_label_files(root)
    scan = Scan(root=root, files=files)
    for path in unreadable_label_files(root):
        hint = None if path.name == CANONICAL_FILE else task_of_folder(Path(path.parent.relative_to(root).as_posix()))
        scan.add(
            hint,
            path,
            "",
            f"cannot read the label file: {label_file_problem(path, root) or 'not a regular file'}",
            "replace it with the regular file of the release",
        )
    if not files:
        scan.add(
            None,
            root,
            "",
            f"no {CANONICAL_FILE}, metadata.jsonl or metadata.csv found",
            "pass the folder of the RobotEQ release (see docs/roboteq-format.md)",
        )
        return scan
    for path in files:
        canonical = path.name == CANONICAL_FILE
        meta_rel = path.parent.relative_to(root).as_posix()
        hint = None if canonical else task_of_folder(Path(meta_rel))
        unusable = label_file_problem(path, root)
        if unusable is not None:
            scan.add(
                hint,
                path,
                "",
                f"cannot read the label file: {unusable}",
                "replace it with the regular file of the release",
            )
            continue
        n_rows = 0
        for row in read_rows(path):
            n_rows += 1
            if isinstance(row, Problem):
                scan.problems.append((None, row))
                continue
            task = row_task(row.data, hint)
            if task is None:
                scan.add(
                    None,
                    path,
                    "task",
                    "cannot tell whether the row is behavior judgment or spatial grounding",
                    "add task: behavior_judgment or spatial_grounding",
                    row.line,
                )
                continue
            found: list[tuple[str, str, str]] = []

            def report(
                field_name: str, message: str, fix: str = "", _found: list[tuple[str, str, str]] = found
            ) -> None:
                _found.append((field_name, message, fix))

            for name in surrogate_fields(row.data):
                report(
                    name,
                    "text holds a lone surrogate (an unpaired \\ud800-\\udfff escape) that cannot be written as UTF-8",
                    "remove the escape or write the full character",
                )
            for name in ID_FIELDS:
                value = row.data.get(name)
                if value not in (None, "") and (not isinstance(value, (str, int)) or isinstance(value, bool)):
                    report(
                        name,
                        f"{name} must be a string or an integer, not {type(value).__name__}",
                        "give every row a text id",
                    )

            scene: JudgmentScene | None = None
            question: GroundingQuestion | None = None
            if task == TASK_BJ:
                scene = judgment_scene(row, root, canonical, report, meta_rel)
            else:
                question = grounding_question(row, root, canonical, report, meta_rel)
            image_rel, _ = resolve_image(root, path.parent, image_value(row.data, canonical))
            if image_rel is not None:
                scan.images.append((task, str(path), row.line, image_rel))
            for field_name, message, fix in found:
                scan.add(task, path, field_name, message, fix, row.line)
            if scene is not None and not found:
                scan.scenes.append(scene)
            if question is not None and not found:
                scan.questions.append(question)
        if n_rows == 0:
            scan.add(hint, path, "", "the label file has no rows", "restore the file from the release or remove it")
    scan.scenes = _assign_ids(scan.scenes, "scene_id", TASK_BJ, scan, lambda r, rid: replace(r, scene_id=rid))
    scan.questions = _assign_ids(
        scan.questions, "question_id", TASK_SG, scan, lambda r, rid: replace(r, question_id=rid)
    )
    return scan
