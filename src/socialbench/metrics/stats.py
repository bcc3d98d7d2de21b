"""Small statistics helpers shared by the metrics modules.

The aggregation in the official SocialNav-SUB postprocessing (reference
``socialnav-sub-official.md`` §e "Aggregation") reports, for every group of items, the
plain mean ``sum(values) / n`` and the standard error ``np.std(values) / sqrt(n)`` with the
population standard deviation (``ddof=0``), and 0 when ``n <= 1``. The ``paper`` protocol
uses the same formula with the sample standard deviation (``ddof=1``).

Inference helpers (below :func:`mean_se`): scene-clustered bootstrap confidence intervals
(:func:`bootstrap_mean_ci`, :func:`bootstrap_means_ci`, :func:`cluster_bootstrap`), paired tests between two runs on the
same questions (:func:`mcnemar_exact`, :func:`paired_permutation_test`,
:func:`paired_bootstrap_diff`), Holm's correction (:func:`holm`) and leaderboard rank
intervals (:func:`bootstrap_rank_ci`). They need numpy only (no scipy).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike


def mean_se(values: Sequence[float], ddof: int) -> tuple[float, float, int]:
    """Mean, standard error and count of ``values``.

    * mean = ``sum(values) / n`` (reference §e) with Python's built-in ``sum`` over the
      values in the order given: a plain left-to-right addition on Python 3.11, a
      compensated one on 3.12 and later, so the last bit of a mean can differ between
      interpreters (not between runs on one interpreter);
    * SE = std / sqrt(n), where std is ``numpy.std(values, ddof=ddof)``: ``ddof=0`` is the
      population standard deviation (official protocol), ``ddof=1`` the sample one (paper
      protocol);
    * SE is 0.0 when n <= 1 (as in the official code; with ``ddof=1`` the std is undefined
      there).

    Raises ``ValueError`` for an empty sequence or a negative ``ddof``: a mean of nothing is
    a caller bug, not a number to report.
    """
    n = len(values)
    if n == 0:
        raise ValueError("mean_se: no values to average (empty group)")
    if ddof < 0:
        raise ValueError(f"mean_se: ddof must be 0 or more, got {ddof}")
    mean = sum(values) / n
    if n <= 1 or n - ddof <= 0:
        return mean, 0.0, n
    std = float(np.std(np.asarray(values, dtype=float), ddof=ddof))
    return mean, std / math.sqrt(n), n


# =========================================================================== inference
#
# Everything below is for *comparing* numbers: confidence intervals that respect the
# clustering of questions within a scene, paired tests between two runs on the same
# questions, multiple-testing correction and rank intervals for a leaderboard.
#
# Clustering. The questions of one SocialNav-SUB sample (or of one RobotEQ scene) share the
# same images and people, so they are not independent draws. Every resampling function
# below takes ``clusters``: one hashable label per unit (e.g. the item id); units with the
# same label are resampled (or sign-flipped) together. ``clusters=None`` treats every unit
# as its own cluster (the plain i.i.d. bootstrap / permutation test).
#
# Determinism. Every random procedure takes ``seed`` and uses its own
# ``numpy.random.default_rng(seed)``: the same inputs and seed give the same output.

#: Upper bound on the number of cells of one (replicates x clusters) weight block, so the
#: bootstrap runs in bounded memory for any number of clusters.
_BLOCK_CELLS = 2_000_000


@dataclass(frozen=True)
class Interval:
    """A point estimate with a percentile bootstrap confidence interval.

    ``se`` is the standard deviation (ddof=1) of the bootstrap replicates; ``n_boot`` the
    number of replicates that gave a finite statistic (non-finite ones are dropped).
    """

    estimate: float
    low: float
    high: float
    se: float
    level: float
    n_boot: int
    n: int
    n_clusters: int


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


@dataclass(frozen=True)
class RankInterval:
    """Rank of one entry of a leaderboard (1 = best) with its bootstrap interval."""

    index: int
    score: float
    rank: int
    low: int
    high: int


def cluster_codes(clusters: Sequence[Hashable] | None, n: int) -> tuple[np.ndarray, int]:
    """Integer cluster codes ``0..G-1`` (in order of first appearance) and ``G``.

    ``None`` makes every unit its own cluster. Raises ``ValueError`` when the lengths differ.
    """
    if clusters is None:
        return np.arange(n, dtype=np.int64), n
    if len(clusters) != n:
        raise ValueError(f"clusters has {len(clusters)} labels for {n} values; give one label per value")
    codes: dict[Hashable, int] = {}
    out = np.fromiter((codes.setdefault(c, len(codes)) for c in clusters), dtype=np.int64, count=n)
    return out, len(codes)


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be between 0 and 1 (exclusive), got {level}")


def _as_matrix(data: ArrayLike) -> np.ndarray:
    arr = np.asarray(data, dtype=float)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] == 0:
        raise ValueError("bootstrap needs a non-empty 1-D or 2-D array of values (units x columns)")
    return arr


def cluster_sums(data: ArrayLike, clusters: Sequence[Hashable] | None) -> np.ndarray:
    """Column sums of ``data`` (units x columns) within each cluster: shape ``(G, k)``."""
    arr = _as_matrix(data)
    codes, g = cluster_codes(clusters, arr.shape[0])
    out = np.zeros((g, arr.shape[1]))
    np.add.at(out, codes, arr)
    return out


def bootstrap_weights(n_clusters: int, n_boot: int, seed: int) -> Iterator[np.ndarray]:
    """Yield blocks of cluster multiplicities, shape ``(b, G)``, ``n_boot`` rows in all.

    Each row is one bootstrap replicate: how many times each of the ``G`` clusters was drawn
    when drawing ``G`` clusters with replacement (a Multinomial(G, 1/G) vector).
    """
    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_CELLS // max(n_clusters, 1))
    p = np.full(n_clusters, 1.0 / n_clusters)
    done = 0
    while done < n_boot:
        b = min(block, n_boot - done)
        yield rng.multinomial(n_clusters, p, size=b).astype(float)
        done += b


def _percentile_interval(reps: np.ndarray, level: float) -> tuple[float, float]:
    alpha = 1.0 - level
    lo, hi = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


def _replicates(
    data: ArrayLike,
    clusters: Sequence[Hashable] | None,
    statistic: Callable[[np.ndarray], np.ndarray],
    n_boot: int,
    seed: int,
) -> tuple[float, np.ndarray, int, int]:
    """Point estimate, finite bootstrap replicates, n units and G clusters."""
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    arr = _as_matrix(data)
    sums = cluster_sums(arr, clusters)
    g = sums.shape[0]
    estimate = float(np.asarray(statistic(sums.sum(axis=0)[None, :]), dtype=float)[0])
    reps = np.concatenate([np.asarray(statistic(w @ sums), dtype=float) for w in bootstrap_weights(g, n_boot, seed)])
    return estimate, reps[np.isfinite(reps)], arr.shape[0], g


def cluster_bootstrap(
    data: ArrayLike,
    clusters: Sequence[Hashable] | None,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    n_boot: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> Interval:
    """Percentile bootstrap CI of a statistic of column totals, resampling whole clusters.

    ``data`` is ``(n units, k columns)`` (or 1-D for one column). ``statistic`` maps column
    totals, shape ``(r, k)``, to one value per row, shape ``(r,)``; it must be a function of
    the totals only (a mean is ``s[:, 0] / s[:, 1]`` with a column of ones, a micro-F1 is a
    function of summed TP/FP/FN counts). Each replicate draws G clusters with replacement
    and recomputes the statistic from their totals. Seeded and vectorised (runs in blocks,
    bounded memory). Replicates where the statistic is not finite are dropped.
    """
    _check_level(level)
    estimate, reps, n, g = _replicates(data, clusters, statistic, n_boot, seed)
    if reps.size == 0:
        return Interval(estimate, math.nan, math.nan, math.nan, level, 0, n, g)
    lo, hi = _percentile_interval(reps, level)
    se = float(np.std(reps, ddof=1)) if reps.size > 1 else 0.0
    return Interval(estimate, lo, hi, se, level, int(reps.size), n, g)


def _mean_of_totals(s: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(s[:, 0] / s[:, 1], dtype=float)


def bootstrap_mean_ci(
    values: Sequence[float],
    clusters: Sequence[Hashable] | None = None,
    *,
    n_boot: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> Interval:
    """Cluster-bootstrap CI of the mean of ``values`` (a micro-average over units).

    Each replicate is the mean over all units of the resampled clusters, so large clusters
    weigh more, exactly as in the point estimate.
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size == 0:
        raise ValueError("bootstrap_mean_ci: give a non-empty 1-D sequence of values")
    data = np.column_stack([v, np.ones_like(v)])
    return cluster_bootstrap(data, clusters, _mean_of_totals, n_boot=n_boot, level=level, seed=seed)


