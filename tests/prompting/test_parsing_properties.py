"""Property tests of answer extraction over arbitrary text: ``parse_answer`` never raises,
returns a valid option (with its rung) or an invalid result (no rung), is deterministic,
and a formatted answer round-trips."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from socialbench.prompting.parsing import ParseResult, find_json_object, normalise, parse_answer

PROPERTY = settings(max_examples=200, deadline=None, database=None)

OPTION_SETS = (
    ("yes", "no"),
    ("ahead of", "to the left of", "to the right of", "behind"),
    ("moving ahead", "turning left", "turning right"),
    ("proper", "improper"),
    ("A", "B", "C", "D"),
)
#: option lists whose options stay distinct after normalising (as real option sets do)
arbitrary_options = st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=5).filter(
    lambda opts: all(normalise(o) for o in opts) and len({normalise(o) for o in opts}) == len(opts)
)
options_st = st.sampled_from(OPTION_SETS).map(list) | arbitrary_options
#: replies: free text, text built from JSON-ish and answer-ish pieces, and nested brackets
pieces = st.sampled_from(
    [
        "{",
        "}",
        "[",
        "]",
        '"answer"',
        ":",
        "answer:",
        ",",
        "```json",
        "```",
        "not ",
        "yes",
        "no",
        "A",
        "C",
        "behind",
        "\n",
        " ",
        '"',
        "cannot tell",
        "\ud800",
        "null",
        "1e999",
    ]
)
replies = st.text() | st.lists(pieces, max_size=40).map("".join) | st.integers(1, 1500).map(lambda n: "[" * n + "{" * n)


def _valid(result: ParseResult, options: list[str], multi: bool) -> bool:
    if result.value is None:
        return result.method is None
    if result.method not in ("json", "strict", "lenient"):
        return False
    if multi:
        v = result.value
        return isinstance(v, list) and bool(v) and v == [o for o in options if o in v] and len(set(v)) == len(v)
    return result.value in options


@PROPERTY
@given(replies, options_st, st.booleans())
def test_parse_never_raises_and_gives_an_option_or_invalid(text: str, options: list[str], multi: bool) -> None:
    assert _valid(parse_answer(text, options, multi), options, multi)


@PROPERTY
@given(replies, options_st, st.booleans())
def test_parse_is_deterministic(text: str, options: list[str], multi: bool) -> None:
    assert parse_answer(text, options, multi) == parse_answer(text, options, multi)


@PROPERTY
@given(replies)
def test_find_json_object_returns_an_object_or_none(text: str) -> None:
    obj = find_json_object(text)
    assert obj is None or isinstance(obj, dict)


@PROPERTY
@given(options_st, st.data(), st.sampled_from(["", "Reasoning first.\n", "```json\n"]))
def test_json_answer_round_trips(options: list[str], data: st.DataObject, before: str) -> None:
    choice = data.draw(st.sampled_from(options))
    reply = before + json.dumps({"answer": choice}) + ("\n```" if before.startswith("```") else "")
    assert parse_answer(reply, options) == ParseResult(choice, "json")


@PROPERTY
@given(options_st, st.data())
def test_json_multi_answer_round_trips_in_option_order(options: list[str], data: st.DataObject) -> None:
    chosen = data.draw(st.lists(st.sampled_from(options), min_size=1, unique=True))
    result = parse_answer(json.dumps({"answer": chosen}), options, multi=True)
    assert result == ParseResult([o for o in options if o in chosen], "json")


@PROPERTY
@given(st.sampled_from(OPTION_SETS), st.data())
def test_answer_field_round_trips_through_the_strict_rung(options: tuple[str, ...], data: st.DataObject) -> None:
    choice = data.draw(st.sampled_from(options))
    assert parse_answer(f"answer: {choice}", list(options)) == ParseResult(choice, "strict")
