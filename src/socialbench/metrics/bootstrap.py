"""Scene-clustered bootstrap confidence intervals (:func:`bootstrap_mean_ci`,
:func:`bootstrap_means_ci`, :func:`cluster_bootstrap`) and the resampling helpers the paired
tests and rank intervals share.

Inference (here, paired tests between two runs in :mod:`socialbench.metrics.paired_tests`,
Holm's correction and rank intervals in :mod:`socialbench.metrics.ranking`; numpy only).

Clustering. The questions of one SocialNav-SUB sample (or of one RobotEQ scene) share the
same images and people, so they are not independent draws. Every resampling function
below takes ``clusters``: one hashable label per unit (e.g. the item id); units with the
same label are resampled (or sign-flipped) together. ``clusters=None`` treats every unit
as its own cluster (the plain i.i.d. bootstrap / permutation test).

Determinism. Every random procedure takes ``seed`` and uses its own
``numpy.random.default_rng(seed)``: the same inputs and seed give the same output.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "BLOCK_CELLS",
    "Interval",
    "cluster_codes",
    "check_level",
    "as_matrix",
    "cluster_sums",
    "bootstrap_weights",
    "percentile_interval",
    "replicates",
    "cluster_bootstrap",
    "mean_of_totals",
    "bootstrap_mean_ci",
    "bootstrap_means_ci",
]

#: Upper bound on the number of cells of one (replicates x clusters) weight block, so the
#: bootstrap runs in bounded memory for any number of clusters.
BLOCK_CELLS = 2_000_000


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


def check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be between 0 and 1 (exclusive), got {level}")


def as_matrix(data: ArrayLike) -> np.ndarray:
    arr = np.asarray(data, dtype=float)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] == 0:
        raise ValueError("bootstrap needs a non-empty 1-D or 2-D array of values (units x columns)")
    return arr


def cluster_sums(data: ArrayLike, clusters: Sequence[Hashable] | None) -> np.ndarray:
    """Column sums of ``data`` (units x columns) within each cluster: shape ``(G, k)``."""
    arr = as_matrix(data)
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
    block = max(1, BLOCK_CELLS // max(n_clusters, 1))
    p = np.full(n_clusters, 1.0 / n_clusters)
    done = 0
    while done < n_boot:
        b = min(block, n_boot - done)
        yield rng.multinomial(n_clusters, p, size=b).astype(float)
        done += b


def percentile_interval(reps: np.ndarray, level: float) -> tuple[float, float]:
    alpha = 1.0 - level
    lo, hi = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


def replicates(
    data: ArrayLike,
    clusters: Sequence[Hashable] | None,
    statistic: Callable[[np.ndarray], np.ndarray],
    n_boot: int,
    seed: int,
) -> tuple[float, np.ndarray, int, int]:
    """Point estimate, finite bootstrap replicates, n units and G clusters."""
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    arr = as_matrix(data)
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
    check_level(level)
    estimate, reps, n, g = replicates(data, clusters, statistic, n_boot, seed)
    if reps.size == 0:
        return Interval(estimate, math.nan, math.nan, math.nan, level, 0, n, g)
    lo, hi = percentile_interval(reps, level)
    se = float(np.std(reps, ddof=1)) if reps.size > 1 else 0.0
    return Interval(estimate, lo, hi, se, level, int(reps.size), n, g)


def mean_of_totals(s: np.ndarray) -> np.ndarray:
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
    return cluster_bootstrap(data, clusters, mean_of_totals, n_boot=n_boot, level=level, seed=seed)


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
    check_level(level)
    v = as_matrix(values)
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
        lo, hi = percentile_interval(col, level)
        se = float(np.std(col, ddof=1)) if col.size > 1 else 0.0
        out.append(Interval(float(point[j]), lo, hi, se, level, int(col.size), n_j, g_j))
    return out
