"""Accuracy, precision / recall / F1, micro- and macro-F1, bootstrap SEs."""

from __future__ import annotations

import random

import numpy as np
import pytest

from socialbench.metrics.classification import (
    accuracy,
    bootstrap_f1_se,
    f1_from_counts,
    macro_f1,
    micro_f1,
    per_label,
    precision_recall_f1,
    unit_counts,
)

L = ("proper", "improper")


def test_f1_is_the_harmonic_mean_of_precision_and_recall() -> None:
    p, r, f = precision_recall_f1(tp=3, fp=1, fn=2)
    assert (p, r) == (0.75, 0.6)
    assert f == pytest.approx(2 * 0.75 * 0.6 / (0.75 + 0.6))
    assert f == pytest.approx(2 * 3 / (2 * 3 + 1 + 2))  # F1 = 2TP / (2TP + FP + FN)


def test_undefined_ratios_are_zero() -> None:
    assert precision_recall_f1(0, 0, 0) == (0.0, 0.0, 0.0)
    assert precision_recall_f1(0, 2, 0) == (0.0, 0.0, 0.0)


def test_hand_computed_binary_example() -> None:
    gold = ["proper", "proper", "proper", "improper", "improper"]
    pred = ["proper", "proper", "improper", "improper", "proper"]
    # proper: TP 2 FP 1 FN 1 -> F1 2/3; improper: TP 1 FP 1 FN 1 -> F1 1/2
    assert macro_f1(gold, pred, L) == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert micro_f1(gold, pred, L) == pytest.approx(3 / 5)
    assert accuracy(gold, pred) == pytest.approx(3 / 5)


def test_micro_f1_equals_accuracy_without_invalid_predictions() -> None:
    rng = random.Random(7)
    gold = [rng.choice(L) for _ in range(200)]
    pred = [rng.choice(L) for _ in range(200)]
    assert micro_f1(gold, pred, L) == pytest.approx(accuracy(gold, pred))


def test_invalid_prediction_is_a_false_negative_only() -> None:
    counts = unit_counts(["proper", "improper"], [None, "improper"], L).sum(axis=0)
    assert counts.tolist() == [[0, 0, 1], [1, 0, 0]]
    # micro: TP 1, FP 0, FN 1 -> P 1, R 1/2, F1 2/3 (differs from accuracy 1/2)
    assert micro_f1(["proper", "improper"], [None, "improper"], L) == pytest.approx(2 / 3)
    assert accuracy(["proper", "improper"], [None, "improper"]) == 0.5


def test_macro_f1_leaves_out_labels_that_never_occur() -> None:
    assert macro_f1(["proper", "proper"], ["proper", "proper"], L) == 1.0


def test_macro_f1_matches_a_closed_form_on_random_data() -> None:
    rng = np.random.default_rng(3)
    gold = rng.choice(L, size=300).tolist()
    pred = rng.choice(L, size=300).tolist()
    f1s = []
    for lab in L:
        tp = sum(g == lab and p == lab for g, p in zip(gold, pred))
        fp = sum(g != lab and p == lab for g, p in zip(gold, pred))
        fn = sum(g == lab and p != lab for g, p in zip(gold, pred))
        f1s.append(2 * tp / (2 * tp + fp + fn))
    assert macro_f1(gold, pred, L) == pytest.approx(sum(f1s) / 2)


def test_per_label_reports_support() -> None:
    counts = unit_counts(["proper", "improper", "improper"], ["proper", "proper", "improper"], L).sum(axis=0)
    table = per_label(counts, L)
    assert table["improper"] == {"precision": 1.0, "recall": 0.5, "f1": pytest.approx(2 / 3), "support": 2}


def test_unknown_labels_are_rejected() -> None:
    with pytest.raises(ValueError, match="not one of"):
        unit_counts(["proper"], ["maybe"], L)
    with pytest.raises(ValueError, match="entries"):
        unit_counts(["proper"], [], L)


def test_f1_from_counts_of_nothing_is_zero() -> None:
    assert f1_from_counts(np.zeros((2, 3))) == (0.0, 0.0)


def test_bootstrap_se_is_deterministic_and_shrinks_with_n() -> None:
    rng = random.Random(1)
    gold = [rng.choice(L) for _ in range(400)]
    pred = [g if rng.random() < 0.7 else rng.choice(L) for g in gold]
    small = unit_counts(gold[:40], pred[:40], L)
    large = unit_counts(gold, pred, L)
    assert bootstrap_f1_se(small, seed=0) == bootstrap_f1_se(small, seed=0)
    assert bootstrap_f1_se(large)[0] < bootstrap_f1_se(small)[0]


def test_bootstrap_se_is_close_to_the_binomial_se_of_accuracy() -> None:
    rng = random.Random(5)
    gold = [rng.choice(L) for _ in range(500)]
    pred = [g if rng.random() < 0.6 else ("improper" if g == "proper" else "proper") for g in gold]
    acc = accuracy(gold, pred)
    se_micro, _ = bootstrap_f1_se(unit_counts(gold, pred, L), resamples=400)
    assert se_micro == pytest.approx((acc * (1 - acc) / len(gold)) ** 0.5, rel=0.2)


def test_bootstrap_needs_two_units() -> None:
    assert bootstrap_f1_se(unit_counts(["proper"], ["proper"], L)) == (None, None)
