"""Candidate next actions per scene image (RobotEQ §4.3, App. C): a VLM proposes proper and
improper actions with suggested facets; the suggestions are not ground truth (annotators
decide). Reply and output: docs/build.md, "7. behaviors"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from socialbench.benchmarks.roboteq.schema import FACETS
from socialbench.construction.llm import JsonResult, JsonTask, OutputError, image_tasks
from socialbench.construction.record_fields import mapping
from socialbench.types import EncodedImage, GenerationConfig

__all__ = [
    "scene_inputs",
    "behavior_prompt",
    "validate_behaviors",
    "behavior_tasks",
    "behavior_records",
    "default_question",
]


def default_question(role: str | None) -> str:
    who = role or "a service robot"
    return f"You are {who}. In the following scenario, what is your most appropriate next action?"


def scene_inputs(
    records: Sequence[Mapping[str, object]], source: str, *, include_rejected: bool = False
) -> list[dict[str, object]]:
    """Normalise stage records into scenes ``{id, image, subset, scenario}``. ``source``:
    ``review`` (the final image; rejected ones skipped unless ``include_rejected``), ``images``
    or ``real-images``."""
    scenes = []
    for r in records:
        if source == "review":
            if r.get("status") == "rejected" and not include_rejected:
                continue
            scenes.append(
                {"id": r["id"], "image": r["final"], "subset": "synthetic", "scenario": r.get("scenario") or {}}
            )
        elif source == "images":
            scenes.append(
                {"id": r["id"], "image": r["image"], "subset": "synthetic", "scenario": r.get("scenario") or {}}
            )
        elif source == "real-images":
            scenes.append(
                {
                    "id": r["id"],
                    "image": r["image"],
                    "subset": "real",
                    "scenario": {k: r.get(k) for k in ("category", "subcategory", "role") if r.get(k)},
                }
            )
        else:
            raise ValueError(f"unknown scene source {source!r}; use review, images or real-images")
    return scenes


def behavior_prompt(scene: Mapping[str, object], n_proper: int, n_improper: int) -> str:
    s = mapping(scene, "scenario")
    lines = [
        f"The image is what you, {s.get('role') or 'a service robot'}, currently see through your own camera.",
    ]
    if s.get("title") or s.get("description"):
        lines.append(f"Scenario: {s.get('title', '')}: {s.get('description', '')}")
    if s.get("subcategory"):
        lines.append(f"Setting: {s.get('subcategory')} ({s.get('category', '')})")
    lines += [
        "",
        "Propose candidate next actions for the robot, phrased as short semantic-level actions (no hardware details):",
        f"- at least {n_proper} socially proper actions that a considerate, proactive robot should take here;",
        f"- at least {n_improper} improper actions that are plausible for a robot but violate social norms here "
        "(not absurd or physically impossible).",
        "Every action must depend on what is visible in the image (people, their gaze, posture, distance, objects).",
        f"Tag each action with the social facets it tests, from: {', '.join(FACETS)}.",
        "",
        "Reply with only a JSON object of this form:",
        '{"question": "You are <role>. In the following scenario, what is your most appropriate next action?", '
        '"behaviors": [{"text": "the action", "suggested_label": "proper", "facets": ["safety"], '
        '"rationale": "why"}]}',
    ]
    return "\n".join(lines)


def validate_behaviors(n_proper: int, n_improper: int):
    """Validator: behaviors with text, a proper/improper suggestion and known facets; at
    least ``n_proper`` proper and ``n_improper`` improper distinct actions."""

    def check(obj: dict[str, object]) -> dict[str, object]:
        raw = obj.get("behaviors")
        if not isinstance(raw, list) or not raw:
            raise OutputError("missing_fields", "the reply lacks the behaviors list")
        out: list[dict[str, object]] = []
        seen: set[str] = set()
        for i, b in enumerate(raw, start=1):
            if not isinstance(b, dict):
                raise OutputError("invalid_output", f"behavior {i} is not an object")
            text = b.get("text")
            label = b.get("suggested_label", b.get("label"))
            if not isinstance(text, str) or not text.strip() or label in (None, ""):
                raise OutputError("missing_fields", f"behavior {i} lacks text or suggested_label")
            label = str(label).strip().casefold()
            if label not in ("proper", "improper"):
                raise OutputError(
                    "invalid_output", f"behavior {i}: suggested_label {label!r} is not proper or improper"
                )
            facets_raw = b.get("facets") or []
            if isinstance(facets_raw, str):
                facets_raw = [f for f in facets_raw.replace(";", ",").split(",") if f.strip()]
            if not isinstance(facets_raw, list):
                raise OutputError("invalid_output", f"behavior {i}: facets must be a list")
            facets = []
            for f in facets_raw:
                name = str(f).strip().casefold()
                if name not in FACETS:
                    raise OutputError("invalid_output", f"behavior {i}: unknown facet {f!r} (use {', '.join(FACETS)})")
                if name not in facets:
                    facets.append(name)
            key = " ".join(text.casefold().split())
            if key in seen:
                continue
            seen.add(key)
            out.append(
                {
                    "text": text.strip(),
                    "suggested_label": label,
                    "facets": facets,
                    "rationale": str(b.get("rationale") or "").strip(),
                }
            )
        n_p = sum(b["suggested_label"] == "proper" for b in out)
        n_i = len(out) - n_p
        if n_p < n_proper or n_i < n_improper:
            raise OutputError(
                "invalid_output",
                f"{n_p} proper and {n_i} improper distinct behaviors; at least {n_proper} and {n_improper} needed",
            )
        q = obj.get("question")
        return {"question": q.strip() if isinstance(q, str) and q.strip() else None, "behaviors": out}

    return check


def behavior_tasks(
    scenes: Sequence[Mapping[str, object]],
    images: Mapping[str, EncodedImage],
    *,
    n_proper: int,
    n_improper: int,
    config: GenerationConfig,
    salts: Mapping[str, int] | None = None,
) -> list[JsonTask]:
    validate = validate_behaviors(n_proper, n_improper)
    return image_tasks(scenes, images, lambda s: behavior_prompt(s, n_proper, n_improper), validate, config, salts)


def behavior_records(result: JsonResult) -> list[dict[str, object]]:
    s = result.context
    scen = s.get("scenario") or {}
    question = result.value["question"] or default_question(scen.get("role"))
    return [
        {
            "id": result.id,
            "image": s["image"],
            "subset": s.get("subset"),
            "question": question,
            "category": scen.get("category"),
            "subcategory": scen.get("subcategory"),
            "scenario_title": scen.get("title"),
            "scenario_description": scen.get("description"),
            "behaviors": [{"k": i + 1, **b} for i, b in enumerate(result.value["behaviors"])],
        }
    ]
