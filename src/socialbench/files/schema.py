"""Typed checks of parsed JSON objects: every wrong type is one line naming the field.

Objects of a file read back (after :mod:`socialbench.files.safe_read`) are checked against a
list of :class:`FieldRule`, so code using the values can rely on their types instead of
failing deep inside with a traceback. Kinds are JSON kinds: ``"str"``, ``"int"`` (not a
boolean), ``"count"`` (an int >= 1), ``"number"`` (int or float, not a boolean), ``"bool"``,
``"null"``, ``"object"``, ``"list"``, ``"list[str]"``, ``"list[object]"`` and
``"object[number]"`` (an object whose values are numbers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from socialbench.errors import Problem

__all__ = ["FieldRule", "Kind", "check_fields", "json_kind"]

Kind = Literal[
    "str", "int", "count", "number", "bool", "null", "object", "list", "list[str]", "list[object]", "object[number]"
]

_SAYS: dict[str, str] = {
    "str": "a string",
    "int": "an integer",
    "count": "a positive integer",
    "number": "a number",
    "bool": "true or false",
    "null": "null",
    "object": "an object",
    "list": "a list",
    "list[str]": "a list of strings",
    "list[object]": "a list of objects",
    "object[number]": "an object of numbers",
}


@dataclass(frozen=True)
class FieldRule:
    """One field of a JSON object: its name, the kinds it may hold, and whether it must be
    there."""

    name: str
    kinds: tuple[Kind, ...]
    required: bool = False


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _fits(value: object, kind: Kind) -> bool:
    if kind == "str":
        return isinstance(value, str)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "count":
        return isinstance(value, int) and not isinstance(value, bool) and value >= 1
    if kind == "number":
        return _is_number(value)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "object":
        return isinstance(value, Mapping)
    if kind == "list":
        return isinstance(value, list)
    if kind == "list[str]":
        return isinstance(value, list) and all(isinstance(x, str) for x in value)
    if kind == "list[object]":
        return isinstance(value, list) and all(isinstance(x, Mapping) for x in value)
    if kind == "object[number]":
        return isinstance(value, Mapping) and all(_is_number(x) for x in value.values())
    raise ValueError(f"unknown kind {kind!r}")


def json_kind(value: object) -> str:
    """How JSON would call ``value``'s type, with a short excerpt: ``a list ([1, 2])``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        name = "a boolean"
    elif isinstance(value, (int, float)):
        name = "a number"
    elif isinstance(value, str):
        name = "a string"
    elif isinstance(value, Mapping):
        name = "an object"
    elif isinstance(value, list):
        name = "a list"
    else:
        name = type(value).__name__
    text = repr(value)
    return f"{name} ({text[:40]}{'...' if len(text) > 40 else ''})"


def _describe(kinds: Sequence[Kind]) -> str:
    says = [_SAYS[k] for k in kinds]
    return says[0] if len(says) == 1 else ", ".join(says[:-1]) + " or " + says[-1]


def check_fields(
    obj: object, rules: Sequence[FieldRule], file: str, fix: str, *, line: int | None = None, prefix: str = ""
) -> Problem | None:
    """The first way ``obj`` breaks ``rules`` (not an object, a required field missing, a
    field of another kind), as a :class:`~socialbench.errors.Problem` naming ``file``,
    ``line`` and the field (``prefix`` + name); None when it fits. Fields not in ``rules``
    are not checked."""
    if not isinstance(obj, Mapping):
        return Problem(file, prefix.rstrip("."), f"expected a JSON object, found {json_kind(obj)}", fix, line)
    for rule in rules:
        if rule.name not in obj:
            if rule.required:
                return Problem(file, prefix + rule.name, f"missing (must be {_describe(rule.kinds)})", fix, line)
            continue
        value = obj[rule.name]
        if not any(_fits(value, k) for k in rule.kinds):
            return Problem(
                file,
                prefix + rule.name,
                f"must be {_describe(rule.kinds)}, found {json_kind(value)}",
                fix,
                line,
            )
    return None
