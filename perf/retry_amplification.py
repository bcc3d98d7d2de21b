"""Requests a failing backend receives for one small run, direct and behind LiteLLM (issue 42).

One SocialNav-SUB run of ``openai:`` (a synthetic sample: ``--people`` people, 39 questions
at 3) against ``python -m socialbench.testing.openai_server`` answering every request with a
429 (``Retry-After: 1``), a 500, or never (a hang), straight or through a LiteLLM proxy: the
real one when ``--litellm PATH`` names its ``litellm`` command (scripts/litellm_roundtrip.sh
builds it in a venv of its own), else :class:`~socialbench.testing.litellm_fake.FakeLiteLLM`
(2 retries, as the real proxy's default). Each setting runs with the run-level give-up
(``--give-up-after 6``, the default) and without it (``0``: what every earlier version did).

The defaults are 6 attempts of 120 s with backoff 1, 2, 4, ... s; here every time but the
server's ``Retry-After`` is scaled by ``--timeout / 120`` (timeout, backoff base and cap), so
a hang's wall time at the defaults is the measured one times ``120 / --timeout`` (reported as
``wall_at_defaults_s`` for the hang rows only: a 429's 1 s Retry-After is not scaled, and a
500's run is mostly this machine's own work). Upstream requests do not depend on the scale.

    .venv/bin/python perf/retry_amplification.py                 # ~3 min on 2 cores (fake LiteLLM)
    .venv/bin/python perf/retry_amplification.py --litellm /tmp/litellm-venv/bin/litellm --json out.json

Only 127.0.0.1 is used; every server started is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset
from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions
from socialbench.runner.engine import RetryPolicy
from socialbench.runner.run import RunRequest, run_eval
from socialbench.testing.litellm_fake import FakeLiteLLM

FAILURES = {
    "429": ["--fail-with", "429", "--fail-header", "Retry-After:1"],
    "500": ["--fail-with", "500"],
    "hang": ["--hang"],
}
LITELLM_KEY = "sk-socialbench-perf"  # the local proxy's master key (nothing secret)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_upstream(port: int, failure: str) -> subprocess.Popen[str]:
    """The scripted server on ``port``, failing every request as ``failure`` says."""
    cmd = [sys.executable, "-m", "socialbench.testing.openai_server", "--port", str(port), *FAILURES[failure]]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("READY "):
        proc.kill()
        raise RuntimeError(f"upstream did not start (got {line!r})")
    return proc


def stop(proc: subprocess.Popen[Any]) -> None:
    """Terminate ``proc``; kill it when it does not exit within 30 s (a proxy holding hung
    requests may not)."""
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(30)


def upstream_count(port: int) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/stats", timeout=10) as resp:
        return int(json.load(resp)["count"])


def start_litellm(litellm: str, upstreams: dict[str, int], folder: Path, num_retries: int | None) -> tuple[Any, str]:
    """A real LiteLLM proxy serving model ``f<FAILURE>`` from each upstream port; (process, base URL)."""
    port = free_port()
    settings = "" if num_retries is None else f"litellm_settings:\n  num_retries: {num_retries}\n"
    config = folder / f"litellm-{port}.yaml"
    models = "".join(
        f"  - model_name: f{failure}\n    litellm_params:\n      model: openai/scripted-model\n"
        f"      api_base: http://127.0.0.1:{upstream}/v1\n      api_key: none\n"
        for failure, upstream in upstreams.items()
    )
    config.write_text(f"model_list:\n{models}{settings}general_settings:\n  master_key: {LITELLM_KEY}\n")
    log = open(folder / f"litellm-{port}.log", "w")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(
        [litellm, "--config", str(config), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=folder,
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health/liveliness", timeout=2).close()
            return proc, f"http://127.0.0.1:{port}/v1"
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"litellm exited; see {log.name}") from None
            time.sleep(1)
    proc.kill()
    raise RuntimeError(f"litellm did not answer within 180 s; see {log.name}")


def one_run(
    data: Path, out: Path, name: str, url: str, timeout: float, give_up: int, key_env: str | None
) -> dict[str, Any]:
    """Run the sample against model ``name`` at ``url`` with the defaults scaled by ``timeout / 120``."""
    scale = timeout / 120.0
    extra = (("api_key_env", key_env),) if key_env else ()
    model = OpenAICompatModel(name, url, ModelOptions(timeout_s=timeout, extra=extra))
    retry = RetryPolicy(
        max_attempts=6, base_delay_s=scale, max_delay_s=60.0 * scale, timeout_s=timeout, give_up_after=give_up
    )
    req = RunRequest(
        benchmark_name="socialnav-sub",
        data=data,
        model_spec=model.spec,
        out=out,
        options=EvalOptions(limit=1),
        concurrency=16,
        retry=retry,
        show_progress=False,
    )
    t0 = time.perf_counter()
    res = run_eval(req, SocialNavSub(), model)
    wall = time.perf_counter() - t0
    run = json.loads((out / "run.json").read_text())
    return {
        "questions": res.metrics["run"]["questions"],
        "client_requests": run["requests_sent"],
        "error_kinds": res.metrics["run"]["error_kinds"],
        "wall_s": round(wall, 2),
        "wall_at_defaults_s": round(wall / scale),  # meaningful for hangs only (see the docstring)
        "concurrency": res.stats["concurrency"],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--litellm", help="the real proxy's `litellm` command (default: the in-process fake)")
    p.add_argument("--timeout", type=float, default=0.5, help="attempt timeout standing for 120 s (default 0.5)")
    p.add_argument("--people", type=int, default=3, help="people in the synthetic sample (3: 39 questions)")
    p.add_argument("--only", nargs="*", default=list(FAILURES), choices=list(FAILURES))
    p.add_argument("--no-litellm-retries", action="store_true", help="also run behind LiteLLM with num_retries: 0")
    p.add_argument("--json", help="write the rows here")
    args = p.parse_args(argv)
    os.environ.setdefault("PERF_LITELLM_KEY", LITELLM_KEY)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        folder = Path(tmp)
        data = write_synthetic_dataset(folder / "data", n_samples=1, people=[args.people], seed=7)
        # one upstream per failure, kept for every run of it (requests are counted as differences):
        # a hung request a proxy still holds never reaches another failure's server
        ports = {failure: free_port() for failure in args.only}
        for failure, port in ports.items():
            stack.callback(stop, start_upstream(port, failure))
        paths: list[tuple[str, int | None]] = [("direct", None), ("litellm", None)]
        if args.no_litellm_retries:
            paths.append(("litellm", 0))
        proxies: dict[int | None, str] = {}
        if args.litellm:
            for _, retries in paths[1:]:
                proc, url = start_litellm(args.litellm, ports, folder, retries)
                stack.callback(stop, proc)
                proxies[retries] = url
        for failure in args.only:
            port = ports[failure]
            for path, retries in paths:
                for give_up in (6, 0):
                    before = upstream_count(port)
                    with ExitStack() as this_run:
                        key_env, name = None, "scripted-model"
                        if path == "direct":
                            url = f"http://127.0.0.1:{port}/v1"
                        elif args.litellm:
                            url, key_env, name = proxies[retries], "PERF_LITELLM_KEY", f"f{failure}"
                        else:
                            fake = FakeLiteLLM(f"http://127.0.0.1:{port}/v1", num_retries=2 if retries is None else 0)
                            fake.retry_wait_cap_s = 60.0  # the upstream's Retry-After in full, as the SDK waits
                            url = this_run.enter_context(fake).base_url
                        out = folder / f"run-{failure}-{path}-{retries}-{give_up}"
                        row = one_run(data, out, name, url, args.timeout, give_up, key_env)
                        row["upstream_requests"] = upstream_count(port) - before
                    proxy = "direct" if path == "direct" else ("litellm" if args.litellm else "fake-litellm")
                    if path != "direct":
                        proxy += f" (num_retries {'default' if retries is None else retries})"
                    row.update({"failure": failure, "path": proxy, "give_up_after": give_up})
                    if failure != "hang":
                        row.pop("wall_at_defaults_s")
                    row["upstream_per_question"] = round(row["upstream_requests"] / row["questions"], 2)
                    rows.append(row)
                    print(
                        f"{failure:>4} {proxy:<36} give-up {give_up}: upstream {row['upstream_requests']:>4} "
                        f"({row['upstream_per_question']:.2f}/question), client {row['client_requests']:>4}, "
                        f"wall {row['wall_s']:.1f} s"
                        + (f" (at 120 s x 6: ~{row['wall_at_defaults_s']} s)" if "wall_at_defaults_s" in row else "")
                        + ", "
                        f"errors {row['error_kinds']}",
                        flush=True,
                    )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
