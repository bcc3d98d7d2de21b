"""A streamed chat completion put back together (models/chat_stream.py)."""

import json

import pytest

from socialbench.models.base import RetryableModelError
from socialbench.models.chat_stream import assemble_stream
from socialbench.models.openai_compat import parse_completion


def _event(delta: dict, finish_reason: str | None = None) -> bytes:
    return json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}).encode()


def test_pieces_join_and_the_last_chunk_brings_finish_reason_and_usage():
    usage = {"prompt_tokens": 10, "completion_tokens": 8, "total_tokens": 18}
    events = [
        _event({"role": "assistant", "content": '{"answer": '}),
        _event({"content": '"left"}'}),
        _event({}, "stop"),
        json.dumps({"choices": [], "usage": usage}).encode(),
    ]
    gen = parse_completion(json.dumps(assemble_stream(events)))
    assert (gen.text, gen.usage.prompt_tokens, gen.usage.completion_tokens) == ('{"answer": "left"}', 10, 8)


def test_reasoning_streamed_apart_stays_out_of_the_answer():
    events = [_event({"reasoning_content": "think "}), _event({"reasoning_content": "more"}), _event({"content": "ok"})]
    gen = parse_completion(json.dumps(assemble_stream(events)))
    assert (gen.text, gen.reasoning) == ("ok", "think more")


def test_an_error_event_mid_stream_is_a_server_error():
    events = [_event({"content": "le"}), json.dumps({"error": {"message": "CUDA out of memory"}}).encode()]
    with pytest.raises(RetryableModelError) as info:
        assemble_stream(events)
    assert info.value.kind == "server_error" and "CUDA out of memory" in info.value.message


def test_an_event_that_is_not_json_is_a_malformed_response():
    with pytest.raises(RetryableModelError) as info:
        assemble_stream([b"<html>gateway"])
    assert info.value.kind == "malformed_response"


def test_a_stream_without_any_choice_is_a_malformed_response():
    with pytest.raises(RetryableModelError) as info:
        assemble_stream([json.dumps({"choices": [], "usage": {"prompt_tokens": 1}}).encode()])
    assert info.value.kind == "malformed_response"


def test_the_finish_reason_of_a_cut_off_stream_is_kept():
    completion = assemble_stream([_event({"content": "left right"}), _event({}, "length")])
    assert completion["choices"][0]["finish_reason"] == "length"
