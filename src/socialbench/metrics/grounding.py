"""Multiple-select (set) metrics for RobotEQ spatial grounding.

For one question with gold option set ``G`` (non-empty) and predicted set ``P``:

* exact-set accuracy: ``1 if P == G else 0``;
* Jaccard index: ``|P ∩ G| / |P ∪ G|`` (1 when both are empty, which a valid gold set
  never is);
* an invalid prediction (``None``: unparseable reply or failed call) scores 0 on both and
  counts as the empty selection for the option-level F1 (every gold option is then a FN).

Option-level F1 treats each (question, option) pair as a binary decision: ``TP_o`` counts
questions with ``o`` in both P and G, ``FP_o`` in P only, ``FN_o`` in G only; micro / macro
F1 as in :mod:`socialbench.metrics.classification` (F1 = 2PR/(P+R)), over the options.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet

import numpy as np

from socialbench.metrics.classification import FN, FP, TP

__all__ = ["exact_set_match", "jaccard", "option_unit_counts"]


def exact_set_match(gold: AbstractSet[str], pred: AbstractSet[str] | None) -> float:
    """1.0 if the predicted set equals the gold set, else 0.0 (``None`` scores 0)."""
    return 1.0 if pred is not None and set(pred) == set(gold) else 0.0


def jaccard(gold: AbstractSet[str], pred: AbstractSet[str] | None) -> float:
    """``|P ∩ G| / |P ∪ G|``; 0.0 for ``None``; 1.0 when both sets are empty."""
    if pred is None:
        return 0.0
    g, p = set(gold), set(pred)
    union = g | p
    return len(g & p) / len(union) if union else 1.0


def option_unit_counts(
    golds: Sequence[AbstractSet[str]], preds: Sequence[AbstractSet[str] | None], options: Sequence[str]
) -> np.ndarray:
    """Per-question option counts, shape ``(n, len(options), 3)`` (TP, FP, FN)."""
    if len(golds) != len(preds):
        raise ValueError(f"{len(golds)} gold sets but {len(preds)} predictions")
    out = np.zeros((len(golds), len(options), 3), dtype=np.int64)
    for i, (g, p) in enumerate(zip(golds, preds)):
        unknown = set(g) - set(options)
        if unknown:
            raise ValueError(f"gold set {sorted(g)} names options not in {list(options)}")
        chosen = set(p) if p is not None else set()
        for j, o in enumerate(options):
            if o in g and o in chosen:
                out[i, j, TP] = 1
            elif o in chosen:
                out[i, j, FP] = 1
            elif o in g:
                out[i, j, FN] = 1
    return out
