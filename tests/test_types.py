"""Generation settings in the request fingerprint (the cache key) and in run records."""

from __future__ import annotations

import hashlib

from socialbench.types import FALLBACK_MAX_TOKENS, GenerationConfig, Request, Usage


def _key(**config: object) -> str:
    return Request(prompt="p", config=GenerationConfig(**config)).fingerprint()  # type: ignore[arg-type]


def test_unset_new_settings_keep_the_key_of_older_runs() -> None:
    # the key before top_p / reasoning_effort existed: sha256 over the same fields
    h = hashlib.sha256()
    h.update(b"system\0" + b"")
    h.update(b"\0prompt\0" + b"p")
    h.update(b"\0cfg\0" + b"1024|0.0|True|None")
    assert _key() == h.hexdigest()


def test_each_setting_changes_the_key() -> None:
    keys = {
        _key(),
        _key(top_p=0.9),
        _key(reasoning_effort="low"),
        _key(temperature=None),
        _key(max_tokens=None),
    }
    assert len(keys) == 5


def test_settings_list_only_what_is_sent() -> None:
    config = GenerationConfig(max_tokens=None, temperature=1.0, reasoning_effort="high")
    assert config.settings() == {"temperature": 1.0, "reasoning_effort": "high", "json_mode": True}


def test_backends_that_need_a_limit_fall_back() -> None:
    assert (GenerationConfig(max_tokens=None).max_tokens_or(), GenerationConfig(max_tokens=7).max_tokens_or()) == (
        FALLBACK_MAX_TOKENS,
        7,
    )


def test_only_greedy_decoding_is_deterministic() -> None:
    assert [GenerationConfig(temperature=t).deterministic for t in (0.0, 1.0, None)] == [True, False, False]


def test_reasoning_tokens_are_recorded_only_when_there_are_some() -> None:
    assert Usage(3, 9).as_dict() == {"prompt_tokens": 3, "completion_tokens": 9}
    assert Usage(3, 9, 5).as_dict() == {"prompt_tokens": 3, "completion_tokens": 9, "reasoning_tokens": 5}
