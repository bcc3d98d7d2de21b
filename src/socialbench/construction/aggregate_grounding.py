"""Aggregate grounding annotations (RobotEQ App. E), per question (rules: docs/build.md,
"11. aggregate"); agreement is over (question, region) yes/no units."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from socialbench.benchmarks.roboteq.schema import LETTERS
from socialbench.construction.annotation_config import GROUNDING_CHOICES
from socialbench.construction.resolutions import grounding_decision
from socialbench.construction.voting import AnnotatorScore, annotator_accuracy
from socialbench.metrics.reliability import agreement_summary

__all__ = ["GroundingResult", "aggregate_grounding"]


@dataclass
class GroundingResult:
    questions: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    escalations: list[dict[str, Any]] = field(default_factory=list)
    agreement: dict[str, Any] = field(default_factory=dict)
    annotators: list[AnnotatorScore] = field(default_factory=list)


def aggregate_grounding(
    grounding_records: Sequence[Mapping[str, Any]],
    rows: Sequence[Mapping[str, Any]],
    *,
    min_annotators: int = 3,
    resolutions: Mapping[str, Any] | None = None,
) -> GroundingResult:
    """Majority answer set per grounding question (see the module docstring).

    Raises ValueError for a resolution that is not ``"discard"`` or a non-empty subset of A-D.
    """
    resolutions = {item: grounding_decision(d) for item, d in (resolutions or {}).items()}
    by_item: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        by_item[r["item_id"]].append(r)
    out = GroundingResult()
    option_units: list[list[str]] = []
    consensus: dict[tuple[str, str], str] = {}
    for q in grounding_records:
        qrows = by_item.get(q["id"], [])
        n = len(qrows)
        for opt in GROUNDING_CHOICES:
            unit = ["yes" if (opt in r["selection"] if opt != "invalid" else r["invalid"]) else "no" for r in qrows]
            if unit:
                option_units.append(unit)
        if n < min_annotators and q["id"] not in resolutions:
            out.removed.append(
                {"id": q["id"], "reason": "insufficient_annotators", "n_annotators": n, "needed": min_annotators}
            )
            continue
        half = n / 2
        invalid_votes = sum(1 for r in qrows if r["invalid"])
        letter_votes = {x: sum(1 for r in qrows if x in r["selection"]) for x in LETTERS}
        answer = [x for x in LETTERS if letter_votes[x] > half]
        resolved = q["id"] in resolutions
        if resolved:
            decision = resolutions[q["id"]]
            if decision == "discard":
                out.removed.append({"id": q["id"], "reason": "expert_discard"})
                continue
            answer = list(decision)
        elif invalid_votes > half:
            out.removed.append({"id": q["id"], "reason": "invalid", "invalid_votes": invalid_votes, "n_annotators": n})
            continue
        elif not answer:
            out.escalations.append(
                {
                    "id": q["id"],
                    "votes": letter_votes,
                    "invalid_votes": invalid_votes,
                    "selections": [r["selection"] for r in qrows],
                }
            )
            continue
        if not resolved:
            for x in LETTERS:
                consensus[(q["id"], x)] = "yes" if x in answer else "no"
        agree = sum(1 for r in qrows if list(r["selection"]) == answer) / n if n else None
        out.questions.append(
            {
                "id": q["id"],
                "image": q["image"],
                "question": q["question"],
                "options": q.get("options") or {},
                "answer": answer,
                "votes": [list(r["selection"]) for r in qrows if r["selection"]],
                "n_annotators": n,
                "confidence": round(agree, 4) if agree is not None else None,
                "resolved_by_expert": resolved,
                "subset": q.get("subset"),
                "category": q.get("category"),
                "subcategory": q.get("subcategory"),
                "facets": q.get("facets") or [],
            }
        )
    out.agreement = agreement_summary(option_units, ("yes", "no"))
    out.annotators = annotator_accuracy(
        [((r["item_id"], x), r["annotator"], "yes" if x in r["selection"] else "no") for r in rows for x in LETTERS],
        consensus,
    )
    return out
