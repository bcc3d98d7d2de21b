"""Throughput of ``openai:MODEL@URL1,...`` as local servers are added (1 -> 4).

Each server is ``python -m socialbench.testing.openai_server`` in its own process with a
fixed capacity (``--max-concurrency``) and a fixed service time (``--delay-ms``), so one
server can answer at most capacity / delay requests per second. The requests go through
the real :class:`~socialbench.runner.engine.Engine` and the multi-endpoint model; perfect
scaling is N x at N servers. Target: >= 3.5x at 4 servers.

    .venv/bin/python perf/endpoint_scaling.py            # ~30 s on 2 cores
    .venv/bin/python perf/endpoint_scaling.py --client-limit --json out.json

Only 127.0.0.1 is used; the servers are stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from contextlib import ExitStack
from typing import Any

from socialbench.models.registry import ModelOptions, create_model
from socialbench.runner.engine import Engine, RetryPolicy
from socialbench.types import Request

TARGET_SPEEDUP_AT_4 = 3.5


def start_server(delay_ms: float, capacity: int) -> tuple[subprocess.Popen[str], str]:
    """Start one scripted server process; return it and its base URL."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "socialbench.testing.openai_server",
            "--port",
            "0",
            "--delay-ms",
            str(delay_ms),
            "--max-concurrency",
            str(capacity),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("READY "):
        proc.kill()
        raise RuntimeError(f"server did not start (got {line!r})")
    return proc, line.split(" ", 1)[1]


async def measure(urls: list[str], n_requests: int, capacity: int, client_limit: bool) -> dict[str, Any]:
    """Send ``n_requests`` through the engine to ``urls``; return throughput figures."""
    extra = (("per_endpoint_concurrency", str(capacity)),) if client_limit else ()
    model = create_model("openai:bench@" + ",".join(urls), ModelOptions(timeout_s=60, extra=extra))
    concurrency = capacity * len(urls) * 2  # enough to keep every server's slots busy
    engine = Engine(model, concurrency=concurrency, retry=RetryPolicy(max_attempts=3, timeout_s=60))
    try:
        # Warm-up wave: import the SDK and open every connection before the clock starts.
        await asyncio.gather(*(engine.run(Request(prompt=f"warm-up {i}")) for i in range(concurrency)))
        t0 = time.perf_counter()
        outcomes = await asyncio.gather(*(engine.run(Request(prompt=f"q{i}")) for i in range(n_requests)))
        wall = time.perf_counter() - t0
    finally:
        await model.aclose()
    errors = sum(1 for o in outcomes if o.error is not None)
    return {
        "servers": len(urls),
        "requests": n_requests,
        "errors": errors,
        "wall_s": wall,
        "req_per_s": n_requests / wall,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--requests-per-server",
        type=int,
        default=160,
        help="requests per measurement = this x number of servers (default 160)",
    )
    p.add_argument("--delay-ms", type=float, default=200.0, help="service time of each server (default 200)")
    p.add_argument("--capacity", type=int, default=8, help="--max-concurrency of each server (default 8)")
    p.add_argument("--max-servers", type=int, default=4)
    p.add_argument(
        "--client-limit",
        action="store_true",
        help="also cap in-flight requests per endpoint at --capacity (per_endpoint_concurrency)",
    )
    p.add_argument("--json", help="also write the results here")
    args = p.parse_args(argv)
    with ExitStack() as stack:
        urls = []
        for _ in range(args.max_servers):
            proc, url = start_server(args.delay_ms, args.capacity)
            stack.callback(proc.wait, 10)
            stack.callback(proc.terminate)
            urls.append(url)
        rows = []
        for k in range(1, args.max_servers + 1):
            n = args.requests_per_server * k  # about the same duration at every k
            rows.append(asyncio.run(measure(urls[:k], n, args.capacity, args.client_limit)))
    base = rows[0]["req_per_s"]
    ideal = args.capacity / (args.delay_ms / 1000.0)
    print(f"server capacity {args.capacity} x {args.delay_ms:g} ms -> at most {ideal:.1f} req/s per server")
    print(f"{'servers':>7} {'req/s':>8} {'speedup':>8} {'errors':>6}")
    for row in rows:
        row["speedup"] = row["req_per_s"] / base
        print(f"{row['servers']:>7} {row['req_per_s']:>8.1f} {row['speedup']:>7.2f}x {row['errors']:>6}")
    verdict = None
    if args.max_servers >= 4:
        verdict = rows[3]["speedup"] >= TARGET_SPEEDUP_AT_4
        print(f"target >= {TARGET_SPEEDUP_AT_4}x at 4 servers: {'met' if verdict else 'NOT met'}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"args": vars(args), "rows": rows, "target_met": verdict}, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
