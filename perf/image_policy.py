"""How far socialbench's images are from the official SocialNav-SUB harness's, pixel by pixel.

The official harness prepares every API image with ``cv2.resize(img, (512, 512))``
(INTER_LINEAR, aspect ratio not kept) and ``cv2.imencode(".jpg", bgr)`` (quality 95;
``evaluate_vlm.py``). This script renders SocialNav-SUB composites (front view + BEV) from
generated scenes with 1280×720 frames (1280×2000 composites, the release's size) and from the
bundled demo (640×1000 composites), prepares each the official way with OpenCV and the
socialbench ways with Pillow, and prints, per way, the mean and max absolute difference in
grey levels (over every pixel and channel) against OpenCV's output, before JPEG (the resized
pixels) and after (the decoded bytes that are sent), the share of values that differ, and
whether the JPEG bytes are identical, and the CPU time of the resize. It also prints GPT-4o's estimated tokens per image
(``benchmarks/roboteq/tokens.py``, OpenAI's tile formula) for each size.

Ways: ``opencv-linear`` (:func:`socialbench.vision.resize.resize_linear`, the default for
SocialNav-SUB), Pillow ``BILINEAR`` and ``LANCZOS`` squashed to 512×512 (both antialias on
a downscale; OpenCV does not), and socialbench's earlier policy (longest side 768, Lanczos,
quality 90; another size, so only its size and tokens are shown).

Usage: ``python perf/image_policy.py [--samples 2]`` (needs opencv-python-headless, the
``test`` extra).
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from socialbench.benchmarks.roboteq.tokens import image_tokens
from socialbench.vision.image_size import longest_side_policy, squashed_policy
from socialbench.vision.images import ImagePolicy, prepare_image
from socialbench.vision.resize import resize_linear


def _frames(samples: int, root: Path) -> dict[str, list[Image.Image]]:
    from socialbench.benchmarks.socialnav_sub import bundled_demo_data
    from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
    from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset
    from socialbench.navigation.render import render_sample

    data = write_synthetic_dataset(
        root / "data", n_samples=samples, people=[2 + i % 2 for i in range(samples)], seed=5, frame_size=(1280, 720)
    )
    for png in data.glob("prompts/*/sample_with_bev_*.png"):
        png.unlink()
    out = {}
    for name, folder in (("generated 1280x720 frames", data), ("bundled demo", bundled_demo_data())):
        items = load_socialnav(folder, limit=samples).items
        out[name] = [img.convert("RGB") for it in items for img in render_sample(it.metadata, "img-with-bev")]
    return out


def _official(img: Image.Image) -> tuple[np.ndarray, bytes]:
    resized = cv2.resize(np.asarray(img), (512, 512))
    ok, data = cv2.imencode(".jpg", cv2.cvtColor(resized, cv2.COLOR_RGB2BGR))
    assert ok
    return resized, data.tobytes()


def _diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a.astype(np.int64) - b.astype(np.int64))


def _decoded(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=2, help="samples per source (10 composites each)")
    args = ap.parse_args()
    ways = {
        "opencv-linear (socialbench default)": lambda im: resize_linear(im, (512, 512)),
        "Pillow BILINEAR": lambda im: im.resize((512, 512), Image.Resampling.BILINEAR),
        "Pillow LANCZOS": lambda im: im.resize((512, 512), Image.Resampling.LANCZOS),
    }
    with tempfile.TemporaryDirectory() as tmp:
        sources = _frames(args.samples, Path(tmp))
    for source, frames in sources.items():
        print(f"\n{source}: {len(frames)} composites of {sorted({f.size for f in frames})}")
        official = [_official(f) for f in frames]
        print(f"{'way':38} {'resized mean':>12} {'max':>4} {'differ':>7} {'sent mean':>10} {'max':>4} bytes equal")
        for name, resize in ways.items():
            pre, post, share, same = [], [], [], 0
            for f, (ref, ref_bytes) in zip(frames, official):
                mine = np.asarray(resize(f))
                policy = ImagePolicy(max_side=0, quality=95, size=(512, 512))
                enc = prepare_image(Image.fromarray(mine), policy).data
                d = _diff(mine, ref)
                pre.append((d.mean(), d.max()))
                share.append((d > 0).mean())
                e = _diff(_decoded(enc), _decoded(ref_bytes))
                post.append((e.mean(), e.max()))
                same += enc == ref_bytes
            print(
                f"{name:38} {np.mean([p[0] for p in pre]):12.4f} {max(p[1] for p in pre):4d} "
                f"{100 * np.mean(share):6.2f}% {np.mean([p[0] for p in post]):10.4f} "
                f"{max(p[1] for p in post):4d} {same}/{len(frames)}"
            )
        check = [prepare_image(f, squashed_policy(512, 512)).data == ref for f, (_, ref) in zip(frames, official)]
        print(f"prepare_image(squashed_policy(512, 512)) == OpenCV bytes: {sum(check)}/{len(check)}")
        t0 = time.process_time()
        for f in frames:
            resize_linear(f, (512, 512))
        t1 = time.process_time()
        for f in frames:
            cv2.resize(np.asarray(f), (512, 512))
        t2 = time.process_time()
        print(
            f"resize CPU time per composite: numpy OpenCV bilinear {1000 * (t1 - t0) / len(frames):.1f} ms, "
            f"cv2.resize {1000 * (t2 - t1) / len(frames):.1f} ms"
        )
        old = prepare_image(frames[0], longest_side_policy(768))
        new = prepare_image(frames[0], squashed_policy(512, 512))
        print(
            f"GPT-4o tokens per image: {new.width}x{new.height} -> {image_tokens(new.width, new.height)}; "
            f"socialbench's earlier {old.width}x{old.height} (longest side 768) -> {image_tokens(old.width, old.height)}"
        )


if __name__ == "__main__":
    main()
