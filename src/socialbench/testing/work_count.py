"""Count the work a parser does on a text, deterministically (no clocks), for scaling tests.

``work(fn, *args, modules=...)`` counts Python **lines** run in socialbench's modules
(``sys.settrace``), and the **chars** and **json_chars** the regular-expression engine and
the JSON decoder must at least visit for ``modules`` (their ``re`` and ``json`` names and
module-level patterns and decoders are replaced by counting proxies while ``fn`` runs): a
search up to the end of its match (the rest of the text when none), an anchored match its
length, a scan of every match the rest of the text, a JSON decode up to where it stopped.
Backtracking is invisible from outside the engine: this counts re-scanning. A linear parser
does about four times the work on a text four times as long, a quadratic one sixteen.
"""

from __future__ import annotations

import json
import re
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeAlias

#: What ``sys.settrace`` takes: called per event, returns the local tracer (or None).
TraceFunction: TypeAlias = Callable[[types.FrameType, str, object], "TraceFunction | None"]

__all__ = ["Work", "work"]

#: The scanning calls counted, as pattern methods and as ``re`` functions.
_SCANNING = ("search", "match", "fullmatch", "finditer", "findall", "split", "sub", "subn")


@dataclass
class Work:
    """Python lines run, and characters visited by regular expressions and by JSON decodes
    (counted apart: a parser may try a bounded number of JSON decodes from different
    starts, each up to the whole text, which is linear with a large constant)."""

    lines: int = 0
    chars: int = 0
    json_chars: int = 0

    @property
    def total(self) -> int:
        """Lines and regular-expression characters: the number a scaling check compares."""
        return self.lines + self.chars


def _span(text: object, pos: object) -> int:
    if not isinstance(text, (str, bytes)):
        return 0
    start = pos if isinstance(pos, int) and pos > 0 else 0
    return max(len(text) - start, 0)


def _visited(name: str, text: object, pos: object, result: object) -> int:
    """Characters a regular-expression call ``name`` on ``text`` from ``pos`` visited at
    least, given its ``result``."""
    start = pos if isinstance(pos, int) and pos > 0 else 0
    if name in ("match", "fullmatch"):
        return result.end() - start if isinstance(result, re.Match) else 1
    if name == "search" and isinstance(result, re.Match):
        return result.end() - start
    return _span(text, start)


class _CountingPattern:
    """A compiled pattern that counts the characters each call may scan."""

    def __init__(self, pattern: re.Pattern[str], count: Work) -> None:
        self._pattern = pattern
        self._count = count

    def __getattr__(self, name: str) -> object:
        attr = getattr(self._pattern, name)
        if name not in _SCANNING:
            return attr
        count = self._count
        text_index = 1 if name in ("sub", "subn") else 0  # sub(repl, string, ...)

        def call(*args: object, **kwargs: object) -> object:
            text = args[text_index] if len(args) > text_index else kwargs.get("string")
            pos = (
                args[text_index + 1]
                if len(args) > text_index + 1 and name not in ("sub", "subn")
                else kwargs.get("pos")
            )
            result = attr(*args, **kwargs)
            count.chars += _visited(name, text, pos, result)
            return result

        return call


class _CountingRe(types.SimpleNamespace):
    """The ``re`` module with its scanning functions counting characters."""


def _counting_re(count: Work) -> _CountingRe:
    ns = _CountingRe(**{k: getattr(re, k) for k in dir(re) if not k.startswith("__")})
    for name in _SCANNING:
        real = getattr(re, name)
        text_index = 2 if name in ("sub", "subn") else 1  # sub(pattern, repl, string)

        def call(
            *args: object,
            _real: Callable[..., object] = real,
            _i: int = text_index,
            _name: str = name,
            **kwargs: object,
        ) -> object:
            text = args[_i] if len(args) > _i else kwargs.get("string")
            result = _real(*args, **kwargs)
            count.chars += _visited(_name, text, 0, result)
            return result

        setattr(ns, name, call)
    ns.compile = lambda *a, **k: _CountingPattern(re.compile(*a, **k), count)
    return ns


def _decoded(decode: Callable[[], tuple[object, int]], text: object, idx: int, count: Work) -> tuple[object, int]:
    """``decode()``, counting the characters from ``idx`` to where it stopped or failed."""
    try:
        obj, end = decode()
    except json.JSONDecodeError as exc:
        count.json_chars += max(exc.pos - idx, 0) + 1
        raise
    except (ValueError, RecursionError):
        count.json_chars += _span(text, idx)
        raise
    count.json_chars += end - idx
    return obj, end


class _CountingDecoder:
    """A JSON decoder counting the characters each decode visits."""

    def __init__(self, decoder: json.JSONDecoder, count: Work) -> None:
        self._decoder = decoder
        self._count = count

    def raw_decode(self, s: str, idx: int = 0) -> tuple[object, int]:
        return _decoded(lambda: self._decoder.raw_decode(s, idx), s, idx, self._count)


def _counting_json(count: Work) -> types.SimpleNamespace:
    ns = types.SimpleNamespace(**{k: getattr(json, k) for k in dir(json) if not k.startswith("__")})

    real_loads: Callable[..., object] = json.loads

    def loads(s: str | bytes, *args: object, **kwargs: object) -> object:
        text = s.decode("utf-8", "replace") if isinstance(s, bytes) else s
        if isinstance(text, str):
            text = text.lstrip()
        return _decoded(lambda: (real_loads(s, *args, **kwargs), len(text)), text, 0, count)[0]

    class Decoder(json.JSONDecoder):
        def raw_decode(self, s: str, idx: int = 0) -> tuple[object, int]:
            return _decoded(lambda: super(Decoder, self).raw_decode(s, idx), s, idx, count)

    ns.loads = loads
    ns.JSONDecoder = Decoder
    return ns


@contextmanager
def _counting_modules(modules: Sequence[types.ModuleType], count: Work) -> Iterator[None]:
    saved: list[tuple[types.ModuleType, str, object]] = []
    try:
        for mod in modules:
            for name, value in list(vars(mod).items()):
                if value is re:
                    replacement: object = _counting_re(count)
                elif value is json:
                    replacement = _counting_json(count)
                elif isinstance(value, re.Pattern):
                    replacement = _CountingPattern(value, count)
                elif isinstance(value, json.JSONDecoder):
                    replacement = _CountingDecoder(value, count)
                else:
                    continue
                saved.append((mod, name, value))
                setattr(mod, name, replacement)
        yield
    finally:
        for mod, name, value in reversed(saved):
            setattr(mod, name, value)


def work(fn: Callable[..., object], *args: object, modules: Sequence[types.ModuleType] = ()) -> Work:
    """What ``fn(*args)`` costs: socialbench lines run, and characters handed to regular
    expressions and the JSON decoder by ``modules`` (see the module docstring)."""
    count = Work()
    package = __name__.split(".")[0]

    def local(frame: types.FrameType, event: str, arg: object) -> TraceFunction:
        if event == "line":
            count.lines += 1
        return local

    def global_trace(frame: types.FrameType, event: str, arg: object) -> TraceFunction | None:
        module = frame.f_globals.get("__name__", "")
        if event == "call" and isinstance(module, str) and module.split(".")[0] == package and module != __name__:
            return local
        return None

    with _counting_modules(modules, count):
        old = sys.gettrace()
        sys.settrace(global_trace)
        try:
            fn(*args)
        finally:
            sys.settrace(old)
    return count
