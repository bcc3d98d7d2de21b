"""Aggregate judgment annotations: majority vote, escalations, invalid removal and agreement
(RobotEQ §4.3, §4.4, App. D); the rules are in docs/build.md, "11. aggregate". The other kinds:
:mod:`~socialbench.construction.aggregate_grounding`,
:mod:`~socialbench.construction.aggregate_verification`,
:mod:`~socialbench.construction.image_necessity`."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from socialbench.construction.annotation_config import JUDGMENT_LABELS
from socialbench.construction.resolutions import judgment_decision
from socialbench.construction.voting import AnnotatorScore, annotator_accuracy, plurality
from socialbench.metrics.reliability import agreement_summary

__all__ = ["JudgmentResult", "aggregate_judgment"]


@dataclass
class JudgmentResult:
    scenes: list[dict[str, Any]] = field(default_factory=list)  # scenes with >= 1 final behavior
    removed: list[dict[str, Any]] = field(default_factory=list)  # {id, reason, ...}
    escalations: list[dict[str, Any]] = field(default_factory=list)
    agreement: dict[str, Any] = field(default_factory=dict)
    annotators: list[AnnotatorScore] = field(default_factory=list)


def _facet_majority(rows: Sequence[Mapping[str, Any]], suggested: Sequence[str]) -> list[str]:
    """Facets chosen by more than half of the annotators of one behavior, else (no facet has
    a majority, or nobody chose any) the behavior stage's suggestion, unchanged."""
    chosen = Counter(f for r in rows for f in set(r.get("facets") or []))
    half = len(rows) / 2
    return [f for f, n in chosen.items() if n > half] or list(suggested)


def aggregate_judgment(
    behavior_records: Sequence[Mapping[str, Any]],
    rows: Sequence[Mapping[str, Any]],
    *,
    min_annotators: int = 3,
    resolutions: Mapping[tuple[str, int], str] | None = None,
    gold: Mapping[tuple[str, int], str] | None = None,
) -> JudgmentResult:
    """Final labels per behavior (see the module docstring).

    Raises ValueError for a resolution that is not proper / improper / discard.
    """
    resolutions = {key: judgment_decision(d) for key, d in (resolutions or {}).items()}
    by_behavior: dict[tuple[str, int], list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        by_behavior[(r["item_id"], int(r["k"]))].append(r)
    out = JudgmentResult()
    consensus: dict[tuple[str, int], str] = {}
    units: list[list[str]] = []
    for scene in behavior_records:
        final = []
        for b in scene["behaviors"]:
            key = (scene["id"], int(b["k"]))
            bid = f"{scene['id']}#b{b['k']}"
            brow = by_behavior.get(key, [])
            labels = [r["label"] for r in brow]
            if labels:
                units.append(labels)
            if len(labels) < min_annotators and key not in resolutions:
                out.removed.append(
                    {
                        "id": bid,
                        "reason": "insufficient_annotators",
                        "n_annotators": len(labels),
                        "needed": min_annotators,
                    }
                )
                continue
            winner, counts, conf = plurality(labels)
            resolved = False
            if key in resolutions:
                decision = resolutions[key]
                resolved = True
                if decision == "discard":
                    out.removed.append({"id": bid, "reason": "expert_discard", "votes": dict(counts)})
                    continue
                winner = decision
            elif winner is None:
                out.escalations.append(
                    {
                        "id": bid,
                        "item_id": scene["id"],
                        "k": b["k"],
                        "text": b["text"],
                        "votes": dict(counts),
                        "annotators": [r["annotator"] for r in brow],
                    }
                )
                continue
            if winner is not None and not resolved:
                consensus[key] = winner
            if winner == "invalid":
                out.removed.append({"id": bid, "reason": "invalid", "votes": dict(counts)})
                continue
            # every annotator's vote, ``invalid`` ones too: the loader counts them as voters
            # (PA/CWPA's denominator, the paper's three-label scheme), as it does in a release
            votes = list(labels)
            final.append(
                {
                    "k": b["k"],
                    "text": b["text"],
                    "label": winner,
                    "facets": _facet_majority(brow, b.get("facets") or []),
                    "votes": votes or [winner],
                    "n_annotators": len(labels),
                    "n_invalid": labels.count("invalid"),
                    "confidence": round(conf, 4) if not resolved else None,
                    "resolved_by_expert": resolved,
                    "suggested_label": b.get("suggested_label"),
                }
            )
        if final:
            out.scenes.append(
                {
                    "id": scene["id"],
                    "image": scene["image"],
                    "subset": scene.get("subset"),
                    "question": scene["question"],
                    "category": scene.get("category"),
                    "subcategory": scene.get("subcategory"),
                    "behaviors": final,
                }
            )
        else:
            out.removed.append({"id": scene["id"], "reason": "scene_without_behaviors"})
    out.agreement = agreement_summary(units, JUDGMENT_LABELS)
    out.annotators = annotator_accuracy(
        [((r["item_id"], int(r["k"])), r["annotator"], r["label"]) for r in rows], consensus, gold
    )
    return out
