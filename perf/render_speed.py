"""Preparation speed of SocialNav-SUB prompt images (ms per image, drawing *and* encoding).

Generates a scene in memory (1280×720 textured frames, ``--people`` walking pedestrians with
bounding boxes, a robot arcing towards a goal) and times, per image, :func:`render_scene`
followed by :func:`prepare_image` under the default image policy (longest side 768, JPEG 90:
what is sent), for each image mode and BEV resolution, ``--repeats`` times 10 timesteps each
(the first, warm-up, pass is not counted). "full size" rows draw at the frames' resolution and
then LANCZOS-shrink; "sent size" rows draw at the size that is sent (``max_side``), as
``socialbench eval`` does. The 300-dpi row is socialbench's own 300-dpi mode, not the
official renderer. One process, one core. Also checks that two renders give identical PNG
bytes.

Usage: ``python perf/render_speed.py [--people 7] [--repeats 3]``
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
from socialbench.vision.images import ImagePolicy, prepare_image


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


def time_config(
    scene: Scene, frames: list[Image.Image], mode: str, style: BevStyle | None, repeats: int, max_side: int
) -> tuple[float, float, tuple[int, int]]:
    policy = ImagePolicy()

    def once() -> list:
        return [
            prepare_image(i, policy)
            for i in render_scene(scene, mode, frames=frames, bev_style=style, max_side=max_side)
        ]

    once()  # warm-up
    per_image = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        imgs = once()
        per_image.append((time.perf_counter() - t0) * 1000 / len(imgs))
    return statistics.median(per_image), min(per_image), (imgs[0].width, imgs[0].height)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--people", type=int, default=7)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    scene, frames = make_scene(args.people)
    configs = [
        ("img-with-bev", None, 768, "sent size: drawn at 492x768 (socialbench eval)"),
        ("img-with-bev", None, 0, "full size: BEV at frame width (1280 px), then shrunk"),
        ("img-with-bev", BevStyle(dpi=300), 0, "full size, socialbench's 300-dpi BEV, then shrunk"),
        ("img", None, 768, "front view only (No-BEV ablation), sent size"),
        ("bev", None, 768, "BEV only, sent size"),
        ("bev", None, 0, "BEV only, 2100 px (300 dpi), then shrunk"),
    ]
    print(
        f"{args.people} people, {N_FRAMES} timesteps, {args.repeats} timed passes per row, "
        "render + encode (max side 768, JPEG 90)\n"
    )
    print("| mode | drawn at | BEV dpi | sent size | ms/image (median) | ms/image (best) | note |")
    print("|---|---|---|---|---|---|---|")
    for mode, style, max_side, note in configs:
        med, best, size = time_config(scene, frames, mode, style, args.repeats, max_side)
        dpi = "auto" if style is None else f"{style.dpi:g}"
        drawn = "sent size" if max_side else "full size"
        print(f"| {mode} | {drawn} | {dpi} | {size[0]}x{size[1]} | {med:.1f} | {best:.1f} | {note} |")
    a = [hashlib.sha256(to_png_bytes(i)).hexdigest() for i in render_scene(scene, frames=frames)]
    b = [hashlib.sha256(to_png_bytes(i)).hexdigest() for i in render_scene(scene, frames=frames)]
    print(f"\ndeterministic (identical PNG bytes on re-render): {a == b}")
    print(f"PNG size of one composite: {len(to_png_bytes(render_scene(scene, frames=frames)[0])) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
