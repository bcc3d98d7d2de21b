"""A reply that came back but cannot be used keeps what it cost and why it ended, in every
backend (issue 42): Anthropic's empty text at stop_reason max_tokens, and an hf:/vllm: reply
whose reasoning never ended."""

import json

import pytest

from socialbench.models.anthropic_reply import parse_message
from socialbench.models.base import ModelError
from socialbench.models.reasoning import reply_generation


def test_an_anthropic_reply_that_thought_its_budget_away_keeps_its_usage():
    body = {
        "content": [{"type": "thinking", "thinking": "hmm " * 50}],
        "stop_reason": "max_tokens",
        "usage": {"input_tokens": 120, "output_tokens": 1024},
    }
    with pytest.raises(ModelError) as info:
        parse_message(json.dumps(body))
    err = info.value
    assert err.kind == "empty_response" and err.finish_reason == "max_tokens"
    assert err.usage is not None and (err.usage.prompt_tokens, err.usage.completion_tokens) == (120, 1024)


def test_a_local_reply_whose_reasoning_never_ended_keeps_its_tokens():
    err = reply_generation("<think>still thinking", list(range(64)), 30, None, "length")
    assert isinstance(err, ModelError) and err.kind == "empty_response" and err.finish_reason == "length"
    assert err.usage is not None and (err.usage.prompt_tokens, err.usage.completion_tokens) == (30, 64)
