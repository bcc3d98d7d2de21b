"""Aggregate annotations: majority vote, escalations, invalid removal, agreement statistics,
annotator accuracy and the image-necessity filter (RobotEQ §4.3, §4.4, §4.5, App. D-E).

Judgment (per candidate behavior)
    Needs at least ``min_annotators`` labels (default 3). The label with strictly the most
    votes wins; a tie at the top (e.g. a three-way split of proper / improper / invalid)
    goes to the **escalation list** for a domain expert. Expert decisions
    (``resolutions``: ``{"item_id", "k", "decision": "proper" | "improper" | "discard"}``,
    read and checked by :func:`socialbench.construction.resolutions.read_resolutions`) are
    applied when given. A behavior whose final label is ``invalid`` is removed.
    ``confidence`` = winning votes / all votes. Facets: those chosen by more than half of
    the annotators, else the behavior stage's suggestion. Exported ``votes`` are the
    proper / improper labels (invalid votes are counted in ``n_invalid``).
Grounding (per question)
    A region is in the answer when more than half of the annotators selected it; a
    question whose ``invalid`` got a majority is removed; one where no region reached a
    majority is escalated (expert decisions: ``{"item_id", "answer": ["A", ...] | "discard"}``,
    a non-empty subset of A-D).
Verification (per edited image)
    Needs at least ``min_annotators`` choices. ``original`` / ``edited`` / ``neither`` by
    majority; ties escalate; ``neither`` lists the image for another revision with the
    annotators' instructions. An edited image that nobody annotated, or too few annotators,
    is listed in ``unannotated`` (reason ``unannotated`` / ``insufficient_annotators``), never
    dropped silently.
Agreement
    Fleiss' kappa, Krippendorff's alpha for nominal data and pairwise agreement
    (:func:`socialbench.metrics.reliability.agreement_summary`) and per-annotator accuracy
    against the consensus or an expert gold (:func:`annotator_accuracy`, the
    pilot-selection step).
Without image (Figure 6(a))
    :func:`attach_no_image_votes` adds the imported ``judgment-no-image`` labels to the
    final behaviors as ``votes_no_image`` (one label per annotator); they change neither
    the final label nor ``votes``.
Image necessity
    :func:`image_necessity` drops behaviors that text-only runs (``socialbench eval
    --benchmark roboteq-bj --strategy no-image`` ``samples.jsonl``) judged correctly;
    the dropped list is kept.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from socialbench.benchmarks.roboteq.schema import LETTERS
from socialbench.construction.annotation_config import GROUNDING_CHOICES, JUDGMENT_LABELS, VERIFICATION_CHOICES
from socialbench.construction.jsonl import numbered_jsonl
from socialbench.construction.resolutions import grounding_decision, judgment_decision
from socialbench.errors import DataError
from socialbench.files.schema import FieldRule, check_fields
from socialbench.metrics.reliability import agreement_summary
from socialbench.records import SAMPLE_FIELDS, read_samples

#: A rated unit (a behavior ``(item_id, k)``, a grounding option ``(item_id, letter)``, ...).
Unit = TypeVar("Unit", bound=Hashable)

__all__ = [
    "plurality",
    "JudgmentResult",
    "aggregate_judgment",
    "GroundingResult",
    "aggregate_grounding",
    "aggregate_verification",
    "annotator_accuracy",
    "load_text_only_predictions",
    "image_necessity",
    "attach_no_image_votes",
]


# --------------------------------------------------------------------------- voting


def plurality(labels: Sequence[str]) -> tuple[str | None, Counter, float]:
    """(winner or None on a tie at the top, counts, winner share)."""
    counts = Counter(labels)
    if not counts:
        return None, counts, 0.0
    top = counts.most_common()
    best = top[0][1]
    if len(top) > 1 and top[1][1] == best:
        return None, counts, best / len(labels)
    return top[0][0], counts, best / len(labels)


# --------------------------------------------------------------------------- judgment


@dataclass
class JudgmentResult:
    scenes: list[dict[str, Any]] = field(default_factory=list)  # scenes with >= 1 final behavior
    removed: list[dict[str, Any]] = field(default_factory=list)  # {id, reason, ...}
    escalations: list[dict[str, Any]] = field(default_factory=list)
    agreement: dict[str, Any] = field(default_factory=dict)
    annotators: list[dict[str, Any]] = field(default_factory=list)


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
            votes = [lab for lab in labels if lab != "invalid"]
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


# --------------------------------------------------------------------------- grounding


@dataclass
class GroundingResult:
    questions: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    escalations: list[dict[str, Any]] = field(default_factory=list)
    agreement: dict[str, Any] = field(default_factory=dict)
    annotators: list[dict[str, Any]] = field(default_factory=list)


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


# --------------------------------------------------------------------------- verification


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


# --------------------------------------------------------------------------- annotators


def annotator_accuracy(
    ratings: Iterable[tuple[Unit, str, str]],
    consensus: Mapping[Unit, str],
    gold: Mapping[Unit, str] | None = None,
) -> list[dict[str, Any]]:
    """Per annotator: how many of their labels match the reference (the expert ``gold``
    where given, else the majority consensus), sorted best first. ``ratings`` are
    ``(unit, annotator, label)``; units without a reference are not counted."""
    hits: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for unit, who, label in ratings:
        ref = (gold or {}).get(unit, consensus.get(unit))
        if ref is None:
            continue
        hits[who][1] += 1
        hits[who][0] += int(label == ref)
    table = [
        {"annotator": who, "n": n, "correct": c, "accuracy": round(c / n, 4) if n else None}
        for who, (c, n) in hits.items()
    ]
    return sorted(table, key=lambda r: (-(r["accuracy"] or 0.0), -r["n"], r["annotator"]))


# --------------------------------------------------------------------------- image necessity


def load_text_only_predictions(paths: Sequence[str | Path]) -> list[dict[tuple[str, int], str | None]]:
    """One ``{(scene id, k): predicted label}`` map per file.

    Accepts a run's ``samples.jsonl`` (``item_id``, ``question_key`` ``b<k>``, ``parsed``) or
    rows ``{"item_id", "k", "label"}``. A failed or invalid answer maps to None (it never
    counts as correct).
    """
    label_rules = (
        FieldRule("item_id", ("str",), required=True),
        FieldRule("k", ("int",), required=True),
        FieldRule("label", ("str", "null")),
    )
    runs = []
    for path in paths:
        p = Path(path)
        if p.is_dir():
            p = p / "samples.jsonl"
        preds: dict[tuple[str, int], str | None] = {}
        if p.name == "samples.jsonl" and (p.exists() or p.is_symlink()):  # a run's: the run-folder reader
            for r in read_samples(p):
                qk = r.question_key
                if qk.startswith("b") and qk[1:].isdigit():
                    preds[(r.item_id, int(qk[1:]))] = r.parsed if isinstance(r.parsed, str) else None
            runs.append(preds)
            continue
        for line_no, row in numbered_jsonl(p, require_id=False):
            if "question_key" in row:
                problem = check_fields(row, SAMPLE_FIELDS, str(p), "give a run's samples.jsonl", line=line_no)
                if problem is not None:
                    raise DataError(problem)
                qk = row["question_key"]
                if qk.startswith("b") and qk[1:].isdigit():
                    preds[(row["item_id"], int(qk[1:]))] = (
                        row.get("parsed") if isinstance(row.get("parsed"), str) else None
                    )
            elif "k" in row:
                problem = check_fields(
                    row, label_rules, str(p), 'write {"item_id": ..., "k": N, "label": ...}', line=line_no
                )
                if problem is not None:
                    raise DataError(problem)
                preds[(row["item_id"], row["k"])] = row.get("label")
        runs.append(preds)
    return runs


def image_necessity(
    scenes: Sequence[Mapping[str, Any]],
    runs: Sequence[Mapping[tuple[str, int], str | None]],
    *,
    min_correct: float = 1.0,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Drop behaviors that at least ``min_correct`` of the text-only ``runs`` judged
    correctly. Returns (kept scenes, dropped list). Behaviors no run predicted are kept."""
    kept_scenes: list[dict[str, Any]] = []
    dropped: list[dict[str, Any]] = []
    for scene in scenes:
        keep = []
        for b in scene["behaviors"]:
            key = (scene["id"], int(b["k"]))
            answered = [run[key] for run in runs if key in run]
            if not answered:
                keep.append(b)
                continue
            share = sum(1 for a in answered if a == b["label"]) / len(answered)
            if share >= min_correct:
                dropped.append(
                    {
                        "id": f"{scene['id']}#b{b['k']}",
                        "reason": "image_necessity",
                        "label": b["label"],
                        "text_only_correct": round(share, 4),
                        "runs": len(answered),
                        "text": b["text"],
                    }
                )
            else:
                keep.append(b)
        if keep:
            kept_scenes.append({**scene, "behaviors": keep})
        else:
            dropped.append({"id": scene["id"], "reason": "scene_without_behaviors"})
    return kept_scenes, dropped


