"""Tests for the defensive file readers: every unusable file is a DataError naming it."""

from __future__ import annotations

import os

import pytest

from socialbench.errors import DataError
from socialbench.files.safe_read import (
    MAX_JSON_DEPTH,
    file_kind,
    read_json,
    read_regular_bytes,
)


def _error(path) -> str:
    with pytest.raises(DataError) as err:
        read_json(path)
    problem = err.value.problems[0]
    assert problem.file == str(path)
    return problem.message


def test_valid_json_loads(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{"a": [1, 2.5, "x"]}')
    assert read_json(path) == {"a": [1, 2.5, "x"]}


def test_a_fifo_is_refused_without_blocking(tmp_path):
    path = tmp_path / "a.json"
    os.mkfifo(path)
    assert "not a regular file" in _error(path)


def test_a_folder_is_refused(tmp_path):
    path = tmp_path / "a.json"
    path.mkdir()
    assert file_kind(path) == "other" and "not a regular file" in _error(path)


def test_invalid_utf8_is_refused(tmp_path):
    path = tmp_path / "a.json"
    path.write_bytes(b'{"a\xc3\x28": 1}')
    assert "UTF-8" in _error(path)


def test_deep_nesting_is_refused(tmp_path):
    path = tmp_path / "a.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert "nested" in _error(path)


def test_nesting_just_past_the_limit_is_refused(tmp_path):
    path = tmp_path / "a.json"
    path.write_text("[" * (MAX_JSON_DEPTH + 2) + "]" * (MAX_JSON_DEPTH + 2))
    assert "nested" in _error(path)


def test_a_scalar_just_past_the_limit_is_refused_with_its_path(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{"a": ' + "[" * MAX_JSON_DEPTH + "1" + "]" * MAX_JSON_DEPTH + "}")
    with pytest.raises(DataError) as err:
        read_json(path)
    problem = err.value.problems[0]
    assert "nested" in problem.message and problem.field == "a" + "[0]" * MAX_JSON_DEPTH


def test_an_escaped_surrogate_pair_is_accepted(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{"k": "\\ud83d\\ude00"}')
    assert read_json(path) == {"k": "\U0001f600"}


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_constants_are_refused(tmp_path, literal):
    path = tmp_path / "a.json"
    path.write_text(f'{{"p": [{literal}]}}')
    assert literal.lstrip("-") in _error(path)


@pytest.mark.parametrize("text", ['{"id": "a\\ud800b"}', '{"\\udcff": 1}', '["\\ud800"]'])
def test_lone_surrogates_are_refused(tmp_path, text):
    path = tmp_path / "a.json"
    path.write_text(text)
    assert "surrogate" in _error(path)


def test_syntax_error_names_the_line(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{\n"a": ,\n}')
    with pytest.raises(DataError) as err:
        read_json(path)
    assert err.value.problems[0].line == 2


def test_size_limit(tmp_path):
    path = tmp_path / "a.bin"
    path.write_bytes(b"x" * 100)
    with pytest.raises(DataError) as err:
        read_regular_bytes(path, limit=10)
    assert "bytes" in err.value.problems[0].message


def test_a_json_key_written_twice_is_refused_naming_the_key(tmp_path) -> None:
    from socialbench.errors import DataError
    from socialbench.files.safe_read import parse_json_bytes

    with pytest.raises(DataError, match=r"key 'c' is written twice"):
        parse_json_bytes(b'{"a": 1, "b": {"c": 1, "c": 2}}', "f.json")
