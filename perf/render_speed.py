"""Preparation speed of SocialNav-SUB prompt images (ms per image, drawing *and* encoding).

Generates a scene (1280×720 textured JPEG frames written to a temporary folder, as in a
release, ``--people`` walking pedestrians with bounding boxes, a robot arcing towards a goal)
and times :func:`render_scene` followed by :func:`prepare_image` under the default image
policy (longest side 768, JPEG 90: what is sent), for each image mode and BEV resolution.
Each row is ``--repeats`` timed passes of one sample's 10 timesteps after a warm-up pass, on
one process and one thread. Times are CPU time of this process (``time.process_time``), so
other load on a shared machine inflates them less than wall time would: the cost on one core.
Each is the best (min) or median pass, divided by 10.

* "cold" passes first empty the per-process cache of BEV backgrounds (axes drawn at a set
  of limits), so each pass pays the per-sample init as a sample with new limits does;
  "warm" passes reuse it, as samples whose tracks fit the same limits do.
* "init" is that per-sample cost alone (``BevRenderer`` with an empty background cache),
  per sample and amortised over its 10 images.

"sent size" rows draw at the size that is sent (``max_side``), as ``socialbench eval`` does;
"full size" rows draw at the frames' resolution and then LANCZOS-shrink. The 300-dpi row is
socialbench's own 300-dpi mode, not the official renderer. Also checks that two renders give
identical PNG bytes.

Usage: ``taskset -c 1 python perf/render_speed.py [--people 7] [--repeats 5]``
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

from socialbench.navigation.bev import BevRenderer, BevStyle, bev_limits
from socialbench.navigation.frames import Scene
from socialbench.navigation.projection import PinholeCamera
from socialbench.navigation.render import render_scene, to_png_bytes
from socialbench.navigation.tracks import N_FRAMES, RobotPath, make_track
from socialbench.vision.images import ImagePolicy, prepare_image


def make_scene(n_people: int, folder: Path, seed: int = 0) -> Scene:
    """A scene whose frames are JPEG files in ``folder`` (blurred noise: camera-like detail)."""
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
    noise = Image.fromarray(rng.integers(0, 255, size=(720, 1280 + 8 * N_FRAMES, 3), dtype=np.uint8))
    texture = noise.filter(ImageFilter.GaussianBlur(1.5))
    frames = []
    for t in range(N_FRAMES):
        path = folder / f"{t}.jpg"
        texture.crop((8 * t, 0, 8 * t + 1280, 720)).save(path, quality=90)
        frames.append(path)
    return Scene(people, robot, (12.0, 2.0), frames=tuple(frames), n_people=n_people)


def _clear_backgrounds() -> None:
    """Empty the per-process cache of BEV backgrounds (absent before it existed)."""
    try:
        from socialbench.navigation.bev_stage import clear_stages
    except ImportError:
        return
    clear_stages()


def _best_and_median(run: Callable[[], int], repeats: int, cold: bool) -> tuple[float, float]:
    """ms per image of ``run`` (which returns its number of images): (min, median) of passes."""
    run()  # warm-up
    per_image = []
    for _ in range(repeats):
        if cold:
            _clear_backgrounds()
        t0 = time.process_time()
        n = run()
        per_image.append((time.process_time() - t0) * 1000 / n)
    return min(per_image), statistics.median(per_image)


def time_config(
    scene: Scene, mode: str, style: BevStyle | None, repeats: int, max_side: int
) -> tuple[float, float, float, tuple[int, int]]:
    """(cold best, cold median, warm best) ms per image, and the image size."""
    policy = ImagePolicy()
    sizes: list[tuple[int, int]] = []

    def once() -> int:
        encoded = [prepare_image(i, policy) for i in render_scene(scene, mode, bev_style=style, max_side=max_side)]
        sizes[:] = [(encoded[0].width, encoded[0].height)]
        return len(encoded)

    cold_best, cold_median = _best_and_median(once, repeats, cold=True)
    warm_best, _ = _best_and_median(once, repeats, cold=False)
    return cold_best, cold_median, warm_best, sizes[0]


def time_init(scene: Scene, style: BevStyle, repeats: int) -> float:
    """Best ms of one sample's BEV init (background and goal) with an empty background cache."""
    limits = bev_limits(scene.people, scene.robot, scene.goal_xy)
    best = float("inf")
    for _ in range(repeats + 1):
        _clear_backgrounds()
        t0 = time.process_time()
        BevRenderer(limits, scene.goal_xy, len(scene.people), style)
        best = min(best, (time.process_time() - t0) * 1000)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--people", type=int, default=7)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scene = make_scene(args.people, Path(tmp))
        configs = [
            ("img-with-bev", None, 768, "sent size: drawn at 492x768 (socialbench eval)"),
            ("img-with-bev", None, 0, "full size: BEV at frame width (1280 px), then shrunk"),
            ("img-with-bev", BevStyle(dpi=300), 0, "full size, socialbench's 300-dpi BEV, then shrunk"),
            ("img", None, 768, "front view only (No-BEV ablation), sent size"),
            ("bev", None, 768, "BEV only, sent size"),
            ("bev", None, 0, "BEV only, 2100 px (300 dpi), then shrunk"),
        ]
        print(
            f"{args.people} people, {N_FRAMES} timesteps, 1280x720 JPEG frames, {args.repeats} timed passes per "
            "row, render + encode (max side 768, JPEG 90), CPU ms per image\n"
        )
        print("| mode | drawn at | BEV dpi | sent size | cold best | cold median | warm best | note |")
        print("|---|---|---|---|---|---|---|---|")
        for mode, style, max_side, note in configs:
            cold, cold_med, warm, size = time_config(scene, mode, style, args.repeats, max_side)
            dpi = "auto" if style is None else f"{style.dpi:g}"
            drawn = "sent size" if max_side else "full size"
            print(
                f"| {mode} | {drawn} | {dpi} | {size[0]}x{size[1]} | {cold:.1f} | {cold_med:.1f} | {warm:.1f} | "
                f"{note} |"
            )
        print("\nper-sample BEV init (axes, limits, goal) with an empty background cache, best:")
        for label, style in (("sent size (492 px)", BevStyle(dpi=492 / 7)), ("300 dpi (2100 px)", BevStyle(dpi=300))):
            init = time_init(scene, style, args.repeats)
            print(f"  {label}: {init:.1f} ms per sample = {init / N_FRAMES:.1f} ms per image")
        a = [hashlib.sha256(to_png_bytes(i)).hexdigest() for i in render_scene(scene)]
        b = [hashlib.sha256(to_png_bytes(i)).hexdigest() for i in render_scene(scene)]
        print(f"\ndeterministic (identical PNG bytes on re-render): {a == b}")
        print(f"PNG size of one full-size composite: {len(to_png_bytes(render_scene(scene)[0])) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
