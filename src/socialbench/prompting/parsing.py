"""Answer extraction ladder: JSON, then strict pattern, then lenient pattern.

Every parse records the rung that produced it (``parse_method``). Text that no rung can map to
a valid option is *invalid* (``value is None``) — socialbench never guesses an option.

Rungs
-----
``json``
    A JSON object with an ``"answer"`` key, found as the whole reply, inside a Markdown code
    fence, or as the first balanced ``{...}`` in the text. The value must name valid
    option(s) after trimming and case folding.
``strict``
    ``answer: X`` / ``"answer": "X"`` written without valid JSON, or a reply that is exactly
    one option (quotes, trailing full stop and case ignored).
``lenient``
    The options mentioned anywhere in the text as whole phrases. An option that is part of
    another mentioned option (``"to the left"`` inside ``"to the left of"``) does not count.
    For a single-choice question exactly one option must remain; for multiple-select, the
    set of mentioned options is the answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

__all__ = ["ParseResult", "parse_answer", "find_json_object", "normalise"]


@dataclass(frozen=True)
class ParseResult:
    value: Any  # option string, list of options (multi), or None when invalid
    method: str | None  # "json" | "strict" | "lenient" | None


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_STRICT = re.compile(r"""["']?answer["']?\s*[:=]\s*(\[[^\]]*\]|"[^"\n]*"|'[^'\n]*'|[^\n}]+)""", re.IGNORECASE)
_LIST_SEP = re.compile(r"\s*(?:,|;|&|\band\b)\s*", re.IGNORECASE)


def normalise(text: str) -> str:
    """Case-fold, collapse white space, strip quotes and trailing punctuation."""
    t = re.sub(r"\s+", " ", text.strip().strip("\"'`").strip())
    return t.rstrip(".!").strip().casefold()


def find_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text``: whole text, a fenced block, or a balanced ``{...}``."""
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    for cand in candidates:
        try:
            obj = json.loads(cand)
        except (json.JSONDecodeError, ValueError):
            continue
        if isinstance(obj, dict):
            return obj
    decoder = json.JSONDecoder()
    for m in re.finditer(r"\{", text):
        try:
            obj, _ = decoder.raw_decode(text, m.start())
        except (json.JSONDecodeError, ValueError):
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


def _coerce(value: Any, options: Sequence[str], multi: bool) -> Any:
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


def _mentioned(text: str, options: Sequence[str]) -> list[str]:
    folded = text.casefold()
    found = [
        o
        for o in options
        if re.search(r"(?<![\w-])" + re.escape(o.casefold()) + r"(?![\w-])", folded)
    ]
    # Drop options that only appear as part of a longer mentioned option.
    return [o for o in found if not any(o != p and o.casefold() in p.casefold() for p in found)]


def parse_answer(text: str | None, options: Sequence[str], multi: bool = False) -> ParseResult:
    """Extract the answer to a multiple-choice (or multiple-select) question from ``text``."""
    if text is None or not text.strip():
        return ParseResult(None, None)
    obj = find_json_object(text)
    if obj is not None and "answer" in obj:
        value = _coerce(obj["answer"], options, multi)
        if value is not None:
            return ParseResult(value, "json")
    m = _STRICT.search(text)
    if m:
        raw = m.group(1).strip()
        try:
            decoded: Any = json.loads(raw) if raw.startswith(("[", '"')) else None
        except json.JSONDecodeError:
            decoded = None
        if decoded is None:  # bare text: "answer: B, D" (multi) or "answer: yes, because ..."
            parts = [p for p in _LIST_SEP.split(raw) if p.strip()]
            decoded = parts if multi else (parts[0] if parts else raw)
        value = _coerce(decoded, options, multi)
        if value is not None:
            return ParseResult(value, "strict")
    whole = _coerce(text, options, multi) if not multi else _coerce([text], options, multi)
    if whole is not None:
        return ParseResult(whole, "strict")
    mentioned = _mentioned(text, options)
    if multi and mentioned:
        return ParseResult([o for o in options if o in mentioned], "lenient")
    if not multi and len(mentioned) == 1:
        return ParseResult(mentioned[0], "lenient")
    return ParseResult(None, None)
