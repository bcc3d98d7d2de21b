"""Inter-rater reliability of nominal labels: Fleiss' kappa, Krippendorff's alpha and
pairwise percent agreement (pure functions).

Notation (Fleiss 1971): ``N`` items, ``k`` categories, ``n_ij`` raters who gave item ``i``
category ``j``, ``n_i = sum_j n_ij`` raters of item ``i``.

* Per-item agreement ``P_i = (sum_j n_ij^2 - n_i) / (n_i (n_i - 1))``, its mean
  ``P_bar = (1/N) sum_i P_i`` (:func:`percent_agreement`);
* category proportions ``p_j = sum_i n_ij / sum_i n_i`` and chance agreement
  ``P_e = sum_j p_j^2``;
* ``kappa = (P_bar - P_e) / (1 - P_e)`` (:func:`fleiss_kappa`).

Krippendorff's alpha for nominal data (Krippendorff 2011, "Computing Krippendorff's
alpha-reliability"), from the coincidence matrix ``o_ck = sum_u (pairs of values c, k in
unit u) / (m_u - 1)``, its marginals ``n_c = sum_k o_ck`` and ``n = sum_c n_c``:
``alpha = 1 - (n - 1) * sum_{c != k} o_ck / sum_{c != k} n_c n_k``
(:func:`krippendorff_alpha_nominal`).

A statistic that cannot be computed is NaN (None in :func:`agreement_summary`).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Sequence

import numpy as np

__all__ = ["fleiss_kappa", "percent_agreement", "krippendorff_alpha_nominal", "agreement_summary"]


def fleiss_kappa(counts: Sequence[Sequence[int]] | np.ndarray) -> float:
    """Fleiss' kappa ``(P_bar - P_e) / (1 - P_e)`` from an items x categories matrix of
    rating counts ``n_ij`` (see the module docstring).

    Items may have different numbers of raters (``P_i`` uses each item's own ``n_i``; the
    category proportions pool all ratings); items with fewer than two ratings are ignored.
    Returns NaN when chance agreement is 1 (every rating in one category).
    """
    m = np.asarray(counts, dtype=float)
    if m.ndim != 2:
        raise ValueError("counts must be a 2-D items x categories matrix")
    n_i = m.sum(axis=1)
    m = m[n_i >= 2]
    n_i = n_i[n_i >= 2]
    if len(m) == 0:
        return float("nan")
    p_i = ((m * m).sum(axis=1) - n_i) / (n_i * (n_i - 1))
    p_bar = float(p_i.mean())
    p_j = m.sum(axis=0) / n_i.sum()
    p_e = float((p_j * p_j).sum())
    if math.isclose(p_e, 1.0):
        return float("nan")
    return (p_bar - p_e) / (1.0 - p_e)


def percent_agreement(counts: Sequence[Sequence[int]] | np.ndarray) -> float:
    """Mean pairwise agreement ``P_bar = (1/N) sum_i (sum_j n_ij^2 - n_i) / (n_i (n_i - 1))``
    (share of agreeing rater pairs per item) over items with at least two ratings; NaN when
    there is none."""
    m = np.asarray(counts, dtype=float)
    n_i = m.sum(axis=1)
    m, n_i = m[n_i >= 2], n_i[n_i >= 2]
    if len(m) == 0:
        return float("nan")
    return float((((m * m).sum(axis=1) - n_i) / (n_i * (n_i - 1))).mean())


def krippendorff_alpha_nominal(units: Iterable[Sequence[Hashable | None]]) -> float:
    """Krippendorff's alpha (nominal metric) from the values given to each unit.

    ``units``: one sequence per unit with the value of each coder (``None`` = missing).
    Units with fewer than two values are not pairable and are skipped. Uses the
    coincidence matrix: ``alpha = 1 - (n - 1) * sum_{c != k} o_ck / sum_{c != k} n_c n_k``.
    Returns NaN when there is no variation at all.
    """
    o: dict[tuple[Hashable, Hashable], float] = defaultdict(float)
    for unit in units:
        vals = [v for v in unit if v is not None]
        m = len(vals)
        if m < 2:
            continue
        c = Counter(vals)
        for a, na in c.items():
            for b, nb in c.items():
                pairs = na * (na - 1) if a == b else na * nb
                if pairs:
                    o[(a, b)] += pairs / (m - 1)
    n_c: dict[Hashable, float] = defaultdict(float)
    for (a, _), v in o.items():
        n_c[a] += v
    n = sum(n_c.values())
    if n <= 1:
        return float("nan")
    observed = sum(v for (a, b), v in o.items() if a != b)
    expected = sum(n_c[a] * n_c[b] for a in n_c for b in n_c if a != b)
    if expected == 0:
        return float("nan")
    return 1.0 - (n - 1) * observed / expected


def _num(x: float) -> float | None:
    """``x`` rounded to 6 decimals; None for NaN (a statistic that cannot be computed)."""
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 6)


def agreement_summary(unit_labels: Sequence[Sequence[str]], categories: Sequence[str]) -> dict[str, int | float | None]:
    """Fleiss' kappa, Krippendorff's alpha and pairwise agreement over units of labels.

    ``unit_labels``: the labels each unit received (every label one of ``categories``).
    Returns ``{"units", "ratings"}`` (counted over units with at least two labels) and
    ``"fleiss_kappa"``, ``"krippendorff_alpha"``, ``"percent_agreement"`` rounded to 6
    decimals, None where a statistic cannot be computed.
    """
    index = {c: i for i, c in enumerate(categories)}
    counts = np.zeros((len(unit_labels), len(categories)), dtype=int)
    for u, labels in enumerate(unit_labels):
        for lab in labels:
            counts[u, index[lab]] += 1
    pairable = [u for u in unit_labels if len(u) >= 2]
    return {
        "units": len(pairable),
        "ratings": int(sum(len(u) for u in pairable)),
        "fleiss_kappa": _num(fleiss_kappa(counts)),
        "krippendorff_alpha": _num(krippendorff_alpha_nominal(unit_labels)),
        "percent_agreement": _num(percent_agreement(counts)),
    }
