"""The paper §7.6 entropy rule that picks the failure and success cases shown in Figures 9
and 10 (:func:`rank_cases`), from the entropy of human and model answers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from socialbench.metrics.agreement import ScoringEntry
from socialbench.metrics.protocols import PAPER, ProtocolArg, as_protocol
from socialbench.types import Answer

__all__ = ["entropy_bits", "answers_entropy", "CaseRank", "rank_cases"]


def entropy_bits(probabilities: Sequence[float]) -> float:
    """Shannon entropy in bits of a distribution (zero probabilities contribute 0)."""
    total = float(sum(probabilities))
    if total <= 0:
        raise ValueError("entropy_bits: probabilities add up to 0")
    return float(-sum((p / total) * math.log2(p / total) for p in probabilities if p > 0) + 0.0)


def answers_entropy(answers: Sequence[Answer | None]) -> float:
    """Entropy in bits of the empirical distribution of several answerers' answers.

    Invalid answers (``None``) count as one more category. 0 for one answer (or all equal).
    """
    if not answers:
        return 0.0
    counts: dict[Answer | None, int] = {}
    for a in answers:
        counts[a] = counts.get(a, 0) + 1
    return entropy_bits(list(counts.values()))


@dataclass(frozen=True)
class CaseRank:
    """Where one question lands under the §7.6 entropy rule (see :func:`rank_cases`)."""

    index: int
    kind: str  # "failure", "success" or "other"
    human_entropy: float
    model_entropy: float
    n_failed: int
    n_mode: int


def rank_cases(runs: Sequence[Sequence[ScoringEntry]], protocol: ProtocolArg = PAPER) -> list[CaseRank]:
    """Order questions for display by the entropy of human and model answers (paper §7.6).

    ``runs`` holds one list of entries per run, all aligned (entry ``i`` of every run is
    the same question). For each question: ``human_entropy`` H_h (bits) of the human answer
    distribution and ``model_entropy`` H_m of the runs' answers (:func:`answers_entropy`).

    The paper selects its failure and success figures "automatically based upon the entropy
    of the VLM answers and human answers" without giving the formula; socialbench reads it
    as follows:

    * **failures** (some run gave a valid answer no human gave): most human consensus
      first (H_h ascending), then more failing runs, then the runs agreeing with each
      other (H_m ascending): confident mistakes on clear questions (Figure 9);
    * **successes** (no failure, and some run gave a human mode): H_h ascending, then H_m
      descending: clear questions that separate the models (Figure 10);
    * **other** (invalid answers only, or only minority human answers): H_h ascending.

    Ties keep the input order. Returns every question, failures first, then successes,
    then the rest.
    """
    proto = as_protocol(protocol)
    if not runs:
        return []
    n = len(runs[0])
    for r in runs:
        if len(r) != n:
            raise ValueError("rank_cases: every run must list the same questions in the same order")
    out: list[CaseRank] = []
    for i in range(n):
        votes = runs[0][i].votes
        h_h = entropy_bits(votes.probabilities)
        answers = [proto.valid_answer(r[i]) for r in runs]
        h_m = answers_entropy(answers)
        top = max(votes.probabilities)
        n_failed = sum(1 for a in answers if a is not None and votes.probability(a) == 0.0)
        n_mode = sum(1 for a in answers if a is not None and votes.probability(a) == top)
        kind = "failure" if n_failed else ("success" if n_mode else "other")
        out.append(CaseRank(i, kind, h_h, h_m, n_failed, n_mode))
    rank_kind = {"failure": 0, "success": 1, "other": 2}

    def key(c: CaseRank) -> tuple[float, ...]:
        if c.kind == "failure":
            return (0, c.human_entropy, -c.n_failed, c.model_entropy, c.index)
        if c.kind == "success":
            return (1, c.human_entropy, -c.model_entropy, c.index)
        return (rank_kind[c.kind], c.human_entropy, c.index)

    return sorted(out, key=key)
