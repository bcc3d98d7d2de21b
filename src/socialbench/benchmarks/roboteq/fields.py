"""Field-level parsers and checks for RobotEQ rows (the loader and ``validate`` use them).

The helpers here are pure: they take a raw field value and return the parsed value plus the
messages of everything wrong with it, so the loader can report *every* malformed row (with
file, row number and field) instead of stopping at the first.

Checked problems: unparseable ``labels`` line, option / label count mismatch, labels that
disagree with ``gt_labels``, unknown facet, malformed votes (vote counts up to
:data:`~socialbench.benchmarks.roboteq.schema.MAX_VOTE_COUNT`), bad grounding letters, behavior numbers over
:data:`~socialbench.benchmarks.roboteq.schema.MAX_BEHAVIOR_NUMBER`, text that cannot be written as UTF-8 (lone surrogates), a
missing, truncated or undecodable image or one over :data:`~socialbench.benchmarks.roboteq.schema.MAX_IMAGE_PIXELS` pixels, and an
image path that escapes the dataset folder (absolute paths, ``..`` and symbolic links that
lead outside).
"""

from __future__ import annotations

import ast
import json
import os
import re
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath

from socialbench.benchmarks.roboteq.schema import FACETS, LETTERS, MAX_IMAGE_PIXELS, MAX_VOTE_COUNT, normalise_label

