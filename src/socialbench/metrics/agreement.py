"""Agreement metrics for SocialNav-SUB: PA, CWPA and the two human baselines, per item.

The equations of the two protocols (chosen as objects in
:mod:`socialbench.metrics.protocols`; aggregated over items in
:mod:`socialbench.metrics.scoring`):

``paper``
    The equations of the SocialNav-SUB paper (seed ``001_…``, §3.4). For one item with
    human answer distribution p_h and evaluated answer a:

    * Eq. 1 (PA):   PA_q = (1/N_H) Σ_i I[a = A^h_{q,i}] = p_h(a)
    * Eq. 2 (CWPA): CWPA_q = PA_q / HA_q, with HA_q = max_α p_h(α)

    Multiple-select answers are compared as sets (order-insensitive). An invalid answer, or
    a model failure with no answer, scores 0.

``official``
    What the official ``postprocess_results.py`` computes, bit for bit (reference
    ``socialnav-sub-official.md`` §d.2, §d.3, §d.5, §e and §9): JSON parsing of the raw
    text, order-sensitive multiple-select matching, an invalid answer scored as the FIRST
    choice (§9.2), a leave-one-out (LOO) loop over the human labels with ``int()``
    truncation of the counts (§9.1), and a LOO ratio in place of Eq. 2 (§9.3).

In both protocols an entry whose model call failed (``error`` is not None) scores 0 for the
model, never a guessed option: the official code never sees such entries (it retries API
errors forever, §d.1), so scoring them as the first option would invent an answer. They are
still counted in ``n``; the human rows are unaffected.

Items with n <= 1 human answers are skipped in both protocols, as the official code does
(§e skip rules); the average-human baseline is undefined for them.

The ``official`` protocol's parsing, matching and leave-one-out scores are in
:mod:`socialbench.metrics.official_agreement`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from socialbench.types import Answer, HumanVotes, Question

CATEGORIES = ("Spatial reasoning", "Spatiotemporal reasoning", "Social reasoning")

INVALID = "INVALID"  # what the official parser stores for unparseable output (§d.2)

ROWS = ("model", "human:average", "human:oracle")


@dataclass(frozen=True)
class ItemScore:
    """PA and CWPA of one answerer on one item."""

    pa: float
    cwpa: float


# --------------------------------------------------------------------------- helpers


def check_votes(votes: HumanVotes, where: str = "") -> None:
    """Reject distributions the metrics cannot be defined on."""
    tag = f"{where}: " if where else ""
    if not votes.answers:
        raise ValueError(f"{tag}human votes list no answers; every item needs at least one")
    if len(votes.answers) != len(votes.probabilities):
        raise ValueError(
            f"{tag}human votes have {len(votes.answers)} answers but "
            f"{len(votes.probabilities)} probabilities; the two lists must match"
        )
    if max(votes.probabilities) <= 0:
        raise ValueError(f"{tag}human vote probabilities are all 0; at least one must be > 0")


def _exact_counts(probabilities: tuple[float, ...], n: int) -> list[int]:
    """Integer vote counts round(p * n), one per listed answer (as :meth:`HumanVotes.counts`);
    they must add up to n."""
    counts = [int(round(p * n)) for p in probabilities]
    total = sum(counts)
    if total != n:
        raise ValueError(
            f"human vote counts add up to {total}, not n={n} "
            f"(probabilities {probabilities}); fix the label file's probabilities or n"
        )
    return counts


# --------------------------------------------------------------------------- paper protocol


def pa_paper(votes: HumanVotes, answer: Answer | None) -> float:
    """Eq. 1 (paper §3.4) for one item: the share of humans who gave ``answer``, p_h(answer).

    ``answer`` must already be canonical (see :meth:`Question.canonical`); ``None`` (an
    invalid answer or a failed call) scores 0.
    """
    check_votes(votes)
    return votes.probability(answer)


def cwpa_paper(votes: HumanVotes, answer: Answer | None) -> float:
    """Eq. 2 (paper §3.4) for one item: p_h(answer) / HA_q with HA_q = max_α p_h(α).

    ``None`` scores 0.
    """
    check_votes(votes)
    return votes.probability(answer) / max(votes.probabilities)


def human_average_paper(votes: HumanVotes) -> ItemScore:
    """Average-human baseline (paper §3.4): each human scored against the other n-1.

    Exact leave-one-out, no truncation. With integer counts c(x):

    * PA = mean_j q_j(h_j) = Σ_x c(x)(c(x)-1) / (n(n-1)), i.e. Eq. 1 applied to one human
      against the distribution q_j of the other n-1 answers, averaged over the n humans;
    * CWPA = mean_j q_j(h_j) / max_x q_j(x), i.e. Eq. 2 against the same LOO distribution.

    Requires n >= 2 (raises ``ValueError`` otherwise).
    """
    check_votes(votes)
    return _human_average_of(votes.probabilities, votes.n)


@lru_cache(maxsize=4096)
def _human_average_of(probabilities: tuple[float, ...], n: int) -> ItemScore:
    """:func:`human_average_paper` of the distribution ``probabilities`` over ``n`` answers.

    Memoized: it depends on the vote counts only, and a dataset has few distinct count
    patterns (the 4,968 questions of the release-sized benchmark data share 221), so
    scoring a run computes each once. An invalid distribution raises every time (errors are not
    cached)."""
    if n < 2:
        raise ValueError(f"average-human agreement needs at least 2 human answers, got n={n}")
    counts = _exact_counts(probabilities, n)
    pa = sum(c * (c - 1) for c in counts) / (n * (n - 1))
    # max over the *other* answers' counts: the largest count, or for (one answer with)
    # the largest count, the second largest (equal to it on a tie)
    first, second = (sorted(counts, reverse=True) + [0, 0])[:2]
    cw_sum = 0.0
    for c in counts:
        if c == 0:
            continue
        others = second if c == first else first
        top = max(c - 1, others)  # >= 1 because n >= 2
        cw_sum += c * (c - 1) / top
    return ItemScore(pa=pa, cwpa=cw_sum / n)


def human_oracle_paper(votes: HumanVotes) -> ItemScore:
    """Human-oracle baseline (paper §3.4): the answer is the human mode.

    PA (Eq. 1) = max_α p_h(α); CWPA (Eq. 2) = max p_h / max p_h = 1.
    """
    check_votes(votes)
    return ItemScore(pa=max(votes.probabilities), cwpa=1.0)


def paper_item_scores(votes: HumanVotes, answer: Answer | None, where: str = "") -> dict[str, ItemScore]:
    """The ``paper`` scores of one item in one pass (one :func:`check_votes`; ``where``
    names the item in its errors): the model's ``answer`` (canonical, or ``None``) by Eq. 1
    and Eq. 2 (:func:`pa_paper`, :func:`cwpa_paper`), :func:`human_average_paper` and
    :func:`human_oracle_paper`, keyed by :data:`ROWS`."""
    check_votes(votes, where)
    top, average, oracle = _paper_human_rows(votes.probabilities, votes.n)
    p = votes.probability(answer)
    return {"model": ItemScore(p, p / top), "human:average": average, "human:oracle": oracle}


@lru_cache(maxsize=4096)
def _paper_human_rows(probabilities: tuple[float, ...], n: int) -> tuple[float, ItemScore, ItemScore]:
    """HA_q = max p_h, :func:`human_average_paper` and :func:`human_oracle_paper` of the
    distribution ``probabilities`` over ``n`` answers, memoized like :func:`_human_average_of`."""
    top = max(probabilities)
    return top, _human_average_of(probabilities, n), ItemScore(top, 1.0)


# --------------------------------------------------------------------------- entries


@dataclass(frozen=True)
class ScoringEntry:
    """One answered (or failed) question, with what the scorer needs to know about it.

    ``parsed`` is the parser's answer (option string, list/tuple of options, ``None``, or
    the official string ``"INVALID"``); ``raw`` is the model's text when available (the
    official protocol re-parses it with :func:`official_parse`); ``error`` is the error
    kind of a failed model call, or ``None``.
    """

    item_id: str
    question: Question
    votes: HumanVotes
    parsed: Any
    raw: str | None = None
    error: str | None = None
