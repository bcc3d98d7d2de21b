"""RobotEQ human baselines from per-annotator votes (Table 1 Human row, Figure 5 Human
bars), under two named definitions of the reference an annotator is scored against:

``final-label`` (:func:`human_judgment_vs_final`, :func:`human_grounding_vs_final`)
    each annotator against the released final label (the majority of all annotators,
    calibrated by an expert, paper §4.5 "Annotator Selection"). A 2-1 split is 2/3 correct
    against the final label but 1/3 in PA (Eq. 1), which is why micro-F1 is far above PA.
    **Not the paper's Human row, which cannot be recomputed from the release**: the paper
    does not say how it was made, and with three proper/improper votes per behavior this
    definition gives exactly ``PA = 2 * MicF1 - 1`` (unanimous: 1 and 1; 2-1: 1/3 and 2/3),
    i.e. PA 86.42 for the paper's synthetic MicF1 93.21 (paper: 81.04) and 73.86 for its
    real MicF1 86.93 (paper: 83.11). The paper's two subsets sit on opposite sides of that
    line, so no single choice of reference (final label, leave-one-out, or an annotator's
    own vote included) reproduces both: see :func:`paper_consistent_pa`.
``leave-one-out`` (:func:`human_judgment_baseline`, :func:`human_grounding_baseline`)
    each annotator against the majority of the *other* annotators. For three binary
    annotators its micro-F1 equals PA (a 2-1 split gives each majority voter a tied
    reference, 1/2 correct, and the minority voter a wrong one: 1/3 correct).

Under both, PA (Eq. 1) and CWPA (Eq. 2) are agreement with the other annotators: per
behavior with label counts ``c(x)`` over ``n >= 2`` annotators, exactly
(:func:`socialbench.metrics.agreement.human_average_paper`) ``PA = Σ_x c(x)(c(x)-1) /
(n(n-1))`` and ``CWPA = mean_j q_j(h_j) / max_x q_j(x)``, ``q_j`` the distribution of the
other ``n - 1`` labels; averaged over behaviors like the model rows.

Each pair (annotator ``j``'s answer ``h_j``, reference) counts like one model prediction
against one gold label: judgment micro / macro F1 (F1 = 2PR/(P+R),
:mod:`socialbench.metrics.classification`) pool the (behavior, annotator) pairs; grounding
exact match and Jaccard average the (question, annotator) pairs, option micro / macro F1
pool the (question, annotator, option) decisions (:mod:`socialbench.metrics.grounding`). A
leave-one-out grounding reference holds an option when more than half of the others chose it.

Leave-one-out ties (the others split evenly on a label, or exactly half chose an option)
count each way with equal weight (a fair coin's expectation), neither favouring nor
penalising the held-out annotator. Items with fewer than two votes are skipped under both
definitions (``n`` counts the items used), so the rows are comparable.

An ``invalid`` vote (:data:`~socialbench.metrics.roboteq.INVALID_VOTE`, the paper's third
annotator label) counts as the paper's annotators do: it is one of the behavior's ``N_H``
votes in PA / CWPA (Eq. 1-2, agreeing only with another ``invalid``), and in F1 it is an
answer of no class, so it is a miss of the reference's class (a false negative, never a
false positive); a leave-one-out reference is the majority of the others' proper / improper
votes (a pair whose others voted only ``invalid`` has no reference and no F1 count).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product

import numpy as np

from socialbench.metrics.agreement import human_average_paper
from socialbench.metrics.classification import FN, FP, TP, f1_from_counts
from socialbench.metrics.grounding import jaccard
from socialbench.metrics.roboteq import INVALID_VOTE, JUDGMENT_LABELS, OPTIONS
from socialbench.types import HumanVotes

__all__ = [
    "loo_references",
    "loo_option_references",
    "human_judgment_baseline",
    "human_grounding_baseline",
    "human_judgment_vs_final",
    "human_grounding_vs_final",
    "paper_consistent_pa",
]


def loo_references(
    counts: Mapping[str, int], held_out: str, classes: Sequence[str] | None = None
) -> list[tuple[str, float]]:
    """The majority label of the annotators other than one who said ``held_out``, as
    ``[(label, weight)]``: one label with weight 1, or each tied label with weight 1/k.
    With ``classes``, the majority of the others' votes of those labels only (``[]`` when
    they cast none: only ``invalid`` votes)."""
    if sum(counts.values()) < 2:
        raise ValueError("leave-one-out needs at least two votes")
    others = {x: c - (1 if x == held_out else 0) for x, c in counts.items() if classes is None or x in classes}
    top = max(others.values(), default=0)
    if top <= 0:
        if classes is not None:
            return []
        raise ValueError("leave-one-out needs at least two votes")
    tied = sorted(x for x, c in others.items() if c == top)
    return [(x, 1.0 / len(tied)) for x in tied]


def paper_consistent_pa(micro_f1: float) -> float:
    """The PA (Eq. 1) that the *final-label* definition gives for a micro-F1 of
    ``micro_f1`` on behaviors with three proper / improper votes each: ``2 * micro_f1 - 1``
    (a unanimous behavior scores 1 on both; a 2-1 split 1/3 in PA and 2/3 against the final
    label, and micro-F1 of single-label answers is their accuracy). The paper's Human row
    breaks it in opposite directions on its two subsets (module docstring)."""
    return 2.0 * micro_f1 - 1.0


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


def _used_counts(items: Sequence[Mapping[str, int]], labels: Sequence[str]) -> list[dict[str, int]]:
    """The label counts of the behaviors with at least two votes (positive counts only).
    Raises ValueError for a label outside ``labels`` and :data:`INVALID_VOTE`."""
    used = [{x: int(c) for x, c in it.items() if int(c) > 0} for it in items]
    used = [c for c in used if sum(c.values()) >= 2]
    for c in used:
        unknown = set(c) - set(labels) - {INVALID_VOTE}
        if unknown:
            raise ValueError(f"votes name labels {sorted(unknown)} outside {list(labels)}")
    return used


def _agreement(used: Sequence[Mapping[str, int]]) -> tuple[list[float], list[float]]:
    """Per-behavior PA (Eq. 1) and CWPA (Eq. 2) of the annotators against the others."""
    scores = [human_average_paper(_votes(c)) for c in used]
    return [s.pa for s in scores], [s.cwpa for s in scores]


def _add_option_counts(
    counts: np.ndarray, pred: frozenset[str], ref: frozenset[str], options: Sequence[str], weight: float
) -> None:
    """Add one (prediction, reference) pair's option decisions to ``counts`` (rows:
    options; columns TP, FP, FN), each with ``weight``."""
    for i, o in enumerate(options):
        if o in pred and o in ref:
            counts[i, TP] += weight
        elif o in pred:
            counts[i, FP] += weight
        elif o in ref:
            counts[i, FN] += weight


def _judgment_row(
    n: int, pairs: int, pa: Sequence[float], cwpa: Sequence[float], counts: np.ndarray
) -> dict[str, object]:
    """The judgment human row: mean PA (Eq. 1), mean CWPA (Eq. 2), micro / macro F1 of ``counts``."""
    micro, macro = f1_from_counts(counts)
    return {
        "n": n,
        "pairs": pairs,
        "pa": float(np.mean(pa)),
        "cwpa": float(np.mean(cwpa)),
        "micro_f1": micro,
        "macro_f1": macro,
    }


def _grounding_row(n: int, exact: Sequence[float], jac: Sequence[float], counts: np.ndarray) -> dict[str, object]:
    """The grounding human row: mean exact match and Jaccard over the (question, annotator)
    pairs, option micro / macro F1 of ``counts``."""
    micro, macro = f1_from_counts(counts)
    return {
        "n": n,
        "pairs": len(exact),
        "exact_match": float(np.mean(exact)),
        "jaccard": float(np.mean(jac)),
        "micro_f1": micro,
        "macro_f1": macro,
    }


def human_judgment_baseline(
    items: Sequence[Mapping[str, int]], labels: Sequence[str] = JUDGMENT_LABELS
) -> dict[str, object] | None:
    """Human PA, CWPA, micro / macro F1 over behaviors given as label counts
    (``{"proper": 2, "improper": 1}``); None when no behavior has two votes."""
    used = _used_counts(items, labels)
    if not used:
        return None
    index = {lab: i for i, lab in enumerate(labels)}
    counts = np.zeros((len(labels), 3), dtype=float)
    pa, cwpa = _agreement(used)
    pairs = 0
    for c in used:
        for pred, k in c.items():
            pairs += k
            for ref, w in loo_references(c, pred, labels):
                if ref == pred:
                    counts[index[pred], TP] += k * w
                else:
                    if pred in index:  # an invalid vote is no class: a miss, not a false positive
                        counts[index[pred], FP] += k * w
                    counts[index[ref], FN] += k * w
    return _judgment_row(len(used), pairs, pa, cwpa, counts)


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
                _add_option_counts(counts, pred, ref, options, w)
            exact.append(e)
            jac.append(jc)
    return _grounding_row(len(used), exact, jac, counts)


def human_judgment_vs_final(
    items: Sequence[tuple[Mapping[str, int], str]], labels: Sequence[str] = JUDGMENT_LABELS
) -> dict[str, object] | None:
    """The *final-label* row of behaviors given as ``(label counts, final label)``
    (``({"proper": 2, "improper": 1}, "proper")``): PA, CWPA, micro / macro F1. None when
    no behavior has two votes; ValueError for a label outside ``labels``."""
    used: list[tuple[dict[str, int], str]] = []
    for votes, final in items:
        kept = _used_counts([votes], labels)
        if kept:
            used.append((kept[0], final))
    if not used:
        return None
    index = {lab: i for i, lab in enumerate(labels)}
    counts = np.zeros((len(labels), 3), dtype=float)
    pairs = 0
    for c, final in used:
        if final not in index:
            raise ValueError(f"final label {final!r} is outside {list(labels)}")
        for pred, k in c.items():
            pairs += k
            if pred == final:
                counts[index[pred], TP] += k
            else:
                if pred in index:  # an invalid vote is no class: a miss, not a false positive
                    counts[index[pred], FP] += k
                counts[index[final], FN] += k
    pa, cwpa = _agreement([c for c, _ in used])
    return _judgment_row(len(used), pairs, pa, cwpa, counts)


def human_grounding_vs_final(
    items: Sequence[tuple[Sequence[Sequence[str]], Sequence[str]]], options: Sequence[str] = OPTIONS
) -> dict[str, object] | None:
    """The *final-label* row of questions given as ``(one selection per annotator, released
    answer)`` (``([["A", "C"], ["A"]], ["A", "C"])``): exact match, Jaccard ``|S ∩ G| / |S ∪
    G|``, option micro / macro F1. None when no question has two votes."""
    used = [([frozenset(s) for s in sels], frozenset(answer)) for sels, answer in items if len(sels) >= 2]
    if not used:
        return None
    counts = np.zeros((len(options), 3), dtype=float)
    exact, jac = [], []
    for sels, gold in used:
        for pred in sels:
            exact.append(1.0 if pred == gold else 0.0)
            jac.append(jaccard(gold, pred))
            _add_option_counts(counts, pred, gold, options, 1.0)
    return _grounding_row(len(used), exact, jac, counts)
