"""RobotEQ's generation settings (paper App. G.5: temperature 0, max_tokens 1024, 2048 for
CoT) as sent over HTTP, changed by the eval flags, and adapted for a reasoning model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from socialbench.cli import app, main
from socialbench.testing.openai_server import ScriptedOpenAIServer, openai_reasoning_model
from socialbench.testing.responders import valid_responder

SCENES = 3  # the tiny release's behavior-judgment scenes: one request each


def _eval(release: Path, out: Path, url: str, *flags: str) -> dict[str, Any]:
    main(
        [
            "eval",
            "-b",
            "roboteq-bj",
            "-d",
            str(release),
            "-m",
            f"openai:gpt-5.5@{url}",
            "--out",
            str(out),
            "--no-progress",
            "--no-cache",
            "--no-render-cache",
            *flags,
        ]
    )
    return json.loads((out / "run.json").read_text())


@pytest.mark.parametrize(("strategy", "max_tokens"), [("standard", 1024), ("rag", 1024), ("cot", 2048)])
def test_body_has_temperature_0_and_the_papers_max_tokens(
    release: Path, tmp_path: Path, strategy: str, max_tokens: int
) -> None:
    with ScriptedOpenAIServer(responder=valid_responder) as srv:
        run = _eval(release, tmp_path / "run", srv.base_url, "--strategy", strategy)
        # the questions' bodies: all but the images probe (1 token, no response_format)
        sent = {(b["temperature"], b["max_tokens"]) for b in srv.requests if "response_format" in b}
    assert sent == {(0.0, max_tokens)}
    assert run["generation"] == {"max_tokens": max_tokens, "temperature": 0.0, "json_mode": True}


def test_flags_change_what_is_sent(release: Path, tmp_path: Path) -> None:
    flags = ("--temperature", "0.7", "--top-p", "0.9", "--max-tokens", "256", "--reasoning-effort", "medium")
    with ScriptedOpenAIServer(responder=valid_responder) as srv:
        run = _eval(release, tmp_path / "run", srv.base_url, *flags)
        body = srv.requests[0]
    sent = (body["temperature"], body["top_p"], body["max_tokens"], body["reasoning_effort"])
    assert sent == (0.7, 0.9, 256, "medium")
    assert run["generation"] == {
        "max_tokens": 256,
        "temperature": 0.7,
        "top_p": 0.9,
        "reasoning_effort": "medium",
        "json_mode": True,
    }


def test_default_sends_no_value(release: Path, tmp_path: Path) -> None:
    with ScriptedOpenAIServer(responder=valid_responder) as srv:
        run = _eval(release, tmp_path / "run", srv.base_url, "--temperature", "default", "--max-tokens", "default")
        body = srv.requests[0]
    assert ("temperature" in body, "max_tokens" in body, run["generation"]) == (False, False, {"json_mode": True})


def test_eval_against_a_reasoning_model_completes_and_records_what_was_adapted(release: Path, tmp_path: Path) -> None:
    with ScriptedOpenAIServer(responder=valid_responder, served=openai_reasoning_model(reasoning_tokens=30)) as srv:
        run = _eval(release, tmp_path / "run", srv.base_url)
    assert (run["status"], run["answered"]) == ("complete", 7)
    assert sorted(run["generation_adapted"]) == ["max_tokens", "temperature"]
    assert run["reasoning_tokens"] == 30 * SCENES


def test_reasoning_tokens_are_counted_in_the_request_costs(release: Path, tmp_path: Path) -> None:
    with ScriptedOpenAIServer(responder=valid_responder, served=openai_reasoning_model(reasoning_tokens=30)) as srv:
        _eval(release, tmp_path / "run", srv.base_url)
    costs = json.loads((tmp_path / "run" / "metrics.json").read_text())["requests"]
    assert costs["reasoning_tokens"] == 30 * SCENES and costs["completion_tokens"] > costs["reasoning_tokens"]


def test_changed_settings_get_a_run_folder_of_their_own(release: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with ScriptedOpenAIServer(responder=valid_responder) as srv:
        args = ["eval", "-b", "roboteq-bj", "-d", str(release), "-m", f"openai:m@{srv.base_url}", "--no-progress"]
        main([*args, "--no-cache", "--no-render-cache"])
        main([*args, "--no-cache", "--no-render-cache", "--temperature", "1"])
    folders = sorted(p.name for p in (tmp_path / "runs" / "roboteq-bj").glob("*/*"))
    assert folders == ["standard", "standard-temperature-1"]


def test_epochs_at_temperature_0_warn_that_they_are_identical(release: Path, tmp_path: Path) -> None:
    with ScriptedOpenAIServer(responder=valid_responder) as srv:
        args = ["eval", "-b", "roboteq-bj", "-d", str(release), "-m", f"openai:m@{srv.base_url}", "--no-progress"]
        result = CliRunner().invoke(app, [*args, "--epochs", "2", "--out", str(tmp_path / "e"), "--no-cache"])
    assert result.exit_code == 0, result.output
    assert "same answers" in result.output and "--epochs 2 at temperature 0" in result.output


def test_epochs_that_sample_give_no_warning(release: Path, tmp_path: Path) -> None:
    with ScriptedOpenAIServer(responder=valid_responder) as srv:
        args = ["eval", "-b", "roboteq-bj", "-d", str(release), "-m", f"openai:m@{srv.base_url}", "--no-progress"]
        flags = ["--epochs", "2", "--temperature", "1", "--out", str(tmp_path / "e"), "--no-cache"]
        result = CliRunner().invoke(app, [*args, *flags])
    assert result.exit_code == 0 and "same answers" not in result.output


def test_anthropic_thinking_is_recorded_apart_from_the_parsed_answer(release: Path, tmp_path: Path) -> None:
    pytest.importorskip("anthropic")
    from socialbench.testing.anthropic_server import THINKING_TEXT, ScriptedAnthropicServer

    with ScriptedAnthropicServer(responder=valid_responder) as srv:
        args = ["eval", "-b", "roboteq-bj", "-d", str(release), "-m", "anthropic:claude-opus-4-6", "--no-progress"]
        opts = ["--model-opt", f"base_url={srv.base_url}", "--reasoning-effort", "low"]
        main([*args, *opts, "--out", str(tmp_path / "run"), "--no-cache", "--no-render-cache"])
        budgets = {b["thinking"]["budget_tokens"] for b in srv.requests}
    rows = [json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert budgets == {2048} and {r["reasoning"] for r in rows} == {THINKING_TEXT}
    assert all(r["parsed"] in ("proper", "improper") for r in rows)
    assert "max_tokens" in run["generation_adapted"]


def _anthropic_eval(release: Path, out: Path, url: str, *flags: str) -> dict[str, Any]:
    args = ["eval", "-b", "roboteq-bj", "-d", str(release), "-m", "anthropic:claude-sonnet-4-5", "--no-progress"]
    main([*args, "--model-opt", f"base_url={url}", "--out", str(out), "--no-cache", "--no-render-cache", *flags])
    return json.loads((out / "run.json").read_text())


@pytest.mark.parametrize(("strategy", "max_tokens"), [("standard", 1024), ("cot", 2048)])
def test_anthropic_body_has_temperature_0_and_the_papers_max_tokens(
    release: Path, tmp_path: Path, strategy: str, max_tokens: int
) -> None:
    pytest.importorskip("anthropic")
    from socialbench.testing.anthropic_server import ScriptedAnthropicServer

    with ScriptedAnthropicServer(responder=valid_responder) as srv:
        run = _anthropic_eval(release, tmp_path / "run", srv.base_url, "--strategy", strategy)
        sent = {(b["temperature"], b["max_tokens"]) for b in srv.requests}
    assert sent == {(0.0, max_tokens)}
    # JSON mode is the one adaptation: the Messages API has no schema-free JSON mode (docs/models.md)
    assert (run["status"], sorted(run["generation_adapted"])) == ("complete", ["json_mode"])


def test_anthropic_model_that_refuses_temperature_completes_without_it(release: Path, tmp_path: Path) -> None:
    pytest.importorskip("anthropic")
    from socialbench.testing.anthropic_served import claude_temperature_deprecated
    from socialbench.testing.anthropic_server import ScriptedAnthropicServer

    with ScriptedAnthropicServer(responder=valid_responder, served=claude_temperature_deprecated()) as srv:
        run = _anthropic_eval(release, tmp_path / "run", srv.base_url)
        answered_bodies = [b for b in srv.requests if "temperature" not in b]
    assert (run["status"], run["answered"], len(answered_bodies)) == ("complete", 7, SCENES)
    assert sorted(run["generation_adapted"]) == ["json_mode", "temperature"]
    assert "`temperature` is deprecated for this model." in run["generation_adapted"]["temperature"]


def test_epochs_of_a_baseline_give_no_warning(release: Path, tmp_path: Path) -> None:
    args = ["eval", "-b", "roboteq-bj", "-d", str(release), "-m", "baseline:random", "--no-progress", "--no-cache"]
    result = CliRunner().invoke(app, [*args, "--epochs", "2", "--out", str(tmp_path / "e")])
    assert result.exit_code == 0 and "same answers" not in result.output


def test_the_summary_line_shows_reasoning_tokens(release: Path, tmp_path: Path) -> None:
    with ScriptedOpenAIServer(responder=valid_responder, served=openai_reasoning_model(reasoning_tokens=30)) as srv:
        args = ["eval", "-b", "roboteq-bj", "-d", str(release), "-m", f"openai:o4-mini@{srv.base_url}"]
        result = CliRunner().invoke(app, [*args, "--no-progress", "--no-cache", "--out", str(tmp_path / "r")])
    assert result.exit_code == 0 and f"reasoning tokens {30 * SCENES}" in result.output
