"""JSON mode against servers that refuse or ignore ``response_format`` (issue 28 §4), with
the rejection bodies real servers send, and ``--model-opt json_mode=false``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

import pytest

from generate_in_turn import generate_in_turn
from socialbench.errors import UsageError
from socialbench.models.base import FatalModelError
from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions
from socialbench.testing.openai_server import Rejection, ScriptedOpenAIServer, ServedModel, ok, status
from socialbench.types import Generation, GenerationConfig, Request

PROMPT = 'Which way?\nRespond as {"answer": "<answer>"}'
#: TGI's answer to response_format {"type": "json_object"}: axum's plain-text 422.
TGI_422 = (
    "Failed to deserialize the JSON body into the target type: response_format: unknown variant "
    "`json_object`, expected `json` or `regex` at line 1 column 312"
)
#: A FastAPI server validating the body with pydantic (transformers serve's shape).
FASTAPI_422 = {
    "detail": [
        {
            "type": "literal_error",
            "loc": ["body", "response_format", "type"],
            "msg": "Input should be 'text' or 'json_schema'",
            "input": "json_object",
        }
    ]
}


def _refusing(code: int, body: Any) -> ServedModel:
    def check(request: Mapping[str, Any]) -> Rejection | None:
        return Rejection(code, body) if "response_format" in request else None

    return ServedModel("refuses-json-mode", check)


def _run(model: OpenAICompatModel, n: int = 1) -> list[Generation]:
    return generate_in_turn(model, *(Request(prompt=PROMPT, config=GenerationConfig()) for _ in range(n)))


def _model(srv: ScriptedOpenAIServer, *opts: tuple[str, str]) -> OpenAICompatModel:
    return OpenAICompatModel("m", srv.base_url, ModelOptions(timeout_s=5.0, extra=tuple(opts)))


@pytest.mark.parametrize(
    ("code", "body"),
    [
        (422, TGI_422),
        (422, FASTAPI_422),
        (400, {"detail": "guided decoding is not available for this model"}),
        (400, {"object": "error", "message": "json_schema is not supported by this backend", "code": 400}),
    ],
    ids=["tgi-plain-text-422", "fastapi-detail-list-422", "detail-string-guided", "message-json-schema"],
)
def test_a_refused_json_mode_falls_back_and_the_answer_arrives(code: int, body: Any) -> None:
    with ScriptedOpenAIServer(served=_refusing(code, body)) as srv:
        model = _model(srv)
        (gen,) = _run(model)
        sent = srv.requests
    assert json.loads(gen.text) == {"answer": "ok"}  # the scripted default reply
    assert ["response_format" in b for b in sent] == [True, False]


def test_the_fallback_is_recorded_with_the_servers_words() -> None:
    with ScriptedOpenAIServer(served=_refusing(422, TGI_422)) as srv:
        model = _model(srv)
        _run(model, n=3)
    assert model.adaptations()["response_format"].startswith("not sent (JSON mode off); HTTP 422: Failed to deser")


def test_json_mode_sent_counts_requests_with_and_without_response_format() -> None:
    with ScriptedOpenAIServer(served=_refusing(422, TGI_422)) as srv:
        model = _model(srv)
        _run(model, n=3)
    assert model.json_mode_sent() == {"with_response_format": 1, "without_response_format": 3, "replies_not_json": 0}


def test_a_server_that_ignores_json_mode_is_counted() -> None:
    with ScriptedOpenAIServer() as srv:
        srv.push(ok("left, I think"), ok(json.dumps({"answer": "right"})))
        model = _model(srv)
        _run(model, n=2)
    assert model.json_mode_sent() == {"with_response_format": 2, "without_response_format": 0, "replies_not_json": 1}


def test_a_400_that_does_not_name_json_mode_does_not_turn_it_off() -> None:
    with ScriptedOpenAIServer() as srv:
        srv.push(status(400, {"detail": "messages: too many images"}))
        model = _model(srv)
        with pytest.raises(FatalModelError, match="too many images"):
            _run(model)
    assert model.adaptations() == {}


def test_model_opt_json_mode_false_never_sends_response_format() -> None:
    with ScriptedOpenAIServer() as srv:
        model = _model(srv, ("json_mode", "false"))
        _run(model, n=2)
        sent = srv.requests
    assert ["response_format" in b for b in sent] == [False, False]
    assert model.adaptations() == {"response_format": "not sent (JSON mode off by --model-opt json_mode=false)"}


def test_model_opt_json_mode_false_changes_the_cache_identity() -> None:
    plain = OpenAICompatModel("m", "http://127.0.0.1:9/v1")
    off = OpenAICompatModel("m", "http://127.0.0.1:9/v1", ModelOptions(extra=(("json_mode", "false"),)))
    assert (plain.identity().endswith("|no-json-mode"), off.identity().endswith("|no-json-mode")) == (False, True)


def test_model_opt_json_mode_must_be_a_boolean() -> None:
    with pytest.raises(UsageError, match="json_mode"):
        OpenAICompatModel("m", "http://127.0.0.1:9/v1", ModelOptions(extra=(("json_mode", "sometimes"),)))


def test_a_pool_adds_up_what_its_endpoints_sent() -> None:
    from socialbench.models.endpoints import MultiEndpointModel

    with ScriptedOpenAIServer(served=_refusing(422, TGI_422)) as a, ScriptedOpenAIServer() as b:
        pool = MultiEndpointModel("m", [a.base_url, b.base_url], ModelOptions(timeout_s=5.0))

        async def go() -> None:
            try:
                for i in range(4):
                    await pool.generate(Request(prompt=f"{PROMPT} {i}", config=GenerationConfig()))
            finally:
                await pool.aclose()

        asyncio.run(go())
        sent = a.requests + b.requests
    counts = pool.json_mode_sent()
    assert counts["with_response_format"] + counts["without_response_format"] == len(sent)
    assert counts["with_response_format"] == sum("response_format" in body for body in sent)
