"""Tests for socialbench.metrics.json_result: a result's JSON derived from its fields."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypedDict

import pytest

from socialbench.metrics.json_result import JsonResult, json_key


class _Costs(TypedDict, total=False):
    tokens: int
    note: str


@dataclass(frozen=True, eq=False)
class _Inner(JsonResult):
    value: float | None
    n: int | None = field(default=None, metadata=json_key(omit_none=True))


@dataclass(frozen=True, eq=False)
class _Outer(JsonResult):
    head: _Inner = field(metadata=json_key(flat=True))
    pa: float = field(metadata=json_key("PA"))
    best: _Inner = field(metadata=json_key(("overall", "best")))
    groups: Mapping[str, _Inner]
    costs: _Costs
    label: str = "none"


def _outer() -> _Outer:
    return _Outer(_Inner(0.5, 3), 0.25, _Inner(None), {"a": _Inner(1.0)}, {"note": "x", "tokens": 2})


def test_keys_follow_the_declaration_with_renames_flat_and_nested_fields() -> None:
    assert list(_outer().to_json().items()) == [
        ("value", 0.5),
        ("n", 3),
        ("PA", 0.25),
        ("overall", {"best": {"value": None}}),
        ("groups", {"a": {"value": 1.0}}),
        ("costs", {"note": "x", "tokens": 2}),
        ("label", "none"),
    ]


def test_from_json_reads_back_the_same_json() -> None:
    out = _outer().to_json()
    assert _Outer.from_json(out).to_json() == out


def test_an_absent_key_reads_as_the_field_default_or_an_empty_mapping() -> None:
    out = {k: v for k, v in _outer().to_json().items() if k not in ("label", "groups")}
    again = _Outer.from_json(out)
    assert (again.label, dict(again.groups)) == ("none", {})


def test_from_json_names_the_field_that_does_not_fit() -> None:
    bad = {**_outer().to_json(), "groups": {"a": {"value": "high"}}}
    with pytest.raises(ValueError, match=r"^metrics.json.groups.a.value must be a number or null, got 'high'$"):
        _Outer.from_json(bad)


def test_a_typed_dict_keeps_the_keys_it_declares_in_their_declared_order() -> None:
    out = {**_outer().to_json(), "costs": {"note": "y", "extra": 1, "tokens": 5}}
    assert list(_Outer.from_json(out).costs.items()) == [("tokens", 5), ("note", "y")]
