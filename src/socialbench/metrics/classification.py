"""Classification metrics: accuracy, precision / recall / F1, micro- and macro-F1.

Definitions (for one label ``c``, counting over all units):

* ``TP_c`` units with gold ``c`` predicted ``c``; ``FP_c`` units predicted ``c`` whose gold
  is not ``c``; ``FN_c`` units with gold ``c`` not predicted ``c``.
* ``P = TP / (TP + FP)``, ``R = TP / (TP + FN)``, ``F1 = 2PR / (P + R)``
  (equivalently ``F1 = 2TP / (2TP + FP + FN)``); a ratio with a zero denominator is 0.
* micro-F1: F1 of the pooled counts ``TP = sum_c TP_c`` (same for FP, FN).
* macro-F1: the unweighted mean of ``F1_c`` over the labels that occur in the gold labels
  or the predictions (``TP_c + FP_c + FN_c > 0``); a label that never occurs has no
  defined F1 and is left out, as scikit-learn does when ``labels`` is not given.

Invalid predictions (``None``: unparseable reply or failed call) count as a false negative
for their gold label and a false positive for no label, so for single-label data micro-F1
equals accuracy exactly when there are none. The same counts serve multi-label data (one
binary decision per label: :mod:`socialbench.metrics.grounding`). F1's SE is a bootstrap
estimate (F1 is not a mean of per-unit values): the sample std (ddof=1) of the F1 of ``B``
seeded resamples of the units.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypedDict

import numpy as np

__all__ = [
    "precision_recall_f1",
    "unit_counts",
    "f1_from_counts",
    "accuracy",
    "micro_f1",
    "macro_f1",
    "per_label",
    "bootstrap_f1_se",
    "LabelScores",
]

TP, FP, FN = 0, 1, 2


class LabelScores(TypedDict):
    """Precision, recall, F1 and support (TP + FN) of one label (or option)."""

    precision: float
    recall: float
    f1: float
    support: int


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def precision_recall_f1(tp: float, fp: float, fn: float) -> tuple[float, float, float]:
    """``(P, R, F1)`` with P = TP/(TP+FP), R = TP/(TP+FN), F1 = 2PR/(P+R); 0 when undefined."""
    p = _ratio(tp, tp + fp)
    r = _ratio(tp, tp + fn)
    return p, r, _ratio(2 * p * r, p + r)


def unit_counts(
    y_true: Sequence[Hashable], y_pred: Sequence[Hashable | None], labels: Sequence[Hashable]
) -> np.ndarray:
    """Per-unit counts, shape ``(n, len(labels), 3)`` with ``[..., 0:3] = TP, FP, FN``.

    ``y_pred[i] is None`` marks an invalid prediction (FN for the gold label only). Raises
    ``ValueError`` if the lengths differ or a gold label is not in ``labels``.
    """
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} entries but y_pred has {len(y_pred)}")
    index = {lab: j for j, lab in enumerate(labels)}
    out = np.zeros((len(y_true), len(labels), 3), dtype=np.int64)
    for i, (t, p) in enumerate(zip(y_true, y_pred)):
        if t not in index:
            raise ValueError(f"gold label {t!r} is not one of {list(labels)}")
        if p is not None and p not in index:
            raise ValueError(f"predicted label {p!r} is not one of {list(labels)}; pass None for invalid predictions")
        if p == t:
            out[i, index[t], TP] = 1
        else:
            out[i, index[t], FN] = 1
            if p is not None:
                out[i, index[p], FP] = 1
    return out


def f1_from_counts(counts: np.ndarray) -> tuple[float, float]:
    """``(micro_f1, macro_f1)`` from summed counts of shape ``(L, 3)`` (see module doc)."""
    counts = np.asarray(counts)
    tp, fp, fn = (float(x) for x in counts.sum(axis=0))
    micro = precision_recall_f1(tp, fp, fn)[2]
    present = counts.sum(axis=1) > 0
    if not present.any():
        return micro, 0.0
    f1s = [precision_recall_f1(*row)[2] for row, keep in zip(counts.tolist(), present) if keep]
    return micro, float(sum(f1s) / len(f1s))


def accuracy(y_true: Sequence[object], y_pred: Sequence[object]) -> float:
    """Share of units with ``y_pred == y_true`` (an invalid ``None`` prediction is wrong)."""
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} entries but y_pred has {len(y_pred)}")
    if not y_true:
        raise ValueError("accuracy of no units is undefined")
    return sum(1 for t, p in zip(y_true, y_pred) if p is not None and p == t) / len(y_true)


def micro_f1(y_true: Sequence[Hashable], y_pred: Sequence[Hashable | None], labels: Sequence[Hashable]) -> float:
    """Micro-averaged F1 over ``labels`` (pooled TP, FP, FN)."""
    return f1_from_counts(unit_counts(y_true, y_pred, labels).sum(axis=0))[0]


def macro_f1(y_true: Sequence[Hashable], y_pred: Sequence[Hashable | None], labels: Sequence[Hashable]) -> float:
    """Macro-averaged F1: mean of per-label F1 over labels that occur."""
    return f1_from_counts(unit_counts(y_true, y_pred, labels).sum(axis=0))[1]


def per_label(counts: np.ndarray, labels: Sequence[Hashable]) -> dict[str, LabelScores]:
    """Precision, recall, F1 and support (TP + FN) per label from summed ``(L, 3)`` counts."""
    out: dict[str, LabelScores] = {}
    for lab, (tp, fp, fn) in zip(labels, np.asarray(counts).tolist()):
        p, r, f = precision_recall_f1(tp, fp, fn)
        out[str(lab)] = {"precision": p, "recall": r, "f1": f, "support": int(tp + fn)}
    return out


def bootstrap_f1_se(counts: np.ndarray, *, resamples: int = 200, seed: int = 0) -> tuple[float | None, float | None]:
    """Bootstrap SEs ``(se_micro, se_macro)`` of F1 from per-unit counts ``(n, L, 3)``.

    Units are resampled with replacement ``resamples`` times (``numpy.random.default_rng(seed)``);
    the SE is the ddof=1 standard deviation of the replicate values. ``(None, None)`` when
    there are fewer than 2 units.
    """
    counts = np.asarray(counts)
    n = counts.shape[0]
    if n < 2 or resamples < 2:
        return None, None
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n))
    sums = counts[idx].sum(axis=1).astype(float)  # (B, L, 3)
    tp, fp, fn = sums[..., TP], sums[..., FP], sums[..., FN]
    with np.errstate(divide="ignore", invalid="ignore"):
        t, f_p, f_n = tp.sum(axis=1), fp.sum(axis=1), fn.sum(axis=1)
        micro = np.where(2 * t + f_p + f_n > 0, 2 * t / (2 * t + f_p + f_n), 0.0)
        per = np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), 0.0)
    present = (tp + fp + fn) > 0
    n_present = present.sum(axis=1)
    macro = np.where(n_present > 0, (per * present).sum(axis=1) / np.maximum(n_present, 1), 0.0)
    return float(np.std(micro, ddof=1)), float(np.std(macro, ddof=1))
