"""Questions per second of one small VLM three ways, on one GPU: ``vllm:`` (vLLM's engine in
process), ``hf:`` (Transformers, static batches) and ``openai:`` to a ``vllm serve`` of the
same model.

Each backend runs ``socialbench eval`` on the bundled ``socialnav-sim`` scenes in its own
process (so GPU memory is freed between them), with the response cache off, into a fresh run
directory; questions/s is answered questions over the run's own wall time (``metrics.json``
``run.wall_time_s``, which includes loading the model: use enough ``--limit`` scenes that
loading does not dominate). For ``openai:`` the script starts
``vllm serve MODEL`` itself (unless ``--url`` names a running one) and waits for it to answer.

    python perf/vllm_vs_hf.py --model Qwen/Qwen2.5-VL-3B-Instruct --limit 20
    python perf/vllm_vs_hf.py --model /ckpt/smolvlm --only vllm,openai --json out.json
    python perf/vllm_vs_hf.py --model M --only openai --url http://localhost:8000/v1

Needs a CUDA GPU, ``socialbench[vllm,hf]`` and the model's weights on disk or in the hub
cache. Not run in CI (no GPU there); the README says which numbers were measured.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

BACKENDS = ("vllm", "hf", "openai")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_server(url: str, proc: subprocess.Popen | None, timeout_s: float) -> None:
    """Poll ``URL/models`` until the server answers (or fail if it exited)."""
    t0 = time.time()
    while time.time() - t0 < timeout_s:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"vllm serve exited with status {proc.returncode} before answering")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=5) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(2)
    raise SystemExit(f"no answer from {url} within {timeout_s:.0f} s")


def run_eval(spec: str, args: argparse.Namespace, out: Path, model_opts: list[str]) -> dict[str, Any]:
    """One ``socialbench eval`` in a child process; its questions/s and counters."""
    cmd = [
        sys.executable,
        "-m",
        "socialbench",
        "eval",
        "-b",
        "socialnav-sim",
        "-m",
        spec,
        "--limit",
        str(args.limit),
        "--method",
        args.method,
        "--concurrency",
        str(args.concurrency),
        "--no-cache",
        "--no-progress",
        "--timeout",
        "900",
        "--out",
        str(out),
    ]
    for opt in model_opts:
        cmd += ["--model-opt", opt]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 2):
        return {"spec": spec, "error": (proc.stderr or proc.stdout).strip().splitlines()[-1:]}
    run = json.loads((out / "metrics.json").read_text())["run"]
    return {
        "spec": spec,
        "answered": run["answered"],
        "questions": run["questions"],
        "model_errors": run["model_errors"],
        "run_wall_s": run["wall_time_s"],
        "process_wall_s": round(wall, 1),
        "questions_per_s": round(run["answered"] / run["wall_time_s"], 3) if run["wall_time_s"] else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="hub id or checkpoint folder served by all three")
    ap.add_argument("--only", default=",".join(BACKENDS), help="comma-separated subset of vllm,hf,openai")
    ap.add_argument("--limit", type=int, default=10, help="socialnav-sim scenes (about 40 questions each)")
    ap.add_argument("--method", default="independent")
    ap.add_argument("--concurrency", type=int, default=256, help="requests in flight (vllm: and openai:)")
    ap.add_argument("--hf-batch-size", type=int, default=16)
    ap.add_argument("--max-model-len", type=int, default=16384)
    ap.add_argument("--url", help="a running `vllm serve` (else one is started on a free port)")
    ap.add_argument("--serve-timeout", type=float, default=900.0)
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args()
    chosen = [b for b in args.only.split(",") if b]
    bad = [b for b in chosen if b not in BACKENDS]
    if bad:
        raise SystemExit(f"--only takes {', '.join(BACKENDS)} (got {', '.join(bad)})")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        if "vllm" in chosen:
            results.append(
                run_eval(f"vllm:{args.model}", args, Path(tmp) / "vllm", [f"max_model_len={args.max_model_len}"])
            )
        if "hf" in chosen:
            args_hf = argparse.Namespace(**{**vars(args), "concurrency": max(args.hf_batch_size, 16)})
            results.append(
                run_eval(
                    f"hf:{args.model}",
                    args_hf,
                    Path(tmp) / "hf",
                    [f"batch_size={args.hf_batch_size}", "dtype=bfloat16"],
                )
            )
        if "openai" in chosen:
            server = None
            url = args.url
            if url is None:
                port = free_port()
                url = f"http://127.0.0.1:{port}/v1"
                server = subprocess.Popen(
                    [
                        "vllm",
                        "serve",
                        args.model,
                        "--port",
                        str(port),
                        "--max-model-len",
                        str(args.max_model_len),
                        "--limit-mm-per-prompt",
                        json.dumps({"image": 10}),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
            try:
                wait_for_server(url, server, args.serve_timeout)
                results.append(run_eval(f"openai:{args.model}@{url}", args, Path(tmp) / "openai", []))
            finally:
                if server is not None:
                    os.killpg(server.pid, signal.SIGTERM)
                    server.wait(timeout=60)
    for r in results:
        print(json.dumps(r))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
