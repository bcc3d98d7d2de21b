"""The ``official`` protocol per item, as the official ``postprocess_results.py`` computes
it bit for bit (reference ``socialnav-sub-official.md`` §d.2, §d.3, §d.5, §e and §9; see
:mod:`socialbench.metrics.agreement`): JSON parsing of the raw text
(:func:`official_parse`), order-sensitive multiple-select matching
(:func:`official_match`), an invalid answer scored as the FIRST choice
(:func:`official_answer`, §9.2), and the leave-one-out loop over the human labels with
``int()`` truncation of the counts and a LOO ratio in place of Eq. 2
(:func:`official_item_scores`, §9.1, §9.3)."""

from __future__ import annotations

import json
import re
from functools import lru_cache

from socialbench.metrics.agreement import INVALID, ItemScore, check_votes
from socialbench.types import Answer, HumanVotes, Question

__all__ = ["official_parse", "official_parse_gemini", "official_match", "official_answer", "official_item_scores"]

#: The official Gemini and LLaVA wrappers' extraction: the greedy ``{.*}`` across lines
#: (``gemini.py``, ``llava.py``; reference §d.1).
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def official_parse(raw: str) -> object:
    """Official answer extraction (reference §d.2): ``json.loads(raw)["answer"]``.

    Any exception (bad JSON, not an object, no ``answer`` key, ``raw`` not a string) gives
    the string ``"INVALID"``. No trimming, lower-casing or synonym mapping.
    """
    try:
        return json.loads(raw)["answer"]
    except Exception:  # the official code catches everything here
        return INVALID


def official_parse_gemini(raw: str) -> object:
    r"""The official Gemini path (reference §d.1, §d.2): the wrapper keeps the greedy
    match of ``\{.*\}`` (``re.DOTALL``: first ``{`` to last ``}``, across lines), then
    ``json.loads(match)["answer"]``, so a reply in a Markdown fence or with text around its
    JSON object is read. No match, or anything :func:`official_parse` refuses, gives
    ``"INVALID"``. (The official wrapper asks again when nothing matches; a recorded reply
    cannot be asked again, so it is invalid here.)

    >>> official_parse_gemini('```json\n{"answer": "yes"}\n```')
    'yes'
    >>> official_parse_gemini("yes")
    'INVALID'
    """
    if not isinstance(raw, str):
        return INVALID
    match = _JSON_OBJECT.search(raw)
    return official_parse(match.group()) if match is not None else INVALID


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
