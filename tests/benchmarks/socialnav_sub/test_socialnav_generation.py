"""SocialNav-SUB's generation settings: what the official harness sends (model, messages,
response_format; no sampling setting), against scripted servers that behave like a
reasoning model and like a sampling model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from socialbench.cli import main
from socialbench.testing.openai_server import ScriptedOpenAIServer, openai_reasoning_model
from socialbench.testing.responders import sampling_responder

QUESTIONS_PER_SAMPLE = 39  # the first bundled demo scene (--limit 1)


def _eval(out: Path, url: str, *flags: str) -> dict[str, Any]:
    main(
        [
            "eval",
            "-b",
            "socialnav-sim",
            "-m",
            f"openai:o4-mini@{url}",
            "--limit",
            "1",
            "--out",
            str(out),
            "--no-progress",
            "--no-cache",
            "--no-render-cache",
            *flags,
        ]
    )
    return json.loads((out / "run.json").read_text())


def official_gpt4o_body(model: str, prompt: str, image_urls: list[str]) -> dict[str, Any]:
    """The chat-completions body the official harness posts for one question: a
    transcription of ``gpt4o.py:316-335`` (reference §c): one user message, the text first
    and then one ``image_url`` part per image, ``response_format`` json_object, and no
    temperature or other sampling setting."""
    content: list[dict[str, Any]] = [{"type": "text", "text": prompt}]
    content += [{"type": "image_url", "image_url": {"url": url}} for url in image_urls]
    return {
        "model": model,
        "messages": [{"role": "user", "content": content}],
        "response_format": {"type": "json_object"},
    }


#: How socialbench's reply travels (streamed, so that an attempt given up on frees the server;
#: models/chat_stream.py), not what the model is asked: the generation is the official
#: harness's. ``--model-opt stream=false`` leaves these out.
STREAMING = {"stream": True, "stream_options": {"include_usage": True}}


def test_request_body_equals_the_official_harness_body_field_by_field(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as srv:
        _eval(tmp_path / "run", srv.base_url)
        # the questions' bodies: all but the images probe (1 token, no response_format)
        bodies = [b for b in srv.requests if "response_format" in b]
    assert len(bodies) == QUESTIONS_PER_SAMPLE == len(srv.requests) - 1
    for body in bodies:
        parts = body["messages"][-1]["content"]
        official = official_gpt4o_body(
            "o4-mini", parts[0]["text"], [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
        )
        expected = {**official, **STREAMING}
        assert sorted(body) == sorted(expected)
        for field in expected:
            assert body[field] == expected[field], field


def test_run_json_records_that_no_sampling_setting_is_sent(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as srv:
        run = _eval(tmp_path / "run", srv.base_url)
    assert run["generation"] == {"json_mode": True}


def test_eval_against_a_reasoning_model_completes_and_counts_reasoning_tokens(tmp_path: Path) -> None:
    with ScriptedOpenAIServer(served=openai_reasoning_model(reasoning_tokens=48)) as srv:
        run = _eval(tmp_path / "run", srv.base_url, "--reasoning-effort", "low")
        # the questions' bodies: all but the images probe (1 token, no response_format)
        efforts = {b.get("reasoning_effort") for b in srv.requests if "response_format" in b}
    assert (run["status"], run["answered"], efforts) == ("complete", QUESTIONS_PER_SAMPLE, {"low"})
    assert run["reasoning_tokens"] == 48 * QUESTIONS_PER_SAMPLE
    assert "generation_adapted" not in run  # nothing it refuses is sent by default


def test_greedy_flags_against_a_reasoning_model_are_adapted_and_recorded(tmp_path: Path) -> None:
    with ScriptedOpenAIServer(served=openai_reasoning_model()) as srv:
        run = _eval(tmp_path / "run", srv.base_url, "--temperature", "0", "--max-tokens", "300")
        last = srv.requests[-1]
    assert run["status"] == "complete"
    assert run["generation"] == {"max_tokens": 300, "temperature": 0.0, "json_mode": True}
    assert sorted(run["generation_adapted"]) == ["max_tokens", "temperature"]
    assert (last.get("max_completion_tokens"), "temperature" in last) == (300, False)


def test_epochs_at_temperature_1_against_a_sampling_model_give_a_nonzero_se(tmp_path: Path) -> None:
    with ScriptedOpenAIServer(responder=sampling_responder(seed=3)) as srv:
        _eval(tmp_path / "run", srv.base_url, "--epochs", "5", "--temperature", "1")
        # the questions' bodies: all but the images probe (1 token, no response_format)
        temperatures = {b.get("temperature") for b in srv.requests if "response_format" in b}
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert temperatures == {1.0}
    assert metrics["epochs"]["n"] == 5 and metrics["scores"]["model"]["All"]["PA_se"] > 0


def test_anthropic_sends_no_sampling_setting(tmp_path: Path) -> None:
    pytest.importorskip("anthropic")
    from socialbench.testing.anthropic_server import ScriptedAnthropicServer

    with ScriptedAnthropicServer() as srv:
        args = ["eval", "-b", "socialnav-sim", "-m", "anthropic:claude-sonnet-4-5", "--limit", "1"]
        opts = ["--model-opt", f"base_url={srv.base_url}", "--out", str(tmp_path / "run"), "--no-progress"]
        main([*args, *opts, "--no-cache", "--no-render-cache"])
        sampling = {key for body in srv.requests for key in ("temperature", "top_p") if key in body}
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert (len(srv.requests), sampling) == (QUESTIONS_PER_SAMPLE, set())
    # JSON mode is the one adaptation: the Messages API has no schema-free JSON mode (docs/models.md)
    assert sorted(run["generation_adapted"]) == ["json_mode"]
    assert run["sessions"][-1]["json_mode_sent"] == {
        "with_output_format": 0,
        "without_output_format": len(srv.requests),
    }
