"""``socialbench eval`` against the scripted servers run as subprocesses with
``--responder valid``: every benchmark's replies parse (0% invalid)."""

from __future__ import annotations

import importlib.util
import json
import selectors
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from socialbench.cli import main

_FIXTURES = Path(__file__).resolve().parents[1] / "benchmarks" / "roboteq" / "roboteq_fixtures.py"


def _roboteq_release(root: Path) -> Path:
    spec = importlib.util.spec_from_file_location("roboteq_fixtures_for_servers", _FIXTURES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_release(root)


def _start(module: str, *args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", module, "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    line = proc.stdout.readline().strip() if sel.select(60) else ""
    sel.close()
    if not line.startswith("READY "):
        proc.kill()
        pytest.fail(f"{module} did not print READY: {line!r} {proc.communicate(timeout=10)[1][-500:]}")
    return proc, line.split(" ", 1)[1]


@pytest.fixture(scope="module")
def valid_server() -> Iterator[str]:
    proc, url = _start("socialbench.testing.openai_server", "--responder", "valid")
    try:
        yield url
    finally:
        proc.kill()
        proc.communicate(timeout=10)


def _eval(*args: str) -> int:
    with pytest.raises(SystemExit) as e:
        main(["eval", *args, "--no-progress", "--no-cache"])
        raise SystemExit(0)
    return int(e.value.code or 0)


@pytest.mark.parametrize(
    "benchmark,strategy", [("roboteq-bj", "standard"), ("roboteq-bj", "cot"), ("roboteq-sg", "standard")]
)
def test_roboteq_eval_has_no_invalid_reply(valid_server: str, tmp_path: Path, benchmark: str, strategy: str) -> None:
    data = _roboteq_release(tmp_path / "release")
    out = tmp_path / "run"
    assert (
        _eval(
            "-b", benchmark, "-d", str(data), "--strategy", strategy, "-m", f"openai:m@{valid_server}", "-o", str(out)
        )
        == 0
    )
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["overall"]["n"] > 0 and metrics["overall"]["invalid_rate"]["value"] == 0.0


def test_socialnav_sim_eval_has_no_invalid_reply(valid_server: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert _eval("-b", "socialnav-sim", "--limit", "40", "-m", f"openai:m@{valid_server}", "-o", str(out)) == 0
    failures = json.loads((out / "metrics.json").read_text())["failures"]
    assert failures["n"] > 0 and failures["invalid_rate"] == 0.0


def test_first_option_responder_is_still_selectable(tmp_path: Path) -> None:
    proc, url = _start("socialbench.testing.openai_server", "--responder", "first-option")
    try:
        body = {"model": "m", "messages": [{"role": "user", "content": "Describe the scene."}]}
        req = urllib.request.Request(
            url + "/chat/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            content = json.loads(resp.read())["choices"][0]["message"]["content"]
        assert json.loads(content) == {"answer": "ok"}
    finally:
        proc.kill()
        proc.communicate(timeout=10)


def test_images_server_command_line_serves_generations() -> None:
    proc, url = _start("socialbench.testing.images_server")
    try:
        req = urllib.request.Request(
            url + "/images/generations",
            data=json.dumps({"prompt": "a lobby"}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            data = json.loads(resp.read())["data"]
        assert len(data) == 1 and data[0]["b64_json"]
    finally:
        proc.kill()
        proc.communicate(timeout=10)
