"""Voting over annotators' labels: the plurality winner of one unit (ties escalate) and each
annotator's accuracy against the consensus or an expert gold (RobotEQ §4.3, the
pilot-selection step); used by every ``build aggregate`` kind."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypedDict, TypeVar

__all__ = ["Unit", "plurality", "AnnotatorScore", "annotator_accuracy"]


class AnnotatorScore(TypedDict):
    """One annotator's labels against the reference: ``correct`` of ``n``, and their share
    (None for no counted label)."""

    annotator: str
    n: int
    correct: int
    accuracy: float | None


#: A rated unit (a behavior ``(item_id, k)``, a grounding option ``(item_id, letter)``, ...).
Unit = TypeVar("Unit", bound=Hashable)


def plurality(labels: Sequence[str]) -> tuple[str | None, Counter, float]:
    """(winner or None on a tie at the top, counts, winner share)."""
    counts = Counter(labels)
    if not counts:
        return None, counts, 0.0
    top = counts.most_common()
    best = top[0][1]
    if len(top) > 1 and top[1][1] == best:
        return None, counts, best / len(labels)
    return top[0][0], counts, best / len(labels)


def annotator_accuracy(
    ratings: Iterable[tuple[Unit, str, str]],
    consensus: Mapping[Unit, str],
    gold: Mapping[Unit, str] | None = None,
) -> list[AnnotatorScore]:
    """Per annotator: how many of their labels match the reference (the expert ``gold``
    where given, else the majority consensus), sorted best first. ``ratings`` are
    ``(unit, annotator, label)``; units without a reference are not counted."""
    hits: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for unit, who, label in ratings:
        ref = (gold or {}).get(unit, consensus.get(unit))
        if ref is None:
            continue
        hits[who][1] += 1
        hits[who][0] += int(label == ref)
    table: list[AnnotatorScore] = [
        {"annotator": who, "n": n, "correct": c, "accuracy": round(c / n, 4) if n else None}
        for who, (c, n) in hits.items()
    ]
    return sorted(table, key=lambda r: (-(r["accuracy"] or 0.0), -r["n"], r["annotator"]))