def bootstrap_means_ci(
    values: ArrayLike,
    mask: ArrayLike | None = None,
    clusters: Sequence[Hashable] | None = None,
    *,
    n_boot: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> list[Interval]:
    """Cluster-bootstrap CIs of several means at once, from the same replicates.

    ``values`` is ``(n units, k columns)``; ``mask`` (same shape, boolean; ``None`` = all
    True) says which units count in each column's mean, e.g. one column per question
    category. All columns share the cluster draws (one bootstrap instead of ``k``): a
    column's mean is treated as a domain (subpopulation) mean of the whole sample, clusters
    being drawn from all clusters. When every cluster has units in every column this is
    the same as :func:`bootstrap_mean_ci` on the column alone. A column with no unit gets
    NaN bounds.
    """
    _check_level(level)
    v = _as_matrix(values)
    m = np.ones_like(v, dtype=bool) if mask is None else np.asarray(mask, dtype=bool).reshape(v.shape)
    k = v.shape[1]
    data = np.column_stack([np.where(m, v, 0.0), m.astype(float)])

    def stat(t: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(t[:, :k] / t[:, k:], dtype=float)

    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    sums = cluster_sums(data, clusters)
    g = sums.shape[0]
    point = stat(sums.sum(axis=0)[None, :])[0]
    reps = np.concatenate([stat(w @ sums) for w in bootstrap_weights(g, n_boot, seed)])
    codes = cluster_codes(clusters, v.shape[0])[0]
    out = []
    for j in range(k):
        col = reps[:, j]
        col = col[np.isfinite(col)]
        n_j = int(m[:, j].sum())
        g_j = int(np.unique(codes[m[:, j]]).size)
        if col.size == 0:
            out.append(Interval(float(point[j]), math.nan, math.nan, math.nan, level, 0, n_j, g_j))
            continue
        lo, hi = _percentile_interval(col, level)
        se = float(np.std(col, ddof=1)) if col.size > 1 else 0.0
        out.append(Interval(float(point[j]), lo, hi, se, level, int(col.size), n_j, g_j))
    return out


# --------------------------------------------------------------------------- paired tests


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
    block = max(1, _BLOCK_CELLS // g)
    done = 0
    while done < n_perm:
        r = min(block, n_perm - done)
        signs = rng.integers(0, 2, size=(r, g)) * 2.0 - 1.0
        stats = signs @ totals / n
        hits += int(np.sum(np.abs(stats) >= abs(observed) - tol))
        done += r
    return PermutationResult(observed, (1 + hits) / (1 + n_perm), n, g, "monte-carlo", n_perm)


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
    _check_level(level)
    x, y = _paired(a, b, "paired_bootstrap_diff")
    d = x - y
    data = np.column_stack([d, np.ones_like(d)])
    obs, reps, n, g = _replicates(data, clusters, _mean_of_totals, n_boot, seed)
    lo, hi = _percentile_interval(reps, level)
    se = float(np.std(reps, ddof=1)) if reps.size > 1 else 0.0
    if obs == 0:
        p = 1.0
    else:
        tol = 1e-12 * max(1.0, abs(obs))
        hits = int(np.sum(np.abs(reps - obs) >= abs(obs) - tol))
        p = min(1.0, (1 + hits) / (1 + reps.size))
    return DiffResult(obs, lo, hi, se, p, level, int(reps.size), n, g)


# --------------------------------------------------------------------------- several runs


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
    _check_level(level)
    arr = _as_matrix(scores)
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
