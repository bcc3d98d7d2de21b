"""Consistency of a model's answers to a question and its mapped-back variant."""

from __future__ import annotations

import pytest

from socialbench.metrics.consistency import ConsistencyPair, consistency_summary
from socialbench.types import Question

Q1 = Question("q_a_p1", "q_a", "Spatial reasoning", "single", "?", ("x", "y"), person=1)
Q2 = Question("q_b_p1", "q_b", "Social reasoning", "single", "?", ("x", "y"), person=1)


def test_rate_counts_same_answers():
    out = consistency_summary([ConsistencyPair("s1", Q1, "x", "x"), ConsistencyPair("s1", Q2, "x", "y")])
    assert out["All"]["consistency"] == 0.5 and out["All"]["n"] == 2


def test_rates_per_question_type_category_and_item():
    pairs = [
        ConsistencyPair("s1", Q1, "x", "x"),
        ConsistencyPair("s2", Q1, "y", "x"),
        ConsistencyPair("s2", Q2, "y", "y"),
    ]
    out = consistency_summary(pairs)
    assert out["by_question"]["q_a"]["consistency"] == 0.5
    assert out["by_category"]["Social reasoning"]["consistency"] == 1.0
    assert out["by_item"]["s2"]["consistency"] == 0.5


def test_failed_calls_are_counted_not_scored():
    out = consistency_summary([ConsistencyPair("s1", Q1, "x", "x"), ConsistencyPair("s1", Q1, "x", None, failed=True)])
    assert (out["All"]["n"], out["All"]["n_failed"], out["All"]["consistency"]) == (1, 1, 1.0)


def test_invalid_answers_are_counted_not_scored():
    out = consistency_summary([ConsistencyPair("s1", Q1, None, "x")])
    assert (out["All"]["n"], out["All"]["n_invalid"], out["All"]["consistency"]) == (0, 1, None)


def test_standard_error_is_the_sample_std_over_root_n():
    out = consistency_summary([ConsistencyPair("s", Q1, "x", "x"), ConsistencyPair("s", Q1, "x", "y")])
    assert out["All"]["se"] == pytest.approx(0.5)  # std([1, 0], ddof=1) / sqrt(2)
