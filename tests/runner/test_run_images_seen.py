"""run.json says whether the server saw the images (the openai: backend's images probe,
issue 28 §4): a text-only model is found out, the probe is counted apart from the questions,
and a resumed run does not ask its answered questions again."""

import json

from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions
from socialbench.runner.engine import RetryPolicy
from socialbench.testing.openai_server import ScriptedOpenAIServer, ServedModel, text_only_model
from socialnav_http_run import run_first_sample


def _run(data, out, url, *opts):
    model = OpenAICompatModel("m", url, ModelOptions(timeout_s=5.0, extra=tuple(opts)))
    retry = RetryPolicy(max_attempts=3, base_delay_s=0.01, timeout_s=5.0)
    return run_first_sample(data, out, model, concurrency=4, retry=retry)


def _run_json(out):
    return json.loads((out / "run.json").read_text())


def test_a_text_only_model_is_recorded_as_not_seeing_the_images(small_socialnav, tmp_path):
    with ScriptedOpenAIServer(served=text_only_model()) as srv:
        res = _run(small_socialnav, tmp_path / "r", srv.base_url)
        count = srv.count
    run = _run_json(tmp_path / "r")
    check = run["images_check"]
    assert (run["images_seen"], run["sessions"][-1]["probe_requests"]) == (False, 1)
    assert check["images"] >= 1 and check["prompt_tokens_with_images"] == check["prompt_tokens_without_images"]
    assert count == run["requests"] + 1 == res.metrics["run"]["questions"] + 1  # the probe is no question


def test_a_vision_model_is_recorded_as_seeing_them(small_socialnav, tmp_path):
    with ScriptedOpenAIServer() as srv:
        _run(small_socialnav, tmp_path / "r", srv.base_url)
    run = _run_json(tmp_path / "r")
    assert run["images_seen"] is True
    assert run["images_check"]["prompt_tokens_with_images"] > run["images_check"]["prompt_tokens_without_images"]


def test_no_usage_is_recorded_as_unknown_with_the_reason(small_socialnav, tmp_path):
    with ScriptedOpenAIServer(served=ServedModel("no-usage", reports_usage=False)) as srv:
        _run(small_socialnav, tmp_path / "r", srv.base_url)
    run = _run_json(tmp_path / "r")
    assert run["images_seen"] is None and "reported no usage.prompt_tokens" in run["images_check"]["reason"]
    assert run["sessions"][-1]["probe_requests"] == 0


def test_the_opt_out_is_recorded(small_socialnav, tmp_path):
    with ScriptedOpenAIServer(served=text_only_model()) as srv:
        _run(small_socialnav, tmp_path / "r", srv.base_url, ("check_images", "false"))
        count = srv.count
    run = _run_json(tmp_path / "r")
    assert count == run["requests"]
    assert (run["images_seen"], run["images_check"]["reason"]) == (None, "not checked (--model-opt check_images=false)")


def test_a_resumed_complete_run_sends_nothing_and_keeps_the_finding(small_socialnav, tmp_path):
    with ScriptedOpenAIServer(served=text_only_model()) as srv:
        _run(small_socialnav, tmp_path / "r", srv.base_url)
        first = srv.count
        _run(small_socialnav, tmp_path / "r", srv.base_url)  # every question answered already
        second = srv.count - first
    run = _run_json(tmp_path / "r")
    assert (second, len(run["sessions"]), run["images_seen"]) == (0, 2, False)
    assert "probe_requests" not in run["sessions"][-1]
