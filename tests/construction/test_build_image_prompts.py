"""The image-prompts stage: end to end, failures recorded, resumable after SIGKILL."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from socialbench.construction.image_prompts import CONSTRAINTS
from socialbench.construction.jsonl import read_jsonl
from socialbench.testing.openai_server import ScriptedOpenAIServer


def test_prompts_carry_layout_cues_and_constraints(cli, work, chat_server, llm_args, write_scenarios):
    write_scenarios(work, ["Spilled water", "Birthday song"])
    res = cli("image-prompts", "--work", work, *llm_args(chat_server))
    assert res.exit_code == 0, res.output
    rows = {r["id"]: r for r in read_jsonl(work / "image_prompts.jsonl")}
    assert set(rows) == {"restaurant/b00-1", "restaurant/b00-2"}
    p = rows["restaurant/b00-1"]
    assert p["scenario"]["title"] == "Spilled water"
    assert "First-person view: Spilled water." in p["image_prompt"]
    assert "gaze: at the robot" in p["image_prompt"] and "the guest glances at the robot" in p["image_prompt"]
    assert p["image_prompt"].endswith(CONSTRAINTS)


def test_missing_visual_prompt_is_recorded_not_written(cli, work, chat_server, llm_args, write_scenarios):
    write_scenarios(work, ["Spilled water", "Missing prompt case"])
    res = cli("image-prompts", "--work", work, *llm_args(chat_server), "--parse-retries", "1")
    assert res.exit_code == 2
    assert [r["id"] for r in read_jsonl(work / "image_prompts.jsonl")] == ["restaurant/b00-1"]
    (fail,) = read_jsonl(work / "image_prompts.failures.jsonl")
    assert fail["id"] == "restaurant/b00-2" and fail["kind"] == "missing_fields" and "visual_prompt" in fail["message"]


def test_rerun_skips_finished_records_and_repairs_a_truncated_line(cli, work, chat_server, llm_args, write_scenarios):
    write_scenarios(work, [f"Case {i}" for i in range(5)])
    assert cli("image-prompts", "--work", work, *llm_args(chat_server)).exit_code == 0
    lines = (work / "image_prompts.jsonl").read_text().splitlines(keepends=True)
    (work / "image_prompts.jsonl").write_text("".join(lines[:2]) + lines[2][:40])  # killed mid-write
    before = chat_server.count
    assert cli("image-prompts", "--work", work, *llm_args(chat_server)).exit_code == 0
    assert chat_server.count - before == 3
    ids = [r["id"] for r in read_jsonl(work / "image_prompts.jsonl")]
    assert sorted(ids) == sorted(f"restaurant/b00-{i}" for i in range(1, 6)) and len(ids) == 5


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigkill_then_rerun_does_not_redo_finished_records(cli, work, write_scenarios):
    from build_fixtures import build_responder

    write_scenarios(work, [f"Case {i}" for i in range(12)])
    out = work / "image_prompts.jsonl"
    answered = 0

    def answer_three_then_hold(body):
        nonlocal answered
        answered += 1
        if answered == 3:
            srv.hold()  # later requests wait, so the stage cannot finish before the kill however fast it runs
        return build_responder(body)

    with ScriptedOpenAIServer(responder=answer_three_then_hold) as srv:
        args = [
            "image-prompts",
            "--work",
            str(work),
            "--model",
            f"openai:scripted@{srv.base_url}",
            "--no-cache",
            "--concurrency",
            "1",
            "--timeout",
            "10",
        ]
        code = f"from socialbench.construction.commands import build_app; build_app({args!r})"
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t0 = time.time()
        while not (out.exists() and out.read_text().count("\n") >= 3):
            assert proc.poll() is None and time.time() - t0 < 30, "stage did not progress"
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        srv.release()
        finished = {r["id"] for r in read_jsonl(out)}
        assert 3 <= len(finished) < 12
        before = srv.count
        res = cli("image-prompts", "--work", work, "--model", f"openai:scripted@{srv.base_url}", "--no-cache")
        assert res.exit_code == 0, res.output
        asked = {
            json.loads(json.dumps(r))["messages"][-1]["content"].split("Title: ")[1].split("\n")[0]
            for r in srv.requests[before:]
        }
    rows = read_jsonl(out)
    assert len(rows) == 12 and len({r["id"] for r in rows}) == 12
    done_titles = {r["scenario"]["title"] for r in rows if r["id"] in finished}
    assert asked and not (asked & done_titles)
