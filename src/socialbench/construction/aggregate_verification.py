"""Aggregate verification annotations (RobotEQ App. B.2 "Human Verification"), per edited image
(rules: docs/build.md, "6. Human verification")."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from socialbench.construction.annotation_config import VERIFICATION_CHOICES
from socialbench.construction.voting import plurality
from socialbench.metrics.reliability import agreement_summary

__all__ = ["aggregate_verification"]


def aggregate_verification(
    review_records: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]], *, min_annotators: int = 3
) -> dict[str, Any]:
    """Chosen image per reviewed scene: ``{"chosen", "revise", "escalations", "unannotated",
    "agreement"}``.

    Scenes whose image was not edited (and not rejected by the review) need no annotation
    and keep their image. An edited image without annotations, or with fewer than
    ``min_annotators``, goes to ``unannotated`` with ``reason`` ``unannotated`` or
    ``insufficient_annotators`` (annotate it and aggregate again).
    """
    by_item: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        by_item[r["item_id"]].append(r)
    chosen, revise, escalations, unannotated, units = [], [], [], [], []
    for rec in review_records:
        vrows = by_item.get(rec["id"], [])
        edited = rec["final"] != rec["original"]
        base = {
            "id": rec["id"],
            "scenario": rec.get("scenario") or {},
            "original": rec["original"],
            "edited": rec["final"],
        }
        if not vrows and not edited:
            if rec.get("status") != "rejected":
                chosen.append({**base, "choice": "original", "image": rec["original"], "votes": {}})
            continue
        labels = [r["choice"] for r in vrows]
        if labels:
            units.append(labels)
        if not labels:
            unannotated.append({**base, "reason": "unannotated", "n_annotators": 0, "needed": min_annotators})
            continue
        winner, counts, conf = plurality(labels)
        if len(labels) < min_annotators:
            unannotated.append(
                {
                    **base,
                    "reason": "insufficient_annotators",
                    "n_annotators": len(labels),
                    "needed": min_annotators,
                    "votes": dict(counts),
                }
            )
            continue
        if winner is None:
            escalations.append({**base, "votes": dict(counts)})
        elif winner == "neither":
            revise.append(
                {
                    **base,
                    "votes": dict(counts),
                    "instructions": [r["instructions"] for r in vrows if r.get("instructions")],
                }
            )
        else:
            chosen.append(
                {
                    **base,
                    "choice": winner,
                    "image": rec[winner if winner == "original" else "final"],
                    "votes": dict(counts),
                    "confidence": round(conf, 4),
                }
            )
    return {
        "chosen": chosen,
        "revise": revise,
        "escalations": escalations,
        "unannotated": unannotated,
        "agreement": agreement_summary(units, VERIFICATION_CHOICES),
    }
