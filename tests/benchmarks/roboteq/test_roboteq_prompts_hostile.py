"""Hostile replies to RobotEQ prompts (issue 29): parsing is linear in the reply's length.

The work count (socialbench.testing.work_count: Python lines plus characters handed to the
regular-expression engine and the JSON decoder) is compared on a reply and on one four times
as long; no clock is read. A numbered-line pattern that backtracked quadratically inside one
line is checked by its definition (same matches as the pattern it replaced) and by a
192 KB line under an alarm far above any machine's time for it (a hang detector: a
quadratic pattern takes minutes, the linear one milliseconds)."""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis import given, settings
from hypothesis import strategies as st

from socialbench.benchmarks.roboteq import grounding_replies, judgment_replies, reply_json
from socialbench.benchmarks.roboteq.grounding_replies import parse_grounding
from socialbench.benchmarks.roboteq.judgment_replies import parse_judgments
from socialbench.testing.work_count import work

#: The modules whose Python lines count as parsing work (the replies' readers).
READERS = [judgment_replies, grounding_replies, reply_json]
#: The numbered-line pattern as first written: the definition the linear one must keep.
LINE_NUMBER_DEFINITION = re.compile(r"^\W*(?:behaviou?r\s*)?\[?\s*(\d+)\s*\]?(.*)$", re.IGNORECASE)

HOSTILE = [
    "- ",
    " ",
    "   ",
    "[",
    "]",
    "1 ",
    "behaviour ",
    "proper",
    "improper",
    "not ",
    "\n",
    "answer is ",
    "A, ",
    "C",
    "{",
    '"answer": ',
    '"',
    ":",
    "```json",
]
units = st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=6).map("".join)
PROPERTY = settings(max_examples=40, deadline=None, database=None)


def _repeat(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit))


def _json_bound(text: str) -> int:
    """The most JSON decoding a parse may do: the objects found (disjoint) and at most
    MAX_FAILED_STARTS failed starts, each up to the whole text."""
    return (reply_json.MAX_FAILED_STARTS + 1) * len(text)


@PROPERTY
@given(units)
def test_parse_judgments_work_is_linear_in_the_reply_length(unit: str) -> None:
    text = _repeat(unit, 6000)
    small = work(parse_judgments, _repeat(unit, 1500), [1, 2, 3], modules=READERS)
    large = work(parse_judgments, text, [1, 2, 3], modules=READERS)
    assert large.total <= 6 * small.total, (unit, small, large)
    assert large.json_chars <= _json_bound(text), (unit, large)


@PROPERTY
@given(units)
def test_parse_grounding_work_is_linear_in_the_reply_length(unit: str) -> None:
    text = _repeat(unit, 6000)
    small = work(parse_grounding, _repeat(unit, 1500), modules=READERS)
    large = work(parse_grounding, text, modules=READERS)
    assert large.total <= 6 * small.total, (unit, small, large)
    assert large.json_chars <= _json_bound(text), (unit, large)


@settings(max_examples=500, deadline=None, database=None)
@given(
    st.lists(st.sampled_from(["behaviour", "Behavior", "[", "]", " ", "\t", "-", "*", "1", "23", "x", ":"]), max_size=9)
)
def test_numbered_line_pattern_matches_as_its_definition(pieces: list[str]) -> None:
    line = "".join(pieces).strip()
    want, got = LINE_NUMBER_DEFINITION.match(line), judgment_replies._LINE_NUMBER.match(line)
    assert (want and want.groups()) == (got and got.groups())


class _Hang(Exception):
    pass


@contextmanager
def _alarm(seconds: int) -> Iterator[None]:
    def fire(signum: int, frame: object) -> None:
        raise _Hang(f"still parsing after {seconds} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_a_numbered_line_of_192_kb_of_spaces_does_not_hang_parse_judgments() -> None:
    line = "- " + " " * (192 * 1024) + "x proper"
    with _alarm(120):
        parsed = parse_judgments(line, [1])
    assert parsed.values == {1: None}
