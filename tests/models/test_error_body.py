"""Error bodies in the shapes real servers send, read by one function (issue 28 §4)."""

from __future__ import annotations

import asyncio

import pytest

from socialbench.models.base import FatalModelError
from socialbench.models.error_body import ErrorInfo, error_info
from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions
from socialbench.testing.openai_server import ScriptedOpenAIServer, status
from socialbench.types import GenerationConfig, Request


def test_openai_error_object_gives_message_param_and_code() -> None:
    body = {"error": {"message": "bad value", "type": "invalid_request_error", "param": "top_p", "code": "x_y"}}
    assert error_info(body, "fb") == ErrorInfo("bad value", "top_p", "x_y")


def test_fastapi_detail_string_is_the_message() -> None:
    # transformers serve (FastAPI) answers an HTTPException as {"detail": "..."}
    assert error_info({"detail": "Unsupported model: foo"}, "fb").message == "Unsupported model: foo"


def test_pydantic_detail_list_names_each_field_and_the_first_as_param() -> None:
    body = {
        "detail": [
            {
                "type": "literal_error",
                "loc": ["body", "response_format", "type"],
                "msg": "Input should be 'text' or 'json_schema'",
                "input": "json_object",
            },
            {"type": "missing", "loc": ["body", "model"], "msg": "Field required", "input": {}},
        ]
    }
    info = error_info(body, "fb")
    assert (info.message, info.param) == (
        "response_format.type: Input should be 'text' or 'json_schema'; model: Field required",
        "response_format",
    )


def test_top_level_message_is_read() -> None:
    assert error_info({"object": "error", "message": "context too long", "code": 400}, "fb").message == (
        "context too long"
    )


def test_error_as_a_string_is_read() -> None:
    assert error_info({"error": "model 'x' not found"}, "fb").message == "model 'x' not found"


def test_gemini_list_body_is_read() -> None:
    body = [{"error": {"code": 400, "message": "Invalid JSON payload", "status": "INVALID_ARGUMENT"}}]
    assert error_info(body, "fb").message == "Invalid JSON payload"


def test_plain_text_is_the_message_on_one_line() -> None:
    text = "Failed to deserialize the JSON body into the target type: response_format: unknown variant\n`json_object`"
    assert error_info(text, "fb").message == text.replace("\n", " ")


def test_html_page_gives_its_text_without_tags() -> None:
    page = (
        "<html><head><title>502 Bad Gateway</title><style>b{}</style></head>"
        "<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"
    )
    assert error_info(page, "fb").message == "502 Bad Gateway: 502 Bad Gateway nginx"


def test_unknown_json_shape_gives_its_own_text() -> None:
    assert error_info({"status": "failed", "reason": 7}, "fb").message == '{"status": "failed", "reason": 7}'


def test_empty_body_gives_the_fallback() -> None:
    assert error_info("", "fb").message == "fb"


def test_long_body_is_shortened() -> None:
    assert len(error_info("x" * 10_000, "fb").message) == 500


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"detail": "Model is not a vision model"}, "HTTP 400: Model is not a vision model"),
        ("upstream said no", "HTTP 400: upstream said no"),
    ],
)
def test_backend_records_the_servers_words_not_the_status_twice(body: object, expected: str) -> None:
    with ScriptedOpenAIServer() as srv:
        srv.push(status(400, body))
        model = OpenAICompatModel("m", srv.base_url, ModelOptions(timeout_s=5.0))

        async def go() -> None:
            try:
                await model.generate(Request(prompt="hi", config=GenerationConfig(json_mode=False)))
            finally:
                await model.aclose()

        with pytest.raises(FatalModelError) as caught:
            asyncio.run(go())
    assert (caught.value.kind, caught.value.message) == ("bad_request", expected)
