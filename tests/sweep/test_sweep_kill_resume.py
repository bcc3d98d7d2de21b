"""A sweep whose driver is killed with SIGKILL finishes on the next run with the answers of
an uninterrupted sweep (complete cells skipped, the partial cell resumed)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from socialbench.testing.openai_server import ScriptedOpenAIServer  # noqa: E402
from sweep_fixtures import run_dirs, sweep_answers  # noqa: E402


def plan(tmp_path: Path, data: Path, url: str) -> Path:
    path = tmp_path / "plan.yaml"
    path.write_text(
        f"models: ['openai:test-model@{url}']\n"
        f"benchmarks: [{{name: socialnav-sub, data: '{data}'}}]\n"
        "axes: {method: [independent, cot]}\n"
        "options: {no_cache: true, no_render_cache: true, concurrency: 4, timeout: 10}\n"
    )
    return path


def sweep_cmd(plan_path: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "socialbench", "sweep", str(plan_path), "--out", str(out)]


def first_samples(out: Path) -> Path | None:
    found = sorted(out.rglob("samples.jsonl"))
    return found[0] if found else None


@pytest.fixture(scope="module")
def server():
    with ScriptedOpenAIServer(delay_s=0.02) as srv:
        yield srv


def test_killed_sweep_resumes_to_the_uninterrupted_answers(small_socialnav, server, tmp_path):
    plan_path = plan(tmp_path, small_socialnav, server.base_url)
    subprocess.run(sweep_cmd(plan_path, tmp_path / "ref"), check=True, capture_output=True, timeout=300)
    out = tmp_path / "out"
    proc = subprocess.Popen(sweep_cmd(plan_path, out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.time()
    while time.time() - t0 < 120:
        samples = first_samples(out)
        if samples is not None and samples.read_text().count("\n") >= 30:
            break
        if proc.poll() is not None:
            pytest.fail("the sweep ended before it could be killed")
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = [d for d in run_dirs(out) if json.loads((d / "run.json").read_text())["status"] != "complete"]
    assert partial, "the kill came after every cell was complete"
    subprocess.run(sweep_cmd(plan_path, out), check=True, capture_output=True, timeout=300)
    assert sweep_answers(out) == sweep_answers(tmp_path / "ref")
