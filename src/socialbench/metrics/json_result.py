"""The JSON of typed results: :class:`JsonResult`, whose JSON object is derived from its
dataclass fields, and the readers that check one JSON value each.

A result's JSON object holds its fields in declaration order, each under its own name
unless the field's metadata (:func:`json_key`) declares otherwise:

- ``key``: the JSON key (``"PA"`` for ``pa``), or a path such as ``("overall", "accuracy")``
  for a value inside a nested object;
- ``omit_none``: no key at all when the value is ``None``;
- ``flat``: the value's own JSON object is spread into this one (a header, a mapping of
  groups; nothing when the value is ``None``).

A value is written by its kind: a result as its ``to_json()``, a mapping key by key,
anything else as it is. ``from_json`` reads each field back by its declared type (``int``,
``float``, ``str``, ``X | None``, a result class, a ``TypedDict``, ``Mapping[str, X]``) and
raises ``ValueError`` naming the JSON field that does not fit. An absent key reads as the
field's default, else as ``{}`` for a mapping (a result included) and ``null`` for
anything else.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache, partial
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints, is_typeddict

__all__ = [
    "JsonObject",
    "JsonResult",
    "json_key",
    "json_object",
    "optional_float",
    "optional_int",
    "required_float",
    "required_int",
]

#: A JSON object as ``json.loads`` returns it (the data really is untyped JSON).
JsonObject = dict[str, Any]


def json_key(key: str | tuple[str, ...] = (), *, omit_none: bool = False, flat: bool = False) -> dict[str, object]:
    """Field metadata declaring how a result field appears in its JSON object (module doc);
    use as ``field(metadata=json_key("PA"))``."""
    return {"json_key": (key,) if isinstance(key, str) else key, "omit_none": omit_none, "flat": flat}


def json_object(data: object, what: str) -> Mapping[str, object]:
    """``data`` when it is a JSON object; ``ValueError`` naming ``what`` otherwise."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{what} must be a JSON object, got {type(data).__name__}")
    return data


def optional_float(value: object, what: str) -> float | None:
    """A JSON number (or null) as a float; ``ValueError`` naming ``what`` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} must be a number or null, got {value!r}")
    return value  # an integer stays one, so it is written back as it was read


def required_float(value: object, what: str) -> float:
    """A JSON number; ``ValueError`` naming ``what`` otherwise (null included)."""
    out = optional_float(value, what)
    if out is None:
        raise ValueError(f"{what} must be a number, got null")
    return out


def optional_int(value: object, what: str) -> int | None:
    """A JSON integer (or null); ``ValueError`` naming ``what`` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer or null, got {value!r}")
    return value


def required_int(value: object, what: str) -> int:
    """A JSON integer; ``ValueError`` naming ``what`` otherwise (null included)."""
    out = optional_int(value, what)
    if out is None:
        raise ValueError(f"{what} must be an integer, got null")
    return out


@dataclass(frozen=True)
class _JsonField:
    """How one dataclass field of a result is written and read."""

    name: str
    path: tuple[str, ...]
    hint: object
    omit_none: bool
    flat: bool
    missing: Callable[[], object]  # the value read when the key is absent
    write: Callable[[object], object]


@cache
def _json_fields(cls: type) -> tuple[_JsonField, ...]:
    hints = get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        path = f.metadata.get("json_key") or (f.name,)
        omit, flat = bool(f.metadata.get("omit_none")), bool(f.metadata.get("flat"))
        hint = hints[f.name]
        kind = get_origin(hint) or hint
        missing: Callable[[], object] = dict if isinstance(kind, type) and issubclass(kind, Mapping) else type(None)
        if f.default is not dataclasses.MISSING:
            missing = partial(_as_is, f.default)
        elif f.default_factory is not dataclasses.MISSING:
            missing = f.default_factory
        out.append(_JsonField(f.name, path, hint, omit, flat, missing, _writer(hint)))
    return tuple(out)


def _as_is(value: object) -> object:
    return value


