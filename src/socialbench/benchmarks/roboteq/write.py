"""Write RobotEQ records as canonical JSONL (``roboteq.jsonl``, the form described in
:mod:`socialbench.benchmarks.roboteq.loader`); the construction pipeline exports with it."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from socialbench.benchmarks.roboteq.schema import TASK_BJ, TASK_SG, GroundingQuestion, JudgmentScene

__all__ = ["canonical_row", "write_canonical"]


def canonical_row(rec: JudgmentScene | GroundingQuestion) -> dict[str, object]:
    """The canonical JSONL object of one record (see :mod:`socialbench.benchmarks.roboteq.loader`)."""
    common = {
        "subset": rec.subset,
        "category": rec.category,
        "subcategory": rec.subcategory,
    }
    if isinstance(rec, JudgmentScene):
        return {
            "id": rec.scene_id,
            "task": TASK_BJ,
            "image": rec.image,
            "question": rec.question,
            **common,
            "behaviors": [
                {
                    "k": b.k,
                    "text": b.text,
                    "label": b.label,
                    "facets": list(b.facets),
                    "votes": None if b.votes is None else dict(b.votes),
                    **({} if b.votes_no_image is None else {"votes_no_image": dict(b.votes_no_image)}),
                }
                for b in rec.behaviors
            ],
        }
    return {
        "id": rec.question_id,
        "task": TASK_SG,
        "image": rec.image,
        "question": rec.question,
        "options": dict(rec.options),
        "answer": list(rec.answer),
        "votes": None if rec.votes is None else [list(v) for v in rec.votes],
        "facets": list(rec.facets),
        **common,
    }


def write_canonical(path: Path, records: Iterable[JudgmentScene | GroundingQuestion]) -> int:
    """Write records as canonical JSONL (UTF-8, one object per line); returns the count.

    Image paths are written as stored (relative to the dataset root), so write the file at
    the root as ``roboteq.jsonl``.
    """
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(canonical_row(rec), ensure_ascii=False) + "\n")
            n += 1
    return n
