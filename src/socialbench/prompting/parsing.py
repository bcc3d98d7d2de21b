"""Answer extraction ladder: JSON, then strict pattern, then lenient pattern.

Every parse records the rung that produced it (``parse_method``); text no rung maps to a
valid option is *invalid* (``value is None``): socialbench never guesses an option.

* ``json``: an object with an ``"answer"`` key, as the whole reply, in a Markdown code fence,
  or as the first balanced ``{...}``; the value must name valid option(s) after trimming and
  case folding.
* ``strict``: ``answer: X`` / ``"answer": "X"`` without valid JSON, or a reply that is exactly
  one option (quotes, trailing full stop and case ignored).
* ``lenient``: single-choice, non-yes/no questions only: the one option named in free text as
  a whole phrase, not negated, not inside a longer named option; never for replies that
  hedge or decline ("cannot determine", "unclear", ...).

An explicit answer decides: an ``"answer"`` value or ``answer:`` field naming no valid
option (or two, for single choice) makes the reply invalid; the rest is not searched.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["NEGATED_PATTERN", "ParseResult", "find_json_object", "negated", "normalise", "parse_answer"]


@dataclass(frozen=True)
class ParseResult:
    """What a reply says: the answer it names and the rung of the ladder that found it."""

    value: str | list[str] | None  # option string, list of options (multi), or None when invalid
    method: str | None  # "json" | "strict" | "lenient" | None


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_STRICT = re.compile(r"""["']?answer["']?\s*[:=]\s*([^\n}]+)""", re.IGNORECASE)
# (?<!\s): a separator starts where its white space starts, so a long run of spaces is
# scanned once, not once per position (quadratic)
_LIST_SEP = re.compile(r"(?<!\s)\s*(?:,|;|&|\band\b)\s*", re.IGNORECASE)
# Replies that decline or hedge are invalid, whatever options they mention.
_HEDGE = re.compile(
    r"\b(cannot|can't|can not|unable|unclear|unknown|not sure|uncertain|impossible|"
    r"no idea|not (?:possible|visible|enough)|insufficient|don't know|do not know)\b",
    re.IGNORECASE,
)
#: What negates an option named right after it (up to two words between), as a regular
#: expression searched at the end of the text before the option: the definition that
#: :func:`negated` implements by reading backwards (searching this at the end of every prefix
#: is quadratic in the reply's length).
NEGATED_PATTERN = r"(?:\bnot|n't|\bnever|\bno longer)\s+(?:\w+\s+){0,2}$"
#: Words that negate on their own (whole words).
_NEGATING_WORDS = frozenset({"not", "never"})
#: ``{`` positions tried as the start of an object: bounds the work on a brace-heavy reply
MAX_OBJECT_STARTS = 256
_JSON_ERRORS = (ValueError, RecursionError)  # RecursionError: nesting too deep to decode


def normalise(text: str) -> str:
    """Case-fold, collapse white space, strip quotes and trailing punctuation."""
    t = re.sub(r"\s+", " ", text.strip().strip("\"'`").strip())
    return t.rstrip(".!").strip().casefold()


def find_json_object(text: str) -> dict[str, object] | None:
    """The first JSON object in ``text``: whole text, a fenced block, or a balanced ``{...}``
    starting at one of the first :data:`MAX_OBJECT_STARTS` ``{``. Never raises: text that
    cannot be decoded (too deeply nested included) holds no object."""
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    for cand in candidates:
        try:
            obj = json.loads(cand)
        except _JSON_ERRORS:
            continue
        if isinstance(obj, dict):
            return obj
    decoder = json.JSONDecoder()
    for n, m in enumerate(re.finditer(r"\{", text)):
        if n >= MAX_OBJECT_STARTS:
            break
        try:
            obj, _ = decoder.raw_decode(text, m.start())
        except _JSON_ERRORS:
            continue
        if isinstance(obj, dict):
            return obj
    return None


def _match_option(value: str, options: Sequence[str]) -> str | None:
    norm = normalise(value)
    for o in options:
        if normalise(o) == norm:
            return o
    return None


def _coerce(value: object, options: Sequence[str], multi: bool) -> str | list[str] | None:
    """Map a decoded answer value onto the options, or None if it does not fit."""
    if multi:
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items:
            return None
        out: list[str] = []
        for v in items:
            if not isinstance(v, str):
                return None
            o = _match_option(v, options)
            if o is None:
                return None
            if o not in out:
                out.append(o)
        return [o for o in options if o in out]  # canonical option order
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if not isinstance(value, str):
        return None
    return _match_option(value, options)


def _is_word(c: str) -> bool:
    """Whether ``c`` is a regular-expression word character (``\\w``)."""
    return c.isalnum() or c == "_"


def negated(text: str, end: int) -> bool:
    """Whether the words right before ``text[end:]`` negate it: :data:`NEGATED_PATTERN`
    (``not``, ``never``, ``no longer`` or ``...n't``, white space, then at most two words
    each followed by white space) matches ``text[:end]`` at its end.

    Reads backwards from ``end`` over at most three white-space runs and three words (plus
    the ``n'`` of ``n't`` and the ``no`` of ``no longer``), never the rest of the text: the
    work is bounded by those words, not by the reply's length."""
    i = end
    for _ in range(3):  # the negation itself, or one of at most two words after it
        j = i
        while j > 0 and text[j - 1].isspace():
            j -= 1
        if j == i:
            return False  # \s+ needs white space here
        i = j
        while j > 0 and _is_word(text[j - 1]):
            j -= 1
        if j == i:
            return False  # \w+ (or the negation's last letter) needs a word here
        word = text[j:i]  # a whole word: a word character neither before nor after it
        if word in _NEGATING_WORDS:
            return True
        if word == "t" and j >= 2 and text[j - 2 : j] == "n'":
            return True
        if word == "longer" and j >= 3 and text[j - 3 : j] == "no " and (j == 3 or not _is_word(text[j - 4])):
            return True
        i = j  # a word between the negation and the option: white space must come before it
    return False


def _mentioned(text: str, options: Sequence[str]) -> list[str]:
    """Options named in ``text`` as whole phrases, not negated ("not yes", :func:`negated`),
    and not only as part of a longer named option ("to the left" inside "to the left of").
    Linear in the text's length (times the number of options)."""
    folded = text.casefold()
    found = []
    for o in options:
        for m in re.finditer(r"(?<![\w-])" + re.escape(o.casefold()) + r"(?![\w-])", folded):
            if not negated(folded, m.start()):
                found.append(o)
                break
    return [o for o in found if not any(o != p and o.casefold() in p.casefold() for p in found)]


def _lenient(text: str, options: Sequence[str], multi: bool) -> ParseResult:
    """The last rung: exactly one option named in free text of a single-choice question.

    Not used for multiple-select (which options were *not* meant is not recoverable from
    prose) nor for yes/no questions (bare "no" is too common a word), and never for replies
    that hedge or decline.
    """
    if multi or {o.casefold() for o in options} <= {"yes", "no"} or _HEDGE.search(text):
        return ParseResult(None, None)
    mentioned = _mentioned(text, options)
    if len(mentioned) == 1:
        return ParseResult(mentioned[0], "lenient")
    return ParseResult(None, None)


def _strip_quotes(part: str) -> str:
    return part.strip().strip("\"'`").strip()


def parse_answer(text: str | None, options: Sequence[str], multi: bool = False) -> ParseResult:
    """Extract the answer to a multiple-choice (or multiple-select) question from ``text``.

    An explicit answer (a JSON ``"answer"`` value or an ``answer:`` field) decides: if it
    does not name valid option(s), the reply is invalid — the rest of the text is not
    searched for something that looks like an option.
    """
    if text is None or not text.strip():
        return ParseResult(None, None)
    obj = find_json_object(text)
    if obj is not None and "answer" in obj:
        value = _coerce(obj["answer"], options, multi)
        if value is not None:
            return ParseResult(value, "json")
        given = obj["answer"]
        return _lenient(given, options, multi) if isinstance(given, str) else ParseResult(None, None)
    m = _STRICT.search(text)
    if m:
        field = m.group(1).strip()
        decoded: object = None
        if field.startswith("["):
            try:
                decoded = json.loads(field[: field.index("]") + 1]) if "]" in field else None
            except _JSON_ERRORS:
                decoded = None
        if decoded is None:
            parts = [_strip_quotes(p) for p in _LIST_SEP.split(field) if _strip_quotes(p)]
            if multi:
                decoded = parts
            else:
                named = {o for p in parts if (o := _match_option(p, options)) is not None}
                if len(named) > 1:  # "answer: yes, no" names two answers
                    return ParseResult(None, None)
                decoded = parts[0] if parts else field
        value = _coerce(decoded, options, multi)
        if value is not None:
            return ParseResult(value, "strict")
        return _lenient(field, options, multi)
    whole = _coerce([text] if multi else text, options, multi)
    if whole is not None:
        return ParseResult(whole, "strict")
    return _lenient(text, options, multi)
