"""The annotations of a RobotEQ row, parsed from any of the forms the releases use: the
facets of each behavior (:func:`parse_facets`) and the per-annotator votes
(:func:`parse_judgment_votes`, counts up to
:data:`~socialbench.benchmarks.roboteq.schema.MAX_VOTE_COUNT`). Each returns the parsed value
and the message of everything wrong with it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from socialbench.benchmarks.roboteq.fields import decode_structured, parse_list_field
from socialbench.benchmarks.roboteq.schema import FACETS, MAX_VOTE_COUNT, normalise_label
from socialbench.metrics.roboteq import INVALID_VOTE

__all__ = ["parse_facets", "parse_judgment_votes"]


def _key_number(key: object) -> int | None:
    """The behavior number in a key such as ``"2"``, ``"b2"`` or ``2`` (at most 9 digits)."""
    m = re.search(r"\d+", str(key))
    if not m or len(m.group()) > 9:
        return None
    return int(m.group())


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


def _vote_label(lab: object) -> str | None:
    """A vote's label: proper / improper (:func:`normalise_label`) or :data:`INVALID_VOTE`."""
    if isinstance(lab, str) and lab.strip().strip(".").casefold() == INVALID_VOTE:
        return INVALID_VOTE
    return normalise_label(lab)


def _vote_counts(v: object) -> tuple[dict[str, int] | None, str | None]:
    if isinstance(v, str):
        v = [p for p in re.split(r"[,;|\s]+", v) if p]
    if isinstance(v, dict):
        counts: dict[str, int] = {}
        for lab, c in v.items():
            name = _vote_label(lab)
            if name is None or not isinstance(c, int) or isinstance(c, bool) or not 0 <= c <= MAX_VOTE_COUNT:
                return None, (
                    f"vote count {lab!r}: {c!r} is not a proper/improper/invalid count (0 to {MAX_VOTE_COUNT:,})"
                )
            counts[name] = counts.get(name, 0) + c
    elif isinstance(v, (list, tuple)):
        counts = {}
        for lab in v:
            name = _vote_label(lab)
            if name is None:
                return None, f"vote {lab!r} is not proper, improper or invalid"
            counts[name] = counts.get(name, 0) + 1
    else:
        return None, f"votes entry {v!r} is neither a list of labels nor a {{label: count}} object"
    if sum(counts.values()) < 1:
        return None, "a behavior has no votes"
    return counts, None


def parse_judgment_votes(value: object, ks: Sequence[int]) -> tuple[list[dict[str, int] | None] | None, list[str]]:
    """Per-annotator votes per behavior as ``{label: count}``, or None when absent.

    Forms: a list with one entry per behavior or a dict ``{k: entry}`` (or a JSON /
    Python-literal string of either); an entry is a list of labels, a ``{label: count}``
    object or a comma-separated string, or None / empty for a behavior without votes (its
    slot is None; the result is None when no behavior has votes).
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
