"""Property tests of RobotEQ reply parsing over arbitrary text: ``parse_judgments`` and
``parse_grounding`` never raise, give a label / region set or invalid (never a guess), are
deterministic, and a formatted answer round-trips."""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from socialbench.benchmarks.roboteq.grounding_replies import parse_grounding
from socialbench.benchmarks.roboteq.judgment_replies import parse_judgments

PROPERTY = settings(max_examples=200, deadline=None, database=None)
#: replies nested too deeply to decode, and brace-heavy ones
DEEP = ('{"answer":' * 3000, "[" * 100_000, '{"a": 1, ' * 5000)

pieces = st.sampled_from(
    [
        "{",
        "}",
        "[",
        "]",
        '"answer"',
        '"1"',
        '"2"',
        ":",
        "Answer:",
        "answer is",
        ",",
        "\n",
        " ",
        '"',
        "proper",
        "improper",
        "not ",
        "A",
        "C",
        "E",
        "[1]",
        "[2]",
        "9" * 5000,
        "```json",
        "```",
    ]
)
replies = st.text() | st.lists(pieces, max_size=40).map("".join)
ks_st = st.lists(st.integers(0, 12), min_size=1, max_size=5, unique=True)


@PROPERTY
@given(replies, ks_st)
@example(DEEP[0], [1]).via("deep nesting")
@example(DEEP[1], [1]).via("deep nesting")
@example(DEEP[2], [1]).via("many braces")
def test_parse_judgments_gives_a_label_or_invalid_per_behavior(text: str, ks: list[int]) -> None:
    r = parse_judgments(text, ks)
    assert set(r.values) == set(ks)
    assert all(v in (None, "proper", "improper") for v in r.values.values())
    assert r.method in (None, "json", "lenient")
    assert r.method is not None or all(v is None for v in r.values.values())
    assert r == parse_judgments(text, ks)


@PROPERTY
@given(replies)
@example(DEEP[0]).via("deep nesting")
@example(DEEP[1]).via("deep nesting")
@example(DEEP[2]).via("many braces")
def test_parse_grounding_gives_regions_or_invalid(text: str) -> None:
    letters, method = parse_grounding(text)
    if letters is None:
        assert method is None
    else:
        assert (
            method in ("json", "strict") and letters and letters == sorted(set(letters)) and set(letters) <= set("ABCD")
        )
    assert parse_grounding(text) == (letters, method)


@PROPERTY
@given(ks_st, st.data())
def test_formatted_judgments_round_trip(ks: list[int], data: st.DataObject) -> None:
    labels = {k: data.draw(st.sampled_from(["proper", "improper"])) for k in ks}
    r = parse_judgments(json.dumps({"answer": {str(k): v for k, v in labels.items()}}), ks)
    assert (r.values, r.method) == (labels, "json")


@PROPERTY
@given(st.lists(st.sampled_from("ABCD"), min_size=1, unique=True))
def test_formatted_grounding_answer_round_trips(chosen: list[str]) -> None:
    assert parse_grounding(json.dumps({"answer": chosen})) == (sorted(chosen), "json")
