"""The images probe of the OpenAI-compatible backend (issue 28 §4): after the first answered
request with images, one request without them says whether the server saw the images."""

from __future__ import annotations

import logging

import pytest

from generate_in_turn import generate_in_turn
from socialbench.models.endpoints import MultiEndpointModel
from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions
from socialbench.testing.openai_server import (
    ScriptedOpenAIServer,
    ServedModel,
    ok,
    openai_reasoning_model,
    status,
    text_only_model,
)
from socialbench.types import EncodedImage, GenerationConfig, Request

PROMPT = 'Which way?\nPossible answers: "left", "right"\nRespond as {"answer": "<answer>"}'
IMAGES = tuple(
    EncodedImage(data=b"\xff\xd8\xff fake jpeg %d" % i, mime="image/jpeg", width=4, height=3) for i in range(3)
)
WITH_IMAGES = Request(prompt=PROMPT, images=IMAGES, system="You are a robot.")


def _model(srv: ScriptedOpenAIServer, *opts: tuple[str, str]) -> OpenAICompatModel:
    return OpenAICompatModel("m", srv.base_url, ModelOptions(timeout_s=5.0, extra=tuple(opts)))


def test_a_text_only_model_is_found_not_to_see_the_images(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="socialbench.models.openai_compat"):
        with ScriptedOpenAIServer(served=text_only_model()) as srv:
            model = _model(srv)
            generate_in_turn(model, WITH_IMAGES)
            count = srv.count
    check = model.images_check()
    assert check is not None
    assert (check["images_seen"], check["images"], check["probe_requests"], count) == (False, 3, 1, 2)
    assert check["prompt_tokens_with_images"] == check["prompt_tokens_without_images"]
    (warning,) = [r.getMessage() for r in caplog.records if "did not see the images" in r.getMessage()]
    assert "openai:m@" in warning and "3 image(s)" in warning and "text-only model?" in warning


def test_the_probe_sends_the_messages_without_images_for_one_token() -> None:
    with ScriptedOpenAIServer(served=text_only_model()) as srv:
        generate_in_turn(_model(srv), WITH_IMAGES)
        asked, probe = srv.requests
    user = probe["messages"][-1]["content"]
    assert user == [{"type": "text", "text": PROMPT}]
    assert probe["messages"][0] == asked["messages"][0] == {"role": "system", "content": "You are a robot."}
    assert (probe["max_tokens"], "response_format" in probe, "response_format" in asked) == (1, False, True)


def test_a_vision_model_is_found_to_see_the_images() -> None:
    with ScriptedOpenAIServer() as srv:  # the scripted server counts image tokens by default
        model = _model(srv)
        generate_in_turn(model, WITH_IMAGES)
    check = model.images_check()
    assert check is not None and check["images_seen"] is True
    assert check["prompt_tokens_with_images"] > check["prompt_tokens_without_images"]


def test_without_usage_it_is_unknown_and_no_probe_is_sent() -> None:
    with ScriptedOpenAIServer(served=ServedModel("no-usage", reports_usage=False)) as srv:
        model = _model(srv)
        generate_in_turn(model, WITH_IMAGES, WITH_IMAGES)
        count = srv.count
    check = model.images_check()
    assert check is not None and count == 2
    assert (check["images_seen"], check["probe_requests"]) == (None, 0)
    assert "2 replies to requests with images reported no usage.prompt_tokens" in check["reason"]


def test_check_images_false_sends_no_probe_and_says_so() -> None:
    with ScriptedOpenAIServer(served=text_only_model()) as srv:
        model = _model(srv, ("check_images", "false"))
        generate_in_turn(model, WITH_IMAGES)
        count = srv.count
    assert (count, model.images_check()) == (
        1,
        {"images_seen": None, "reason": "not checked (--model-opt check_images=false)", "probe_requests": 0},
    )


def test_a_failed_probe_is_recorded_and_the_answer_kept(caplog: pytest.LogCaptureFixture) -> None:
    with ScriptedOpenAIServer() as srv:
        srv.push(ok('{"answer": "left"}'), status(500))
        model = _model(srv)
        (gen,) = generate_in_turn(model, WITH_IMAGES)
    check = model.images_check()
    assert gen.text == '{"answer": "left"}' and check is not None
    assert (check["images_seen"], check["probe_requests"]) == (None, 1)
    assert check["reason"].startswith("unknown: the images probe failed (RetryableModelError: server_error: HTTP 500")
    assert any("the images probe failed" in r.getMessage() for r in caplog.records)


def test_one_probe_per_model_however_many_answers() -> None:
    with ScriptedOpenAIServer() as srv:
        generate_in_turn(_model(srv), *[WITH_IMAGES] * 3)
        count = srv.count
    assert count == 3 + 1


def test_requests_without_images_send_no_probe() -> None:
    with ScriptedOpenAIServer() as srv:
        model = _model(srv)
        generate_in_turn(model, Request(prompt=PROMPT))
        count = srv.count
    assert (count, model.images_check()) == (1, None)


def test_the_probe_takes_the_token_limit_name_the_server_wants() -> None:
    # SocialNav-SUB's settings send no token limit, so the run never learnt that this server
    # refuses max_tokens: the probe learns it itself (without changing what the run sends)
    socialnav = GenerationConfig(max_tokens=None, temperature=None)
    with ScriptedOpenAIServer(served=openai_reasoning_model()) as srv:
        model = _model(srv)
        generate_in_turn(model, Request(prompt=PROMPT, images=IMAGES, config=socialnav))
        bodies = srv.requests
    check = model.images_check()
    assert check is not None and (check["images_seen"], check["probe_requests"]) == (True, 2)
    assert bodies[-1]["max_completion_tokens"] == 1 and model.adaptations() == {}


def test_a_pool_reports_the_endpoint_that_saw_no_images() -> None:
    with ScriptedOpenAIServer() as a, ScriptedOpenAIServer(served=text_only_model()) as b:
        pool = MultiEndpointModel("m", [a.base_url, b.base_url], ModelOptions(timeout_s=5.0))
        generate_in_turn(pool, *[WITH_IMAGES] * 4)
    check = pool.images_check()
    assert check is not None and (check["images_seen"], check["probe_requests"]) == (False, 2)
