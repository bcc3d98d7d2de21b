"""Paper §7.6 failure analyses: the failure-rate increase by scene attribute
(:func:`failure_rate_by_attribute`, Table 4) and the distribution of the model's chosen
action with per-action failure rates (:func:`action_distribution`, Table 5). A failure is
as in :mod:`socialbench.metrics.failures`."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypedDict

from socialbench.metrics.agreement import ScoringEntry
from socialbench.metrics.failures import entry_failed
from socialbench.metrics.protocols import PAPER, ProtocolArg, as_protocol
from socialbench.metrics.stats import mean_se
from socialbench.types import Answer

__all__ = [
    "GroupFailure",
    "OverallFailures",
    "AttributeFailures",
    "failure_rate_by_attribute",
    "ActionShare",
    "ActionDistribution",
    "choice_label",
    "action_distribution",
]


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
    then by the text of the value. SE per protocol (``se_ddof``).
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
    ``n_invalid`` and excluded from the shares; ``actions`` is empty when no entry has
    ``base_key``.
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
