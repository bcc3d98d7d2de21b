"""Reading RobotEQ spatial-grounding replies: the selected regions A-D and the parse
method. An explicit answer decides and nothing is guessed from prose (see
:func:`parse_grounding`)."""

from __future__ import annotations

import re

from socialbench.benchmarks.roboteq.fields import parse_letters
from socialbench.benchmarks.roboteq.reply_json import json_objects
from socialbench.benchmarks.roboteq.schema import LETTERS

__all__ = ["parse_grounding", "parse_grounding_letters"]

# Grounding: "answer(s) is/are/:" phrases followed by a letter list that ends the phrase.
_ANSWER_PHRASE = re.compile(r"\banswers?\b[\"'`*]*\s*(?:(?:is|are)\b\s*[:：=]?|[:：=])", re.IGNORECASE)
_QUOTE = r"[\"'`]"
# A separator between letters: a mark (, ; / & and) or white space, each with optional
# white space and quotes around it. Written so that a text has one way to match (no
# adjacent \s* runs): an ambiguous pattern backtracks for minutes on a long run of spaces.
_SEP = (
    r"(?:\s*(?:" + _QUOTE + r"\s*)?(?:[,;/&]|\band\b)\s*(?:" + _QUOTE + r"\s*)?"
    r"|(?:\s*" + _QUOTE + r")?\s+(?:" + _QUOTE + r"\s*)?)"
)
_PHRASE_LETTERS = re.compile(
    r"[\s\[(\"'`*]*([A-D](?:" + _SEP + r"[A-D])*)[\"'`\])*]*(?=\s*$|\s*\n|\s*[.!;:,]|\s+[-–—(])"
)
_WHOLE_LETTERS = re.compile(r"[A-Da-d](?:" + _SEP + r"[A-Da-d])*")


def _letters_in(span: str) -> list[str]:
    found = {c.upper() for c in re.findall(r"\b[A-Da-d]\b", span)}
    return [o for o in LETTERS if o in found]


def parse_grounding_letters(text: str | None, *, quoted_key_only: bool = False) -> list[str] | None:
    """Letters A-D from a grounding reply without a decodable JSON answer: the last
    explicit ``answer(s) is ...`` / ``Answer: A, C`` phrase whose letter list (case-sensitive
    letters) ends the phrase (end of line, punctuation or a dash). Region/option words and
    letters elsewhere never count (``Answer: A person near region C`` is no answer). With
    ``quoted_key_only`` only a ``"answer": ...`` key counts. None if there is none."""
    if not text:
        return None
    found: list[str] | None = None
    for m in _ANSWER_PHRASE.finditer(text):
        if quoted_key_only and not (m.start() > 0 and text[m.start() - 1] in "\"'"):
            continue
        lm = _PHRASE_LETTERS.match(text, m.end())
        if lm:
            found = _letters_in(lm.group(1)) or found
    return found


def _answer_value_letters(value: object) -> list[str] | None:
    """Letters of a JSON ``answer`` value: a letter list (``["A", "C"]``) or a string such
    as ``"A, C"`` or ``"AC"`` (read by :func:`parse_letters`); None if it names none or
    anything else."""
    if isinstance(value, str):
        s = value.strip().strip("\"'`*").strip().rstrip(".").strip()
        letters, err = parse_letters(s)
        return None if err or not letters else list(letters)
    if isinstance(value, (list, tuple)) and value:
        out: set[str] = set()
        for v in value:
            got = _answer_value_letters(v) if isinstance(v, str) else None
            if got is None:
                return None
            out.update(got)
        return [o for o in LETTERS if o in out]
    return None


def parse_grounding(text: str | None) -> tuple[list[str] | None, str | None]:
    """Selected regions of a grounding reply and the parse method (``json`` | ``strict``),
    or ``(None, None)``: an explicit answer decides and nothing is guessed (the order of the
    rules is in docs/benchmarks.md, "RobotEQ reply parsing")."""
    if not text or not text.strip():
        return None, None
    for obj in reversed(json_objects(text)):
        key = next((k for k in obj if isinstance(k, str) and k.strip().casefold() == "answer"), None)
        if key is not None:
            letters = _answer_value_letters(obj[key])
            return (letters, "json") if letters else (None, None)
    stripped = text.strip()
    if stripped.startswith(("{", "```")):
        letters = parse_grounding_letters(text, quoted_key_only=True)
        return (letters, "strict") if letters else (None, None)
    letters = parse_grounding_letters(text)
    if letters:
        return letters, "strict"
    whole = stripped.strip("\"'`*").strip().rstrip(".").strip()
    if _WHOLE_LETTERS.fullmatch(whole):
        return _letters_in(whole), "strict"
    return None, None