# --------------------------------------------------------------------------- without image


def attach_no_image_votes(
    scenes: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], int, list[str]]:
    """The final ``scenes`` with each behavior that has ``judgment-no-image`` rows
    (``item_id``, ``k``, ``label``, ``annotator``) carrying ``votes_no_image``: its labels,
    one per annotator in annotator order. Returns (scenes, behaviors given votes, ids
    ``scene#b<k>`` of rows whose behavior is not among the final ones, e.g. removed since)."""
    by_behavior: dict[tuple[str, int], list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        by_behavior[(str(r["item_id"]), int(r["k"]))].append(r)
    out: list[dict[str, Any]] = []
    used: set[tuple[str, int]] = set()
    for scene in scenes:
        behaviors = []
        for b in scene["behaviors"]:
            key = (str(scene["id"]), int(b["k"]))
            got = sorted(by_behavior.get(key, []), key=lambda r: str(r["annotator"]))
            if got:
                used.add(key)
                behaviors.append({**b, "votes_no_image": [str(r["label"]) for r in got]})
            else:
                behaviors.append(dict(b))
        out.append({**scene, "behaviors": behaviors})
    unmatched = sorted(f"{item}#b{k}" for item, k in by_behavior if (item, k) not in used)
    return out, len(used), unmatched
