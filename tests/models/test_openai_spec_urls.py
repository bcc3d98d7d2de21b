"""A model spec whose URL names no host is refused before the first request; a word after '@'
that is not a URL is named as such in the API-key message."""

import pytest

from socialbench.errors import UsageError
from socialbench.models.openai_compat import OpenAICompatModel, parse_spec
from socialbench.models.registry import ModelOptions


@pytest.mark.parametrize("rest", ["gpt-4o@http://", "gpt-4o@https://", "m@http://a:8000/v1,http://"])
def test_a_url_without_a_host_is_refused(rest):
    with pytest.raises(UsageError, match="names no host") as info:
        parse_spec(rest)
    assert "openai:" in str(info.value) and "http://localhost:8000/v1" in str(info.value)


def test_a_url_with_a_host_is_accepted():
    assert parse_spec("gpt-4o@http://127.0.0.1:8000/v1/") == ("gpt-4o", "http://127.0.0.1:8000/v1")


def test_a_word_after_at_is_said_not_to_be_a_url(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model, url = parse_spec("gpt-4o@notaurl")
    with pytest.raises(UsageError) as info:
        OpenAICompatModel(model, url, ModelOptions())
    text = str(info.value)
    assert "'notaurl' after '@' is not a URL" in text
    assert "openai:gpt-4o@http://notaurl:8000/v1" in text and "@notaurl@" not in text


def test_a_url_that_cannot_be_parsed_is_refused_in_one_line():
    with pytest.raises(UsageError, match="is not a URL"):
        parse_spec("m@http://[::1:8000/v1")
