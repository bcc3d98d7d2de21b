"""Judgment votes beyond the with-image majority (RobotEQ §6, Figure 6(a)): the image-necessity
filter (:func:`image_necessity`, behaviors that text-only runs judged correctly are dropped) and
the ``judgment-no-image`` labels attached as ``votes_no_image`` (:func:`attach_no_image_votes`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from socialbench.construction.jsonl import numbered_jsonl
from socialbench.errors import DataError
from socialbench.files.schema import FieldRule, check_fields
from socialbench.records import SAMPLE_FIELDS, read_samples

__all__ = ["load_text_only_predictions", "image_necessity", "attach_no_image_votes"]


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
