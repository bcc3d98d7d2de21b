"""Comparing several runs: Holm's step-down correction of their p-values (:func:`holm`)
and scene-clustered bootstrap intervals of their leaderboard ranks
(:func:`bootstrap_rank_ci`)."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from socialbench.metrics.bootstrap import as_matrix, bootstrap_weights, check_level, cluster_sums

__all__ = ["RankInterval", "holm", "bootstrap_rank_ci"]


@dataclass(frozen=True)
class RankInterval:
    """Rank of one entry of a leaderboard (1 = best) with its bootstrap interval."""

    index: int
    score: float
    rank: int
    low: int
    high: int


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values (family-wise error control), in the input order.

    Sort ascending p_(1) <= ... <= p_(m); adjusted p_(i) = max over j <= i of
    min(1, (m - j + 1) * p_(j)). Reject H_i at level alpha iff adjusted p_i <= alpha.
    """
    m = len(p_values)
    for p in p_values:
        if not 0.0 <= p <= 1.0 or math.isnan(p):
            raise ValueError(f"holm: p-values must lie in [0, 1], got {p}")
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def bootstrap_rank_ci(
    scores: ArrayLike,
    clusters: Sequence[Hashable] | None = None,
    *,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> list[RankInterval]:
    """Rank confidence intervals for a leaderboard (higher mean score = better = rank 1).

    ``scores`` is ``(n units, m entries)``: each column one run's per-unit scores on the same
    units. Each replicate resamples clusters, recomputes every column's mean and ranks them
    with competition ranking (rank = 1 + number of strictly better entries, so ties share
    the better rank). The interval is the ``(1 - level)/2`` lower and ``(1 + level)/2``
    upper percentile of each entry's replicate ranks (taken on the integer ranks, so it is
    conservative). Point ranks come from the observed means.
    """
    check_level(level)
    arr = as_matrix(scores)
    n, m = arr.shape
    data = np.column_stack([arr, np.ones(n)])
    sums = cluster_sums(data, clusters)

    def ranks_of(totals: np.ndarray) -> np.ndarray:
        means = totals[:, :m] / totals[:, m : m + 1]
        return np.asarray(1 + (means[:, None, :] > means[:, :, None]).sum(axis=2))

    observed_totals = sums.sum(axis=0)[None, :]
    point = ranks_of(observed_totals)[0]
    means = observed_totals[0, :m] / observed_totals[0, m]
    reps = np.concatenate([ranks_of(w @ sums) for w in bootstrap_weights(sums.shape[0], n_boot, seed)])
    alpha = 1.0 - level
    lows = np.quantile(reps, alpha / 2, axis=0, method="lower")
    highs = np.quantile(reps, 1 - alpha / 2, axis=0, method="higher")
    return [RankInterval(j, float(means[j]), int(point[j]), int(lows[j]), int(highs[j])) for j in range(m)]
