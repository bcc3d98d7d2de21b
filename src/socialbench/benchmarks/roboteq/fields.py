"""Field-level parsers and checks for RobotEQ rows (the loader and ``validate`` use them).

The helpers are pure: they return the parsed value plus the messages of everything wrong
with it, so every malformed row is reported (docs/roboteq-format.md, "Validation"). Facets
and votes are parsed in :mod:`~socialbench.benchmarks.roboteq.annotations`, image paths in
:mod:`~socialbench.benchmarks.roboteq.paths`.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping

from socialbench.benchmarks.roboteq.schema import LETTERS, normalise_label

__all__ = [
    "parse_label_lines",
    "parse_list_field",
    "decode_structured",
    "loads_json",
    "surrogate_fields",
    "parse_letters",
]

_LABEL_LINE = re.compile(r"^\s*\[\s*(\d{1,9})\s*\]\s*(proper|improper|该做|不该做)\s*[:：](.*)$", re.IGNORECASE)


def parse_label_lines(text: str) -> tuple[list[tuple[int, str, str]], list[tuple[int, str]]]:
    """Parse a ``labels`` field: lines ``[k] proper: <behavior>`` / ``[k] improper: <behavior>``.

    Returns ``(entries, bad)``: entries are ``(k, label, behavior)`` in order; ``bad`` lists
    ``(line number within the field, line)`` for every non-blank line that does not match
    (including a line with an empty behavior).
    """
    entries: list[tuple[int, str, str]] = []
    bad: list[tuple[int, str]] = []
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        m = _LABEL_LINE.match(line)
        text = m.group(3).strip() if m else ""  # strip() here: a lazy regex group is quadratic
        if not m or not text:
            bad.append((i, line))
            continue
        entries.append((int(m.group(1)), normalise_label(m.group(2)) or "", text))
    return entries, bad


_LITERAL_ERRORS = (ValueError, SyntaxError, TypeError, MemoryError, RecursionError)
_SURROGATE = re.compile("[\ud800-\udfff]")


def loads_json(text: str) -> tuple[object, str | None]:
    """``json.loads`` that never raises: ``(value, None)`` or ``(None, what is wrong)``.

    Covers invalid JSON, nesting deeper than the interpreter can decode and integers with
    more digits than Python converts.
    """
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at column {exc.colno})"
    except RecursionError:
        return None, "not valid JSON here (nested too deeply)"
    except (ValueError, MemoryError) as exc:
        return None, f"not valid JSON here ({exc})"


def _has_surrogate(value: object, depth: int = 0) -> bool:
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None
    if depth > 100:
        return False
    if isinstance(value, dict):
        return any(_has_surrogate(k, depth + 1) or _has_surrogate(v, depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_has_surrogate(v, depth + 1) for v in value)
    return False


def surrogate_fields(row: Mapping[str, object]) -> list[str]:
    """Names of the fields of ``row`` holding text with a lone surrogate (a ``\\ud800``
    JSON escape without its pair): such text cannot be written to results as UTF-8."""
    return [
        str(k).encode("utf-8", "backslashreplace").decode()
        for k, v in row.items()
        if _has_surrogate(k) or _has_surrogate(v)
    ]


def decode_structured(text: str) -> tuple[object, bool]:
    """Decode a list / object written as JSON or as a Python literal (pandas writes
    ``"['safety', 'privacy']"`` to CSV). Returns ``(value, True)`` or ``(None, False)``."""
    for loader in (json.loads, ast.literal_eval):
        try:
            return loader(text), True
        except _LITERAL_ERRORS:
            continue
    return None, False


def parse_list_field(value: object) -> list[object] | None:
    """A list stored as a list, a JSON / Python-literal string, or a newline-separated string.

    ``None`` and ``""`` give None (field absent). CSV exports store lists as strings.
    """
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str):
        s = value.strip()
        if not s:
            return None
        if s.startswith("["):
            parsed, ok = decode_structured(s)
            if ok and isinstance(parsed, (list, tuple)):
                return list(parsed)
        return [part.strip() for part in s.splitlines() if part.strip()]
    return [value]


def parse_letters(value: object) -> tuple[tuple[str, ...] | None, str | None]:
    """A set of grounding options: ``["A", "C"]``, ``"A, C"``, ``"AC"`` or ``'["A","C"]'``.

    Returns the letters in A-D order (no duplicates) or an error message. An empty
    selection is an error.
    """
    if isinstance(value, str):
        s = value.strip()
        if s.startswith("["):
            parsed = parse_list_field(s)
            value = parsed if parsed is not None else []
        else:
            value = [c for c in re.split(r"[\s,;|/&]+|(?<=[A-Za-z])(?=[A-Za-z])", s) if c]
    if not isinstance(value, (list, tuple)):
        return None, f"{value!r} is not a list of options A-D"
    letters: set[str] = set()
    for v in value:
        if not isinstance(v, str) or v.strip().upper() not in LETTERS:
            return None, f"{v!r} is not one of the options {', '.join(LETTERS)}"
        letters.add(v.strip().upper())
    if not letters:
        return None, "no option selected; the answer needs at least one of A-D"
    return tuple(o for o in LETTERS if o in letters), None
