"""Hostile replies (issue 29): answer parsing is linear in the reply's length.

Scaling is checked with a deterministic work count (Python lines run plus characters handed
to the regular-expression engine and the JSON decoder; socialbench.testing.work_count), never
with a clock: a reply built by repeating a hostile piece four times as often must cost at
most six times the work (linear: about four; re-scanning the text before every match, as the
negation check did, about sixteen)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from socialbench.prompting import parsing
from socialbench.prompting.parsing import NEGATED_PATTERN, negated, parse_answer
from socialbench.testing.work_count import work

PROPERTY = settings(max_examples=40, deadline=None, database=None)

OPTION_SETS = (
    ("ahead of", "to the left of", "to the right of", "behind"),
    ("to the left", "to the left of", "ahead"),
    ("proper", "improper"),
    ("yes", "no"),
)
#: pieces of hostile replies: negations, options, separators, answer fields, JSON and fences
HOSTILE = [
    "not ",
    "never ",
    "no longer ",
    "don't ",
    "behind",
    "to the left",
    "ahead of",
    "proper",
    ", ",
    " ",
    "   ",
    "\n",
    "answer",
    "answer: ",
    ":",
    "{",
    '"answer": "',
    '"',
    "```json",
    "```",
    "[",
    "1 ",
    "A",
    "and ",
    "-",
]
units = st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=6).map("".join)


def _repeat(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit))


@PROPERTY
@given(units, st.sampled_from(OPTION_SETS), st.booleans())
def test_parse_answer_work_is_linear_in_the_reply_length(unit: str, options: tuple[str, ...], multi: bool) -> None:
    text = _repeat(unit, 6000)
    small = work(parse_answer, _repeat(unit, 1500), list(options), multi, modules=[parsing])
    large = work(parse_answer, text, list(options), multi, modules=[parsing])
    assert large.total <= 6 * small.total, (unit, small, large)
    # the whole text, its fenced blocks, and at most MAX_OBJECT_STARTS starts up to the end
    assert large.json_chars <= (parsing.MAX_OBJECT_STARTS + 2) * len(text), (unit, large)


def test_a_long_reply_repeating_a_negated_option_is_invalid_at_linear_cost() -> None:
    options = ["ahead", "behind", "to the left", "to the right"]
    small = work(parse_answer, _repeat("not behind, ", 3000), options, modules=[parsing])
    large = work(parse_answer, _repeat("not behind, ", 12000), options, modules=[parsing])
    assert parse_answer(_repeat("not behind, ", 48 * 1024), options).value is None
    assert large.total <= 6 * small.total, (small, large)


def test_a_negated_reply_with_one_plain_mention_names_that_option() -> None:
    text = _repeat("not behind, ", 4000) + "so ahead."
    assert parse_answer(text, ["ahead", "behind"]).value == "ahead"


NEGATION_PIECES = ["not", "never", "no", "longer", "n't", "don't", "t", "'", " ", "  ", "\n", "\u00a0", "x", "_", "é"]
NEGATION_PIECES += ["cannot", "-", ",", "behind", "1"]


@settings(max_examples=500, deadline=None, database=None)
@given(st.lists(st.sampled_from(NEGATION_PIECES), max_size=10).map("".join))
def test_negated_is_the_negation_pattern_searched_at_the_end(prefix: str) -> None:
    assert negated(prefix, len(prefix)) == (re.search(NEGATED_PATTERN, prefix) is not None)


@settings(max_examples=200, deadline=None, database=None)
@given(st.text(max_size=30), st.text(max_size=10))
def test_negated_reads_only_the_text_before_the_end(prefix: str, rest: str) -> None:
    assert negated(prefix + rest, len(prefix)) == (re.search(NEGATED_PATTERN, prefix) is not None)
