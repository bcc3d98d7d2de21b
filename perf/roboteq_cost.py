"""Cost of a full RobotEQ behavior-judgment pass: per-scene vs per-behavior requests.

Generates a fixture in the published layout with the release's shape (default 1,894 scenes,
4,944 candidate behaviors, 1376 x 768 JPEG images), loads it with the real loader, builds
every prompt through the solver's own prompt builder
(:func:`socialbench.benchmarks.roboteq.benchmark.judgment_requests`) and encodes images
through :class:`~socialbench.vision.images.ImageEncoder` under the paper's policy (longest
side <= 768 px), asking the encoder once per *request* to show that each image is decoded,
resized, (perturbed,) and encoded once.

Counts reported per mode:

* requests;
* prompt text tokens, estimated as ``ceil(characters / 4)``
  (:func:`socialbench.benchmarks.roboteq.tokens.approx_tokens`);
* image tokens, estimated from the encoded image size with two documented formulas
  (:func:`socialbench.benchmarks.roboteq.tokens.image_tokens`): ``tiles`` (OpenAI
  high-detail: 85 + 170 per 512 px tile after fitting the short side to 768) and ``patch28``
  (Qwen2.5-VL style: one token per 28 x 28 px patch);
* image encodes actually performed and the time they took.

Usage::

    python perf/roboteq_cost.py                       # full published shape
    python perf/roboteq_cost.py --scenes 50 --behaviors 130 --json out.json
    python perf/roboteq_cost.py --strategy rag        # include retrieved documents
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from socialbench.benchmarks.roboteq.benchmark import judgment_requests
from socialbench.benchmarks.roboteq.loader import load_roboteq
from socialbench.benchmarks.roboteq.options import STRATEGIES
from socialbench.benchmarks.roboteq.prompts import rag_block
from socialbench.benchmarks.roboteq.schema import TASK_BJ
from socialbench.benchmarks.roboteq.tokens import approx_tokens, image_tokens
from socialbench.vision.images import ImageEncoder, ImagePolicy

ROLES = (
    "restaurant service robot",
    "hotel service robot",
    "museum guide robot",
    "hospital delivery robot",
    "home assistant robot",
    "warehouse logistics robot",
    "library assistant robot",
    "airport guide robot",
)
ACTIONS = (
    "Approach the table and ask if the guests would like more water",
    "Wait at a respectful distance until the conversation pauses",
    "Announce the remaining balance of the bill to the whole table",
    "Step aside to let the person with the walker pass first",
    "Place the tray on the shelf outside the door and leave quietly",
    "Remind the visitor loudly that photography is not allowed here",
    "Offer a tissue and move back to give the person some space",
    "Take the folder on the desk to the printer without asking",
    "Replan the route and take a detour around the group",
    "Play a gentle chime and wait for the guest to notice you",
)


def make_fixture(root: Path, scenes: int, behaviors: int, width: int, height: int, seed: int = 0) -> Path:
    """Write a published-layout release with ``scenes`` rows and ``behaviors`` behaviors."""
    if behaviors < scenes:
        raise SystemExit("--behaviors must be at least --scenes (every scene has one or more behaviors)")
    rng = random.Random(seed)
    base, extra = divmod(behaviors, scenes)
    folder = root / "behavior_judgment"
    (folder / "images").mkdir(parents=True, exist_ok=True)
    synthetic = round(scenes * 1812 / 2035)  # the paper's synthetic : real scenario ratio
    rows = []
    for i in range(scenes):
        n = base + (1 if i < extra else 0)
        lines = [f"[{k}] {rng.choice(('proper', 'improper'))}: {rng.choice(ACTIONS)}." for k in range(1, n + 1)]
        name = f"images/scene_{i:05d}.jpg"
        img = Image.new("RGB", (width, height), (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
        d = ImageDraw.Draw(img)
        for _ in range(6):
            x, y = rng.randrange(width), rng.randrange(height)
            d.rectangle(
                [x, y, x + width // 8, y + height // 6],
                fill=(rng.randrange(256), rng.randrange(256), rng.randrange(256)),
            )
        img.save(folder / name, quality=90)
        rows.append(
            {
                "id": f"scene_{i:05d}",
                "file_name": name,
                "question": f"You are a {rng.choice(ROLES)}. In the following scenario, what is your most appropriate next action?",
                "labels": "\n".join(lines),
                "subset": "synthetic" if i < synthetic else "real",
            }
        )
    (folder / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return root


def measure(data: Path, strategy: str, max_side: int) -> dict[str, Any]:
    """Requests, text tokens, image tokens and encodes per mode for a full judgment pass."""
    dataset = load_roboteq(data, TASK_BJ, require_images=True)
    knowledge = None
    if strategy == "rag":
        from socialbench.benchmarks.roboteq.rag import default_retriever

        retriever = default_retriever(2)

        def knowledge(query: str) -> str:
            return rag_block([(d.title, d.text) for d in retriever.retrieve(query).documents])

    result: dict[str, Any] = {
        "scenes": len(dataset.items),
        "behaviors": dataset.n_questions,
        "strategy": strategy,
        "image_policy": ImagePolicy(max_side=max_side).describe(),
        "modes": {},
    }
    for mode, per_behavior in (("per-scene", False), ("per-behavior", True)):
        encoder = ImageEncoder(ImagePolicy(max_side=max_side))
        t0 = time.perf_counter()
        requests = text = tiles = patches = 0
        for item in dataset.items:
            prompts = judgment_requests(item, per_behavior=per_behavior, strategy=strategy, knowledge=knowledge)
            for _keys, prompt in prompts:
                requests += 1
                text += approx_tokens(prompt)
                if strategy != "no-image":
                    img = encoder.encode(item.metadata["image"])  # served from the cache after the first
                    tiles += image_tokens(img.width, img.height, "tiles")
                    patches += image_tokens(img.width, img.height, "patch28")
        seconds = time.perf_counter() - t0
        result["modes"][mode] = {
            "requests": requests,
            "text_tokens": text,
            "image_tokens_tiles": tiles,
            "image_tokens_patch28": patches,
            "total_tokens_tiles": text + tiles,
            "image_encodes": encoder.encoded,
            "seconds": round(seconds, 2),
        }
    return result


def markdown(result: dict[str, Any]) -> str:
    cols = (
        "requests",
        "text_tokens",
        "image_tokens_tiles",
        "image_tokens_patch28",
        "total_tokens_tiles",
        "image_encodes",
        "seconds",
    )
    lines = [
        f"RobotEQ behavior judgment, {result['scenes']} scenes / {result['behaviors']} behaviors, strategy {result['strategy']}",
        "",
        "| mode | " + " | ".join(cols) + " |",
        "|---|" + "---:|" * len(cols),
    ]
    for mode, m in result["modes"].items():
        lines.append(
            f"| {mode} | " + " | ".join(f"{m[c]:,}" if isinstance(m[c], int) else str(m[c]) for c in cols) + " |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=int, default=1894)
    ap.add_argument("--behaviors", type=int, default=4944)
    ap.add_argument("--width", type=int, default=1376)
    ap.add_argument("--height", type=int, default=768)
    ap.add_argument("--max-side", type=int, default=768)
    ap.add_argument("--strategy", choices=STRATEGIES, default="standard")
    ap.add_argument("--data", type=Path, help="measure an existing release instead of generating one")
    ap.add_argument("--json", type=Path, help="also write the result as JSON here")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="roboteq-cost-") as tmp:
        data = args.data or make_fixture(Path(tmp), args.scenes, args.behaviors, args.width, args.height)
        result = measure(data, args.strategy, args.max_side)
    print(markdown(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
