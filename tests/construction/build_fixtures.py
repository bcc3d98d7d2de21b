"""Fixtures for the build-pipeline tests (conftest.py re-exports them; tests import helpers
from here): a scripted chat server that answers every build prompt from a fixture, a
scripted images server, a small taxonomy and a CLI runner."""

from __future__ import annotations

import base64
import io
import json
import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typer
from PIL import Image, ImageDraw
from typer.testing import CliRunner

from socialbench.construction.commands import register
from socialbench.testing.images_server import ScriptedImagesServer
from socialbench.testing.openai_server import ScriptedOpenAIServer
from socialbench.testing.responders import last_user_text

VOCAB = (
    "lobby guest luggage elevator queue child parent nurse patient doctor waiter table counter cashier receipt "
    "umbrella stroller wheelchair crutches toddler tourist guide map ticket gate platform train bus driver "
    "worker helmet forklift pallet crate shelf aisle trolley basket bottle spill floor corridor doorway stairs "
    "ramp bench window curtain lamp sofa kitchen sink dishes laundry dog leash bowl cat sunlight rain puddle "
    "crowd whisper laughter argument phone laptop notebook pen teacher student blackboard library book silence "
    "priest altar candle prayer bride groom flowers cake speech applause museum painting sculpture rope barrier"
).split()


def _sentence(seed: str, n: int = 28) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(VOCAB) for _ in range(n)) + "."


def scenario(sub: str, b: int, i: int) -> dict[str, str]:
    desc = _sentence(f"{sub}|{b}|{i}")
    if b == 1 and i == 1:  # a near-copy of beam 0's first scenario: the local filter must catch it
        desc = _sentence(f"{sub}|0|1") + " Again."
    return {
        "title": f"{sub} situation {b}-{i}",
        "description": desc,
        "spi_rationale": "The robot must read the people before acting.",
        "decision_point": f"Whether to approach person {i} now or wait.",
    }


def _image_from_request(body: dict[str, Any]) -> Image.Image | None:
    for m in body.get("messages", []):
        content = m.get("content")
        if isinstance(content, list):
            for part in content:
                if part.get("type") == "image_url":
                    url = part["image_url"]["url"]
                    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")
    return None


def build_responder(body: dict[str, Any]) -> str:
    """Answer each build prompt from the fixture (see the test modules for the cases)."""
    text = last_user_text(body)
    if text.startswith("You design test scenarios"):
        sub = re.search(r"^Subcategory: (.*)$", text, re.M).group(1)
        b = int(re.search(r"round (\d+) of", text).group(1)) - 1
        k = int(re.search(r"Write at least (\d+)", text).group(1))
        items = [scenario(sub, b, i) for i in range(1, k + 1)]
        if "Broken" in sub:
            for it in items:
                del it["decision_point"]
        return json.dumps({"scenarios": items})
    if text.startswith("You are an expert reviewer deduplicating"):
        ids = re.findall(r"^\[(b\d+-\d+)\]", text, re.M)
        return json.dumps(
            {"keep": ids[:-1], "removed": [{"id": ids[-1], "duplicate_of": ids[0], "reason": "same event"}]}
        )
    if text.startswith("Convert this robot social-interaction scenario"):
        title = re.search(r"^Title: (.*)$", text, re.M).group(1)
        reply = {
            "viewpoint": "chest height, looking down the aisle",
            "layout": f"the scene of {title}",
            "people": [
                {
                    "who": "a guest",
                    "position": "two metres ahead",
                    "gaze": "at the robot",
                    "posture": "leaning",
                    "expression": "tired",
                }
            ],
            "objects": ["a suitcase on the left"],
            "social_cues": ["the guest glances at the robot"],
            "environment": "warm evening light",
            "visual_prompt": f"First-person view: {title}.",
        }
        if "Missing" in title:
            del reply["visual_prompt"]
        return json.dumps(reply)
    if text.startswith("You are an expert reviewer of generated benchmark images"):
        img = _image_from_request(body)
        edited = img is not None and min(img.getpixel((1, 1))) > 235
        title = re.search(r"^Scenario: (.*?):", text, re.M).group(1)
        matrix = {
            k: True
            for k in (
                "scenario_faithfulness",
                "factual_correctness",
                "detail_quality",
                "pov_constraint",
                "no_forbidden_graphics",
                "json_consistency",
                "social_cue_visibility",
            )
        }
        reasons: dict[str, str] = {}
        if "Soft" in title:
            matrix["detail_quality"] = False
            reasons["detail_quality"] = "people are too small"
        elif "Stubborn" in title or not edited:
            matrix["factual_correctness"] = False
            reasons["factual_correctness"] = "the guest has six fingers; fix the hand"
        return json.dumps({"scenario_summary": f"an image of {title}", "matrix": matrix, "reasons": reasons})
    if text.startswith("The image is what you"):
        n_p = int(re.search(r"at least (\d+) socially proper", text).group(1))
        n_i = int(re.search(r"at least (\d+) improper", text).group(1))
        behaviors = [
            {"text": f"Proper action {j}", "suggested_label": "proper", "facets": ["politeness"], "rationale": "kind"}
            for j in range(1, n_p + 1)
        ]
        behaviors += [
            {
                "text": f"Improper action {j}",
                "suggested_label": "improper",
                "facets": ["safety", "proxemics"],
                "rationale": "rude",
            }
            for j in range(1, n_i + 1)
        ]
        return json.dumps(
            {
                "question": "You are a test robot. In the following scenario, what is your most appropriate next action?",
                "behaviors": behaviors,
            }
        )
    if text.startswith("You screen photos"):
        img = _image_from_request(body)
        mean = float(np.asarray(img.convert("L")).mean()) if img else 0.0
        ok = mean > 90
        return json.dumps({"robot_centric": ok, "suitable": ok, "reason": "bright scene" if ok else "too dark"})
    return json.dumps({"answer": "ok"})


