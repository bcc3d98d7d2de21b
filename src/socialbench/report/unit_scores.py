"""Per-question scores of runs on the same questions, for paired comparisons: PA, CWPA and
the binary outcomes McNemar's test reads (:class:`UnitScores`), aligned across runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from socialbench.errors import UsageError
from socialbench.metrics.agreement import ItemScore, ScoringEntry
from socialbench.metrics.protocols import ProtocolArg, as_protocol
from socialbench.types import Answer, Item


@dataclass(frozen=True)
class UnitScores:
    """Per-question scores of one run on aligned questions (for paired comparisons)."""

    keys: tuple[tuple[str, str], ...]
    pa: np.ndarray
    cwpa: np.ndarray
    correct: np.ndarray  # answer is a most common human answer (a human mode)
    failed: np.ndarray  # no human gave the answer (invalid and errors included)
    invalid: np.ndarray  # no valid answer (unparseable or the model call failed)

    @property
    def clusters(self) -> list[str]:
        """The item (scene) of each question: the resampling cluster."""
        return [k[0] for k in self.keys]


def model_item_score(entry: ScoringEntry, protocol: ProtocolArg) -> ItemScore | None:
    """PA / CWPA of the model on one entry (``None`` when undefined: official protocol
    with fewer than 2 human answers)."""
    return as_protocol(protocol).model_score(entry)


def gold_answer(item: Item, key: str) -> Answer | None:
    """The gold (majority) answer when the benchmark records one: RobotEQ behavior labels
    (``metadata["behaviors"][key]["label"]``) and grounding answer sets; else ``None``."""
    meta = item.metadata
    beh = meta.get("behaviors")
    if isinstance(beh, Mapping) and isinstance(beh.get(key), Mapping) and beh[key].get("label"):
        return str(beh[key]["label"])
    ans = meta.get("answer")
    if isinstance(ans, (list, tuple)) and ans:
        try:
            return item.question(key).canonical(list(ans))
        except KeyError:
            return None
    return None


def unit_scores(
    entries: Sequence[ScoringEntry],
    protocol: ProtocolArg,
    *,
    skip_single: bool = True,
    golds: Mapping[tuple[str, str], Answer | None] | None = None,
) -> UnitScores:
    """PA, CWPA and binary outcomes of every entry under ``protocol``.

    ``correct`` (for McNemar) is "the answer equals the gold label" when ``golds`` gives one
    for the question (RobotEQ), else "the answer is a human mode" (CWPA = 1 under the paper
    protocol). With ``skip_single`` (SocialNav-SUB) items with n <= 1 human answers are
    skipped, as in its scores.
    """
    proto = as_protocol(protocol)
    kept = [e for e in entries if e.votes.n > 1 or not skip_single]
    keys, pa, cw, correct, failed, invalid = [], [], [], [], [], []
    for e in kept:
        s = proto.model_score(e)
        if s is None:
            continue
        a = proto.valid_answer(e)
        p = e.votes.probability(a) if a is not None else 0.0
        gold = (golds or {}).get((e.item_id, e.question.key))
        keys.append((e.item_id, e.question.key))
        pa.append(s.pa)
        cw.append(s.cwpa)
        correct.append(a is not None and (a == gold if gold is not None else p == max(e.votes.probabilities)))
        failed.append(a is None or p == 0.0)
        invalid.append(a is None)
    return UnitScores(
        keys=tuple(keys),
        pa=np.asarray(pa, dtype=float),
        cwpa=np.asarray(cw, dtype=float),
        correct=np.asarray(correct, dtype=bool),
        failed=np.asarray(failed, dtype=bool),
        invalid=np.asarray(invalid, dtype=bool),
    )


def align(scores: Sequence[UnitScores]) -> tuple[list[UnitScores], int]:
    """Restrict every run to the questions all of them answered (same order).

    Returns the aligned scores and the number of questions dropped from the largest run.
    Raises :class:`UsageError` when the runs share no question.
    """
    common = set(scores[0].keys)
    for s in scores[1:]:
        common &= set(s.keys)
    if not common:
        raise UsageError("the runs share no scored question; compare runs made on the same dataset")
    order = [k for k in scores[0].keys if k in common]
    out = []
    for s in scores:
        index = {k: i for i, k in enumerate(s.keys)}
        idx = np.fromiter((index[k] for k in order), dtype=np.int64, count=len(order))
        out.append(UnitScores(tuple(order), s.pa[idx], s.cwpa[idx], s.correct[idx], s.failed[idx], s.invalid[idx]))
    dropped = max(len(s.keys) for s in scores) - len(order)
    return out, dropped
