"""Load RobotEQ (behavior judgment and spatial grounding) into :class:`Item`\\ s.

The folder is read by :func:`~socialbench.benchmarks.roboteq.scan.scan_roboteq`
(label files, rows, fields: :mod:`~socialbench.benchmarks.roboteq.label_files`,
:mod:`~socialbench.benchmarks.roboteq.rows`, :mod:`~socialbench.benchmarks.roboteq.fields`);
this module turns its records into items.

Sources
-------
* a local folder in the **published layout** (the Hugging Face image-folder release);
* a local folder holding the **canonical JSONL** file ``roboteq.jsonl`` (below);
* the hub id ``Tongji-Emotion/Robot-EQ`` (or ``hf:OWNER/NAME``), downloaded with
  ``huggingface_hub.snapshot_download`` (optional extra ``socialbench[hub]``), see
  :func:`~socialbench.benchmarks.roboteq.hub.resolve_data`.

Published layout
----------------
One or more ``metadata.jsonl`` / ``metadata.csv`` files (at the root or in sub-folders,
e.g. ``behavior_judgment/metadata.jsonl``); image paths in a row are relative to the
folder of its metadata file. Row fields:

``file_name`` or ``image``
    the image path (``image`` may also be ``{"path": ...}``).
``question``
    the role prompt, e.g. "You are a restaurant service robot. In the following scenario,
    what is your most appropriate next action?" (judgment) or the grounding question.
``labels`` (judgment)
    a string of lines ``[k] proper: <behavior>`` / ``[k] improper: <behavior>``.
``option_texts``, ``gt_labels`` (judgment)
    the behaviors and their labels as two matching lists (JSON strings in CSV). When
    ``labels`` is present too, all three must agree (count, label, text).
``answer`` / ``answers`` / ``gt_labels`` (grounding)
    the correct regions, e.g. ``["A", "C"]`` or ``"A,C"``; ``options`` / ``option_texts``
    (optional) describe the regions A-D.
optional
    ``id`` (else the image path without suffix is the id), ``task``
    (``behavior_judgment`` | ``spatial_grounding``; else inferred: a row with ``labels`` or
    proper/improper ``gt_labels`` is judgment, one with letter answers is grounding, else
    the metadata folder's name decides), ``subset`` (``synthetic`` | ``real``; else inferred
    from a path component named ``synthetic``/``real``), ``category``, ``subcategory``,
    ``facets`` (one list for the scene, one list per behavior, or ``{k: [...]}``; names
    from :data:`~socialbench.benchmarks.roboteq.schema.FACETS`) and ``votes``
    (per-annotator labels: one entry per behavior, each a list of labels, a
    ``{label: count}`` object, or ``null`` for a behavior without votes; for grounding, a
    list of selections). List fields may be JSON or Python-literal strings (pandas CSV).

Canonical JSONL (``roboteq.jsonl`` at the dataset root; when present it is the only file
read). One JSON object per line; image paths are relative to the root::

    {"id": "syn-0001", "task": "behavior_judgment", "image": "images/syn-0001.png",
     "question": "You are a ...", "subset": "synthetic", "category": "...",
     "subcategory": "...",
     "behaviors": [{"k": 1, "text": "...", "label": "proper",
                    "facets": ["safety"], "votes": ["proper", "proper", "improper"]}]}
    {"id": "syn-0001-sg", "task": "spatial_grounding", "image": "images/syn-0001-sg.png",
     "question": "...", "options": {"A": "...", "B": "...", "C": "...", "D": "..."},
     "answer": ["A", "C"], "votes": [["A", "C"], ["A"], ["A", "C"]], "subset": "real"}

A behavior may also carry ``votes_no_image`` (the same forms as ``votes``, or ``null``):
the labels of annotators who saw the role and the behavior text but not the image
(RobotEQ Figure 6(a), collected with ``socialbench build annotate export --kind
judgment-no-image``). They never change the label or the votes; the report compares them
with the votes (``roboteq_human_image``).

A behavior's ``facets`` may also be a string (``"safety"`` or ``"safety, privacy"``; it
belongs to that behavior only) and its ``votes`` may be ``null`` (no votes for that
behavior: its distribution is the gold label, ``has_votes`` is false).
:func:`~socialbench.benchmarks.roboteq.write.write_canonical` writes this form (the construction pipeline uses it).

Items
-----
``roboteq-bj``: one :class:`Item` per scene; ``item_id`` is the scene id; one single-choice
question per behavior with key ``b<k>`` and options ``("proper", "improper")``.
``roboteq-sg``: one item per question with one multiple-select question ``sg`` over
``("A", "B", "C", "D")``. ``Item.votes`` hold the per-annotator distribution when the
data has votes, else the majority (gold) label with probability 1 and ``n = 1``.
``Item.metadata``: ``task``, ``image`` (absolute path string), ``image_rel``, ``role`` /
``question``, ``subset`` (``"unknown"`` when not known), ``category``, ``subcategory``,
``source`` and ``line`` (where the row is), and for judgment ``behaviors``
``{key: {k, text, label, facets, has_votes}}`` (plus ``votes_no_image``, ``{label: count}``,
for a behavior that has them); for grounding ``answer`` (list),
``options`` ({letter: text}), ``facets`` and ``has_votes``.
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
