"""The mean and standard error of every reported score (:func:`mean_se`).

The aggregation in the official SocialNav-SUB postprocessing (reference
``socialnav-sub-official.md`` §e "Aggregation") reports, for every group of items, the
plain mean ``sum(values) / n`` and the standard error ``np.std(values) / sqrt(n)`` with the
population standard deviation (``ddof=0``), and 0 when ``n <= 1``. The ``paper`` protocol
uses the same formula with the sample standard deviation (``ddof=1``). Inference
(comparing numbers) is in :mod:`socialbench.metrics.bootstrap`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["mean_se"]


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
