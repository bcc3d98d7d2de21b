"""Replies the ``valid`` responder (:mod:`socialbench.testing.responders`) gives to each
``socialbench build`` stage (scenario beams, merge, visual prompts, image review, behaviors,
photo screening, grounding topics, grounding questions): a reply the stage's validator
accepts, with all review criteria satisfied, every merge candidate kept, every photo
suitable and four non-overlapping boxes A-D (answer ``A``) per question. Deterministic: a
reply depends only on the prompt text.
"""

from __future__ import annotations

import hashlib
import json
import re

_REVIEW_KEY = re.compile(r"^\d+\.\s+([a-z_]+)\s+\((?:Hard|Soft)\):", re.M)


_WORDS = (
    "guest",
    "child",
    "queue",
    "doorway",
    "counter",
    "luggage",
    "phone",
    "table",
    "elderly",
    "nurse",
    "spill",
    "crowd",
    "whisper",
    "umbrella",
    "stroller",
    "ticket",
    "shelf",
    "window",
    "laptop",
    "dog",
    "stairs",
    "tray",
    "cashier",
    "bench",
    "rain",
    "music",
    "book",
    "wheelchair",
    "map",
    "crying",
    "argument",
    "cake",
)


def _distinct_text(seed: str, n: int = 24) -> str:
    """A scene description drawn from a hash of ``seed``: different seeds give texts
    different enough to pass the scenarios stage's near-duplicate filter."""
    digest = hashlib.sha256(seed.encode()).digest() * 2
    return "A scene with " + " ".join(_WORDS[b % len(_WORDS)] for b in digest[:n]) + "."


def _field(prompt: str, pattern: str, default: str) -> str:
    m = re.search(pattern, prompt, re.M)
    return m.group(1).strip() if m else default


def build_reply(prompt: str) -> str | None:
    """A valid reply to a ``socialbench build`` stage prompt, or None if it is not one."""
    if prompt.startswith("You design test scenarios"):
        sub = _field(prompt, r"^Subcategory: (.*)$", "subcategory")
        rnd = _field(prompt, r"round (\d+) of", "1")
        k = int(_field(prompt, r"Write at least (\d+)", "1"))
        return json.dumps(
            {
                "scenarios": [
                    {
                        "title": f"{sub} scene {rnd}-{i}",
                        "description": _distinct_text(f"{sub}|{rnd}|{i}"),
                        "spi_rationale": "The robot must read the people's states before acting.",
                        "decision_point": f"Whether to approach person {i} now or wait.",
                    }
                    for i in range(1, k + 1)
                ]
            }
        )
    if prompt.startswith("You are an expert reviewer deduplicating"):
        ids = re.findall(r"^\[([^\]]+)\]", prompt, re.M)
        return json.dumps({"keep": ids, "removed": []})
    if prompt.startswith("Convert this robot social-interaction scenario"):
        title = _field(prompt, r"^Title: (.*)$", "the scene")
        return json.dumps(
            {
                "viewpoint": "chest height, looking straight ahead",
                "layout": f"the scene of {title}, near to far",
                "people": [
                    {
                        "who": "a person",
                        "position": "two metres ahead",
                        "gaze": "at the robot",
                        "posture": "standing",
                        "expression": "neutral",
                    }
                ],
                "objects": ["a table on the left"],
                "social_cues": ["the person glances at the robot"],
                "environment": "even indoor light",
                "visual_prompt": f"First-person robot camera view: {title}.",
            }
        )
    if prompt.startswith("You are an expert reviewer of generated benchmark images"):
        keys = _REVIEW_KEY.findall(prompt)
        summary = _field(prompt, r"^Scenario: (.*)$", "the scenario")
        return json.dumps(
            {"scenario_summary": f"The image shows {summary}", "matrix": {k: True for k in keys}, "reasons": {}}
        )
    if prompt.startswith("The image is what you"):
        n_p = int(_field(prompt, r"at least (\d+) socially proper", "1"))
        n_i = int(_field(prompt, r"at least (\d+) improper", "1"))
        role = _field(prompt, r"^The image is what you, (.*?), currently see", "a service robot")
        behaviors = [
            {
                "text": f"Proper action {j}: greet the person politely and wait.",
                "suggested_label": "proper",
                "facets": ["politeness"],
                "rationale": "considerate",
            }
            for j in range(1, n_p + 1)
        ]
        behaviors += [
            {
                "text": f"Improper action {j}: push past the person.",
                "suggested_label": "improper",
                "facets": ["safety", "proxemics"],
                "rationale": "intrusive",
            }
            for j in range(1, n_i + 1)
        ]
        return json.dumps(
            {
                "question": f"You are {role}. In the following scenario, what is your most appropriate next action?",
                "behaviors": behaviors,
            }
        )
    if prompt.startswith("You propose spatial grounding topics"):
        n = int(_field(prompt, r"Propose at least (\d+) distinct topics", "1"))
        places = ("wait", "stand", "pass", "stop", "hand over the item")
        return json.dumps(
            {"topics": [f"Where should the robot {places[j % len(places)]} (option {j + 1})?" for j in range(n)]}
        )
    if prompt.startswith("You write spatial grounding questions"):
        topic = _field(prompt, r"^Proposed topic: (.*)$", "the topic")
        boxes = {"A": [0.05, 0.55, 0.25, 0.95], "B": [0.3, 0.55, 0.5, 0.95], "C": [0.55, 0.55, 0.7, 0.95]}
        boxes["D"] = [0.75, 0.55, 0.95, 0.95]
        return json.dumps(
            {
                "question": f"Where should you go? ({topic})",
                "editing_instruction": "Overlay four labeled boxes on the floor, left to right: "
                "A at the far left, B left of centre, C right of centre, D at the far right.",
                "options": {x: f"floor area {x}" for x in boxes},
                "regions": [{"label": x, "shape": "box", "box": b} for x, b in boxes.items()],
                "answer": ["A"],
            }
        )
    if prompt.startswith("You screen photos"):
        return json.dumps({"robot_centric": True, "suitable": True, "reason": "a first-person view of people"})
    return None
