"""Metamorphic consistency: does a model give the same answer to a question and to its
transformed variant, once the variant's answer is mapped back?

A *pair* is one question of one item answered both ways. It is

* ``failed`` when either model call failed (an error kind is set): not scored, counted;
* ``invalid`` when either answer could not be parsed into a valid option: not scored,
  counted (an unreadable answer is not evidence of position bias either way);
* otherwise consistent (1) or not (0).

:func:`consistency_summary` gives the rate with its standard error (sample std / sqrt n)
overall, per reasoning category, per question type (base key) and per item, plus the
counts of failed and invalid pairs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from socialbench.metrics.results import ConsistencyRate, ConsistencySummary
from socialbench.types import Answer, Question

__all__ = ["ConsistencyPair", "consistency_summary"]


@dataclass(frozen=True)
class ConsistencyPair:
    """The original question's answer and the variant's answer mapped back."""

    item_id: str
    question: Question  # the original question
    clean: Answer | None
    mapped_back: Answer | None
    failed: bool = False


def _rate(values: list[float], failed: int, invalid: int) -> ConsistencyRate:
    n = len(values)
    mean = sum(values) / n if n else None
    se = None
    if n > 1 and mean is not None:
        var = sum((v - mean) ** 2 for v in values) / (n - 1)
        se = math.sqrt(var / n)
    return ConsistencyRate(consistency=mean, se=se, n=n, n_failed=failed, n_invalid=invalid)


def consistency_summary(pairs: Sequence[ConsistencyPair]) -> ConsistencySummary:
    """Consistency overall, per category, per question type (base key) and per item.

    JSON: ``{"All": R, "by_category": {..: R}, "by_question": {base_key: R}, "by_item":
    {item_id: R}}`` where R is ``{"consistency", "se", "n", "n_failed", "n_invalid"}``
    (``consistency`` is None when no pair of the group could be scored)."""
    groups: dict[tuple[str, str], tuple[list[float], list[int]]] = {}

    def add(kind: str, key: str, value: float | None, failed: bool) -> None:
        values, counts = groups.setdefault((kind, key), ([], [0, 0]))
        if failed:
            counts[0] += 1
        elif value is None:
            counts[1] += 1
        else:
            values.append(value)

    for p in pairs:
        value = None
        if not p.failed and p.clean is not None and p.mapped_back is not None:
            value = 1.0 if p.clean == p.mapped_back else 0.0
        for kind, key in (
            ("All", "All"),
            ("by_category", p.question.category),
            ("by_question", p.question.base_key),
            ("by_item", p.item_id),
        ):
            add(kind, key, value, p.failed)
    overall = _rate([], 0, 0)
    by_kind: dict[str, dict[str, ConsistencyRate]] = {"by_category": {}, "by_question": {}, "by_item": {}}
    for (kind, key), (values, (failed, invalid)) in groups.items():
        rate = _rate(values, failed, invalid)
        if kind == "All":
            overall = rate
        else:
            by_kind[kind][key] = rate
    return ConsistencySummary(overall, by_kind["by_category"], by_kind["by_question"], by_kind["by_item"])
