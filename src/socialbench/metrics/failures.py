"""Failure rate of a model on SocialNav-SUB (paper App. 7.6, Tables 4 and 5).

A *failure* is an item where the model's chosen answer received zero human probability.
The official code does not implement it (reference ``socialnav-sub-official.md`` §e, last
item); like the reference driver, invalid answers and model errors count as failures
(they have no answer any human gave). ``failure_rate_valid_only`` restricts the rate to
items with a valid answer, so the two effects can be told apart.

The protocol (:mod:`socialbench.metrics.protocols`, an object or its name) decides what
counts as a valid answer and how the SE is computed:

* ``paper``: ``question.canonical(parsed)`` (order-insensitive multiple select);
  SE with the sample std (ddof=1);
* ``official``: :func:`~socialbench.metrics.agreement.official_match` on
  ``official_parse(raw)`` (or ``parsed`` when there is no raw text), order-sensitive;
  an invalid answer is a failure here, NOT the first option; SE with ddof=0.

Paper §7.6 analyses (below :func:`failure_summary`): :func:`failure_rate_by_attribute`
(Table 4, failure-rate increase by any scene attribute), :func:`action_distribution`
(Table 5, the model's chosen action with per-action failure rates) and :func:`rank_cases`
(the entropy rule that picks failure and success cases for display).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypedDict

from socialbench.metrics.agreement import ScoringEntry
from socialbench.metrics.protocols import PAPER, ProtocolArg, as_protocol
from socialbench.metrics.results import FailureSummary
from socialbench.metrics.stats import mean_se
from socialbench.types import Answer


def entry_answer(entry: ScoringEntry, protocol: ProtocolArg) -> Answer | None:
    """The valid answer of ``entry`` under ``protocol``, or ``None`` (invalid or error)."""
    return as_protocol(protocol).valid_answer(entry)


def _rate(flags: Sequence[bool], ddof: int) -> tuple[float, float]:
    mean, se, _ = mean_se([1.0 if f else 0.0 for f in flags], ddof)
    return mean, se


def failure_summary(entries: Sequence[ScoringEntry], protocol: ProtocolArg = PAPER) -> FailureSummary:
    """Failure, invalid-answer and error rates over ``entries``, each with its SE.

    Returns a :class:`~socialbench.metrics.results.FailureSummary` (JSON keys):

    * ``n``: number of entries;
    * ``failure_rate`` / ``failure_rate_se``: share of entries whose answer got p_h = 0,
      counting invalid answers and model errors as failures;
    * ``failure_rate_valid_only`` / ``..._se`` and ``n_valid``: the same over entries with a
      valid answer only (``None`` when there are none);
    * ``invalid_rate`` / ``invalid_rate_se``: share with no error but an invalid answer;
    * ``error_rate`` / ``error_rate_se``: share whose model call failed;
    * ``protocol``.

    SE = std / sqrt(n) of the 0/1 indicators (ddof per protocol, see the module doc).
    Raises ``ValueError`` on an empty ``entries`` or an unknown protocol.
    """
    proto = as_protocol(protocol)
    if not entries:
        raise ValueError("failure_summary: no entries given")
    failed: list[bool] = []
    failed_valid: list[bool] = []
    invalid: list[bool] = []
    errored: list[bool] = []
    for e in entries:
        answer = proto.valid_answer(e)
        is_error = e.error is not None
        is_invalid = not is_error and answer is None
        zero = answer is None or e.votes.probability(answer) == 0.0
        failed.append(zero)
        invalid.append(is_invalid)
        errored.append(is_error)
        if answer is not None:
            failed_valid.append(zero)
    ddof = proto.se_ddof
    fr, fr_se = _rate(failed, ddof)
    fv, fv_se = _rate(failed_valid, ddof) if failed_valid else (None, None)
    ir, ir_se = _rate(invalid, ddof)
    er, er_se = _rate(errored, ddof)
    return FailureSummary(
        protocol=proto.name,
        n=len(entries),
        failure_rate=fr,
        failure_rate_se=fr_se,
        failure_rate_valid_only=fv,
        failure_rate_valid_only_se=fv_se,
        n_valid=len(failed_valid),
        invalid_rate=ir,
        invalid_rate_se=ir_se,
        error_rate=er,
        error_rate_se=er_se,
    )


# =========================================================================== §7.6 analyses
#
# Table 4 (failure-rate increase by scene attribute), Table 5 (distribution of the model's
# chosen action with per-action failure rates) and the entropy rule that picks the failure
# and success cases shown in Figures 9 and 10.


def entry_failed(entry: ScoringEntry, protocol: ProtocolArg = PAPER) -> bool:
    """True when no human gave the entry's answer (invalid answers and errors included)."""
    answer = entry_answer(entry, protocol)
    return answer is None or entry.votes.probability(answer) == 0.0


@dataclass(frozen=True)
class GroupFailure:
    """Failure rate of the entries whose attribute has one value (one cell of Table 4).

    ``fri`` (failure-rate increase) = ``failure_rate / overall failure rate``: 1 equals the
    model's overall rate, > 1 worse than its average, < 1 better; ``None`` when the overall
    rate is 0 (the ratio is undefined).
    """

    attribute: str
    value: Hashable
    n: int
    failures: int
    failure_rate: float
    failure_rate_se: float
    fri: float | None


class OverallFailures(TypedDict):
    """The failure rate over every entry (the reference of the FRI)."""

    n: int
    failures: int
    failure_rate: float
    failure_rate_se: float


