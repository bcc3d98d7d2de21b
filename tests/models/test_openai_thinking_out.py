"""openai: a reasoning model that spends the whole token limit thinking fails as
``empty_response`` that keeps its usage and finish reason and names the fix (issue 42)."""

from __future__ import annotations

import pytest

from generate_in_turn import generate_in_turn
from socialbench.models.base import FatalModelError
from socialbench.models.openai_factory import create_openai_model
from socialbench.models.registry import ModelOptions
from socialbench.testing.openai_server import ScriptedOpenAIServer, failing_model, thinking_out
from socialbench.types import GenerationConfig, Request


@pytest.fixture(autouse=True)
def _no_real_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture(params=["true", "false"], ids=["streamed", "whole"])
def thought_out(request) -> FatalModelError:
    with ScriptedOpenAIServer(served=failing_model(thinking_out())) as srv:
        opts = ModelOptions(timeout_s=30.0, extra=(("stream", request.param),))
        model = create_openai_model(f"m@{srv.base_url}", opts)
        with pytest.raises(FatalModelError) as err:
            generate_in_turn(model, Request(prompt="Q?", config=GenerationConfig(max_tokens=256)))
    return err.value


def test_the_failure_keeps_the_tokens_spent(thought_out):
    assert thought_out.kind == "empty_response"
    assert thought_out.usage is not None and thought_out.usage.completion_tokens == 256
    assert thought_out.usage.reasoning_tokens == 256


def test_the_failure_keeps_the_finish_reason(thought_out):
    assert thought_out.finish_reason == "length"


def test_the_failure_advises_a_larger_token_limit(thought_out):
    assert "raise --max-tokens" in thought_out.message and "256 of them reasoning" in thought_out.message
