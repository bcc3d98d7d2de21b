"""Builders of the agreement-metric tests (test_agreement.py, test_scoring.py): a question,
human votes as the data stores them, and a scoring entry."""

from __future__ import annotations

from collections.abc import Sequence

from socialbench.metrics.agreement import ScoringEntry
from socialbench.types import Answer, HumanVotes, Question

YES_NO = ("yes", "no")


def question(
    options: Sequence[str] = YES_NO,
    key: str = "q_robot_affected_p1",
    base_key: str = "q_robot_affected",
    category: str = "Social reasoning",
    kind: str = "single",
) -> Question:
    return Question(
        key=key,
        base_key=base_key,
        category=category,
        kind=kind,  # type: ignore[arg-type]
        text="?",
        options=tuple(options),
    )


def votes(counts: dict[Answer, int]) -> HumanVotes:
    """Human votes as the data stores them: count/n as Python floats, most frequent first."""
    n = sum(counts.values())
    ordered = sorted(counts, key=lambda a: -counts[a])
    return HumanVotes(tuple(ordered), tuple(counts[a] / n for a in ordered), n)


def entry(
    q: Question,
    v: HumanVotes,
    parsed: object,
    raw: str | None = None,
    error: str | None = None,
    item_id: str = "s1",
) -> ScoringEntry:
    return ScoringEntry(item_id=item_id, question=q, votes=v, parsed=parsed, raw=raw, error=error)
