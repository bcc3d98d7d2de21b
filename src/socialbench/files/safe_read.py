"""Read files socialbench did not just write itself: regular files only, bounded sizes, strict JSON.

:func:`read_regular_bytes` refuses anything but a regular file (a FIFO or a device would block
or never end). :func:`read_json` turns every way a JSON file can be unusable into one
:class:`~socialbench.errors.Problem` naming the file: invalid UTF-8 or syntax (with the line),
``NaN``/``Infinity``, numbers too long to convert, nesting deeper than any release file (which
would exhaust the recursion), and lone surrogates (which cannot be written back as UTF-8).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import stat
from pathlib import Path
from typing import Any, NoReturn

from socialbench.errors import DataError, Problem

#: Largest JSON file read (bytes). The largest release file (a prompt bank) is ~60 kB.
MAX_JSON_BYTES = 64 * 1024**2
#: Largest other file read whole (odometry pickles, bytes).
MAX_FILE_BYTES = 256 * 1024**2
#: Deepest JSON nesting accepted; release files nest at most 4 levels.
MAX_JSON_DEPTH = 32


def file_kind(path: Path) -> str:
    """``"file"`` (a regular file, after following links), ``"missing"``, or ``"other"``
    (a folder, FIFO, socket or device). Never opens the path."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "missing"
    except (OSError, ValueError):
        return "other"
    return "file" if stat.S_ISREG(mode) else "other"


def read_regular_bytes(path: Path | str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of ``path``; :class:`DataError` if it is not a regular file, is larger than
    ``limit`` or cannot be read. Opens with ``O_NONBLOCK`` so that a FIFO swapped in after
    the check cannot block."""
    p = Path(path)
    kind = file_kind(p)
    if kind == "missing":
        raise DataError.single(str(p), "", "file not found", f"add {p.name}")
    if kind != "file":
        raise DataError.single(
            str(p), "", "not a regular file (a folder, FIFO or device)", f"replace it with the {p.name} file itself"
        )
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise DataError.single(
            str(p), "", f"cannot open: {exc.strerror or exc}", "check the file's permissions"
        ) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise DataError.single(str(p), "", "not a regular file", "replace it with a file")
        if st.st_size > limit:
            raise DataError.single(
                str(p),
                "",
                f"file is {st.st_size} bytes, more than the {limit} this file can hold",
                "replace it with an intact copy",
            )
        with os.fdopen(fd, "rb", closefd=True) as f:
            fd = -1
            # read the size fstat gave (not limit + 1 bytes at once: Python would allocate a
            # buffer of the limit, 256 MiB for a Label Studio export); more only if it grew
            data = f.read(st.st_size + 1)
            if len(data) > st.st_size:
                data += f.read(limit + 1 - len(data))
    except OSError as exc:
        raise DataError.single(str(p), "", f"cannot read: {exc.strerror or exc}", "replace the file") from None
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > limit:
        raise DataError.single(str(p), "", f"file is larger than {limit} bytes", "replace it with an intact copy")
    return data


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


class _DuplicateKey(ValueError):
    """A JSON object that writes one key twice (``json`` would keep the last without a word)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json``'s ``object_pairs_hook``: the object, or :class:`_DuplicateKey` naming the
    first key written twice."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(f"key {key[:40]!r} is written twice in one object (only the last would count)")
            seen.add(key)
    return obj


def _has_surrogate(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


#: The only way a lone surrogate gets into text decoded from valid UTF-8: a JSON escape of
#: a code point in U+D800..U+DFFF.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

#: A path into a JSON value, innermost step last: (parent path, key or index), or None.
_Path = tuple[Any, str | int] | None


def _path_text(path: _Path) -> str:
    steps: list[str | int] = []
    while path is not None:
        path, step = path
        steps.append(step)
    out = ""
    for step in reversed(steps):
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out


def _surrogate_problem(file: str, path: _Path, what: str, text: str) -> Problem:
    """The problem of a ``what`` ("string", "key") at ``path`` holding a lone surrogate."""
    return Problem(
        file,
        _path_text(path),
        f"{what} {text[:40]!r} holds a lone surrogate (invalid Unicode)",
        "write valid UTF-8 text",
    )


def check_json_value(
    value: object, file: str, max_depth: int = MAX_JSON_DEPTH, *, strings: bool = True
) -> Problem | None:
    """The first reason a parsed JSON value is unusable (too deep, a lone surrogate), or
    None. Iterative: never recurses, whatever the depth. ``strings=False`` skips the
    surrogate checks (for a value parsed from text with no surrogate escape). Paths are
    spelled out only for a problem, so a clean value costs one visit per container."""
    stack: list[tuple[object, int, _Path]] = [(value, 0, None)]
    while stack:
        v, depth, path = stack.pop()
        if depth > max_depth:
            return Problem(
                file,
                _path_text(path),
                f"nested more than {max_depth} levels deep",
                "write the structure the release uses",
            )
        if isinstance(v, dict):
            children: Any = v.items()
        elif isinstance(v, list):
            children = enumerate(v)
        else:
            if strings and isinstance(v, str) and _has_surrogate(v):
                return _surrogate_problem(file, path, "string", v)
            continue
        for k, x in children:
            if strings and isinstance(k, str) and _has_surrogate(k):
                return _surrogate_problem(file, path, "key", k)
            if isinstance(x, (dict, list)) or depth + 1 > max_depth or (strings and isinstance(x, str)):
                stack.append((x, depth + 1, (path, k)))
    return None


def parse_json_bytes(data: bytes, file: str, *, line: int | None = None, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse JSON ``data`` from ``file``; :class:`DataError` for anything unusable. ``line``:
    the line of ``file`` that ``data`` is (one record of a JSON Lines file), named in every
    problem instead of the line within ``data``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError.single(
            file,
            "",
            f"not UTF-8 text (byte {exc.start}: {data[exc.start : exc.start + 1]!r})",
            "save the file as UTF-8",
            line=line,
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        value = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise DataError.single(
            file,
            "",
            f"invalid JSON: {exc.msg} (column {exc.colno})",
            "fix the JSON syntax",
            line=exc.lineno if line is None else line,
        ) from None
    except RecursionError:
        raise DataError.single(
            file, "", f"nested more than {max_depth} levels deep", "write the structure the release uses", line=line
        ) from None
    except _DuplicateKey as exc:
        raise DataError.single(file, "", f"invalid JSON: {exc}", "keep one of the two entries", line=line) from None
    except ValueError as exc:  # NaN/Infinity, a number with too many digits
        raise DataError.single(
            file, "", f"invalid JSON: {exc}", "write finite numbers in plain JSON", line=line
        ) from None
    problem = check_json_value(value, file, max_depth, strings=_SURROGATE_ESCAPE.search(text) is not None)
    if problem is not None:
        raise DataError(dataclasses.replace(problem, line=line) if line is not None else problem)
    return value


def read_json(path: Path | str, limit: int = MAX_JSON_BYTES, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Read and parse the JSON file ``path`` (see the module docstring); :class:`DataError`
    naming the file for anything unusable."""
    return parse_json_bytes(read_regular_bytes(path, limit), str(path), max_depth=max_depth)
