"""Scenario -> robot first-person visual prompt (RobotEQ App. B.2, "Visual Prompt Synthesis"): a
model writes a structured visual description, and :func:`compose_image_prompt` renders it into
the image model's prompt with the constraints of the review criteria (Table 3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypedDict

from socialbench.construction.llm import JsonResult, JsonTask, OutputError, require_fields
from socialbench.types import GenerationConfig, Request

__all__ = [
    "visual_prompt_request",
    "VisualPrompt",
    "validate_visual_prompt",
    "compose_image_prompt",
    "image_prompt_tasks",
    "image_prompt_records",
]

CONSTRAINTS = (
    "Photorealistic photograph taken from the robot's own first-person camera at about chest height of an adult. "
    "The robot's body, arms, shell, screen or reflection must not be visible. "
    "No readable text, posters, infographics, phone or computer interfaces. "
    "Natural anatomy (hands, limbs, faces) and physically plausible objects."
)

SCENARIO_KEYS = (
    "id",
    "title",
    "description",
    "spi_rationale",
    "decision_point",
    "category",
    "category_id",
    "subcategory",
    "subcategory_id",
    "role",
)


def visual_prompt_request(scenario: Mapping[str, object]) -> str:
    return "\n".join(
        [
            "Convert this robot social-interaction scenario into a detailed prompt for a text-to-image model.",
            "The image is what the robot itself sees through its camera (first-person, robot-centric view).",
            "Preserve the social conflict of the scenario and make every cue needed to judge the robot's next action "
            "visible: where each person is relative to the robot, their gaze direction, posture, gestures, facial "
            "expression, interpersonal distance, object ownership, waiting or queueing state.",
            "",
            f"Subcategory: {scenario.get('subcategory', '')} ({scenario.get('category', '')})",
            f"Robot role: {scenario.get('role', '')}",
            f"Title: {scenario.get('title', '')}",
            f"Description: {scenario.get('description', '')}",
            f"Decision point: {scenario.get('decision_point', '')}",
            "",
            "Reply with only a JSON object of this form:",
            '{"viewpoint": "camera height, direction, what is in the foreground", '
            '"layout": "spatial arrangement of the scene from near to far, left to right", '
            '"people": [{"who": "...", "position": "...", "gaze": "...", "posture": "...", "expression": "..."}], '
            '"objects": ["key objects and where they are"], '
            '"social_cues": ["visible cues that matter for the decision"], '
            '"environment": "lighting, time of day, atmosphere", '
            '"visual_prompt": "one paragraph prompt for the image model combining all of the above"}',
        ]
    )


class VisualPrompt(TypedDict):
    """A validated visual prompt: the fields of an ``image_prompts.jsonl`` record before
    ``image_prompt`` (:func:`compose_image_prompt`) and ``scenario``."""

    viewpoint: str
    layout: str
    people: list[dict[str, object]]  # who, position, gaze, posture, expression: as the model wrote them
    objects: list[str]
    social_cues: list[str]
    environment: str
    visual_prompt: str


def validate_visual_prompt(obj: dict[str, object]) -> VisualPrompt:
    """Validator: ``visual_prompt``, ``layout`` and ``viewpoint`` texts, a list of
    ``social_cues`` and a list of ``people`` objects are required."""
    require_fields(obj, ["visual_prompt", "layout", "viewpoint", "social_cues"])
    texts: dict[str, str] = {}
    for key in ("visual_prompt", "layout", "viewpoint"):
        value = obj[key]
        if not isinstance(value, str):
            raise OutputError("invalid_output", f"{key} must be a text")
        texts[key] = value.strip()
    cues = obj["social_cues"]
    if not isinstance(cues, list) or not all(isinstance(c, str) and c.strip() for c in cues):
        raise OutputError("invalid_output", "social_cues must be a list of texts")
    people = obj.get("people", [])
    if not isinstance(people, list) or not all(isinstance(p, dict) for p in people):
        raise OutputError("invalid_output", "people must be a list of objects")
    objects = obj.get("objects", [])
    if not isinstance(objects, list):
        raise OutputError("invalid_output", "objects must be a list")
    return {
        "viewpoint": texts["viewpoint"],
        "layout": texts["layout"],
        "people": people,
        "objects": [str(o) for o in objects],
        "social_cues": [c.strip() for c in cues],
        "environment": str(obj.get("environment") or "").strip(),
        "visual_prompt": texts["visual_prompt"],
    }


def compose_image_prompt(v: VisualPrompt) -> str:
    """The text sent to the image model: the synthesized paragraph, the layout and cues
    spelled out, then the fixed constraints."""
    parts = [v["visual_prompt"], f"Viewpoint: {v['viewpoint']}", f"Layout: {v['layout']}"]
    people = v.get("people") or []
    if people:
        desc = "; ".join(
            ", ".join(f"{k}: {p[k]}" for k in ("who", "position", "gaze", "posture", "expression") if p.get(k))
            for p in people
        )
        parts.append(f"People: {desc}")
    if v.get("social_cues"):
        parts.append("Visible social cues: " + "; ".join(v["social_cues"]))
    if v.get("environment"):
        parts.append(f"Environment: {v['environment']}")
    parts.append(CONSTRAINTS)
    return "\n".join(parts)


def image_prompt_tasks(
    scenarios: Sequence[Mapping[str, object]], config: GenerationConfig, salts: Mapping[str, int] | None = None
) -> list[JsonTask]:
    salts = salts or {}
    return [
        JsonTask(
            id=str(s["id"]),  # the stage JSONL reader checked every id is text
            request=Request(prompt=visual_prompt_request(s), config=config),
            validate=validate_visual_prompt,
            context=s,
            salt=salts.get(str(s["id"]), 0),
        )
        for s in scenarios
    ]


def image_prompt_records(result: JsonResult) -> list[dict[str, object]]:
    s = result.context
    v = result.value
    return [
        {
            "id": result.id,
            **v,
            "image_prompt": compose_image_prompt(v),
            "scenario": {k: s.get(k) for k in SCENARIO_KEYS},
        }
    ]
