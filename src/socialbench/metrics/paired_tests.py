"""Paired tests between two runs on the same questions: exact McNemar
(:func:`mcnemar_exact`), the sign-flip permutation test (:func:`paired_permutation_test`) and
the paired bootstrap of a difference (:func:`paired_bootstrap_diff`), each clustered by scene
(see :mod:`socialbench.metrics.bootstrap`) and seeded."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from socialbench.metrics.bootstrap import (
    BLOCK_CELLS,
    check_level,
    cluster_sums,
    mean_of_totals,
    percentile_interval,
    replicates,
)

__all__ = [
    "McNemarResult",
    "PermutationResult",
    "DiffResult",
    "binom_half_two_sided",
    "mcnemar_exact",
    "paired_permutation_test",
    "paired_bootstrap_diff",
]


@dataclass(frozen=True)
class McNemarResult:
    """Exact McNemar test on paired binary outcomes.

    ``a_only``: units A got right and B wrong; ``b_only``: the reverse; the test uses only
    these discordant pairs: under H0 ``a_only ~ Binomial(a_only + b_only, 1/2)``.
    ``diff`` is the difference in accuracy (A - B) = (a_only - b_only) / n.
    """

    n: int
    both: int
    a_only: int
    b_only: int
    neither: int
    diff: float
    p_value: float


@dataclass(frozen=True)
class PermutationResult:
    """Paired sign-flip permutation test of mean(a - b) = 0.

    ``method`` is ``"exact"`` (all 2^G sign patterns of the G clusters enumerated) or
    ``"monte-carlo"`` (``n_perm`` random patterns, p = (1 + hits) / (1 + n_perm)).
    """

    diff: float
    p_value: float
    n: int
    n_clusters: int
    method: str
    n_perm: int


@dataclass(frozen=True)
class DiffResult:
    """Scene-clustered paired bootstrap of mean(a) - mean(b).

    CI: percentile interval of the replicate differences. p-value: the share of centred
    replicates at least as far from 0 as the observed difference,
    ``(1 + #{|d* - d| >= |d|}) / (1 + n_boot)`` (the bootstrap test of H0: no difference).
    """

    diff: float
    low: float
    high: float
    se: float
    p_value: float
    level: float
    n_boot: int
    n: int
    n_clusters: int


def binom_half_two_sided(k: int, n: int) -> float:
    """Exact two-sided p-value of ``k`` successes in ``n`` trials under Binomial(n, 1/2).

    p = min(1, 2 * P(X <= min(k, n - k))), the same as ``scipy.stats.binomtest(k, n, 0.5)``
    (the distribution is symmetric). Computed in log space, stable for large ``n``.
    """
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 1.0
    m = min(k, n - k)
    j = np.arange(1, m + 1, dtype=float)
    log_comb = np.concatenate([[0.0], np.cumsum(np.log((n - j + 1) / j))])  # log C(n, i), i=0..m
    log_terms = log_comb - n * math.log(2.0)
    top = float(log_terms.max())
    log_cdf = top + math.log(float(np.exp(log_terms - top).sum()))
    return min(1.0, 2.0 * math.exp(log_cdf))


def _paired(a: ArrayLike, b: ArrayLike, what: str) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"{what}: a and b must be 1-D and the same length (got {x.shape} and {y.shape})")
    if x.size == 0:
        raise ValueError(f"{what}: no paired values")
    return x, y


def mcnemar_exact(a_correct: ArrayLike, b_correct: ArrayLike) -> McNemarResult:
    """Exact (binomial) McNemar test for two classifiers scored on the same units.

    p-value = :func:`binom_half_two_sided` (a_only, a_only + b_only); 1.0 when there are no
    discordant pairs.
    """
    x, y = _paired(a_correct, b_correct, "mcnemar_exact")
    xa, yb = x.astype(bool), y.astype(bool)
    both = int(np.sum(xa & yb))
    a_only = int(np.sum(xa & ~yb))
    b_only = int(np.sum(~xa & yb))
    neither = int(np.sum(~xa & ~yb))
    n = xa.size
    p = binom_half_two_sided(a_only, a_only + b_only)
    return McNemarResult(n, both, a_only, b_only, neither, (a_only - b_only) / n, p)


#: Up to this many clusters the sign-flip test enumerates every pattern (2^16 = 65,536).
EXACT_PERMUTATION_MAX_CLUSTERS = 16


def paired_permutation_test(
    a: Sequence[float],
    b: Sequence[float],
    clusters: Sequence[Hashable] | None = None,
    *,
    n_perm: int = 10_000,
    seed: int = 0,
) -> PermutationResult:
    """Paired permutation (sign-flip) test of H0: mean(a - b) = 0.

    Under H0 the labels A and B are exchangeable within each pair, and with ``clusters``
    within each whole cluster: the statistic ``mean(d)`` is recomputed with the cluster
    totals of ``d = a - b`` multiplied by random signs. Two-sided: a pattern counts when
    ``|T*| >= |T|`` (with a 1e-12 relative tolerance for rounding). With at most
    :data:`EXACT_PERMUTATION_MAX_CLUSTERS` clusters every pattern is enumerated (exact
    p-value); otherwise ``n_perm`` seeded random patterns are used and
    p = (1 + hits) / (1 + n_perm).
    """
    x, y = _paired(a, b, "paired_permutation_test")
    d = x - y
    n = d.size
    totals = cluster_sums(d, clusters)[:, 0]
    g = totals.size
    observed = float(d.mean())
    tol = 1e-12 * max(1.0, float(np.abs(totals).sum()) / n)
    if g <= EXACT_PERMUTATION_MAX_CLUSTERS:
        patterns = ((np.arange(2**g)[:, None] >> np.arange(g)) & 1) * 2.0 - 1.0
        stats = patterns @ totals / n
        hits = int(np.sum(np.abs(stats) >= abs(observed) - tol))
        return PermutationResult(observed, hits / 2**g, n, g, "exact", 2**g)
    if n_perm < 1:
        raise ValueError(f"n_perm must be at least 1, got {n_perm}")
    rng = np.random.default_rng(seed)
    hits = 0
    block = max(1, BLOCK_CELLS // g)
    done = 0
    while done < n_perm:
        r = min(block, n_perm - done)
        signs = rng.integers(0, 2, size=(r, g)) * 2.0 - 1.0
        stats = signs @ totals / n
        hits += int(np.sum(np.abs(stats) >= abs(observed) - tol))
        done += r
    return PermutationResult(observed, (1 + hits) / (1 + n_perm), n, g, "monte-carlo", n_perm)


def distinct_resamples(n_clusters: int) -> int:
    """How many different resamples a cluster bootstrap of ``n_clusters`` clusters can draw:
    the multisets of size g from g clusters, ``C(2g - 1, g)`` (1 for one cluster, 3 for two,
    10 for three, 35 for four, 126 for five)."""
    if n_clusters < 1:
        return 0
    return math.comb(2 * n_clusters - 1, n_clusters)


def min_bootstrap_clusters(level: float = 0.95) -> int:
    """The fewest clusters for which a percentile bootstrap interval at ``level`` (and its
    p-value) can mean anything: the least g whose :func:`distinct_resamples` reach
    ``2 / (1 - level)``, so that each tail of ``(1 - level) / 2`` can hold one resample
    (40 at 95%: 5 clusters; 200 at 99%: 6). With fewer, the interval has too few distinct
    values (one cluster: zero width, and p = 1 / (1 + n_boot) whatever the data)."""
    check_level(level)
    need = 2.0 / (1.0 - level)
    g = 1
    while distinct_resamples(g) < need:
        g += 1
    return g


def paired_bootstrap_diff(
    a: Sequence[float],
    b: Sequence[float],
    clusters: Sequence[Hashable] | None = None,
    *,
    n_boot: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> DiffResult:
    """Scene-clustered paired bootstrap of ``mean(a) - mean(b)`` on the same units.

    Clusters are resampled with replacement, keeping the pairing (both runs' scores of a
    unit move together). Returns the difference, its percentile CI, the bootstrap SE and
    the centred bootstrap p-value (see :class:`DiffResult`).
    """
    check_level(level)
    x, y = _paired(a, b, "paired_bootstrap_diff")
    d = x - y
    data = np.column_stack([d, np.ones_like(d)])
    obs, reps, n, g = replicates(data, clusters, mean_of_totals, n_boot, seed)
    lo, hi = percentile_interval(reps, level)
    se = float(np.std(reps, ddof=1)) if reps.size > 1 else 0.0
    if obs == 0:
        p = 1.0
    else:
        tol = 1e-12 * max(1.0, abs(obs))
        hits = int(np.sum(np.abs(reps - obs) >= abs(obs) - tol))
        p = min(1.0, (1 + hits) / (1 + reps.size))
    return DiffResult(obs, lo, hi, se, p, level, int(reps.size), n, g)
