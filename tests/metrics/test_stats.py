"""Tests for socialbench.metrics.stats.mean_se (SE = std / sqrt(n), reference §e)."""

from __future__ import annotations

import math

import pytest

from socialbench.metrics.stats import mean_se


def test_population_se_ddof0() -> None:
    # values 1..4: mean 2.5, population variance 1.25 -> SE = sqrt(1.25)/2
    mean, se, n = mean_se([1.0, 2.0, 3.0, 4.0], ddof=0)
    assert (mean, n) == (2.5, 4)
    assert se == pytest.approx(math.sqrt(1.25) / 2, abs=1e-15)


def test_sample_se_ddof1() -> None:
    # sample variance (sum of squared deviations 5) / 3 -> SE = sqrt(5/3)/2
    mean, se, n = mean_se([1.0, 2.0, 3.0, 4.0], ddof=1)
    assert mean == 2.5 and n == 4
    assert se == pytest.approx(math.sqrt(5 / 3) / 2, abs=1e-15)


def test_single_value_has_zero_se_for_both_ddofs() -> None:
    assert mean_se([0.7], ddof=0) == (0.7, 0.0, 1)
    assert mean_se([0.7], ddof=1) == (0.7, 0.0, 1)


def test_mean_is_left_to_right_sum_over_n() -> None:
    # The official CumulativeMetric divides a plain left-to-right sum by n; ten 0.1s sum to
    # 0.9999999999999999 in IEEE doubles, so the mean is not exactly 0.1.
    values = [0.1] * 10
    mean, _, _ = mean_se(values, ddof=0)
    assert mean == 0.9999999999999999 / 10
    assert mean != math.fsum(values) / 10


def test_empty_values_raise() -> None:
    with pytest.raises(ValueError, match="empty"):
        mean_se([], ddof=0)


def test_negative_ddof_raises() -> None:
    with pytest.raises(ValueError, match="ddof"):
        mean_se([1.0, 2.0], ddof=-1)
