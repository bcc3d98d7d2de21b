"""socialbench against a real, independently written OpenAI-compatible server (issue 28 §4):
``transformers serve`` on the CPU, serving the tiny VLM the tests build (nothing downloaded),
bound to 127.0.0.1 on a free port and always stopped. A SocialNav-SUB eval (the bundled
socialnav-sim demo) and a RobotEQ eval (the tiny release) go through it, streamed; every
question must end recorded, answered or as a typed failure, none lost.

The tiny model's replies are gibberish from its vocabulary, so most answers do not parse:
that is recorded (``invalid``), which is what this test checks, not the answers' quality.

Needs the ``serve`` extra (FastAPI and Uvicorn, which ``transformers serve`` runs on) and the
``hf`` extra; ``make extras`` installs both.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from socialbench.cli import main
from socialbench.records import read_samples

pytest.importorskip("torch")
pytest.importorskip("transformers")
for _module in ("fastapi", "uvicorn"):
    if importlib.util.find_spec(_module) is None:
        pytest.skip(f"{_module} (optional extra serve) is not installed", allow_module_level=True)

_FIXTURES = Path(__file__).resolve().parents[1] / "benchmarks" / "roboteq" / "roboteq_fixtures.py"
#: Typed failures a record may carry (models/openai_compat.py's error kinds).
ERROR_KINDS = {
    "rate_limit",
    "overloaded",
    "server_error",
    "timeout",
    "connection",
    "malformed_response",
    "bad_request",
    "auth",
    "not_found",
    "refusal",
    "empty_response",
    "reply_too_large",
}


def _roboteq_release(root: Path) -> Path:
    spec = importlib.util.spec_from_file_location("roboteq_fixtures_for_serve", _FIXTURES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return Path(module.build_release(root))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return bool(resp.status == 200)
    except OSError:
        return False


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(model path, base URL) of ``transformers serve`` running the tiny llava."""
    from socialbench.testing.tiny_vlm import build_tiny_vlm

    root = tmp_path_factory.mktemp("serve")
    model = str(build_tiny_vlm("llava", root / "tiny-llava", seed=0))
    port = _free_port()
    log = (root / "serve.log").open("w")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}
    launch = (
        "import sys; from transformers.cli.transformers import main; sys.argv[0] = 'transformers'; sys.exit(main())"
    )
    command = [sys.executable, "-c", launch, "serve", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(
        [*command, "--device", "cpu", model], stdout=log, stderr=subprocess.STDOUT, env=env, cwd=root
    )
    try:
        # the guard only catches a hang: startup imports torch, which is slow on a loaded machine
        deadline = time.monotonic() + 600
        while not _healthy(f"http://127.0.0.1:{port}/health"):
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail(f"transformers serve did not start: {(root / 'serve.log').read_text()[-2000:]}")
            time.sleep(0.5)
        yield model, f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        log.close()


def _eval(out: Path, model: str, url: str, *args: str) -> dict[str, Any]:
    try:
        main(
            [
                "eval",
                *args,
                "-m",
                f"openai:{model}@{url}",
                "--out",
                str(out),
                "--no-progress",
                "--no-cache",
                "--no-render-cache",
                "--concurrency",
                "4",
                "--max-tokens",
                "24",  # the tiny model rambles to its context length otherwise
            ]
        )
    except SystemExit as exc:  # exit 3 (model errors) still leaves a full record to check
        assert exc.code in (0, None, 3), f"eval exited {exc.code}"
    return dict(json.loads((out / "run.json").read_text()))


def _check_every_question_recorded(out: Path) -> dict[str, Any]:
    metrics = json.loads((out / "metrics.json").read_text())["run"]
    records = read_samples(out / "samples.jsonl")
    keys = {(r.item_id, r.question_key) for r in records}
    assert metrics["questions"] > 0 and len(keys) == metrics["questions"], metrics
    assert metrics["missing"] == 0 and metrics["answered"] + metrics["model_errors"] == metrics["questions"]
    assert {r.error for r in records if r.error is not None} <= ERROR_KINDS
    return dict(metrics)


def test_a_socialnav_sub_eval_through_transformers_serve_records_every_reply(served, tmp_path):
    model, url = served
    run = _eval(tmp_path / "nav", model, url, "-b", "socialnav-sim", "--limit", "1")
    metrics = _check_every_question_recorded(tmp_path / "nav")
    assert metrics["answered"] > 0 and run["sessions"][-1]["engine"]["completion_tokens"] > 0
    assert "stream" not in run.get("generation_adapted", {})  # it streamed
    # the tiny LLaVA sees its 10 images: they add prompt tokens (found by one images probe)
    assert (run["images_seen"], run["sessions"][-1]["probe_requests"]) == (True, 1)


def test_a_roboteq_eval_through_transformers_serve_records_every_reply(served, tmp_path):
    model, url = served
    release = _roboteq_release(tmp_path / "robot-eq")
    _eval(tmp_path / "req", model, url, "-b", "roboteq-bj", "-d", str(release))
    metrics = _check_every_question_recorded(tmp_path / "req")
    assert metrics["answered"] > 0
