"""The JSON objects of a model reply: every top-level ``{...}`` in the text, decoded in
order, each remembering all its (key, value) pairs (a repeated key is an extra judgment,
which ``json.loads`` would hide)."""

from __future__ import annotations

import json

__all__ = ["MAX_FAILED_STARTS", "PairsObject", "json_objects"]


class PairsObject(dict[str, object]):
    """A decoded JSON object that remembers every (key, value) pair, duplicates included."""

    pairs: list[tuple[str, object]]


def _pairs_hook(pairs: list[tuple[str, object]]) -> PairsObject:
    obj = PairsObject(pairs)
    obj.pairs = list(pairs)
    return obj


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_hook)


#: ``{`` positions that may fail to start an object before the search stops: bounds the
#: work on a brace-heavy reply (each failed attempt costs time linear in the text)
MAX_FAILED_STARTS = 256


def json_objects(text: str) -> list[PairsObject]:
    """Top-level JSON objects in ``text``, in order (never raises: text nested too deeply
    to decode holds no object; the search stops after :data:`MAX_FAILED_STARTS` failures)."""
    out: list[PairsObject] = []
    pos = 0
    failed = 0
    while failed < MAX_FAILED_STARTS:
        start = text.find("{", pos)
        if start < 0:
            return out
        try:
            obj, end = _DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):
            pos = start + 1
            failed += 1
            continue
        if isinstance(obj, PairsObject):  # every decoded object is one (the pairs hook)
            out.append(obj)
        pos = end
    return out