class AttributeFailures(TypedDict):
    """What :func:`failure_rate_by_attribute` returns (one attribute of Table 4)."""

    attribute: str
    protocol: str
    overall: OverallFailures
    groups: list[GroupFailure]
    n_unknown: int


def _value_order(v: Hashable) -> tuple[int, str]:
    if isinstance(v, bool):
        return (0, "0" if v else "1")  # True before False: "indoors" before "outdoors"
    return (1, str(v))


def failure_rate_by_attribute(
    entries: Sequence[ScoringEntry],
    values: Sequence[object],
    protocol: ProtocolArg = PAPER,
    attribute: str = "",
) -> AttributeFailures:
    """Failure rate and failure-rate increase (FRI) per attribute value (paper Table 4).

    ``values[i]`` is the attribute of ``entries[i]`` (e.g. the sample's ``indoors`` flag from
    ``sample_metadata.json``, or any other metadata field): a scalar, ``None`` (unknown: the
    entry counts in the overall rate only) or a list / tuple / set (the entry counts in the
    group of every element, e.g. several facets). Groups are ordered True before False,
    then by the text of the value.

    Returns ``{"attribute", "protocol", "overall": {"n", "failures", "failure_rate",
    "failure_rate_se"}, "groups": [GroupFailure, ...], "n_unknown"}``. SE per protocol
    (sample std for ``paper``, population std for ``official``).
    """
    if len(values) != len(entries):
        raise ValueError(
            f"failure_rate_by_attribute: {len(values)} attribute values for {len(entries)} entries; "
            "give one value per entry"
        )
    if not entries:
        raise ValueError("failure_rate_by_attribute: no entries given")
    proto = as_protocol(protocol)
    ddof = proto.se_ddof
    flags = [entry_failed(e, proto) for e in entries]
    overall, overall_se, n = mean_se([1.0 if f else 0.0 for f in flags], ddof)
    groups: dict[Hashable, list[bool]] = {}
    unknown = 0
    for flag, value in zip(flags, values):
        listed = list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]
        members: list[Hashable] = [m for m in listed if m is not None]
        if not members:
            unknown += 1
        for m in dict.fromkeys(members):
            groups.setdefault(m, []).append(flag)
    out_groups = []
    for value in sorted(groups, key=_value_order):
        fl = groups[value]
        rate, se, k = mean_se([1.0 if f else 0.0 for f in fl], ddof)
        out_groups.append(GroupFailure(attribute, value, k, sum(fl), rate, se, rate / overall if overall > 0 else None))
    return {
        "attribute": attribute,
        "protocol": proto.name,
        "overall": {"n": n, "failures": sum(flags), "failure_rate": overall, "failure_rate_se": overall_se},
        "groups": out_groups,
        "n_unknown": unknown,
    }


@dataclass(frozen=True)
class ActionShare:
    """How often the model chose one action and how often that choice failed (Table 5 cell).

    ``share`` = chosen / number of valid answers (the parenthesised occurrence in Table 5);
    ``failure_rate`` = failures among the entries where it was chosen (``None`` when it was
    never chosen: the "—" of Table 5).
    """

    action: str
    chosen: int
    share: float
    failures: int
    failure_rate: float | None
    failure_rate_se: float | None


class ActionDistribution(TypedDict):
    """What :func:`action_distribution` returns (one question type of Table 5)."""

    base_key: str
    protocol: str
    n: int
    n_valid: int
    n_invalid: int
    actions: list[ActionShare]


def choice_label(answer: Answer) -> str:
    """Display text of an answer: the option, or the options joined with `` + ``."""
    return " + ".join(answer) if isinstance(answer, tuple) else str(answer)


def action_distribution(
    entries: Sequence[ScoringEntry],
    base_key: str = "q_robot_action",
    protocol: ProtocolArg = PAPER,
) -> ActionDistribution:
    """Distribution of the model's chosen answer to one question type, with failure rates.

    Paper Table 5 ("Robot Action to Person", base key ``q_robot_action``): for each option
    of the question, in the question's option order (all choices for a multiple-select
    question), the share of valid answers that chose it and the failure rate (answer no
    human gave) among those. Invalid answers and model errors are counted in
    ``n_invalid`` and excluded from the shares.

    Returns ``{"base_key", "protocol", "n", "n_valid", "n_invalid", "actions":
    [ActionShare, ...]}``; ``actions`` is empty when no entry has ``base_key``.
    """
    proto = as_protocol(protocol)
    ddof = proto.se_ddof
    chosen = [e for e in entries if e.question.base_key == base_key]
    if not chosen:
        return {"base_key": base_key, "protocol": proto.name, "n": 0, "n_valid": 0, "n_invalid": 0, "actions": []}
    by_answer: dict[Answer, list[bool]] = {c: [] for c in chosen[0].question.choices}
    invalid = 0
    for e in chosen:
        a = proto.valid_answer(e)
        if a is None:
            invalid += 1
            continue
        by_answer.setdefault(a, []).append(e.votes.probability(a) == 0.0)
    n_valid = len(chosen) - invalid
    actions = []
    for a, flags in by_answer.items():
        rate: float | None = None
        se: float | None = None
        if flags:
            rate, se, _ = mean_se([1.0 if f else 0.0 for f in flags], ddof)
        actions.append(
            ActionShare(choice_label(a), len(flags), len(flags) / n_valid if n_valid else 0.0, sum(flags), rate, se)
        )
    return {
        "base_key": base_key,
        "protocol": proto.name,
        "n": len(chosen),
        "n_valid": n_valid,
        "n_invalid": invalid,
        "actions": actions,
    }


# --------------------------------------------------------------------------- entropy rule


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
