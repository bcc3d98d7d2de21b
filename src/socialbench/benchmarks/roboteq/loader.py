"""Load RobotEQ (behavior judgment and spatial grounding) into :class:`Item`\\ s.

The folder is read by :func:`~socialbench.benchmarks.roboteq.scan.scan_roboteq`; this module
turns its records into items. The sources (published image-folder layout, canonical
``roboteq.jsonl``, hub id) and their fields are described in docs/roboteq-format.md.

``roboteq-bj``: one item per scene, one single-choice question ``b<k>`` per behavior over
``("proper", "improper")``. ``roboteq-sg``: one item per question, one multiple-select
question ``sg`` over ``("A", "B", "C", "D")``. ``Item.votes`` hold the per-annotator
distribution when the data has votes, else the gold label with probability 1 and ``n = 1``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from socialbench.benchmarks.roboteq.hub import resolve_data
from socialbench.benchmarks.roboteq.paths import image_problem
from socialbench.benchmarks.roboteq.scan import scan_roboteq
from socialbench.benchmarks.roboteq.schema import (
    LABELS,
    LETTERS,
    TASK_BJ,
    TASK_SG,
    Behavior,
    GroundingQuestion,
    JudgmentScene,
)
from socialbench.errors import DataError, Problem
from socialbench.types import HumanVotes, Item, Question, ordered_subsets

__all__ = ["RobotEQDataset", "load_roboteq", "judgment_item", "grounding_item"]


@dataclass(frozen=True)
class RobotEQDataset:
    """One loaded RobotEQ task: its items and the label files they came from."""

    root: Path
    items: tuple[Item, ...]
    task: str
    files: tuple[Path, ...] = ()

    def __len__(self) -> int:
        return len(self.items)

    @property
    def n_questions(self) -> int:
        return sum(len(i.questions) for i in self.items)


def _judgment_votes(b: Behavior) -> HumanVotes:
    if b.votes:
        n = sum(c for _, c in b.votes)
        return HumanVotes(tuple(lab for lab, _ in b.votes), tuple(c / n for _, c in b.votes), n)
    return HumanVotes((b.label,), (1.0,), 1)


def judgment_item(scene: JudgmentScene, root: Path) -> Item:
    """The :class:`Item` of one judgment scene (one question ``b<k>`` per behavior)."""
    questions = tuple(
        Question(
            key=f"b{b.k}",
            base_key="behavior",
            category="behavior judgment",
            kind="single",
            text=b.text,
            options=LABELS,
        )
        for b in scene.behaviors
    )
    return Item(
        item_id=scene.scene_id,
        questions=questions,
        votes={f"b{b.k}": _judgment_votes(b) for b in scene.behaviors},
        metadata={
            "task": TASK_BJ,
            "image": str(Path(root) / scene.image),
            "image_rel": scene.image,
            "role": scene.question,
            "subset": scene.subset or "unknown",
            "category": scene.category,
            "subcategory": scene.subcategory,
            "behaviors": {
                f"b{b.k}": {
                    "k": b.k,
                    "text": b.text,
                    "label": b.label,
                    "facets": list(b.facets),
                    "has_votes": b.votes is not None,
                    **({} if b.votes_no_image is None else {"votes_no_image": dict(b.votes_no_image)}),
                }
                for b in scene.behaviors
            },
            "source": scene.source,
            "line": scene.line,
        },
    )


def _grounding_votes(q: GroundingQuestion) -> HumanVotes:
    if q.votes:
        counts = Counter(q.votes)
        order = [s for s in ordered_subsets(LETTERS) if s in counts]
        n = len(q.votes)
        return HumanVotes(tuple(order), tuple(counts[s] / n for s in order), n)
    return HumanVotes((q.answer,), (1.0,), 1)


def grounding_item(q: GroundingQuestion, root: Path) -> Item:
    """The :class:`Item` of one grounding question (one multiple-select question ``sg``)."""
    question = Question(
        key="sg", base_key="sg", category="spatial grounding", kind="multi", text=q.question, options=LETTERS
    )
    return Item(
        item_id=q.question_id,
        questions=(question,),
        votes={"sg": _grounding_votes(q)},
        metadata={
            "task": TASK_SG,
            "image": str(Path(root) / q.image),
            "image_rel": q.image,
            "question": q.question,
            "answer": list(q.answer),
            "options": dict(q.options),
            "subset": q.subset or "unknown",
            "category": q.category,
            "subcategory": q.subcategory,
            "facets": list(q.facets),
            "has_votes": q.votes is not None,
            "source": q.source,
            "line": q.line,
        },
    )


def load_roboteq(data: Path | str, task: str, *, require_images: bool, limit: int | None = None) -> RobotEQDataset:
    """Load ``task`` (``behavior_judgment`` | ``spatial_grounding``) from ``data``.

    Raises :class:`DataError` listing every problem of the task's rows (and missing image
    files when ``require_images``), :class:`UsageError` for a bad source.
    """
    if task not in (TASK_BJ, TASK_SG):
        raise ValueError(f"unknown RobotEQ task {task!r}")
    root = resolve_data(data)
    scan = scan_roboteq(root)
    problems = scan.problems_for(task)
    records: Sequence[JudgmentScene | GroundingQuestion] = scan.scenes if task == TASK_BJ else scan.questions
    if require_images:
        for rec in records:
            msg = image_problem(root / rec.image, decode=False)
            if msg:
                problems.append(
                    Problem(rec.source, "image", f"{msg}: {rec.image}", "add the image or fix the path", rec.line)
                )
    if problems:
        raise DataError(problems)
    if not records:
        what = "behavior-judgment" if task == TASK_BJ else "spatial-grounding"
        raise DataError.single(root, "", f"no {what} rows found", "check that the folder holds the RobotEQ release")
    if limit is not None:
        records = records[:limit]
    if task == TASK_BJ:
        items = tuple(judgment_item(r, root) for r in records)  # type: ignore[arg-type]
    else:
        items = tuple(grounding_item(r, root) for r in records)  # type: ignore[arg-type]
    return RobotEQDataset(root=root, items=items, task=task, files=tuple(scan.files))
