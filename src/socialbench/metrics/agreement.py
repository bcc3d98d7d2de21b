"""Agreement metrics for SocialNav-SUB: PA, CWPA and the two human baselines, per item
(the protocols as objects: :mod:`socialbench.metrics.protocols`; aggregated over items:
:mod:`socialbench.metrics.scoring`).

``paper``
    The SocialNav-SUB paper (seed ``001_…``, §3.4), for one item with human answer
    distribution p_h and evaluated answer a: Eq. 1 (PA) ``PA_q = (1/N_H) Σ_i I[a =
    A^h_{q,i}] = p_h(a)``; Eq. 2 (CWPA) ``CWPA_q = PA_q / HA_q``, ``HA_q = max_α p_h(α)``.
    Multiple-select answers are compared as sets; an invalid answer or a failure scores 0.
``official``
    The official ``postprocess_results.py`` bit for bit (reference
    ``socialnav-sub-official.md`` §d.2, §d.3, §d.5, §e, §9), in
    :mod:`socialbench.metrics.official_agreement`: JSON parsing of the raw text,
    order-sensitive multiple-select matching, an invalid answer scored as the FIRST choice
    (§9.2), a leave-one-out (LOO) loop over the human labels with ``int()`` truncation of
    the counts (§9.1), and a LOO ratio in place of Eq. 2 (§9.3).

In both, an entry whose model call failed (``error`` set) scores 0 for the model, never a
guessed option (the official code retries API errors forever and never sees one, §d.1);
it still counts in ``n``. Items with n <= 1 human answers are skipped, as the official code
does (§e); the average-human baseline is undefined for them.
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


def paper_item_scores(votes: HumanVotes, answer: Answer | None, where: str = "") -> dict[str, ItemScore]:
    """The ``paper`` scores of one item in one pass (``where`` names the item in errors),
    keyed by :data:`ROWS`: the model's ``answer`` (canonical, or ``None``) by Eq. 1 and
    Eq. 2, :func:`human_average_paper`, and the human oracle (paper §3.4: the answer is the
    human mode, so PA = max_α p_h(α) and CWPA = 1)."""
    check_votes(votes, where)
    top, average, oracle = _paper_human_rows(votes.probabilities, votes.n)
    p = votes.probability(answer)
    return {"model": ItemScore(p, p / top), "human:average": average, "human:oracle": oracle}


@lru_cache(maxsize=4096)
def _paper_human_rows(probabilities: tuple[float, ...], n: int) -> tuple[float, ItemScore, ItemScore]:
    """HA_q = max p_h, the average-human and the oracle rows of ``probabilities`` over ``n``
    answers, memoized like :func:`_human_average_of`."""
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
