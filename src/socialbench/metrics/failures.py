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
* ``official``: :func:`~socialbench.metrics.official_agreement.official_match` on
  ``official_parse(raw)`` (or ``parsed`` when there is no raw text), order-sensitive;
  an invalid answer is a failure here, NOT the first option; SE with ddof=0.
Built on it: :mod:`socialbench.metrics.failure_analysis` and
:mod:`socialbench.metrics.case_ranking` (§7.6).
"""

from __future__ import annotations

from collections.abc import Sequence

from socialbench.metrics.agreement import ScoringEntry
from socialbench.metrics.protocols import PAPER, ProtocolArg, as_protocol
from socialbench.metrics.results import FailureSummary
from socialbench.metrics.stats import mean_se
from socialbench.types import Answer

__all__ = ["entry_answer", "entry_failed", "failure_summary"]


def entry_answer(entry: ScoringEntry, protocol: ProtocolArg) -> Answer | None:
    """The valid answer of ``entry`` under ``protocol``, or ``None`` (invalid or error)."""
    return as_protocol(protocol).valid_answer(entry)


def _rate(flags: Sequence[bool], ddof: int) -> tuple[float, float]:
    mean, se, _ = mean_se([1.0 if f else 0.0 for f in flags], ddof)
    return mean, se


def failure_summary(entries: Sequence[ScoringEntry], protocol: ProtocolArg = PAPER) -> FailureSummary:
    """Failure rate (invalid answers and model errors count as failures), the same over
    valid answers only (``None`` when there are none), invalid-answer rate (no error) and
    error rate over ``entries``, each with SE = std / sqrt(n) of the 0/1 indicators (ddof
    per protocol). ``ValueError`` on an empty ``entries`` or an unknown protocol."""
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


def entry_failed(entry: ScoringEntry, protocol: ProtocolArg = PAPER) -> bool:
    """True when no human gave the entry's answer (invalid answers and errors included)."""
    answer = entry_answer(entry, protocol)
    return answer is None or entry.votes.probability(answer) == 0.0
