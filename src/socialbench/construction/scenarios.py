"""Scenario generation by beam-merge (RobotEQ App. A.2) plus a local near-duplicate filter:
``beams`` requests of at least ``k`` scenarios per subcategory (``scenarios/beams.jsonl``), one
merge request per subcategory whose beams are all done (``scenarios/merged.jsonl``), then
:func:`~socialbench.construction.near_duplicates.near_duplicates` over the kept scenarios
(``scenarios.jsonl``, removals with reasons in ``scenarios.removed.jsonl``). Replies, ids and
options: docs/build.md, "2. scenarios"."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TypedDict

import numpy as np

from socialbench.construction.llm import JsonResult, JsonTask, OutputError, require_fields
from socialbench.construction.near_duplicates import near_duplicates
from socialbench.construction.record_fields import mappings, text, whole_number
from socialbench.types import GenerationConfig, Request

__all__ = [
    "SCENARIO_FIELDS",
    "beam_id",
    "beam_prompt",
    "validate_beam",
    "beam_tasks",
    "beam_records",
    "merge_prompt",
    "validate_merge",
    "merge_tasks",
    "merge_records",
    "scenario_text",
    "dedup_scenarios",
]

SCENARIO_FIELDS = ("title", "description", "spi_rationale", "decision_point")


def beam_id(sub_id: str, b: int) -> str:
    return f"{sub_id}/b{b:02d}"


# --------------------------------------------------------------------------- beam phase


def beam_prompt(sub: Mapping[str, object], b: int, beams: int, k: int) -> str:
    """The beam-phase prompt for subcategory record ``sub`` (a ``taxonomy.jsonl`` row)."""
    return "\n".join(
        [
            "You design test scenarios for Social Proactive Intelligence (SPI): whether an embodied robot, "
            "seeing the world from its own first-person viewpoint, chooses socially appropriate next actions.",
            "",
            f"Category: {sub.get('category', '')}",
            f"Subcategory: {sub.get('subcategory', '')}",
            f"Robot role: {sub.get('role', '')}",
            f"Setting: {sub.get('category_description', '')} {sub.get('description', '')}".rstrip(),
            "",
            f"Write at least {k} distinct scenarios for this subcategory (independent generation round {b + 1} of {beams}).",
            "Rules:",
            "- Each scenario happens in a realistic setting of this subcategory and is observed by the robot itself.",
            "- Each scenario contains a socially meaningful decision point: a moment where the robot must pick its "
            "next action and where social norms (safety, privacy, proxemics, cooperation, politeness, priority, "
            "sensitivity) decide what is appropriate. Routine task execution is not enough.",
            "- Do not repeat yourself: vary the situational setting, the narrative structure and the aspect of SPI tested.",
            "- Describe people, their positions, gaze, posture and other visible cues; keep actions hardware-agnostic.",
            "",
            "Reply with only a JSON object of this form:",
            '{"scenarios": [{"title": "short title", "description": "detailed description of the scene and what is '
            'happening", "spi_rationale": "why the robot needs social proactive intelligence here", '
            '"decision_point": "the choice the robot faces"}]}',
        ]
    )


def _clean_scenarios(raw: object) -> tuple[list[dict[str, str]], list[str]]:
    """Complete scenarios (all four fields, stripped) and messages about dropped entries."""
    if not isinstance(raw, list):
        return [], ["scenarios is not a list"]
    good: list[dict[str, str]] = []
    notes: list[str] = []
    titles: set[str] = set()
    for i, s in enumerate(raw, start=1):
        if not isinstance(s, dict):
            notes.append(f"scenario {i} is not an object")
            continue
        missing = [f for f in SCENARIO_FIELDS if not isinstance(s.get(f), str) or not s[f].strip()]
        if missing:
            notes.append(f"scenario {i} lacks {', '.join(missing)}")
            continue
        key = re.sub(r"\W+", " ", s["title"]).strip().casefold()
        if key in titles:
            notes.append(f"scenario {i} repeats the title {s['title']!r}")
            continue
        titles.add(key)
        good.append({f: s[f].strip() for f in SCENARIO_FIELDS})
    return good, notes


def validate_beam(k: int) -> Callable[[dict[str, object]], dict[str, object]]:
    """Validator: at least ``k`` complete, distinct scenarios; incomplete entries are
    dropped (and listed in ``dropped``)."""

    def check(obj: dict[str, object]) -> dict[str, object]:
        if "scenarios" not in obj:
            raise OutputError("missing_fields", "the reply lacks the scenarios list")
        good, notes = _clean_scenarios(obj["scenarios"])
        if len(good) < k:
            kind = "missing_fields" if any("lacks" in n for n in notes) else "invalid_output"
            detail = "; ".join(notes[:5])
            raise OutputError(
                kind,
                f"only {len(good)} complete distinct scenarios, at least {k} needed"
                + (f" ({detail})" if detail else ""),
            )
        return {"scenarios": good, "dropped": notes}

    return check


def beam_tasks(
    subs: Sequence[Mapping[str, object]],
    *,
    beams: int,
    k: int,
    config: GenerationConfig,
    salts: Mapping[str, int] | None = None,
) -> list[JsonTask]:
    salts = salts or {}
    return [
        JsonTask(
            id=beam_id(str(sub["id"]), b),  # the stage JSONL reader checked every id is text
            request=Request(prompt=beam_prompt(sub, b, beams, k), config=config),
            validate=validate_beam(k),
            context=sub,
            salt=salts.get(beam_id(str(sub["id"]), b), 0),
        )
        for sub in subs
        for b in range(beams)
    ]


def beam_records(result: JsonResult) -> list[dict[str, object]]:
    sub = result.context
    value = result.value
    return [
        {
            "id": result.id,
            "subcategory_id": sub["id"],
            "beam": int(result.id.rsplit("/b", 1)[1]),
            "scenarios": [
                {"candidate": f"{result.id.rsplit('/', 1)[1]}-{i + 1}", **s} for i, s in enumerate(value["scenarios"])
            ],
            "dropped": value["dropped"],
            "raw_attempts": result.attempts,
        }
    ]


# --------------------------------------------------------------------------- merge phase


def merge_prompt(sub: Mapping[str, object], candidates: Sequence[Mapping[str, object]]) -> str:
    lines = [
        "You are an expert reviewer deduplicating a pool of robot social-interaction scenarios.",
        f"Category: {sub.get('category', '')}; subcategory: {sub.get('subcategory', '')}.",
        "",
        "Remove scenarios that are overly similar to another scenario in context, triggering event or the "
        "targeted aspect of social proactive intelligence; keep the ones that are meaningfully distinct. When "
        "two are near-duplicates keep the clearer one.",
        "",
        "Candidates:",
    ]
    for c in candidates:
        lines.append(
            f"[{c['candidate']}] {c['title']}: {c['description']} (decision point: {c['decision_point']}; "
            f"SPI: {c['spi_rationale']})"
        )
    lines += [
        "",
        "Reply with only a JSON object of this form, using the candidate ids in brackets:",
        '{"keep": ["b00-1", ...], "removed": [{"id": "b03-2", "duplicate_of": "b00-1", "reason": "same event"}]}',
    ]
    return "\n".join(lines)


def validate_merge(candidate_ids: Sequence[str]) -> Callable[[dict[str, object]], dict[str, object]]:
    """Validator: ``keep`` is a non-empty list of known ids; ``removed`` entries name known
    ids. Candidates in neither list count as removed (reason: omitted by the merge model)."""
    known = list(candidate_ids)
    known_set = set(known)

    def check(obj: dict[str, object]) -> dict[str, object]:
        require_fields(obj, ["keep"])
        keep = obj["keep"]
        if not isinstance(keep, list) or not all(isinstance(x, str) for x in keep):
            raise OutputError("invalid_output", "keep must be a list of candidate ids")
        keep_ids = [x.strip().strip("[]") for x in keep]
        unknown = [x for x in keep_ids if x not in known_set]
        if unknown:
            raise OutputError("invalid_output", f"keep names unknown candidate id(s) {', '.join(unknown[:5])}")
        removed_raw = obj.get("removed") or []
        if not isinstance(removed_raw, list):
            raise OutputError("invalid_output", "removed must be a list")
        removed: dict[str, dict[str, object]] = {}
        for r in removed_raw:
            rid = r.get("id") if isinstance(r, dict) else r
            rid = rid.strip().strip("[]") if isinstance(rid, str) else rid
            if rid not in known_set:
                raise OutputError("invalid_output", f"removed names unknown candidate id {rid!r}")
            if rid in keep_ids:
                raise OutputError("invalid_output", f"candidate {rid} is both kept and removed")
            dup = r.get("duplicate_of") if isinstance(r, dict) else None
            removed[rid] = {
                "duplicate_of": dup if dup in known_set else None,
                "reason": str(r.get("reason") or "") if isinstance(r, dict) else "",
            }
        for cid in known:
            if cid not in keep_ids and cid not in removed:
                removed[cid] = {"duplicate_of": None, "reason": "omitted by the merge model"}
        ordered_keep = [c for c in known if c in set(keep_ids)]
        if not ordered_keep:
            raise OutputError("invalid_output", "keep is empty")
        return {"keep": ordered_keep, "removed": removed}

    return check


def merge_tasks(
    subs: Sequence[Mapping[str, object]],
    beams_by_sub: Mapping[str, Sequence[Mapping[str, object]]],
    config: GenerationConfig,
    salts: Mapping[str, int] | None = None,
) -> list[JsonTask]:
    """One merge task per subcategory whose beams are all present in ``beams_by_sub``."""
    salts = salts or {}
    tasks = []
    for sub in subs:
        sid = str(sub["id"])  # the stage JSONL reader checked every id is text
        beam_recs = beams_by_sub.get(sid)
        if not beam_recs:
            continue
        candidates = [
            c for b in sorted(beam_recs, key=lambda r: whole_number(r, "beam")) for c in mappings(b, "scenarios")
        ]
        tasks.append(
            JsonTask(
                id=sid,
                request=Request(prompt=merge_prompt(sub, candidates), config=config),
                validate=validate_merge([text(c, "candidate") for c in candidates]),
                context={"sub": sub, "candidates": candidates},
                salt=salts.get(sid, 0),
            )
        )
    return tasks


def merge_records(result: JsonResult) -> list[dict[str, object]]:
    ctx = result.context
    by_id = {c["candidate"]: c for c in ctx["candidates"]}
    return [
        {
            "id": result.id,
            "n_candidates": len(by_id),
            "kept": [by_id[c] for c in result.value["keep"]],
            "removed": [{"candidate": cid, **info} for cid, info in result.value["removed"].items()],
        }
    ]


# --------------------------------------------------------------------------- the local filter over scenario records


def scenario_text(s: Mapping[str, object]) -> str:
    return f"{s.get('title', '')}. {s.get('description', '')} {s.get('decision_point', '')}"


class _RemovalBase(TypedDict):
    id: str
    reason: str  # merge-model or local-near-duplicate
    duplicate_of: object  # an id (None when the merge model named none)


class Removal(_RemovalBase, total=False):
    """A ``scenarios.removed.jsonl`` record: ``detail`` (the merge model's reason) or
    ``similarity`` and ``method`` (the local filter's)."""

    detail: object
    similarity: float
    method: str


def dedup_scenarios(
    merged: Sequence[Mapping[str, object]],
    subs: Mapping[str, Mapping[str, object]],
    *,
    threshold: float = 0.5,
    method: str = "ngram",
    scope: str = "subcategory",
    embed: Callable[[Sequence[str]], np.ndarray] | None = None,
) -> tuple[list[dict[str, object]], list[Removal]]:
    """Final scenarios and removal records from the merged subcategory pools.

    ``merged`` are ``merged.jsonl`` records in taxonomy order; ``subs`` maps subcategory id
    to its ``taxonomy.jsonl`` record. Removals by the merge model are listed too.
    """
    if scope not in ("subcategory", "all"):
        raise ValueError(f"unknown dedup scope {scope!r}; use subcategory or all")
    removed: list[Removal] = []
    pools: list[list[dict[str, object]]] = []
    for rec in merged:
        sub = subs[str(rec["id"])]
        for r in mappings(rec, "removed"):
            removed.append(
                {
                    "id": f"{rec['id']}/{r['candidate']}",
                    "reason": "merge-model",
                    "duplicate_of": f"{rec['id']}/{r['duplicate_of']}" if r.get("duplicate_of") else None,
                    "detail": r.get("reason", ""),
                }
            )
        pool = []
        for s in mappings(rec, "kept"):
            pool.append(
                {
                    "id": f"{rec['id']}/{s['candidate']}",
                    **{f: s[f] for f in SCENARIO_FIELDS},
                    "category": sub.get("category"),
                    "category_id": sub.get("category_id"),
                    "subcategory": sub.get("subcategory"),
                    "subcategory_id": sub["id"],
                    "role": sub.get("role"),
                }
            )
        pools.append(pool)
    groups = pools if scope == "subcategory" else [[s for p in pools for s in p]]
    if method == "minhash" and scope == "subcategory":
        method = "ngram"  # pools are small: exact comparison is cheap
    final: list[dict[str, object]] = []
    for group in groups:
        res = near_duplicates([scenario_text(s) for s in group], threshold=threshold, method=method, embed=embed)
        final.extend(group[i] for i in res.keep)
        for i, j, similarity in res.removed:
            removed.append(
                {
                    "id": text(group[i], "id"),
                    "reason": "local-near-duplicate",
                    "duplicate_of": group[j]["id"],
                    "similarity": similarity,
                    "method": method,
                }
            )
    return final, removed
