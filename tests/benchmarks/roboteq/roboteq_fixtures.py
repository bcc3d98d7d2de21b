"""A tiny RobotEQ release in the published layout, drawn by the tests themselves.

Layout::

    behavior_judgment/metadata.jsonl + images/*.png   (3 scenes, 7 behaviors)
    spatial_grounding/metadata.jsonl + images/*.png   (3 questions)

Scene ``s1`` (synthetic) uses labels + option_texts + gt_labels, per-behavior facets and
list votes; ``s2`` (synthetic) labels only, scene-level facets, dict votes; ``r1`` (real)
option_texts/gt_labels only, no facets, list votes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

ROLE = "You are a restaurant service robot. In the following scenario, what is your most appropriate next action?"

JUDGMENT_ROWS: list[dict[str, Any]] = [
    {
        "id": "s1",
        "file_name": "images/s1.png",
        "question": ROLE,
        "labels": "[1] proper: Approach the table and ask if the guests need water.\n[2] improper: Announce the bill total loudly.",
        "option_texts": ["Approach the table and ask if the guests need water.", "Announce the bill total loudly."],
        "gt_labels": ["proper", "improper"],
        "subset": "synthetic",
        "category": "Retail, Hospitality & Consumer Services",
        "subcategory": "Restaurant",
        "facets": [["politeness"], ["privacy", "politeness"]],
        "votes": [["proper", "proper", "improper"], ["improper", "improper", "improper"]],
    },
    {
        "id": "s2",
        "file_name": "images/s2.png",
        "question": "You are a hotel service robot. In the following scenario, what is your next most suitable action?",
        "labels": "[1] proper: Stop outside the door and play a gentle message.\n[2] proper: Place the tray on the shelf.\n[3] improper: Open the door and enter.",
        "subset": "synthetic",
        "category": "Retail, Hospitality & Consumer Services",
        "subcategory": "Hotel",
        "facets": "privacy",
        "votes": {
            "1": {"proper": 2, "improper": 1},
            "2": ["proper", "proper", "proper"],
            "3": ["improper", "proper", "improper"],
        },
    },
    {
        "id": "r1",
        "file_name": "images/r1.png",
        "question": "You are a museum guide robot. In the following scenario, what is the most appropriate next action?",
        "option_texts": ["Walk through the middle of the tour group.", "Wait behind the group until it moves on."],
        "gt_labels": ["improper", "proper"],
        "subset": "real",
        "category": "Cultural, Ceremonial & Religious Spaces",
        "subcategory": "Museum",
        "votes": [["improper", "improper", "proper"], ["proper", "proper", "proper"]],
    },
]

GROUNDING_ROWS: list[dict[str, Any]] = [
    {
        "id": "g1",
        "file_name": "images/g1.png",
        "question": "Where should you wait for the guest?",
        "answer": ["A", "C"],
        "subset": "synthetic",
        "category": "Retail, Hospitality & Consumer Services",
        "votes": [["A", "C"], ["A"], ["A", "C"]],
    },
    {
        "id": "g2",
        "file_name": "images/g2.png",
        "question": "Which path avoids the queue?",
        "answer": "B",
        "subset": "real",
        "options": {"A": "left aisle", "B": "right aisle", "C": "through the queue", "D": "behind the counter"},
    },
    {"id": "g3", "file_name": "images/g3.png", "question": "Where can you park?", "answer": "A,D", "subset": "real"},
]


def draw_image(path: Path, seed: int, letters: bool = False) -> None:
    """A small scene: a coloured background with a few boxes (regions A-D if ``letters``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    img = Image.new("RGB", (120, 80), ((40 * seed) % 256, 120, (200 - 30 * seed) % 256))
    d = ImageDraw.Draw(img)
    d.rectangle([10 + seed, 10, 50, 60], fill=(230, 210, 180))
    d.ellipse([70, 20, 100, 50], fill=(20, 20, 20))
    if letters:
        for i, letter in enumerate("ABCD"):
            x = 5 + 28 * i
            d.rectangle([x, 62, x + 20, 78], outline=(255, 0, 0))
            d.text((x + 6, 64), letter, fill=(255, 255, 255))
    img.save(path)


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def build_release(
    root: Path, judgment: list[dict[str, Any]] | None = None, grounding: list[dict[str, Any]] | None = None
) -> Path:
    """Write the published layout under ``root`` (images for every referenced file)."""
    judgment = JUDGMENT_ROWS if judgment is None else judgment
    grounding = GROUNDING_ROWS if grounding is None else grounding
    for sub, rows, letters in (("behavior_judgment", judgment, False), ("spatial_grounding", grounding, True)):
        if not rows:
            continue
        write_jsonl(root / sub / "metadata.jsonl", rows)
        for i, r in enumerate(rows):
            name = r.get("file_name")
            if isinstance(name, str) and not name.startswith(("/", "..")) and ".." not in name:
                target = root / sub / name
                if not target.exists():
                    draw_image(target, i, letters)
    return root


@pytest.fixture
def release(tmp_path: Path) -> Path:
    """The tiny published-layout release."""
    return build_release(tmp_path / "robot-eq")


@pytest.fixture
def make_release(tmp_path: Path) -> Callable[..., Path]:
    """Build a release with custom rows: ``make_release(judgment=[...], grounding=[...])``."""
    counter = {"n": 0}

    def make(judgment: list[dict[str, Any]] | None = None, grounding: list[dict[str, Any]] | None = None) -> Path:
        counter["n"] += 1
        return build_release(tmp_path / f"release{counter['n']}", judgment, grounding)

    return make