__all__ = [
    "parse_label_lines",
    "parse_list_field",
    "decode_structured",
    "loads_json",
    "surrogate_fields",
    "label_file_problem",
    "parse_facets",
    "parse_judgment_votes",
    "parse_letters",
    "resolve_image",
    "image_problem",
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


def label_file_problem(path: Path, root: Path) -> str | None:
    """What makes ``path`` unusable as a label file of the dataset at ``root``, or None:
    not a regular file (a FIFO, device or folder; reading one could block forever), or a
    symbolic link leading outside the dataset folder."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return f"cannot read the file ({exc.strerror})"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file (a FIFO, device or folder)"
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return "a symbolic link leading outside the dataset folder"
    return None


def _key_number(key: object) -> int | None:
    """The behavior number in a key such as ``"2"``, ``"b2"`` or ``2`` (at most 9 digits)."""
    m = re.search(r"\d+", str(key))
    if not m or len(m.group()) > 9:
        return None
    return int(m.group())


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


def _facet_names(value: object) -> tuple[list[str], list[str]]:
    """Facet list from a list, a JSON / Python-literal list string, or a comma / semicolon /
    pipe separated string -> (facets, unknown)."""
    if isinstance(value, str) and value.strip().startswith("["):
        value = parse_list_field(value)
    if isinstance(value, str):
        raw = [p for p in re.split(r"[,;|/]", value) if p.strip()]
    elif isinstance(value, (list, tuple)):
        raw = list(value)
    else:
        return [], [repr(value)]
    out: list[str] = []
    unknown: list[str] = []
    for f in raw:
        name = f.strip().casefold() if isinstance(f, str) else None
        if name in FACETS:
            if name not in out:
                out.append(name)
        else:
            unknown.append(repr(f))
    return out, unknown


def parse_facets(value: object, ks: Sequence[int]) -> tuple[list[tuple[str, ...]], list[str]]:
    """Facets per behavior (aligned with ``ks``) and error messages.

    Accepted forms: absent (no facets); one list or string for the whole scene (every
    behavior carries it); a list of per-behavior lists (one per behavior, in order); a dict
    ``{k: [facets]}`` (a value may also be a string such as ``"safety, privacy"``). A JSON
    or Python-literal string of any of these is decoded first.
    """
    n = len(ks)
    empty: list[tuple[str, ...]] = [() for _ in ks]
    if value is None or value == "" or value == []:
        return empty, []
    if isinstance(value, str) and value.strip()[:1] in "[{":
        decoded, ok = decode_structured(value.strip())
        if not ok:
            return empty, [f"facets is neither valid JSON nor a Python list/dict literal: {value!r}"]
        value = decoded
    errors: list[str] = []
    known = ", ".join(FACETS)
    if isinstance(value, dict):
        per: dict[int, tuple[str, ...]] = {}
        for key, v in value.items():
            num = _key_number(key)
            if num is None or num not in ks:
                errors.append(f"facets names behavior {key!r}, which the row does not have")
                continue
            names, unknown = _facet_names(v)
            if unknown:
                errors.append(f"unknown facet(s) {', '.join(unknown)} for behavior {key} (known: {known})")
            per[num] = tuple(names)
        return [per.get(k, ()) for k in ks], errors
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (list, tuple)) for v in value):
        if len(value) != n:
            return empty, [f"facets lists {len(value)} per-behavior entries but the row has {n} behaviors"]
        out: list[tuple[str, ...]] = []
        for k, v in zip(ks, value):
            names, unknown = _facet_names(v)
            if unknown:
                errors.append(f"unknown facet(s) {', '.join(unknown)} for behavior {k} (known: {known})")
            out.append(tuple(names))
        return out, errors
    if isinstance(value, (list, tuple)) and any(isinstance(v, (list, tuple)) for v in value):
        return empty, ["facets mixes lists and names; give one list per behavior or one list for the scene"]
    names, unknown = _facet_names(value)
    if unknown:
        errors.append(f"unknown facet(s) {', '.join(unknown)} (known: {known})")
    return [tuple(names) for _ in ks], errors


def _no_votes(v: object) -> bool:
    """True for a behavior whose votes are absent: ``None`` (as the canonical JSONL writes
    it), ``""``, ``[]`` or ``{}``."""
    return v is None or (isinstance(v, (str, list, tuple, dict)) and not (v.strip() if isinstance(v, str) else v))


def _vote_counts(v: object) -> tuple[dict[str, int] | None, str | None]:
    if isinstance(v, str):
        v = [p for p in re.split(r"[,;|\s]+", v) if p]
    if isinstance(v, dict):
        counts: dict[str, int] = {}
        for lab, c in v.items():
            name = normalise_label(lab)
            if name is None or not isinstance(c, int) or isinstance(c, bool) or not 0 <= c <= MAX_VOTE_COUNT:
                return None, f"vote count {lab!r}: {c!r} is not a proper/improper count (0 to {MAX_VOTE_COUNT:,})"
            counts[name] = counts.get(name, 0) + c
    elif isinstance(v, (list, tuple)):
        counts = {}
        for lab in v:
            name = normalise_label(lab)
            if name is None:
                return None, f"vote {lab!r} is not proper or improper"
            counts[name] = counts.get(name, 0) + 1
    else:
        return None, f"votes entry {v!r} is neither a list of labels nor a {{label: count}} object"
    if sum(counts.values()) < 1:
        return None, "a behavior has no votes"
    return counts, None


def parse_judgment_votes(value: object, ks: Sequence[int]) -> tuple[list[dict[str, int] | None] | None, list[str]]:
    """Per-annotator votes per behavior as ``{label: count}``, or None when absent.

    Forms: a list with one entry per behavior, or a dict ``{k: entry}`` (a JSON or
    Python-literal string of either is decoded first); an entry is a list of labels (one
    per annotator), a ``{label: count}`` object or a comma-separated string. An entry that
    is ``None`` (or empty) means "no votes for this behavior": its slot in the result is
    None, and the result is None when no behavior has votes.
    """
    if value is None or value == "" or value == []:
        return None, []
    if isinstance(value, str) and value.strip()[:1] in "[{":
        decoded, ok = decode_structured(value.strip())
        if not ok:
            return None, [f"votes is neither valid JSON nor a Python list/dict literal: {value!r}"]
        value = decoded
    if isinstance(value, dict):
        entries: dict[int, object] = {}
        for key, v in value.items():
            num = _key_number(key)
            if num is None or num not in ks:
                return None, [f"votes names behavior {key!r}, which the row does not have"]
            entries[num] = v
        missing = [k for k in ks if k not in entries]
        if missing:
            return None, [f"votes lack behavior(s) {missing}"]
        seq = [entries[k] for k in ks]
    elif isinstance(value, (list, tuple)):
        if len(value) != len(ks):
            return None, [f"votes lists {len(value)} entries but the row has {len(ks)} behaviors"]
        seq = list(value)
    else:
        return None, [f"votes must be a list or an object, not {type(value).__name__}"]
    out: list[dict[str, int] | None] = []
    errors: list[str] = []
    for k, v in zip(ks, seq):
        if _no_votes(v):
            out.append(None)
            continue
        counts, err = _vote_counts(v)
        if err:
            errors.append(f"behavior {k}: {err}")
        else:
            out.append(counts or {})
    if errors or all(c is None for c in out):
        return None, errors
    return out, errors


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


def resolve_image(root: Path, base: Path, value: object) -> tuple[str | None, str | None]:
    """Resolve an image reference to a path relative to ``root`` (POSIX form).

    ``base`` is the folder the reference is relative to (the metadata file's folder).
    Returns ``(relative path, None)`` or ``(None, message)`` when the value is missing or
    the path escapes the dataset folder (absolute path, ``..``, or a link leading outside).
    """
    if isinstance(value, dict):
        value = value.get("path") or value.get("file_name")
    if not isinstance(value, str) or not value.strip():
        return None, "no image path (expected a file_name or image field)"
    text = value.strip()
    if PurePosixPath(text).is_absolute() or PureWindowsPath(text).is_absolute() or PureWindowsPath(text).drive:
        return None, f"image path {text!r} is absolute and escapes the dataset folder"
    if "\x00" in text:
        return None, f"image path {text!r} contains a NUL character"
    try:
        root_r = root.resolve()
        full = (base / text).resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # too long, a link loop, ...
        return None, f"image path {text!r} cannot be resolved ({exc})"
    try:
        rel = full.relative_to(root_r)
    except ValueError:
        return None, f"image path {text!r} escapes the dataset folder {root}"
    return rel.as_posix(), None


def image_problem(path: Path, *, decode: bool) -> str | None:
    """None if ``path`` is a readable image; else what is wrong (missing, not a regular
    file, over :data:`~socialbench.benchmarks.roboteq.schema.MAX_IMAGE_PIXELS`, truncated or undecodable). ``decode`` decodes
    every pixel, as a model backend will; without it only the file's presence is checked."""
    try:
        if not path.is_file():
            return "image file is missing"
    except (OSError, ValueError) as exc:  # a name too long, or not encodable for the OS
        return f"image path cannot be used ({exc})"
    if not decode:
        return None
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # the size is checked below
            with Image.open(path) as img:
                w, h = img.size
                if w * h > MAX_IMAGE_PIXELS:
                    return f"image is {w}x{h} pixels, over the limit of {MAX_IMAGE_PIXELS:,} (resize it)"
                img.load()  # verify() alone misses truncated JPEG data
    except Image.DecompressionBombError as exc:
        return f"image is over the limit of {MAX_IMAGE_PIXELS:,} pixels ({exc})"
    except Exception as exc:  # PIL raises many types for broken files
        return f"image cannot be decoded ({type(exc).__name__}: {exc})"
    return None
