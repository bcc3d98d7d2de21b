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


@pytest.mark.parametrize("port", ["99999", "abc", "-1", "0", "65536"])
def test_a_url_whose_port_is_no_port_is_refused(port):
    with pytest.raises(UsageError, match=f"has port {port}, which is no port"):
        parse_spec(f"gpt-4o@http://localhost:{port}/v1")


@pytest.mark.parametrize("port", ["1", "8000", "65535"])
def test_a_url_with_a_port_in_range_is_accepted(port):
    assert parse_spec(f"m@http://localhost:{port}/v1") == ("m", f"http://localhost:{port}/v1")


def test_a_url_with_a_space_inside_is_refused_with_the_url_without_it():
    with pytest.raises(UsageError, match="holds a space; write the URL without it: http://localhost:8000/v1"):
        parse_spec("gpt-4o@http://local host:8000/v1")


def test_spaces_around_a_url_are_dropped():
    assert parse_spec("gpt-4o@http://localhost:8000/v1 ") == ("gpt-4o", "http://localhost:8000/v1")


def test_a_space_between_at_and_the_url_is_refused_not_read_as_a_model_name():
    with pytest.raises(UsageError, match="a space stands between '@' and the URL"):
        parse_spec("gpt-4o@ http://localhost:8000/v1")


def test_another_scheme_is_refused_not_sent_as_a_model_name():
    with pytest.raises(UsageError, match=r"ftp:// is not a scheme socialbench speaks"):
        parse_spec("gpt-4o@ftp://localhost/v1")


def _suggested_spec(text: str) -> str:
    """The model spec a refusal suggests (after its last 'e.g. ')."""
    return text.rsplit("e.g. ", 1)[1].split(" ")[0].rstrip(");,")


@pytest.mark.parametrize(
    "rest",
    ["gpt-4o@ftp://localhost/v1", "gpt-4o@ http://localhost:8000/v1"],
)
def test_the_spec_a_url_refusal_suggests_is_accepted(rest):
    with pytest.raises(UsageError) as info:
        parse_spec(rest)
    suggested = _suggested_spec(str(info.value))
    assert suggested.startswith("openai:")
    model, url = parse_spec(suggested.removeprefix("openai:"))
    assert model == "gpt-4o" and url is not None


@pytest.mark.parametrize("word", ["localhost:8000", "node1:8000/v1", "notaurl"])
def test_the_url_suggested_for_a_word_after_at_is_one_url(monkeypatch, word):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model, url = parse_spec(f"gpt-4o@{word}")
    with pytest.raises(UsageError) as info:
        OpenAICompatModel(model, url, ModelOptions())
    suggested = str(info.value).split("e.g. ", 1)[1].split(")", 1)[0]
    assert parse_spec(suggested.removeprefix("openai:"))[1].count(":") <= 2  # scheme and one port


def test_an_openai_base_url_variable_with_no_port_is_refused(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:77777/v1")
    with pytest.raises(UsageError, match="OPENAI_BASE_URL .* has port 77777"):
        OpenAICompatModel("gpt-4o", None, ModelOptions())
