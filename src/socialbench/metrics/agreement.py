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
"""

from __future__ import annotations

import json
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


# --------------------------------------------------------------------------- official protocol


def official_parse(raw: str) -> object:
    """Official answer extraction (reference §d.2): ``json.loads(raw)["answer"]``.

    Any exception (bad JSON, not an object, no ``answer`` key, ``raw`` not a string) gives
    the string ``"INVALID"``. No trimming, lower-casing or synonym mapping.
    """
    try:
        return json.loads(raw)["answer"]
    except Exception:  # the official code catches everything here
        return INVALID


def official_match(question: Question, value: object) -> Answer | None:
    """The choice ``value`` denotes under the official matching rules, or ``None``.

    Reference §b and §d.3:

    * single choice: valid only if ``value`` is exactly one of the option strings;
    * multiple select: a string becomes a 1-tuple; a list (or tuple) becomes a tuple in the
      GIVEN order, duplicates kept, and is valid only if it equals one of the ordered
      subsets in ``question.choices`` (so ``["turning right", "moving ahead"]`` is invalid,
      §9.4).

    (The official ``utils.py`` actually raises NameError on every multiple-select answer,
    §9.5; this implements what it plainly intends.)
    """
    choices = question.choices
    if question.kind == "multi":
        if isinstance(value, str):
            candidate: tuple[object, ...] = (value,)
        elif isinstance(value, (list, tuple)):
            candidate = tuple(value)
        else:
            return None
        for c in choices:  # equality only: elements may be unhashable (dicts, lists)
            if c == candidate:
                return c
        return None
    if isinstance(value, str) and value in question.options:
        return value
    return None


def official_answer(question: Question, value: object) -> Answer:
    """The answer the official postprocessing scores for ``value`` (reference §d.5).

    A valid value (see :func:`official_match`) is itself; an invalid one becomes the FIRST
    choice (``question.choices[0]``), the first key of the all-zero one-hot dict picked by
    ``max`` (bug §9.2).
    """
    matched = official_match(question, value)
    if matched is not None:
        return matched
    return question.choices[0]


def _official_loo(question: Question, votes: HumanVotes, answer: Answer) -> tuple[ItemScore, ItemScore, ItemScore]:
    """The official leave-one-out loop (reference §e) for ``question``'s human ``votes`` and
    the model's ``answer``: (model, average human, human oracle). Raises ``ValueError`` when
    a human answer is not one of the question's choices."""
    choices = question.choices
    try:
        probabilities = _in_choice_order(choices, votes.answers, votes.probabilities)
    except ValueError as exc:
        raise ValueError(f"{question.key}: {exc}") from None
    scores = _official_loo_of(choices, probabilities, votes.n, answer)
    if scores is None:
        raise ValueError(f"{question.key}: no human labels recovered from the probabilities")
    return scores


@lru_cache(maxsize=16384)
def _in_choice_order(
    choices: tuple[Answer, ...], answers: tuple[Answer, ...], probabilities: tuple[float, ...]
) -> tuple[float, ...]:
    """The human probability of each of ``choices`` (0.0 where no human gave it); raises
    ``ValueError`` when a human answer is not one of them. Memoized."""
    p_h: dict[Answer, float] = dict.fromkeys(choices, 0.0)
    for a, p in zip(answers, probabilities):
        if a not in p_h:
            raise ValueError(
                f"human answer {a!r} is not one of the question's choices {list(choices)}; "
                "fix the label file or the question definition"
            )
        p_h[a] = p
    return tuple(p_h.values())


@lru_cache(maxsize=16384)
def _official_loo_of(
    choices: tuple[Answer, ...], probabilities: tuple[float, ...], n: int, answer: Answer
) -> tuple[ItemScore, ItemScore, ItemScore] | None:
    """:func:`_official_loo` of the human distribution ``probabilities`` (one per choice, in
    choice order) over ``n`` answers; ``None`` when no label is recovered.

    The floats are the official loop's to the last bit, with less work:

    * holding out a label changes only that label's count, so only it is recomputed, with
      the official operations (``int((p - 1/n) * n)``); the other counts are ``int(p * n)``
      once;
    * every q(c) is count(c) / Z over the same integers, and max q = max(count) / Z, since
      dividing by Z > 0 keeps the order;
    * the labels held out of a run of equal labels see the same distribution, so it is
      computed once per run; the sums still add one term per label, in label order.

    Memoized: a scoring pass meets the same distribution and answer many times."""
    # One label per truncated count, in choice order: runs of equal labels.
    base = [int(p * n) for p in probabilities]  # truncation bug §9.1
    m = sum(base)
    if m == 0:
        return None
    contribution = 1.0 / n
    at_answer = choices.index(answer)
    vlm = vlm_cw = hum = hum_cw = orc = orc_cw = 0.0
    for i, repeat in enumerate(base):
        if repeat <= 0:
            continue
        # Held out: p_h(held) - 1/n back to a count with int(); the other counts are unchanged.
        counts = list(base)
        counts[i] = int((probabilities[i] - contribution) * n)
        z = sum(counts) or 1
        # q(c) = counts[c] / z, so max q = max(counts) / z: the same division, the same float
        oracle_pa = max(counts) / z
        top = oracle_pa if oracle_pa != 0.0 else 1.0
        pa_h = counts[i] / z
        pa_v = counts[at_answer] / z
        for _ in range(repeat):  # one term per label, as the official loop adds them
            orc += oracle_pa
            hum += pa_h
            vlm += pa_v
            vlm_cw += pa_v / top
            hum_cw += pa_h / top
            orc_cw += oracle_pa / top
    return (
        ItemScore(vlm / m, vlm_cw / m),
        ItemScore(hum / m, hum_cw / m),
        ItemScore(orc / m, orc_cw / m),
    )


def official_item_scores(question: Question, votes: HumanVotes, value: object) -> dict[str, ItemScore]:
    """Official per-item scores (reference §e, "postprocess_results.py").

    ``value`` is the parsed model answer (see :func:`official_parse`); it is mapped with
    :func:`official_answer` (invalid -> first choice). Then, for each human label h_j
    (labels rebuilt from the counts int(p_h(x)·n), in choice order):

    * subtract 1/n from p_h(h_j), convert every entry back to a count with ``int(p·n)``
      (truncation, §9.1), Z = sum of counts (1 if 0), q_j = count / Z;
    * M_j = max q_j, replaced by 1 when 0;
    * model: PA_j = q_j(a), CWPA_j = q_j(a)/M_j (a LOO ratio, not Eq. 2, §9.3);
    * average human: PA_j = q_j(h_j), CWPA_j = q_j(h_j)/M_j;
    * oracle: PA_j = max q_j, CWPA_j = max q_j / M_j (= 1).

    Each is summed in label order and divided by the number of labels. Returns
    ``{"model", "human:average", "human:oracle"}`` -> :class:`ItemScore`.
    Raises ``ValueError`` when n <= 1 (the official code skips such items) or a human
    answer is not one of the question's choices (the official code asserts).
    """
    check_votes(votes, question.key)
    if votes.n <= 1:
        raise ValueError(f"{question.key}: official scoring needs n >= 2 human answers, got n={votes.n}")
    model, average, oracle = _official_loo(question, votes, official_answer(question, value))
    return {"model": model, "human:average": average, "human:oracle": oracle}


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
