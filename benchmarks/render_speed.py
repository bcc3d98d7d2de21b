"""Rendering speed of SocialNav-SUB prompt images (ms per image).

Generates a scene in memory (1280×720 textured frames, ``--people`` walking pedestrians with
bounding boxes, a robot arcing towards a goal) and times :func:`render_scene` for each image
mode and BEV resolution, ``--repeats`` times 10 timesteps each (the first, warm-up, pass is
not counted). Also checks that two renders give identical PNG bytes.

Usage: ``python benchmarks/render_speed.py [--people 7] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time

import numpy as np
from PIL import Image

from socialbench.navigation.frames import Scene
from socialbench.navigation.projection import PinholeCamera
from socialbench.navigation.render import BevStyle, render_scene, to_png_bytes
from socialbench.navigation.tracks import N_FRAMES, RobotPath, make_track


def make_scene(n_people: int, seed: int = 0) -> tuple[Scene, list[Image.Image]]:
    rng = np.random.default_rng(seed)
    cam = PinholeCamera()
    th = np.radians(np.linspace(0, 25, N_FRAMES))
    robot = RobotPath(4 * np.sin(th), 4 * (1 - np.cos(th)), th)
    people = {}
    for label in range(1, n_people + 1):
        start = np.array([rng.uniform(2, 10), rng.uniform(-4, 4)])
        vel = rng.normal(0, 0.3, 2)
        xy = np.array([start + vel * t for t in range(N_FRAMES)])
        boxes = [cam.person_bbox(float(x), float(y)) or (0, 0, 1, 1) for x, y in xy]
        people[label] = make_track(str(label), xy, bboxes=boxes)
    noise = rng.integers(0, 255, size=(720, 1280, 3), dtype=np.uint8)
    frames = [Image.fromarray(np.roll(noise, 8 * t, axis=1)) for t in range(N_FRAMES)]
    return Scene(people, robot, (12.0, 2.0), n_people=n_people), frames


def time_config(scene: Scene, frames: list[Image.Image], mode: str, style: BevStyle | None,
                repeats: int) -> tuple[float, float, tuple[int, int]]:
    render_scene(scene, mode, frames=frames, bev_style=style)  # warm-up
    per_image = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        imgs = render_scene(scene, mode, frames=frames, bev_style=style)
        per_image.append((time.perf_counter() - t0) * 1000 / len(imgs))
    return statistics.median(per_image), min(per_image), imgs[0].size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--people", type=int, default=7)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    scene, frames = make_scene(args.people)
    configs = [
        ("img-with-bev", None, "default: BEV drawn at frame width (1280 px)"),
        ("img-with-bev", BevStyle(dpi=300), "official path: BEV at 300 dpi, then shrunk"),
        ("img-with-bev", BevStyle(dpi=100), "BEV at 100 dpi (700 px), then enlarged"),
        ("img", None, "front view only (No-BEV ablation)"),
        ("bev", None, "BEV only, 2100 px (300 dpi)"),
    ]
    print(f"{args.people} people, {N_FRAMES} timesteps, {args.repeats} timed passes per row\n")
    print("| mode | BEV dpi | image size | ms/image (median) | ms/image (best) | note |")
    print("|---|---|---|---|---|---|")
    for mode, style, note in configs:
        med, best, size = time_config(scene, frames, mode, style, args.repeats)
        dpi = "auto" if style is None else f"{style.dpi:g}"
        print(f"| {mode} | {dpi} | {size[0]}x{size[1]} | {med:.1f} | {best:.1f} | {note} |")
    a = [hashlib.sha256(to_png_bytes(i)).hexdigest() for i in render_scene(scene, frames=frames)]
    b = [hashlib.sha256(to_png_bytes(i)).hexdigest() for i in render_scene(scene, frames=frames)]
    print(f"\ndeterministic (identical PNG bytes on re-render): {a == b}")
    print(f"PNG size of one composite: {len(to_png_bytes(render_scene(scene, frames=frames)[0])) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