def _writer(hint: object) -> Callable[[object], object]:
    """How a value of the declared type ``hint`` is written as JSON (module doc)."""
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = _writer(args[0] if args[1] is type(None) else args[1])
        return _as_is if inner is _as_is else partial(_unless_none, inner)
    kind = origin or hint
    if isinstance(kind, type) and issubclass(kind, JsonResult):
        return _result_json
    if isinstance(kind, type) and issubclass(kind, Mapping):  # a mapping or a TypedDict
        inner = _writer(args[1]) if origin is Mapping else _as_is
        return _mapping_copy if inner is _as_is else partial(_mapping_json, inner)
    return _as_is


def _unless_none(write: Callable[[object], object], value: object) -> object:
    return None if value is None else write(value)


def _result_json(value: object) -> object:
    return value.to_json() if isinstance(value, JsonResult) else value


def _mapping_copy(value: object) -> object:
    return dict(value) if isinstance(value, Mapping) else value


def _mapping_json(write: Callable[[object], object], value: object) -> object:
    return {k: write(v) for k, v in value.items()} if isinstance(value, Mapping) else value


def _read_typeddict(value: object, hint: type, what: str) -> dict[str, object]:
    d = json_object(value, what)
    required: frozenset[str] = getattr(hint, "__required_keys__", frozenset())
    out: dict[str, object] = {}
    for key, field_hint in get_type_hints(hint).items():
        if key in d or key in required:
            out[key] = _read(d.get(key), field_hint, f"{what}.{key}")
    return out


def _read(value: object, hint: object, what: str) -> object:
    """``value`` read as the declared type ``hint`` (module doc); ``ValueError`` naming
    ``what`` when it does not fit."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is object:
        return value
    if hint is int:
        return required_int(value, what)
    if hint is float:
        return required_float(value, what)
    if hint is str:
        return str(value)
    if origin in (Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = args[0] if args[1] is type(None) else args[1]
        return None if value is None else _read(value, inner, what)
    if isinstance(hint, type) and is_typeddict(hint):
        return _read_typeddict(value, hint, what)
    if isinstance(hint, type) and issubclass(hint, JsonResult):
        return hint.from_json(value, what)
    if isinstance(origin, type) and issubclass(origin, JsonResult):
        return origin.from_json_of(args, value, what)
    if origin is Mapping:
        return {str(k): _read(v, args[1], f"{what}.{k}") for k, v in json_object(value, what).items()}
    raise TypeError(f"{what}: no JSON reader for the declared type {hint!r}")


R = TypeVar("R", bound="JsonResult")


class JsonResult(Mapping[str, Any]):
    """A typed result (a frozen dataclass) that reads like the JSON object it serialises to."""

    def to_json(self) -> JsonObject:
        """The JSON object of this result, as written to ``metrics.json`` (module doc)."""
        out: JsonObject = {}
        for f in _json_fields(type(self)):
            value = getattr(self, f.name)
            if value is None and (f.omit_none or f.flat):
                continue
            written = f.write(value)
            if f.flat and isinstance(written, Mapping):
                out.update(written)
                continue
            target = out
            for part in f.path[:-1]:
                target = target.setdefault(part, {})
            target[f.path[-1]] = written
        return out

    @classmethod
    def from_json(cls: type[R], data: object, what: str = "metrics.json") -> R:
        """The result of this type in ``data`` (the JSON that :meth:`to_json` writes);
        ``ValueError`` naming the field (``what``) that does not fit."""
        d = json_object(data, what)
        values: dict[str, object] = {}
        for f in _json_fields(cls):
            if f.flat:
                values[f.name] = _read(d, f.hint, what)
                continue
            where, path = d, what
            for part in f.path[:-1]:
                path = f"{path}.{part}"
                where = json_object(where.get(part, {}), path)
            key = f.path[-1]
            values[f.name] = _read(where[key] if key in where else f.missing(), f.hint, f"{path}.{key}")
        return cls(**values)

    @classmethod
    def from_json_of(cls, type_args: tuple[object, ...], data: object, what: str) -> JsonResult:
        """The result of the generic ``cls[*type_args]`` in ``data`` (for a generic result)."""
        raise TypeError(f"{what}: {cls.__name__} is not a generic result")

    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_json())

    def __len__(self) -> int:
        return len(self.to_json())
