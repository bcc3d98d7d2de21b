"""Exact-set accuracy, Jaccard and option-level F1 for multiple-select answers."""

from __future__ import annotations

import pytest

from socialbench.metrics.grounding import exact_set_match, jaccard, option_unit_counts

OPTIONS = ("A", "B", "C", "D")


def test_exact_set_match_ignores_order() -> None:
    assert exact_set_match({"A", "C"}, {"C", "A"}) == 1.0
    assert exact_set_match({"A", "C"}, {"A"}) == 0.0
    assert exact_set_match({"A"}, None) == 0.0


def test_jaccard_is_intersection_over_union() -> None:
    assert jaccard({"A", "C"}, {"A", "B"}) == pytest.approx(1 / 3)
    assert jaccard({"A"}, {"A"}) == 1.0
    assert jaccard({"A"}, None) == 0.0
    assert jaccard(set(), set()) == 1.0


def test_option_counts_by_hand() -> None:
    counts = option_unit_counts([{"A", "C"}, {"B"}], [{"A", "B"}, None], OPTIONS).sum(axis=0)
    # A: TP 1; B: FP 1 (q1) + FN 1 (q2 invalid); C: FN 1; D: nothing
    assert counts.tolist() == [[1, 0, 0], [0, 1, 1], [0, 0, 1], [0, 0, 0]]


def test_gold_outside_the_options_is_rejected() -> None:
    with pytest.raises(ValueError, match="not in"):
        option_unit_counts([{"E"}], [{"A"}], OPTIONS)
