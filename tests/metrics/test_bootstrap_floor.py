"""How few clusters a scene-clustered bootstrap can use (:func:`min_bootstrap_clusters`)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from socialbench.metrics.paired_tests import distinct_resamples, min_bootstrap_clusters, paired_bootstrap_diff


@pytest.mark.parametrize("g", [1, 2, 3, 4])
def test_distinct_resamples_counts_the_multisets_of_g_clusters(g: int) -> None:
    found = {tuple(sorted(c)) for c in itertools.product(range(g), repeat=g)}
    assert distinct_resamples(g) == len(found)


def test_a_95_percent_interval_needs_five_clusters() -> None:
    assert (distinct_resamples(4), distinct_resamples(5)) == (35, 126)
    assert min_bootstrap_clusters(0.95) == 5


def test_a_99_percent_interval_needs_six_clusters() -> None:
    assert min_bootstrap_clusters(0.99) == 6


def test_one_cluster_is_why_the_floor_exists() -> None:
    # with one cluster every replicate is the observed difference: a zero-width interval and
    # the smallest p the bootstrap can give, whatever the data
    a, b = np.array([1.0, 0.0, 1.0]), np.array([0.0, 0.0, 1.0])
    r = paired_bootstrap_diff(a, b, ["s", "s", "s"], n_boot=99)
    assert r.low == r.high and r.p_value == pytest.approx(1 / 100)
