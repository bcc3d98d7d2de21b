"""The eval generation flags: parsing, "do not send", and how they change a benchmark's settings."""

from __future__ import annotations

import pytest

from socialbench.benchmarks.generation import GenerationOverrides, parse_setting
from socialbench.errors import UsageError
from socialbench.types import GenerationConfig


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("temperature", "0.7", 0.7),
        ("temperature", "0", 0.0),
        ("max_tokens", "2048", 2048),
        ("top_p", "1", 1.0),
        ("reasoning_effort", "High", "high"),
        ("reasoning_effort", "none", "none"),
    ],
)
def test_values_are_parsed(name: str, text: str, value: object) -> None:
    assert parse_setting(name, text) == value


@pytest.mark.parametrize(
    ("name", "text"),
    [("temperature", "default"), ("temperature", "none"), ("max_tokens", "DEFAULT"), ("reasoning_effort", "default")],
)
def test_default_means_not_sent(name: str, text: str) -> None:
    assert parse_setting(name, text) is None


@pytest.mark.parametrize(
    ("name", "text", "flag"),
    [
        ("temperature", "-1", "--temperature"),
        ("temperature", "hot", "--temperature"),
        ("temperature", "nan", "--temperature"),
        ("max_tokens", "0", "--max-tokens"),
        ("max_tokens", "1.5", "--max-tokens"),
        ("top_p", "0", "--top-p"),
        ("top_p", "1.2", "--top-p"),
        ("reasoning_effort", "extreme", "--reasoning-effort"),
    ],
)
def test_bad_values_are_refused_naming_the_flag(name: str, text: str, flag: str) -> None:
    with pytest.raises(UsageError, match=f"^{flag} "):
        parse_setting(name, text)


def test_sweep_numbers_are_taken_as_numbers() -> None:
    assert (parse_setting("temperature", 1), parse_setting("max_tokens", 512)) == (1.0, 512)


def test_overrides_replace_only_the_given_settings() -> None:
    paper = GenerationConfig(max_tokens=1024, temperature=0.0, seed=3)
    changed = GenerationOverrides.from_values({"temperature": "1", "max_tokens": "default", "top_p": None}).apply(paper)
    assert changed == GenerationConfig(max_tokens=None, temperature=1.0, seed=3)


def test_no_flags_leave_the_papers_settings() -> None:
    paper = GenerationConfig(max_tokens=2048, temperature=0.0)
    assert GenerationOverrides.from_values({}).apply(paper) is paper


def test_tag_names_each_override() -> None:
    tag = GenerationOverrides.from_values({"temperature": "1", "max_tokens": "default"}).tag()
    assert tag == "temperature-1-max-tokens-default"
