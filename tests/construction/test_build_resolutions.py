"""Expert resolutions: checked decisions, and every bad line named with file, line and fix."""

import json

import pytest

from socialbench.construction.resolutions import read_resolutions
from socialbench.errors import DataError

KNOWN = {"behaviors": [("s1", 1), ("s1", 4)], "questions": ["g1"]}


def _resolution_file(tmp_path, *lines):
    path = tmp_path / "resolutions.jsonl"
    path.write_text("".join((json.dumps(x) if x is not None else "") + "\n" for x in lines))
    return path


def test_read_resolutions_returns_checked_decisions(tmp_path):
    path = _resolution_file(
        tmp_path, {"item_id": "s1", "k": 4, "decision": "improper"}, {"item_id": "g1", "answer": ["C", "A"]}
    )
    assert read_resolutions(path, **KNOWN) == ({("s1", 4): "improper"}, {"g1": ["A", "C"]})


@pytest.mark.parametrize(
    "line, expected",
    [
        ({"item_id": "g1", "decision": "improper"}, 'needs "k"'),  # a judgment decision without k
        ({"item_id": "g1", "answer": "a"}, "'a'"),
        ({"item_id": "g1", "answer": []}, "non-empty"),
        ({"item_id": "g1", "answer": ["A", "E"]}, "'E'"),
        ({"item_id": "g1", "answer": ["a"]}, "'a'"),
        ({"item_id": "s1", "k": 1, "decision": "invalid"}, "proper, improper, discard"),
        ({"item_id": "s1", "k": "one", "decision": "proper"}, "not an integer"),
        ({"item_id": "s1", "k": 9, "decision": "proper"}, "s1#b9 is not among"),
        ({"item_id": "g9", "answer": ["A"]}, "'g9' is not among"),
        ({"k": 1, "decision": "proper"}, "no item_id"),
    ],
    ids=[
        "judgment-without-k",
        "lower-case-string",
        "empty",
        "unknown-letter",
        "lower-case-letter",
        "bad-judgment-label",
        "bad-k",
        "unknown-behavior",
        "unknown-question",
        "no-item",
    ],
)
def test_read_resolutions_rejects_a_bad_line_naming_file_and_line(tmp_path, line, expected):
    path = _resolution_file(tmp_path, {"item_id": "s1", "k": 1, "decision": "proper"}, None, line)
    with pytest.raises(DataError) as e:
        read_resolutions(path, **KNOWN)
    (problem,) = e.value.problems
    assert problem.file == str(path) and problem.line == 3 and problem.fix
    assert expected in problem.message


def test_read_resolutions_rejects_conflicting_repeats(tmp_path):
    path = _resolution_file(tmp_path, {"item_id": "g1", "answer": ["A"]}, {"item_id": "g1", "answer": "discard"})
    with pytest.raises(DataError) as e:
        read_resolutions(path, **KNOWN)
    assert "already resolved" in str(e.value) and ":2" in str(e.value)
