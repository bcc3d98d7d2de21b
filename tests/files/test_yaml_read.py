"""A YAML key written twice is refused (PyYAML keeps the last value without a word)."""

from __future__ import annotations

import pytest

from socialbench.files.yaml_read import DuplicateKeyError, load_yaml, yaml_error_text


def test_a_key_written_twice_is_refused_naming_both_lines() -> None:
    with pytest.raises(DuplicateKeyError) as info:
        load_yaml("a: 1\nb: 2\na: 3\n")
    assert (info.value.key, info.value.first_line, info.value.second_line) == ("a", 1, 3)


def test_a_key_written_twice_in_a_nested_mapping_is_refused() -> None:
    with pytest.raises(DuplicateKeyError):
        load_yaml("axes:\n  method: [cot]\n  method: [independent]\n")


def test_a_merge_key_may_be_overridden() -> None:
    assert load_yaml("base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  x: 3\n")["c"] == {"x": 3, "y": 2}


def test_the_error_text_names_the_line_of_a_syntax_error() -> None:
    with pytest.raises(Exception) as info:
        load_yaml("a: [1,\n")
    assert yaml_error_text(info.value).startswith("line ")
