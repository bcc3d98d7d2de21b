"""Peak memory and seconds per request of the ``hf:`` backend at batch 1 vs batch 16.

Builds a tiny random LLaVA checkpoint offline (``socialbench.testing.tiny_vlm``), then runs
the same requests through :class:`~socialbench.models.hf_local.HFLocalModel` once per batch
size, each in a fresh process so that peak RSS (``ru_maxrss``) belongs to that batch size
alone. Reports s/request (after a warm-up batch), peak RSS, the batch sizes actually run,
and whether the answers are identical across batch sizes (they must be: greedy decoding).

    .venv/bin/python perf/hf_batching.py                  # ~1 min on 2 CPU cores
    .venv/bin/python perf/hf_batching.py --width 128 --layers 4 --images 10 --json out.json

Needs ``socialbench[hf]`` (torch, transformers). Nothing is downloaded.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from typing import Any


def _requests(n: int, n_images: int, max_tokens: int) -> list[Any]:
    import numpy as np
    from PIL import Image

    from socialbench.types import EncodedImage, GenerationConfig, Request

    def png(seed: int) -> EncodedImage:
        pixels = (np.random.RandomState(seed).rand(72, 128, 3) * 255).astype("uint8")
        buf = io.BytesIO()
        Image.fromarray(pixels).save(buf, format="PNG")
        return EncodedImage(buf.getvalue(), "image/png", 128, 72)

    prompt = "which way should the robot go ? possible answers left right ahead"
    return [
        Request(
            prompt=prompt + " ahead" * (i % 7),
            images=tuple(png(i * 31 + k) for k in range(n_images)),
            config=GenerationConfig(max_tokens=max_tokens),
        )
        for i in range(n)
    ]


def worker(args: argparse.Namespace) -> dict[str, Any]:
    """Run in a child process: time the requests at one batch size."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from socialbench.models.registry import ModelOptions, create_model

    requests = _requests(args.requests, args.images, args.max_tokens)
    warmup = _requests(args.batch_size, args.images, args.max_tokens)
    model = create_model(
        f"hf:{args.path}",
        ModelOptions(extra=(("batch_size", str(args.batch_size)), ("batch_wait_ms", "20"), ("device", args.device))),
    )

    async def go() -> tuple[list[str], float, int]:
        try:
            await asyncio.gather(*(model.generate(r) for r in warmup), return_exceptions=True)  # load + a batch
            warm_batches = len(model.batch_sizes)
            t0 = time.perf_counter()
            out = await asyncio.gather(*(model.generate(r) for r in requests), return_exceptions=True)
            seconds = time.perf_counter() - t0
        finally:
            await model.aclose()
        # A random tiny model sometimes stops at once: compare error kinds too.
        texts = [g.text if hasattr(g, "text") else f"<{getattr(g, 'kind', type(g).__name__)}>" for g in out]
        return texts, seconds, warm_batches

    texts, seconds, warm_batches = asyncio.run(go())
    return {
        "batch_size": args.batch_size,
        "requests": args.requests,
        "seconds": seconds,
        "s_per_request": seconds / args.requests,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "batches_run": model.batch_sizes[warm_batches:],
        "errors": sum(1 for t in texts if t.startswith("<")),
        "answers_sha256": hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--requests", type=int, default=64)
    p.add_argument("--images", type=int, default=2, help="images per request (SocialNav-SUB sends 10)")
    p.add_argument("--max-tokens", type=int, default=16)
    p.add_argument("--width", type=int, default=64, help="hidden size of the tiny model")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--batch-sizes", default="1,16")
    p.add_argument("--device", default="auto")
    p.add_argument("--json", help="also write the results here")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--path", help=argparse.SUPPRESS)
    p.add_argument("--batch-size", type=int, default=1, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args)))
        return 0

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from socialbench.testing.tiny_vlm import build_tiny_llava

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = build_tiny_llava(os.path.join(tmp, "tiny-llava"), width=args.width, layers=args.layers)
        for bs in (int(b) for b in args.batch_sizes.split(",")):
            cmd = [
                sys.executable,
                os.path.abspath(__file__),
                "--worker",
                "--path",
                str(path),
                "--batch-size",
                str(bs),
                "--requests",
                str(args.requests),
                "--images",
                str(args.images),
                "--max-tokens",
                str(args.max_tokens),
                "--device",
                args.device,
            ]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                sys.stderr.write(done.stderr)
                return done.returncode
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(
        f"tiny LLaVA width {args.width}, {args.layers} layers; {args.requests} requests x {args.images} images, "
        f"max {args.max_tokens} new tokens"
    )
    print(f"{'batch':>5} {'s/request':>10} {'peak RSS MB':>12} {'speed-up':>9} {'empty':>5}  batches run")
    base = rows[0]["s_per_request"]
    for row in rows:
        sizes = row["batches_run"]
        shown = f"{len(sizes)} of sizes {sorted(set(sizes))}"
        print(
            f"{row['batch_size']:>5} {row['s_per_request']:>10.4f} {row['peak_rss_mb']:>12.1f} "
            f"{base / row['s_per_request']:>8.2f}x {row['errors']:>5}  {shown}"
        )
    same = len({row["answers_sha256"] for row in rows}) == 1
    print(f"answers identical across batch sizes: {same}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"args": vars(args), "rows": rows, "answers_identical": same}, fh, indent=2)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
