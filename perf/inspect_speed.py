"""``inspect eval socialbench/socialnav_sub`` beside ``socialbench eval -b socialnav-sim``, on the
same local scripted server, in one run: wall time, peak memory (RSS of each command's process)
and what each writes (the run folder, the Inspect log). Goal (issue 41): Inspect within 2x of
``socialbench eval``.

Two more Inspect runs say where Inspect's time goes (``--no-floor`` skips them): ``floor`` sends
the same requests through Inspect's model with a solver that does nothing else
(``perf/inspect_floor.py``: no records, messages or papers' metrics), and ``startup`` is that task
with one request (Inspect's start-up, imports and log). ``task - floor`` is what socialbench's
task adds; ``(floor - startup) / questions`` is Inspect's own work per request.

The server is ``python -m socialbench.testing.openai_server`` on 127.0.0.1 with a fixed reply
delay (default 200 ms) and no concurrency cap; both front ends may hold ``--connections``
requests at once (``socialbench eval --concurrency``, ``inspect eval --max-connections``).
Inspect talks to it with ``-M responses_api=false`` (chat completions, docs/inspect.md).
The response cache is off for ``socialbench eval`` (``--no-cache``) so both send every request.

    .venv/bin/python perf/inspect_speed.py --limit 4        # 180 questions, ~1 min on 2 cores
    .venv/bin/python perf/inspect_speed.py                  # all 1,104 bundled questions
    .venv/bin/python perf/inspect_speed.py --json out.json

Measured in one run (full bundled set, 1,104 questions, 20 samples, 200 ms, 64 connections;
inspect-ai 0.3.285; the shared 2-core development machine at a 1-min load average of 4-5):
``socialbench eval`` 4.63 s, 119 MB, run folder 0.48 MB; ``inspect eval`` 21.21 s, 399 MB, log
4.07 MB: **4.58x** (goal 2x not met). Floor 18.12 s (3.91x), start-up 5.83 s, 11.1 ms per
request: Inspect's start-up plus the network time of 1,104 requests (3.6 s) is already more than
2x ``socialbench eval``; the task adds 3.1 s over the floor (docs/inspect.md, "Speed").

The server is stopped at the end; the run folders and logs go to a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_RATIO = 2.0


def start_server(delay_ms: float) -> tuple[subprocess.Popen[str], str]:
    """Start the scripted server; return it and its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "socialbench.testing.openai_server", "--port", "0", "--delay-ms", str(delay_ms)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("READY "):
        proc.kill()
        raise RuntimeError(f"server did not start (got {line!r})")
    return proc, line.split(" ", 1)[1]


ROOT = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Run ``cmd`` (in the repository root); its wall time, peak RSS (MB, from ``wait4``)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {err[-2000:]}")
    return {"wall_s": round(wall, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1)}


def folder_mb(path: Path) -> float:
    """The size of the files under ``path`` (MB)."""
    return round(sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6, 2)


def inspect_cmd(task: str, extra: list[str], log_dir: str) -> list[str]:
    """``inspect eval TASK`` against the scripted server, logging to ``log_dir``."""
    model = ["--model", "openai/scripted-model", "-M", "responses_api=false"]
    return [sys.executable, "-m", "inspect_ai", "eval", task, *model, "--log-dir", log_dir, "--display", "none", *extra]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--limit", type=int, default=None, help="items (scenes) to ask; default all")
    p.add_argument("--delay-ms", type=float, default=200.0)
    p.add_argument("--connections", type=int, default=64)
    p.add_argument("--method", default="independent")
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--no-floor", action="store_true", help="skip the floor and start-up runs")
    p.add_argument(
        "--inspect-arg",
        action="append",
        default=[],
        help="extra `inspect eval` argument (repeatable), e.g. --no-log-realtime",
    )
    args = p.parse_args(argv)

    server, url = start_server(args.delay_ms)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "OPENAI_API_KEY": "local-test-key", "OPENAI_BASE_URL": url}
            limit = [] if args.limit is None else ["--limit", str(args.limit)]
            own = timed(
                [sys.executable, "-m", "socialbench", "eval", "-b", "socialnav-sim"]
                + ["-m", f"openai:scripted-model@{url}", "--method", args.method, "--no-cache"]
                + ["--concurrency", str(args.connections), "--out", f"{tmp}/run", *limit],
                env,
            )
            questions = sum(1 for _ in open(f"{tmp}/run/samples.jsonl"))
            t_limit = [] if args.limit is None else ["-T", f"limit={args.limit}"]
            conn = ["--max-connections", str(args.connections)]
            insp = timed(
                inspect_cmd("socialbench/socialnav_sub", conn, f"{tmp}/logs")
                + ["-T", f"method={args.method}", *t_limit, *args.inspect_arg],
                env,
            )
            (log,) = Path(tmp, "logs").glob("*.eval")
            insp["log_mb"] = round(log.stat().st_size / 1e6, 2)
            own["out_mb"] = folder_mb(Path(tmp, "run"))
            floor = startup = None
            if not args.no_floor and args.method == "independent":
                floor = timed(
                    inspect_cmd("perf/inspect_floor.py", conn, f"{tmp}/floor") + [*t_limit, *args.inspect_arg], env
                )
                startup = timed(
                    inspect_cmd("perf/inspect_floor.py", conn, f"{tmp}/startup")
                    + ["-T", "limit=1", "-T", "questions=1", *args.inspect_arg],
                    env,
                )
    finally:
        server.terminate()
        server.wait(timeout=10)
    ratio = insp["wall_s"] / own["wall_s"]
    out = {
        "questions": questions,
        "delay_ms": args.delay_ms,
        "connections": args.connections,
        "method": args.method,
        "inspect_args": args.inspect_arg,
        "socialbench_eval": own,
        "inspect_eval": insp,
        "time_ratio": round(ratio, 2),
        "memory_ratio": round(insp["peak_rss_mb"] / own["peak_rss_mb"], 2),
        "target_ratio": TARGET_RATIO,
    }
    if floor is not None and startup is not None:
        out["inspect_floor"] = floor
        out["inspect_startup"] = startup
        out["floor_ratio"] = round(floor["wall_s"] / own["wall_s"], 2)
        out["task_over_floor_s"] = round(insp["wall_s"] - floor["wall_s"], 2)
        out["inspect_ms_per_request"] = round((floor["wall_s"] - startup["wall_s"]) / questions * 1000, 1)
    print(json.dumps(out, indent=2))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    print(f"time ratio {ratio:.2f} (goal <= {TARGET_RATIO})")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
