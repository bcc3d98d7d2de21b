"""SocialNav-SUB throughput against a local OpenAI-compatible server.

Runs the full protocol (4,968 questions from a generated 60-sample, 399-person fixture)
against ``python -m socialbench.testing.openai_server`` (a subprocess on 127.0.0.1 that answers
after a fixed delay) and reports, side by side in one run:

(a) wall time at ``--delay-ms`` (default 200) and ``--concurrency`` (default 64) for the
    ``independent`` method, against the ideal bound questions x delay / concurrency. Wall
    time on a shared machine varies by a few percent from run to run, so the full run is
    repeated ``--repeats`` times (default 3, each into a new run folder) and every wall time
    is reported with their median;
(b) the same requests sent strictly one at a time, as the official harness does. A full
    sequential pass takes questions x delay (about 17 minutes at 200 ms), so by default it is
    measured on ``--sequential-questions`` questions and projected linearly; ``--full`` runs
    it all;
(c) at zero delay, socialbench's questions/s against a bare ``openai`` async loop that sends
    the same (pre-built) requests with the same concurrency;
(d) peak RSS of this process.

Usage: ``python benchmarks/throughput.py [--delay-ms 200] [--concurrency 64] [--repeats 3] [--full]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from socialbench.benchmarks.base import EvalOptions
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.benchmarks.socialnav_sub.prompts import build_prompt
from socialbench.benchmarks.socialnav_sub.synthetic import fixture_people_counts, write_synthetic_dataset
from socialbench.models.openai_compat import OpenAICompatModel, build_messages
from socialbench.models.registry import ModelOptions
from socialbench.runner.engine import RetryPolicy
from socialbench.runner.run import RunRequest, run_eval
from socialbench.types import Request
from socialbench.vision.images import ImageEncoder, ImagePolicy


class Server:
    """The scripted server in its own process, so it does not share this process's GIL."""

    def __init__(self, delay_ms: int):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "socialbench.testing.openai_server", "--port", "0", "--delay-ms", str(delay_ms)],
            stdout=subprocess.PIPE, text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        if not line.startswith("READY "):
            raise RuntimeError(f"server did not start: {line!r}")
        self.url = line.split(" ", 1)[1]

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def socialbench_run(data: Path, url: str, concurrency: int, out: Path, limit: int | None = None) -> tuple[float, int]:
    bench = SocialNavSub()
    model = OpenAICompatModel("bench-model", url, ModelOptions(timeout_s=60))
    req = RunRequest(
        benchmark_name="socialnav-sub", data=data, model_spec=model.spec, out=out,
        options=EvalOptions(method="independent", limit=limit), concurrency=concurrency,
        retry=RetryPolicy(max_attempts=3, timeout_s=60), cache_path=None, show_progress=False,
    )
    t0 = time.perf_counter()
    result = run_eval(req, bench, model)
    wall = time.perf_counter() - t0
    return wall, int(result.metrics["run"]["answered"])


def build_bare_requests(data: Path) -> list[list[dict]]:
    """The same requests socialbench sends, as ready chat messages."""
    ds = SocialNavSub().load(data, require_images=True, limit=None)
    enc = ImageEncoder(ImagePolicy())
    out = []
    for item in ds.items:
        imgs = enc.encode_many(item.metadata["composites"])
        for q in item.questions:
            out.append(build_messages(Request(prompt=build_prompt(ds.bank, q, None), images=imgs)))
    return out


async def bare_loop(url: str, messages: list[list[dict]], concurrency: int) -> float:
    import openai

    client = openai.AsyncOpenAI(base_url=url, api_key="EMPTY", max_retries=0)
    sem = asyncio.Semaphore(concurrency)

    async def one(msgs: list[dict]) -> None:
        async with sem:
            r = await client.chat.completions.create(
                model="bench-model", messages=msgs, temperature=0, max_tokens=1024, response_format={"type": "json_object"}
            )
            json.loads(r.choices[0].message.content or "{}")

    t0 = time.perf_counter()
    await asyncio.gather(*(one(m) for m in messages))
    wall = time.perf_counter() - t0
    await client.close()
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--delay-ms", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=3, help="full runs for (a); the median is reported")
    ap.add_argument("--sequential-questions", type=int, default=150)
    ap.add_argument("--full", action="store_true", help="run the sequential pass on all questions")
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="sb-throughput-"))
    data = write_synthetic_dataset(tmp / "data", n_samples=60, people=fixture_people_counts(60, 399), seed=0)
    results: dict[str, object] = {}

    with Server(args.delay_ms) as srv:
        walls = []
        for i in range(max(1, args.repeats)):
            wall_i, answered = socialbench_run(data, srv.url, args.concurrency, tmp / f"run-a{i}")
            walls.append(wall_i)
        wall = statistics.median(walls)
        ideal = answered * args.delay_ms / 1000 / args.concurrency
        results["a"] = {
            "questions": answered, "wall_s": round(wall, 2), "ideal_s": round(ideal, 2),
            "ratio": round(wall / ideal, 3), "target": "<= 1.15",
            "repeats": len(walls), "wall_s_each": [round(w, 2) for w in walls],
            "ratio_each": [round(w / ideal, 3) for w in walls],
        }
        # (b) one request at a time: run the first samples until at least N questions.
        ds = SocialNavSub().load(data, require_images=False, limit=None)
        n_items, n_q = 0, 0
        for item in ds.items:
            n_items += 1
            n_q += len(item.questions)
            if not args.full and n_q >= args.sequential_questions:
                break
        seq_wall, seq_answered = socialbench_run(data, srv.url, 1, tmp / "run-b", limit=n_items)
        projected = seq_wall / seq_answered * answered
        results["b"] = {
            "questions_measured": seq_answered, "wall_s_measured": round(seq_wall, 2),
            "projected_full_s": round(projected, 1), "speedup_vs_sequential": round(projected / wall, 1),
            "projected": not args.full,
        }

    with Server(0) as srv:
        messages = build_bare_requests(data)
        sb_wall, sb_answered = socialbench_run(data, srv.url, args.concurrency, tmp / "run-c")
        bare_wall = asyncio.run(bare_loop(srv.url, messages, args.concurrency))
        sb_qps, bare_qps = sb_answered / sb_wall, len(messages) / bare_wall
        results["c"] = {"socialbench_qps": round(sb_qps, 1), "bare_openai_qps": round(bare_qps, 1), "ratio": round(sb_qps / bare_qps, 3), "target": ">= 0.7"}

    results["d"] = {"peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
