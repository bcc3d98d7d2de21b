"""Read a sweep plan file as untrusted input (issue 29): a regular file of at most
:data:`MAX_PLAN_BYTES`, UTF-8, YAML nested at most :data:`MAX_YAML_DEPTH` levels with at most
:data:`MAX_YAML_ALIASES` aliases (``*name``: a few of them can otherwise stand for billions of
values); refusals quote values shortened (:func:`shown`).
"""

from __future__ import annotations

import reprlib
from pathlib import Path

import yaml
from yaml.nodes import Node

from socialbench.errors import DataError, UsageError
from socialbench.files.yaml_read import DuplicateKeyError, UniqueKeyLoader

#: Largest plan file read (bytes): a plan is a few hundred bytes.
MAX_PLAN_BYTES = 1024 * 1024
#: Deepest YAML nesting accepted: a plan nests at most 4 levels.
MAX_YAML_DEPTH = 16
#: Most YAML aliases (``*name``) accepted in one plan.
MAX_YAML_ALIASES = 64

_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxstring, _SHORT.maxother = 2, 4, 4, 40, 40


def key_shown(key: object) -> str:
    """A plan key as a refusal names it: a short string as written, anything else shortened."""
    return key if isinstance(key, str) and len(key) <= 40 and key.isprintable() else shown(key)


def key_line(path: Path, key: object) -> int | None:
    """The line (from 1) of the plan file ``path`` on which the mapping key ``key`` is first
    written (``key:`` at the start of a line, or after ``- `` or ``{``), for refusals to point
    at; None when it cannot be found (a key written in another form, an unreadable file)."""
    import re

    if not isinstance(key, (str, int, float)) or isinstance(key, bool):
        return None
    pattern = re.compile(rf"(^|[-{{,]\s*)['\"]?{re.escape(str(key))}['\"]?\s*:")
    try:
        text = read_regular_bytes_text(path)
    except (DataError, OSError, UnicodeDecodeError):
        return None
    for number, raw in enumerate(text.splitlines(), start=1):
        if pattern.search(raw.strip()):
            return number
    return None


def read_regular_bytes_text(path: Path) -> str:
    """The plan file's text (a regular file of at most :data:`MAX_PLAN_BYTES`, UTF-8)."""
    from socialbench.files.safe_read import read_regular_bytes

    return read_regular_bytes(path, MAX_PLAN_BYTES).decode("utf-8")


def shown(value: object) -> str:
    """``repr(value)`` shortened (at most a few elements, two levels, 40 characters a
    string): what a refusal may quote of a plan's value, however large it expands."""
    return _SHORT.repr(value)


class _BoundedLoader(UniqueKeyLoader):
    """A safe YAML loader (a repeated key refused: :class:`UniqueKeyLoader`) that refuses nesting deeper than :data:`MAX_YAML_DEPTH` and more
    than :data:`MAX_YAML_ALIASES` aliases, before building anything from them."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                raise yaml.YAMLError(f"more than {MAX_YAML_ALIASES} aliases (*name); write the values out")
        self._depth += 1
        if self._depth > MAX_YAML_DEPTH:
            raise yaml.YAMLError(f"nested more than {MAX_YAML_DEPTH} levels deep; a plan nests a few levels")
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def read_plan_yaml(path: Path) -> object:
    """The YAML document of the plan file ``path``; :class:`UsageError` naming the file for a
    missing, unreadable, oversized, non-UTF-8, malformed or too deeply nested one."""
    from socialbench.files.safe_read import file_kind, read_regular_bytes

    if file_kind(path) == "missing":
        raise UsageError(f"{path}: no such plan file")
    try:
        text = read_regular_bytes(path, MAX_PLAN_BYTES).decode("utf-8")
    except DataError as exc:
        raise UsageError(f"{path}: cannot be read as a plan ({exc.problems[0].message}); give a YAML file") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text (byte {exc.start}); save the plan as UTF-8") from None
    try:
        return yaml.load(text, Loader=_BoundedLoader)  # noqa: S506 - a SafeLoader with bounds
    except DuplicateKeyError as exc:
        raise UsageError(
            f"{path}:{exc.second_line}: {key_shown(exc.key)} is written twice (lines {exc.first_line} and "
            f"{exc.second_line}): YAML would keep only the last; keep one of them"
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"line {mark.line + 1}: " if mark is not None else ""
        raise UsageError(
            f"{path}: {line}not valid YAML ({getattr(exc, 'problem', None) or exc}); fix the syntax"
        ) from None
    except RecursionError:
        raise UsageError(f"{path}: nested too deeply to read; a plan nests a few levels") from None