def white_band_editor(image: bytes, prompt: str) -> bytes:
    """Edits paint the top rows white, so the review responder can tell an edited image."""
    img = Image.open(io.BytesIO(image)).convert("RGB")
    ImageDraw.Draw(img).rectangle([0, 0, img.width, max(3, img.height // 5)], fill=(255, 255, 255))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def dark_generator(prompt: str, size: tuple[int, int]) -> bytes:
    h = sum(prompt.encode()) % 80
    img = Image.new("RGB", size, (20 + h, 30, 40))
    ImageDraw.Draw(img).ellipse([size[0] // 4, size[1] // 4, 3 * size[0] // 4, 3 * size[1] // 4], fill=(90, 60 + h, 30))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


TAXONOMY_YAML = """
version: 1
categories:
  - id: retail
    name: Retail, Hospitality & Consumer Services
    description: consumer-facing venues
    subcategories:
      - {id: restaurant, name: Restaurant, role: a restaurant service robot}
      - {id: hotel, name: Hotel, role: a hotel service robot}
"""


@pytest.fixture
def chat_server():
    with ScriptedOpenAIServer(responder=build_responder) as srv:
        yield srv


@pytest.fixture
def images_server():
    with ScriptedImagesServer(generator=dark_generator, editor=white_band_editor) as srv:
        yield srv


@pytest.fixture
def cli():
    app = typer.Typer()
    register(app)
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, ["build", *[str(a) for a in args]])

    return invoke


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A work folder with a two-subcategory taxonomy.jsonl."""
    from socialbench.construction.jsonl import write_jsonl
    from socialbench.construction.taxonomy import load_taxonomy, taxonomy_records

    w = tmp_path / "work"
    w.mkdir()
    (w / "taxonomy.yaml").write_text(TAXONOMY_YAML, encoding="utf-8")
    write_jsonl(w / "taxonomy.jsonl", taxonomy_records(load_taxonomy(w / "taxonomy.yaml")))
    return w


@pytest.fixture
def llm_args():
    """CLI options pointing a stage at a scripted chat server."""

    def make(srv: ScriptedOpenAIServer) -> list[str]:
        return ["--model", f"openai:scripted@{srv.base_url}", "--max-attempts", "2", "--timeout", "10", "--no-cache"]

    return make


@pytest.fixture
def write_scenarios():
    """Write <work>/scenarios.jsonl with one restaurant scenario per title."""
    return _write_scenarios


def _write_scenarios(work: Path, titles: list[str]) -> None:
    from socialbench.construction.jsonl import write_jsonl

    rows = []
    for i, t in enumerate(titles):
        rows.append(
            {
                "id": f"restaurant/b00-{i + 1}",
                "title": t,
                "description": f"{t} happens near a table.",
                "spi_rationale": "r",
                "decision_point": "approach or wait",
                "category": "Retail, Hospitality & Consumer Services",
                "category_id": "retail",
                "subcategory": "Restaurant",
                "subcategory_id": "restaurant",
                "role": "a restaurant service robot",
            }
        )
    write_jsonl(work / "scenarios.jsonl", rows)


def write_scenes(work: Path, n: int = 2) -> list[dict[str, Any]]:
    """Write ``n`` scene images and a ``behaviors.jsonl`` naming them (restaurant scenes of
    the synthetic subset); return the scene records."""
    from socialbench.construction.jsonl import write_jsonl

    scenes = []
    for i in range(1, n + 1):
        rel = f"images/scene{i}/round0.png"
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (64, 48), (40 * i, 90, 120)).save(work / rel)
        scenes.append(
            {
                "id": f"restaurant/b00-{i}",
                "image": rel,
                "subset": "synthetic",
                "question": "You are a restaurant service robot. What is your most appropriate next action?",
                "category": "Retail, Hospitality & Consumer Services",
                "subcategory": "Restaurant",
                "behaviors": [{"k": 1, "text": "Wait by the counter.", "suggested_label": "proper", "facets": []}],
            }
        )
    write_jsonl(work / "behaviors.jsonl", scenes)
    return scenes
