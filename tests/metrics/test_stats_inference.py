"""Inference helpers of socialbench.metrics (bootstrap, paired_tests, ranking): bootstrap CIs,
paired tests, Holm, ranks.

Checked against closed forms, scipy (a test-only dependency) and simulation.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

scipy_stats = pytest.importorskip("scipy.stats")

from socialbench.metrics.bootstrap import (  # noqa: E402
    bootstrap_mean_ci,
    bootstrap_means_ci,
    cluster_bootstrap,
    cluster_codes,
)
from socialbench.metrics.paired_tests import (  # noqa: E402
    binom_half_two_sided,
    mcnemar_exact,
    paired_bootstrap_diff,
    paired_permutation_test,
)
from socialbench.metrics.ranking import bootstrap_rank_ci, holm  # noqa: E402

# --------------------------------------------------------------------------- binomial / McNemar


@pytest.mark.parametrize("n", [1, 2, 7, 20, 51, 200])
def test_binomial_p_matches_scipy_binomtest_for_every_k(n: int) -> None:
    for k in range(n + 1):
        expected = scipy_stats.binomtest(k, n, 0.5).pvalue
        assert binom_half_two_sided(k, n) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_binomial_p_is_stable_for_large_n() -> None:
    expected = scipy_stats.binomtest(2400, 5000, 0.5).pvalue
    assert binom_half_two_sided(2400, 5000) == pytest.approx(expected, rel=1e-7)


def test_binomial_p_with_no_trials_is_one() -> None:
    assert binom_half_two_sided(0, 0) == 1.0


def test_mcnemar_counts_discordant_pairs_and_matches_binomtest() -> None:
    rng = np.random.default_rng(3)
    a = rng.random(300) < 0.7
    b = rng.random(300) < 0.6
    res = mcnemar_exact(a, b)
    a_only = int(np.sum(a & ~b))
    b_only = int(np.sum(~a & b))
    assert (res.a_only, res.b_only) == (a_only, b_only)
    assert res.both + res.neither + a_only + b_only == 300
    assert res.diff == pytest.approx(a.mean() - b.mean())
    assert res.p_value == pytest.approx(scipy_stats.binomtest(a_only, a_only + b_only, 0.5).pvalue, rel=1e-9)


def test_mcnemar_without_discordant_pairs_has_p_one() -> None:
    same = [True, False, True]
    assert mcnemar_exact(same, same).p_value == 1.0


def test_mcnemar_rejects_unequal_lengths() -> None:
    with pytest.raises(ValueError, match="same length"):
        mcnemar_exact([True], [True, False])


# --------------------------------------------------------------------------- bootstrap


def test_cluster_codes_follow_first_appearance_and_check_length() -> None:
    codes, g = cluster_codes(["s2", "s1", "s2"], 3)
    assert codes.tolist() == [0, 1, 0] and g == 2
    with pytest.raises(ValueError, match="one label per value"):
        cluster_codes(["a"], 2)


def test_bootstrap_resamples_whole_clusters() -> None:
    # Two equal clusters, all 0s and all 1s: any replicate mean is 0, 1/2 or 1.
    values = [0.0] * 5 + [1.0] * 5
    clusters = ["a"] * 5 + ["b"] * 5
    ci = bootstrap_mean_ci(values, clusters, n_boot=500, seed=1)
    assert ci.estimate == 0.5 and ci.n_clusters == 2 and ci.n == 10
    assert {ci.low, ci.high} <= {0.0, 0.5, 1.0}


def test_bootstrap_is_seeded() -> None:
    values = np.random.default_rng(0).random(40)
    a = bootstrap_mean_ci(values, n_boot=300, seed=5)
    b = bootstrap_mean_ci(values, n_boot=300, seed=5)
    c = bootstrap_mean_ci(values, n_boot=300, seed=6)
    assert a == b
    assert (a.low, a.high) != (c.low, c.high)


def test_bootstrap_se_of_iid_mean_is_close_to_closed_form() -> None:
    values = np.random.default_rng(2).normal(size=400)
    ci = bootstrap_mean_ci(values, n_boot=4000, seed=0)
    closed = values.std(ddof=0) / np.sqrt(values.size)
    assert ci.se == pytest.approx(closed, rel=0.06)


def _clustered_sample(rng: np.random.Generator, n_clusters: int, size: int) -> tuple[np.ndarray, list[int]]:
    # Strong scene effect (ICC 0.5): true mean 0.
    effects = rng.normal(0.0, 1.0, n_clusters)
    values = np.repeat(effects, size) + rng.normal(0.0, 1.0, n_clusters * size)
    return values, [i // size for i in range(n_clusters * size)]


def test_cluster_bootstrap_coverage_is_near_nominal_on_clustered_data() -> None:
    rng = np.random.default_rng(11)
    covered = 0
    trials = 300
    for t in range(trials):
        values, clusters = _clustered_sample(rng, 30, 8)
        ci = bootstrap_mean_ci(values, clusters, n_boot=400, seed=t)
        covered += ci.low <= 0.0 <= ci.high
    assert 0.89 <= covered / trials <= 0.99


def test_iid_bootstrap_undercovers_clustered_data() -> None:
    # Ignoring the scenes pretends there are 240 independent values: the CI is far too narrow.
    rng = np.random.default_rng(11)
    covered = 0
    trials = 100
    for t in range(trials):
        values, _ = _clustered_sample(rng, 30, 8)
        ci = bootstrap_mean_ci(values, None, n_boot=200, seed=t)
        covered += ci.low <= 0.0 <= ci.high
    assert covered / trials < 0.8


def test_cluster_bootstrap_of_a_ratio_statistic() -> None:
    # Statistic of totals: TP / (TP + FP) (a precision), resampled by unit.
    data = np.array([[1, 0], [1, 0], [0, 1], [1, 0]], dtype=float)
    ci = cluster_bootstrap(data, None, lambda s: s[:, 0] / (s[:, 0] + s[:, 1]), n_boot=200, seed=0)
    assert ci.estimate == 0.75
    assert 0.0 <= ci.low <= 0.75 <= ci.high <= 1.0


def test_bootstrap_rejects_bad_level() -> None:
    with pytest.raises(ValueError, match="level"):
        bootstrap_mean_ci([1.0, 2.0], level=95)


# --------------------------------------------------------------------------- paired tests


def _brute_force_sign_flip_p(totals: list[float], n: int) -> float:
    observed = abs(sum(totals) / n)
    patterns = np.array(list(itertools.product((-1.0, 1.0), repeat=len(totals))))
    flipped = np.abs(patterns @ np.asarray(totals) / n)
    return float(np.mean(flipped >= observed - 1e-12))


def test_exact_permutation_matches_brute_force_by_cluster() -> None:
    a = [0.9, 0.8, 0.4, 1.0, 0.3, 0.7, 0.6]
    b = [0.5, 0.8, 0.6, 0.2, 0.3, 0.1, 0.9]
    clusters = ["x", "x", "y", "z", "z", "w", "w"]
    d = np.subtract(a, b)
    totals = [d[0] + d[1], d[2], d[3] + d[4], d[5] + d[6]]
    res = paired_permutation_test(a, b, clusters)
    assert res.method == "exact" and res.n_perm == 16
    assert res.p_value == pytest.approx(_brute_force_sign_flip_p(totals, 7))
    assert res.diff == pytest.approx(d.mean())


def test_exact_permutation_matches_scipy_paired_permutation_test() -> None:
    rng = np.random.default_rng(4)
    a = rng.random(10)
    b = a - 0.15 + rng.normal(0, 0.2, 10)
    ours = paired_permutation_test(a, b)
    ref = scipy_stats.permutation_test(
        (a, b), lambda x, y: np.mean(x - y), permutation_type="samples", n_resamples=np.inf, vectorized=False
    )
    assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-9)


def test_monte_carlo_permutation_is_close_to_exact() -> None:
    rng = np.random.default_rng(8)
    a = rng.random(17)
    b = a - 0.1 + rng.normal(0, 0.25, 17)
    totals = list(np.subtract(a, b))
    exact = _brute_force_sign_flip_p(totals, 17)
    mc = paired_permutation_test(a, b, n_perm=20_000, seed=1)
    assert mc.method == "monte-carlo"
    assert mc.p_value == pytest.approx(exact, abs=0.01)


def test_paired_bootstrap_detects_a_shift_and_not_its_absence() -> None:
    rng = np.random.default_rng(5)
    clusters = [i // 4 for i in range(160)]
    a = rng.random(160)
    shifted = paired_bootstrap_diff(a + 0.2, a, clusters, n_boot=1000, seed=0)
    assert shifted.diff == pytest.approx(0.2)
    assert shifted.low == pytest.approx(0.2) and shifted.p_value < 0.01
    noise = rng.normal(0, 0.1, 160)
    null = paired_bootstrap_diff(a + noise - noise.mean(), a, clusters, n_boot=1000, seed=0)
    assert null.low < 0.0 < null.high
    assert null.p_value > 0.5


def test_paired_bootstrap_ci_coverage_near_nominal() -> None:
    rng = np.random.default_rng(21)
    covered = 0
    trials = 200
    for t in range(trials):
        base, clusters = _clustered_sample(rng, 30, 6)
        other, _ = _clustered_sample(rng, 30, 6)
        res = paired_bootstrap_diff(base + 0.3, base + other * 0.5, clusters, n_boot=300, seed=t)
        covered += res.low <= 0.3 <= res.high
    assert 0.88 <= covered / trials <= 0.99


# --------------------------------------------------------------------------- Holm, ranks


def test_holm_matches_hand_computation() -> None:
    # sorted: 0.01 (x4 = 0.04), 0.03 (x3 = 0.09), 0.04 (x2 = 0.08 -> running max 0.09), 0.2 (x1)
    assert holm([0.01, 0.04, 0.03, 0.2]) == pytest.approx([0.04, 0.09, 0.09, 0.2])


def test_holm_caps_at_one_and_keeps_order() -> None:
    assert holm([0.6, 0.5]) == [1.0, 1.0]
    assert holm([]) == []


def test_holm_rejects_values_outside_unit_interval() -> None:
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([0.1, 1.5])


def test_rank_intervals_separate_clear_winners_and_overlap_for_ties() -> None:
    rng = np.random.default_rng(9)
    base = rng.random(300)
    scores = np.column_stack([base + 0.5, base + 0.001 * rng.random(300), base + 0.001 * rng.random(300)])
    ranks = bootstrap_rank_ci(scores, [i // 3 for i in range(300)], n_boot=400, seed=0)
    assert (ranks[0].rank, ranks[0].low, ranks[0].high) == (1, 1, 1)
    assert {ranks[1].rank, ranks[2].rank} == {2, 3}
    for r in ranks[1:]:
        assert (r.low, r.high) == (2, 3)


def test_several_means_share_draws_and_match_single_column_bootstrap() -> None:
    rng = np.random.default_rng(12)
    values = rng.random(120)
    clusters = [i // 4 for i in range(120)]
    mask = np.column_stack([np.ones(120, bool), np.arange(120) % 4 < 2])  # every scene has both groups
    both = bootstrap_means_ci(np.column_stack([values, values]), mask, clusters, n_boot=400, seed=3)
    alone = bootstrap_mean_ci(values, clusters, n_boot=400, seed=3)
    assert (both[0].estimate, both[0].low, both[0].high) == pytest.approx((alone.estimate, alone.low, alone.high))
    assert both[1].estimate == pytest.approx(values[mask[:, 1]].mean())
    assert both[1].n == 60 and both[1].n_clusters == 30
    assert both[1].low < both[1].estimate < both[1].high
