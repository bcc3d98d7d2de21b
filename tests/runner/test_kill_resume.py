"""A run killed with SIGKILL (or stopped with Ctrl-C) resumes to the uninterrupted result."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from socialbench.testing.openai_server import ScriptedOpenAIServer

# Fields that describe the answer; latency, attempts and cache flags describe the execution.
CONTENT = ("item_id", "question_key", "request_hash", "raw", "parsed", "parse_method", "error", "usage")


def eval_cmd(data, out, url, method="independent"):
    return [
        sys.executable,
        "-m",
        "socialbench",
        "eval",
        "--benchmark",
        "socialnav-sub",
        "--data",
        str(data),
        "--model",
        f"openai:test-model@{url}",
        "--out",
        str(out),
        "--no-cache",
        "--no-progress",
        "--concurrency",
        "4",
        "--method",
        method,
        "--timeout",
        "10",
    ]


def content(run_dir):
    lines = (run_dir / "samples.jsonl").read_text().splitlines()
    return [{k: json.loads(x)[k] for k in CONTENT} for x in lines]


def scores(run_dir):
    return json.loads((run_dir / "metrics.json").read_text())["scores"]


def wait_for_lines(path, n, proc, timeout=60):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if path.exists() and path.read_text().count("\n") >= n:
            return
        if proc.poll() is not None:
            pytest.fail(f"run ended before {n} answers")
        time.sleep(0.01)
    pytest.fail("run did not progress")


@pytest.fixture(scope="module")
def server():
    with ScriptedOpenAIServer(delay_s=0.02) as srv:
        yield srv


@pytest.fixture(scope="module")
def reference(small_socialnav, server, tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "run"
    subprocess.run(eval_cmd(small_socialnav, out, server.base_url), check=True, capture_output=True)
    return out


@pytest.mark.parametrize("kill_after", [1, 30, 70])
def test_sigkill_then_resume_equals_uninterrupted(small_socialnav, server, reference, tmp_path, kill_after):
    out = tmp_path / "run"
    proc = subprocess.Popen(
        eval_cmd(small_socialnav, out, server.base_url), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wait_for_lines(out / "samples.jsonl", kill_after, proc)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    answered_at_kill = (out / "samples.jsonl").read_text().count("\n")
    before = server.count
    subprocess.run(eval_cmd(small_socialnav, out, server.base_url), check=True, capture_output=True)
    # nothing answered is asked again; + 1: the resumed session's images probe (one per invocation)
    assert server.count - before == 81 - answered_at_kill + 1
    assert content(out) == content(reference)
    assert scores(out) == scores(reference)


def test_cot_run_killed_midway_resumes_to_same_prompts(small_socialnav, server, tmp_path_factory, tmp_path):
    ref = tmp_path_factory.mktemp("refcot") / "run"
    subprocess.run(eval_cmd(small_socialnav, ref, server.base_url, "cot"), check=True, capture_output=True)
    out = tmp_path / "run"
    proc = subprocess.Popen(
        eval_cmd(small_socialnav, out, server.base_url, "cot"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wait_for_lines(out / "samples.jsonl", 20, proc)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    subprocess.run(eval_cmd(small_socialnav, out, server.base_url, "cot"), check=True, capture_output=True)
    assert content(out) == content(ref)


def test_ctrl_c_stops_cleanly_and_keeps_answers(small_socialnav, server, tmp_path):
    out = tmp_path / "run"
    proc = subprocess.Popen(
        eval_cmd(small_socialnav, out, server.base_url), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    wait_for_lines(out / "samples.jsonl", 10, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    run = json.loads((out / "run.json").read_text())
    assert proc.returncode == 130 and run["status"] == "interrupted"
    assert b"Traceback" not in err
    assert len((out / "samples.jsonl").read_text().splitlines()) >= 10


# ----------------------------------------------------------------- run.json request counts
CONCURRENCY = 4  # eval_cmd's --concurrency: at most this many requests are in flight at once


def recorded_requests(run_dir):
    return json.loads((run_dir / "run.json").read_text())["requests"]


def test_requests_of_a_killed_session_are_counted_after_resume(small_socialnav, server, tmp_path):
    out = tmp_path / "run"
    before = server.count
    proc = subprocess.Popen(
        eval_cmd(small_socialnav, out, server.base_url), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wait_for_lines(out / "samples.jsonl", 30, proc)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    subprocess.run(eval_cmd(small_socialnav, out, server.base_url), check=True, capture_output=True)
    # the images probes reach the server but are not questions' requests: the resumed session's
    # is in run.json; the killed session's (sent beside its questions, 0 or 1) is not
    probes = json.loads((out / "run.json").read_text())["sessions"][-1]["probe_requests"]
    received = server.count - before - probes
    # counted when handed to the HTTP client: requests the kill caught before they reached the
    # server are counted too, never more than were in flight
    assert received - 1 <= recorded_requests(out) <= received + CONCURRENCY


def test_ctrl_c_counts_only_requests_that_were_sent(small_socialnav, server, tmp_path):
    out = tmp_path / "run"
    before = server.count
    proc = subprocess.Popen(
        eval_cmd(small_socialnav, out, server.base_url), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    wait_for_lines(out / "samples.jsonl", 10, proc)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    # the images probe reaches the server but is not a question's request: counted apart
    received = server.count - before - json.loads((out / "run.json").read_text())["sessions"][-1]["probe_requests"]
    assert received <= recorded_requests(out) <= received + CONCURRENCY
