"""Aggregate annotations: majority vote, escalations, invalid removal, agreement statistics,
annotator accuracy and the image-necessity filter (RobotEQ §4.3, §4.4, §4.5, App. D-E).

Judgment (per candidate behavior)
    Needs at least ``min_annotators`` labels (default 3). The label with strictly the most
    votes wins; a tie at the top (e.g. a three-way split of proper / improper / invalid)
    goes to the **escalation list** for a domain expert. Expert decisions
    (``resolutions``: ``{"item_id", "k", "decision": "proper" | "improper" | "discard"}``,
    read and checked by :func:`read_resolutions`) are applied when given. A behavior whose final label is ``invalid`` is removed.
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
    Fleiss' kappa (:func:`fleiss_kappa`, items may have different numbers of raters),
    Krippendorff's alpha for nominal data (:func:`krippendorff_alpha_nominal`, missing
    values allowed) and per-annotator accuracy against the consensus or an expert gold
    (:func:`annotator_accuracy`, the pilot-selection step).
Image necessity
    :func:`image_necessity` drops behaviors that text-only runs (``socialbench eval
    --benchmark roboteq-bj --strategy no-image`` ``samples.jsonl``) judged correctly;
    the dropped list is kept.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Hashable, Iterable, Mapping, Sequence

import numpy as np

from socialbench.benchmarks.roboteq.validate import LETTERS
from socialbench.construction.annotation import GROUNDING_CHOICES, JUDGMENT_LABELS, VERIFICATION_CHOICES
from socialbench.construction.jsonl import iter_jsonl, numbered_jsonl
from socialbench.errors import DataError, Problem

__all__ = [
    "fleiss_kappa",
    "krippendorff_alpha_nominal",
    "percent_agreement",
    "plurality",
    "agreement_summary",
    "JudgmentResult",
    "aggregate_judgment",
    "GroundingResult",
    "aggregate_grounding",
    "aggregate_verification",
    "JUDGMENT_DECISIONS",
    "judgment_decision",
    "grounding_decision",
    "read_resolutions",
    "annotator_accuracy",
    "load_text_only_predictions",
    "image_necessity",
]


# --------------------------------------------------------------------------- statistics


def fleiss_kappa(counts: Sequence[Sequence[int]] | np.ndarray) -> float:
    """Fleiss' kappa from an items x categories matrix of rating counts.

    Items may have different numbers of raters (``P_i`` uses each item's own ``n_i``; the
    category proportions pool all ratings); items with fewer than two ratings are ignored.
    Returns NaN when chance agreement is 1 (every rating in one category).
    """
    m = np.asarray(counts, dtype=float)
    if m.ndim != 2:
        raise ValueError("counts must be a 2-D items x categories matrix")
    n_i = m.sum(axis=1)
    m = m[n_i >= 2]
    n_i = n_i[n_i >= 2]
    if len(m) == 0:
        return float("nan")
    p_i = ((m * m).sum(axis=1) - n_i) / (n_i * (n_i - 1))
    p_bar = float(p_i.mean())
    p_j = m.sum(axis=0) / n_i.sum()
    p_e = float((p_j * p_j).sum())
    if math.isclose(p_e, 1.0):
        return float("nan")
    return (p_bar - p_e) / (1.0 - p_e)


def percent_agreement(counts: Sequence[Sequence[int]] | np.ndarray) -> float:
    """Mean pairwise agreement ``P_bar`` (share of agreeing rater pairs per item)."""
    m = np.asarray(counts, dtype=float)
    n_i = m.sum(axis=1)
    m, n_i = m[n_i >= 2], n_i[n_i >= 2]
    if len(m) == 0:
        return float("nan")
    return float((((m * m).sum(axis=1) - n_i) / (n_i * (n_i - 1))).mean())


def krippendorff_alpha_nominal(units: Iterable[Sequence[Hashable | None]]) -> float:
    """Krippendorff's alpha (nominal metric) from the values given to each unit.

    ``units``: one sequence per unit with the value of each coder (``None`` = missing).
    Units with fewer than two values are not pairable and are skipped. Uses the
    coincidence matrix: ``alpha = 1 - (n - 1) * sum_{c != k} o_ck / sum_{c != k} n_c n_k``.
    Returns NaN when there is no variation at all.
    """
    o: dict[tuple[Hashable, Hashable], float] = defaultdict(float)
    for unit in units:
        vals = [v for v in unit if v is not None]
        m = len(vals)
        if m < 2:
            continue
        c = Counter(vals)
        for a, na in c.items():
            for b, nb in c.items():
                pairs = na * (na - 1) if a == b else na * nb
                if pairs:
                    o[(a, b)] += pairs / (m - 1)
    n_c: dict[Hashable, float] = defaultdict(float)
    for (a, _), v in o.items():
        n_c[a] += v
    n = sum(n_c.values())
    if n <= 1:
        return float("nan")
    observed = sum(v for (a, b), v in o.items() if a != b)
    expected = sum(n_c[a] * n_c[b] for a in n_c for b in n_c if a != b)
    if expected == 0:
        return float("nan")
    return 1.0 - (n - 1) * observed / expected


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


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 6)


def agreement_summary(unit_labels: Sequence[Sequence[str]], categories: Sequence[str]) -> dict[str, Any]:
    """Fleiss' kappa, Krippendorff's alpha and pairwise agreement over units of labels."""
    index = {c: i for i, c in enumerate(categories)}
    counts = np.zeros((len(unit_labels), len(categories)), dtype=int)
    for u, labels in enumerate(unit_labels):
        for lab in labels:
            counts[u, index[lab]] += 1
    pairable = [u for u in unit_labels if len(u) >= 2]
    return {
        "units": len(pairable),
        "ratings": int(sum(len(u) for u in pairable)),
        "fleiss_kappa": _num(fleiss_kappa(counts)),
        "krippendorff_alpha": _num(krippendorff_alpha_nominal(unit_labels)),
        "percent_agreement": _num(percent_agreement(counts)),
    }


# --------------------------------------------------------------------------- expert resolutions


JUDGMENT_DECISIONS = ("proper", "improper", "discard")


def judgment_decision(value: Any) -> str:
    """An expert decision on a behavior: ``proper``, ``improper`` or ``discard``.

    Raises ValueError (with the accepted values) for anything else.
    """
    if not isinstance(value, str) or value not in JUDGMENT_DECISIONS:
        raise ValueError(f"judgment decision {value!r} is not one of {', '.join(JUDGMENT_DECISIONS)}")
    return value


def grounding_decision(value: Any) -> str | list[str]:
    """An expert decision on a grounding question: ``"discard"`` or a non-empty list of
    distinct letters from A-D (returned in A-D order).

    Raises ValueError for anything else: another string (``"improper"``, ``"a"``, ``"AC"``),
    an empty list, lower-case or unknown letters, repeats.
    """
    if value == "discard":
        return "discard"
    if not isinstance(value, (list, tuple)) or not value:
        raise ValueError(f"grounding decision {value!r} is neither \"discard\" nor a non-empty list of regions A-D")
    bad = [v for v in value if not isinstance(v, str) or v not in LETTERS]
    if bad:
        raise ValueError(f"grounding decision {list(value)!r} has {bad!r}, not regions {', '.join(LETTERS)}")
    if len(set(value)) != len(value):
        raise ValueError(f"grounding decision {list(value)!r} repeats a region")
    return [x for x in LETTERS if x in value]


def read_resolutions(
    path: str | Path,
    *,
    behaviors: Iterable[tuple[str, int]] = (),
    questions: Iterable[str] = (),
) -> tuple[dict[tuple[str, int], str], dict[str, str | list[str]]]:
    """Expert decisions from a JSONL file: ``({(item_id, k): decision}, {item_id: decision})``.

    A line with ``k`` resolves a behavior (``decision``: :data:`JUDGMENT_DECISIONS`) and
    must name one of ``behaviors``; a line without ``k`` resolves a grounding question
    (``decision`` or ``answer``: ``"discard"`` or a non-empty subset of A-D) and must name
    one of ``questions``. Raises :class:`DataError` listing every bad line (file, line,
    field and fix): missing fields, bad decisions, unknown items, conflicting repeats.
    """
    p = Path(path)
    known_b = set(behaviors)
    known_q = set(questions)
    judg: dict[tuple[str, int], str] = {}
    grnd: dict[str, str | list[str]] = {}
    problems: list[Problem] = []

    def bad(field_: str, message: str, fix: str, line: int) -> None:
        problems.append(Problem(str(p), field_, message, fix, line))

    for line, r in numbered_jsonl(p, require_id=False):
        item = r.get("item_id")
        decision = r.get("decision", r.get("answer"))
        if not isinstance(item, str) or not item:
            bad("item_id", "resolution has no item_id", 'name the escalated item, e.g. {"item_id": "x", "k": 2, '
                '"decision": "improper"} or {"item_id": "g1", "answer": ["A", "C"]}', line)
            continue
        if decision is None:
            bad("decision", f"resolution of {item!r} has no decision (or answer)",
                'add "decision": proper / improper / discard (behavior, with "k") or "answer": ["A", ...] / '
                '"discard" (grounding question)', line)
            continue
        if "k" in r:
            k = r["k"]
            if isinstance(k, bool) or not isinstance(k, int):
                bad("k", f"k {k!r} of {item!r} is not an integer", "give the behavior number as in behaviors.jsonl, "
                    'e.g. "k": 2', line)
                continue
            try:
                decision = judgment_decision(decision)
            except ValueError as exc:
                bad("decision", str(exc), 'use "proper", "improper" or "discard"', line)
                continue
            key = (item, k)
            if key not in known_b:
                bad("item_id", f"behavior {item}#b{k} is not among the behaviors being aggregated",
                    "check item_id and k against escalations.judgment.jsonl (and that its annotations were imported)", line)
                continue
            if key in judg and judg[key] != decision:
                bad("decision", f"behavior {item}#b{k} already resolved as {judg[key]!r}", "keep one decision per behavior", line)
                continue
            judg[key] = decision
        else:
            try:
                gdecision = grounding_decision(decision)
            except ValueError as exc:
                hint = (' (a behavior resolution needs "k": add the behavior number)'
                        if isinstance(decision, str) and decision in ("proper", "improper") else "")
                bad("decision", f"{exc}{hint}", 'use "discard" or a list of regions, e.g. "answer": ["A", "C"]', line)
                continue
            if item not in known_q:
                bad("item_id", f"grounding question {item!r} is not among the questions being aggregated",
                    "check item_id against escalations.grounding.jsonl (and that its annotations were imported); "
                    'a behavior resolution needs "k"', line)
                continue
            if item in grnd and grnd[item] != gdecision:
                bad("decision", f"grounding question {item!r} already resolved as {grnd[item]!r}",
                    "keep one decision per question", line)
                continue
            grnd[item] = gdecision
    if problems:
        raise DataError(problems)
    return judg, grnd


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
                out.removed.append({"id": bid, "reason": "insufficient_annotators", "n_annotators": len(labels),
                                    "needed": min_annotators})
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
                out.escalations.append({"id": bid, "item_id": scene["id"], "k": b["k"], "text": b["text"],
                                        "votes": dict(counts), "annotators": [r["annotator"] for r in brow]})
                continue
            if winner is not None and not resolved:
                consensus[key] = winner
            if winner == "invalid":
                out.removed.append({"id": bid, "reason": "invalid", "votes": dict(counts)})
                continue
            votes = [lab for lab in labels if lab != "invalid"]
            final.append({
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
            })
        if final:
            out.scenes.append({
                "id": scene["id"], "image": scene["image"], "subset": scene.get("subset"), "question": scene["question"],
                "category": scene.get("category"), "subcategory": scene.get("subcategory"), "behaviors": final,
            })
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
            out.removed.append({"id": q["id"], "reason": "insufficient_annotators", "n_annotators": n, "needed": min_annotators})
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
            out.escalations.append({"id": q["id"], "votes": letter_votes, "invalid_votes": invalid_votes,
                                    "selections": [r["selection"] for r in qrows]})
            continue
        if not resolved:
            for x in LETTERS:
                consensus[(q["id"], x)] = "yes" if x in answer else "no"
        agree = sum(1 for r in qrows if list(r["selection"]) == answer) / n if n else None
        out.questions.append({
            "id": q["id"], "image": q["image"], "question": q["question"], "options": q.get("options") or {},
            "answer": answer, "votes": [list(r["selection"]) for r in qrows if r["selection"]],
            "n_annotators": n, "confidence": round(agree, 4) if agree is not None else None,
            "resolved_by_expert": resolved, "subset": q.get("subset"), "category": q.get("category"),
            "subcategory": q.get("subcategory"), "facets": q.get("facets") or [],
        })
    out.agreement = agreement_summary(option_units, ("yes", "no"))
    out.annotators = annotator_accuracy(
        [((r["item_id"], x), r["annotator"], "yes" if x in r["selection"] else "no") for r in rows for x in LETTERS],
        consensus,
    )
    return out


# --------------------------------------------------------------------------- verification


def aggregate_verification(review_records: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]],
                           *, min_annotators: int = 3) -> dict[str, Any]:
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
        base = {"id": rec["id"], "scenario": rec.get("scenario") or {}, "original": rec["original"], "edited": rec["final"]}
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
            unannotated.append({**base, "reason": "insufficient_annotators", "n_annotators": len(labels),
                                "needed": min_annotators, "votes": dict(counts)})
            continue
        if winner is None:
            escalations.append({**base, "votes": dict(counts)})
        elif winner == "neither":
            revise.append({**base, "votes": dict(counts),
                           "instructions": [r["instructions"] for r in vrows if r.get("instructions")]})
        else:
            chosen.append({**base, "choice": winner, "image": rec[winner if winner == "original" else "final"],
                           "votes": dict(counts), "confidence": round(conf, 4)})
    return {"chosen": chosen, "revise": revise, "escalations": escalations, "unannotated": unannotated,
            "agreement": agreement_summary(units, VERIFICATION_CHOICES)}


# --------------------------------------------------------------------------- annotators


def annotator_accuracy(
    ratings: Iterable[tuple[Hashable, str, str]],
    consensus: Mapping[Hashable, str],
    gold: Mapping[Hashable, str] | None = None,
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
    table = [{"annotator": who, "n": n, "correct": c, "accuracy": round(c / n, 4) if n else None}
             for who, (c, n) in hits.items()]
    return sorted(table, key=lambda r: (-(r["accuracy"] or 0.0), -r["n"], r["annotator"]))


# --------------------------------------------------------------------------- image necessity


def load_text_only_predictions(paths: Sequence[str | Path]) -> list[dict[tuple[str, int], str | None]]:
    """One ``{(scene id, k): predicted label}`` map per file.

    Accepts a run's ``samples.jsonl`` (``item_id``, ``question_key`` ``b<k>``, ``parsed``) or
    rows ``{"item_id", "k", "label"}``. A failed or invalid answer maps to None (it never
    counts as correct).
    """
    runs = []
    for path in paths:
        p = Path(path)
        if p.is_dir():
            p = p / "samples.jsonl"
        preds: dict[tuple[str, int], str | None] = {}
        for row in iter_jsonl(p, require_id=False):
            if "question_key" in row:
                qk = str(row["question_key"])
                if not qk.startswith("b") or not qk[1:].isdigit():
                    continue
                preds[(str(row["item_id"]), int(qk[1:]))] = row.get("parsed") if isinstance(row.get("parsed"), str) else None
            elif "k" in row:
                preds[(str(row["item_id"]), int(row["k"]))] = row.get("label")
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
                dropped.append({"id": f"{scene['id']}#b{b['k']}", "reason": "image_necessity", "label": b["label"],
                                "text_only_correct": round(share, 4), "runs": len(answered), "text": b["text"]})
            else:
                keep.append(b)
        if keep:
            kept_scenes.append({**scene, "behaviors": keep})
        else:
            dropped.append({"id": scene["id"], "reason": "scene_without_behaviors"})
    return kept_scenes, dropped
