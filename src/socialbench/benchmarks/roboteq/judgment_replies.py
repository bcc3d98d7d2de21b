"""Reading per-scene (and per-behavior) RobotEQ judgment replies.

The last JSON object in the reply that holds judgments wins; without JSON, numbered lines are
read (method ``lenient``, :func:`_line_judgment`). Each behavior is judged on its own: one
with no judgment, a value that is not proper/improper, or an extra judgment is *invalid*
(``None``) while the others keep their answers. The accepted forms are listed in
docs/benchmarks.md, "RobotEQ reply parsing".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from socialbench.benchmarks.roboteq.reply_json import json_objects
from socialbench.benchmarks.roboteq.schema import normalise_label

__all__ = ["ParsedJudgments", "parse_judgments"]


@dataclass(frozen=True)
class ParsedJudgments:
    """Per-behavior judgments of one reply: ``values[k]`` is a label or None (invalid)."""

    values: dict[int, str | None]
    method: str | None  # "json" | "lenient" | None (nothing found)
    extra: tuple[str, ...] = ()  # keys for behaviors the scene does not have


def _behavior_number(key: object) -> int | None:
    if isinstance(key, bool):
        return None
    if isinstance(key, int):
        return key
    # at most 9 digits: a longer number is no behavior's (and int() refuses > 4300 digits)
    m = re.fullmatch(r"\s*\[?\s*(?:b|behaviou?r|option|action)?\s*#?\s*(\d{1,9})\s*\]?\s*", str(key), re.IGNORECASE)
    return int(m.group(1)) if m else None


def _label(value: object) -> str | None:
    if isinstance(value, dict):
        for name in ("label", "judgment", "judgement", "answer", "verdict"):
            if name in value:
                return _label(value[name])
        return None
    return normalise_label(value) if isinstance(value, str) else None


def _pairs_of(obj: object) -> list[tuple[object, object]]:
    return list(getattr(obj, "pairs", None) or (obj.items() if isinstance(obj, dict) else []))


_ANSWER_FIELDS = ("answer", "judgments", "judgements", "labels", "answers")


def _has_number_key(pairs: Sequence[tuple[object, object]]) -> bool:
    return any(_behavior_number(k) is not None for k, _ in pairs)


def _answer_pairs(value: object, ks: Sequence[int]) -> list[tuple[object, object]] | None:
    """(behavior key, value) pairs of an ``answer`` value, or None when the value is not a
    judgment structure (e.g. ``"done"``, or a list whose length is not the behavior count)."""
    if isinstance(value, dict):
        pairs = _pairs_of(value)
        return pairs if _has_number_key(pairs) else None
    if isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value):
            out: list[tuple[object, object]] = []
            for v in value:
                key = next((v[f] for f in ("k", "id", "behavior", "behaviour", "number", "index") if f in v), None)
                out.append((key, v))
            return out if _has_number_key(out) else None
        if len(value) == len(ks):
            return list(zip(ks, value))
        return None
    if isinstance(value, str) and len(ks) == 1:
        return [(ks[0], value)]
    return None


def _judgment_pairs(obj: object, ks: Sequence[int]) -> tuple[list[tuple[object, object]] | None, bool]:
    """(behavior key, value) pairs held by one decoded object (None if it holds none), and
    whether the object has an explicit answer field."""
    if not isinstance(obj, dict):
        return None, False
    for name in _ANSWER_FIELDS:
        if name in obj:
            # several "answer" keys in one object: the last, as json.loads keeps
            return _answer_pairs(obj[name], ks), True
    pairs = _pairs_of(obj)
    return (pairs if _has_number_key(pairs) else None), False


# One way to match any line: ``\W*`` already takes a ``[`` and white space before the number
# (``\W*\[?\s*`` and ``\s*\[?\s*`` backtrack quadratically on a long run of spaces).
_LINE_NUMBER = re.compile(r"^\W*(?:behaviou?r\s*(?:\[\s*)?)?(\d+)\s*\]?(.*)$", re.IGNORECASE)
_LEAD_LABEL = re.compile(r"^[\s:.)\-=*–—]*(improper|proper)\b\**(.*)$", re.IGNORECASE)
_LABEL_WORD = re.compile(r"\b(improper|proper)\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never|no)\b|n't\b", re.IGNORECASE)


def _line_judgment(line: str) -> tuple[str, str | None] | None:
    """(behavior number, label or None) from one plain-text line, or None when the line
    is not a numbered line that names a label.

    Accepted: the label right after the number (optionally after ``:``, ``-``, ``.``,
    ``)``, ``=``), followed by nothing or by punctuation and no opposite label
    (``[1] proper``, ``2: improper - she is busy``); or a line naming exactly one label
    word and no negation (``Behavior 3 - step back: proper``). Any other numbered line
    that names a label gives None for that behavior (invalid, never guessed)."""
    m = _LINE_NUMBER.match(line.strip())
    if not m:
        return None
    number, rest = m.group(1), m.group(2)
    words = [w.casefold() for w in _LABEL_WORD.findall(rest)]
    if not words:
        return None
    lead = _LEAD_LABEL.match(rest)
    if lead:
        label, tail = lead.group(1).casefold(), lead.group(2)
        other = "improper" if label == "proper" else "proper"
        clean_start = not tail.strip() or not re.match(r"\s*\w", tail)
        if clean_start and other not in [w.casefold() for w in _LABEL_WORD.findall(tail)]:
            return number, label
        return number, None
    if len(words) == 1 and not _NEGATION.search(rest):
        return number, words[0]
    return number, None


def _collect(
    pairs: Sequence[tuple[object, object]], ks: Sequence[int], *, strict: bool
) -> tuple[dict[int, str | None], list[str]]:
    """Labels per behavior from (key, value) pairs. A behavior judged twice is invalid when
    ``strict`` (JSON: an extra judgment), else only when the two judgments conflict."""
    found: dict[int, list[str | None]] = {}
    extra: list[str] = []
    for key, value in pairs:
        k = _behavior_number(key)
        if k is None or k not in ks:
            extra.append(str(key))
            continue
        found.setdefault(k, []).append(_label(value))
    values: dict[int, str | None] = {}
    for k in ks:
        got = found.get(k)
        if not got or any(v is None for v in got) or len(set(got)) > 1 or (strict and len(got) > 1):
            values[k] = None  # missing, not a label, judged twice (JSON) or conflicting
        else:
            values[k] = got[0]
    return values, extra


def parse_judgments(text: str | None, ks: Sequence[int]) -> ParsedJudgments:
    """Per-behavior labels for behavior numbers ``ks`` from a per-scene reply."""
    empty: dict[int, str | None] = {k: None for k in ks}
    if not text or not text.strip():
        return ParsedJudgments(empty, None)
    explicit = False
    for obj in reversed(json_objects(text)):
        pairs, has_answer = _judgment_pairs(obj, ks)
        explicit = explicit or has_answer
        if pairs is None:
            continue
        values, extra = _collect(pairs, ks, strict=True)
        return ParsedJudgments(values, "json", tuple(extra))
    if explicit:  # an explicit answer field without judgments decides: invalid
        return ParsedJudgments(empty, None)
    lines = [j for line in text.splitlines() if (j := _line_judgment(line)) is not None]
    if lines:
        values, extra = _collect(lines, ks, strict=False)
        return ParsedJudgments(values, "lenient", tuple(extra))
    return ParsedJudgments(empty, None)
