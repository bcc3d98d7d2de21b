"""RobotEQ human baselines from per-annotator votes, leave-one-out (Table 1 Human row,
Figure 5 Human bars).

Each annotator ``j`` of an item is scored as if it were a model, against the others:

Behavior judgment (Table 1), per behavior with label counts ``c(x)`` over ``n >= 2``
annotators (labels ``proper`` / ``improper``):

* PA (Eq. 1) and CWPA (Eq. 2) against the distribution ``q_j`` of the other ``n - 1``
  labels, averaged over the annotators (exact, see
  :func:`socialbench.metrics.agreement.human_average_paper`):
  ``PA = Σ_x c(x)(c(x)-1) / (n(n-1))``, ``CWPA = mean_j q_j(h_j) / max_x q_j(x)``;
  averaged over behaviors like the model rows;
* micro / macro F1: the pair (prediction ``h_j``, reference = the majority label of the
  others) counts like one model prediction against one gold label; the counts are pooled
  over all (behavior, annotator) pairs, then F1 = 2PR/(P+R) per label, micro = pooled,
  macro = mean over labels that occur (:mod:`socialbench.metrics.classification`).

Spatial grounding (Figure 5), per question with one selected option set ``S_j`` per
annotator: the reference of annotator ``j`` holds an option when more than half of the
other ``n - 1`` annotators selected it. Exact match and Jaccard are averaged over all
(question, annotator) pairs; option-level micro / macro F1 pool the (question, annotator,
option) decisions (:mod:`socialbench.metrics.grounding`).

Ties: when the others split evenly (a judgment tie, or an option chosen by exactly half of
the others) the reference is each way with equal weight (the expectation of a fair coin
flip), so a tie neither favours nor penalises the held-out annotator. Items with fewer than
two votes have no other annotator and are skipped (``n`` counts the items used).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product

import numpy as np

from socialbench.metrics.agreement import human_average_paper
from socialbench.metrics.classification import FN, FP, TP, f1_from_counts
from socialbench.metrics.grounding import jaccard
from socialbench.types import HumanVotes

__all__ = ["loo_references", "loo_option_references", "human_judgment_baseline", "human_grounding_baseline"]

JUDGMENT_LABELS = ("proper", "improper")
OPTIONS = ("A", "B", "C", "D")


def loo_references(counts: Mapping[str, int], held_out: str) -> list[tuple[str, float]]:
    """The majority label of the annotators other than one who said ``held_out``, as
    ``[(label, weight)]``: one label with weight 1, or each tied label with weight 1/k."""
    others = {x: c - (1 if x == held_out else 0) for x, c in counts.items()}
    top = max(others.values(), default=0)
    if top <= 0:
        raise ValueError("leave-one-out needs at least two votes")
    tied = sorted(x for x, c in others.items() if c == top)
    return [(x, 1.0 / len(tied)) for x in tied]


def loo_option_references(
    selections: Sequence[frozenset[str]], j: int, options: Sequence[str] = OPTIONS
) -> list[tuple[frozenset[str], float]]:
    """The per-option majority set of the annotators other than ``j``, as
    ``[(set, weight)]``: an option chosen by exactly half of the others is in or out with
    weight 1/2 each (every combination of such options listed)."""
    others = [s for i, s in enumerate(selections) if i != j]
    if not others:
        raise ValueError("leave-one-out needs at least two votes")
    m = len(others)
    sure = frozenset(o for o in options if 2 * sum(o in s for s in others) > m)
    tied = [o for o in options if 2 * sum(o in s for s in others) == m]
    weight = 1.0 / (2 ** len(tied))
    return [
        (sure | frozenset(o for o, keep in zip(tied, flags) if keep), weight)
        for flags in product((False, True), repeat=len(tied))
    ]


def _votes(counts: Mapping[str, int]) -> HumanVotes:
    n = sum(counts.values())
    labels = tuple(x for x, c in counts.items() if c > 0)
    return HumanVotes(labels, tuple(counts[x] / n for x in labels), n)


def human_judgment_baseline(
    items: Sequence[Mapping[str, int]], labels: Sequence[str] = JUDGMENT_LABELS
) -> dict[str, object] | None:
    """Human PA, CWPA, micro / macro F1 over behaviors given as label counts
    (``{"proper": 2, "improper": 1}``); None when no behavior has two votes."""
    used = [{x: int(c) for x, c in it.items() if int(c) > 0} for it in items]
    used = [c for c in used if sum(c.values()) >= 2]
    if not used:
        return None
    index = {lab: i for i, lab in enumerate(labels)}
    counts = np.zeros((len(labels), 3), dtype=float)
    pa, cwpa, pairs = [], [], 0
    for c in used:
        unknown = set(c) - set(labels)
        if unknown:
            raise ValueError(f"votes name labels {sorted(unknown)} outside {list(labels)}")
        score = human_average_paper(_votes(c))
        pa.append(score.pa)
        cwpa.append(score.cwpa)
        for pred, k in c.items():
            pairs += k
            for ref, w in loo_references(c, pred):
                if ref == pred:
                    counts[index[pred], TP] += k * w
                else:
                    counts[index[pred], FP] += k * w
                    counts[index[ref], FN] += k * w
    micro, macro = f1_from_counts(counts)
    return {
        "n": len(used),
        "pairs": pairs,
        "pa": float(np.mean(pa)),
        "cwpa": float(np.mean(cwpa)),
        "micro_f1": micro,
        "macro_f1": macro,
    }


def human_grounding_baseline(
    items: Sequence[Sequence[Sequence[str]]], options: Sequence[str] = OPTIONS
) -> dict[str, object] | None:
    """Human exact match, Jaccard, option micro / macro F1 over questions given as one
    selection per annotator (``[["A", "C"], ["A"], ["A", "C"]]``); None when no question
    has two votes."""
    used = [[frozenset(s) for s in it] for it in items if len(it) >= 2]
    if not used:
        return None
    counts = np.zeros((len(options), 3), dtype=float)
    exact, jac = [], []
    for sels in used:
        for j, pred in enumerate(sels):
            e = jc = 0.0
            for ref, w in loo_option_references(sels, j, options):
                e += w * (1.0 if pred == ref else 0.0)
                jc += w * jaccard(ref, pred)
                for i, o in enumerate(options):
                    if o in pred and o in ref:
                        counts[i, TP] += w
                    elif o in pred:
                        counts[i, FP] += w
                    elif o in ref:
                        counts[i, FN] += w
            exact.append(e)
            jac.append(jc)
    micro, macro = f1_from_counts(counts)
    return {
        "n": len(used),
        "pairs": len(exact),
        "exact_match": float(np.mean(exact)),
        "jaccard": float(np.mean(jac)),
        "micro_f1": micro,
        "macro_f1": macro,
    }
