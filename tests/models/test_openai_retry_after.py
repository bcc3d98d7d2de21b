"""openai: Retry-After in every spelling proxies use, LiteLLM's ``llm_provider-`` copies
and OpenAI's ``x-ratelimit-reset-*`` included (issue 42)."""

from __future__ import annotations

import pytest

from generate_in_turn import generate_in_turn
from socialbench.models.base import RetryableModelError
from socialbench.models.openai_compat import parse_retry_after
from socialbench.models.openai_factory import create_openai_model
from socialbench.models.registry import ModelOptions
from socialbench.testing.litellm_fake import FakeLiteLLM
from socialbench.testing.openai_server import ScriptedOpenAIServer, failing_model, status
from socialbench.types import Request


@pytest.fixture(autouse=True)
def _no_real_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"llm_provider-retry-after": "7"}, 7.0),
        ({"llm_provider-retry-after-ms": "1500"}, 1.5),
        ({"Retry-After": "3", "llm_provider-retry-after": "9"}, 3.0),
        ({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "6m0s"}, 360.0),
        ({"llm_provider-x-ratelimit-remaining-tokens": "0", "llm_provider-x-ratelimit-reset-tokens": "250ms"}, 0.25),
    ],
)
def test_each_spelling_of_retry_after_is_read(headers, seconds):
    assert parse_retry_after(headers) == pytest.approx(seconds)


def test_the_reset_of_a_limit_not_exhausted_is_no_wait():
    headers = {"x-ratelimit-remaining-requests": "12", "x-ratelimit-reset-requests": "6m0s"}
    assert parse_retry_after(headers) is None


def test_a_429_behind_litellm_keeps_the_upstreams_retry_after():
    upstream_429 = failing_model(status(429, headers={"Retry-After": "7"}))
    with ScriptedOpenAIServer(served=upstream_429) as upstream, FakeLiteLLM(upstream.base_url) as proxy:
        model = create_openai_model(f"m@{proxy.base_url}", ModelOptions(timeout_s=30.0))
        with pytest.raises(RetryableModelError) as err:
            generate_in_turn(model, Request(prompt="Q?"))
    assert err.value.kind == "rate_limit" and err.value.retry_after == 7.0
