"""SocialNav-SUB agreement aggregated over items: the ``scores`` of ``metrics.json``.

Per item, a protocol (:mod:`socialbench.metrics.protocols`) scores the model and the two
human baselines; :func:`score_entries` averages those over the items of each group
(reference ``socialnav-sub-official.md`` §e "Aggregation"): ``"All"``, each reasoning
category and each base question. Every mean is a micro-average over items (sample × person
× question), SE = std / sqrt(n) with the protocol's ddof.
"""

from __future__ import annotations

from collections.abc import Sequence

from socialbench.metrics.agreement import CATEGORIES, ROWS, ScoringEntry
from socialbench.metrics.protocols import ProtocolArg, as_protocol
from socialbench.metrics.results import AgreementBlock, AgreementCell, AgreementScores
from socialbench.metrics.stats import mean_se

__all__ = ["score_entries"]


def _group_keys(entries: Sequence[ScoringEntry]) -> list[str]:
    """Row order: All, the known categories, other categories, then base keys as met."""
    seen_cats = {e.question.category for e in entries}
    keys = ["All"] + [c for c in CATEGORIES if c in seen_cats]
    for e in entries:
        if e.question.category not in keys:
            keys.append(e.question.category)
    for e in entries:
        if e.question.base_key not in keys:
            keys.append(e.question.base_key)
    return keys


def score_entries(entries: Sequence[ScoringEntry], protocol: ProtocolArg) -> AgreementScores:
    """Aggregate PA/CWPA over items (reference §e "Aggregation").

    Returns the blocks of ``"model"``, ``"human:average"`` and ``"human:oracle"``; each
    maps ``"All"``, each category (``question.category``) and each base question key
    (``question.base_key``) that occurs to an :class:`AgreementCell`. Every mean is a
    micro-average over items (sample × person × question), as in the official code; the
    per-item scores and the SE are the protocol's (:mod:`socialbench.metrics.protocols`).
    Items with n <= 1 human answers are skipped. Raises ``ValueError`` when nothing is left
    to score or the protocol is unknown.
    """
    proto = as_protocol(protocol)
    kept = [e for e in entries if e.votes.n > 1]
    if not kept:
        raise ValueError("score_entries: no entries to score (none given, or all have n <= 1 human answers)")
    keys = _group_keys(kept)
    # Each group lists its items' positions in entry order: every group's values are
    # summed in the order the reference's aggregation pushes them (one per item, §e).
    members: dict[str, list[int]] = {k: [] for k in keys}
    for i, e in enumerate(kept):
        q = e.question
        members["All"].append(i)
        members[q.category].append(i)
        if q.base_key != q.category:  # a base key equal to a category counts once
            members[q.base_key].append(i)
    item_scores = [proto.item_scores(e) for e in kept]
    values: dict[str, dict[str, tuple[list[float], list[float]]]] = {}
    for row in ROWS:
        row_scores = [s[row] for s in item_scores]
        pas = [s.pa for s in row_scores]
        cwpas = [s.cwpa for s in row_scores]
        values[row] = {k: ([pas[i] for i in idx], [cwpas[i] for i in idx]) for k, idx in members.items()}
    rows: dict[str, AgreementBlock] = {}
    for row in ROWS:
        cells: dict[str, AgreementCell] = {}
        for k in keys:
            pas, cwpas = values[row][k]
            pa, pa_se, n = mean_se(pas, proto.se_ddof)
            cw, cw_se, _ = mean_se(cwpas, proto.se_ddof)
            cells[k] = AgreementCell(pa=pa, cwpa=cw, pa_se=pa_se, cwpa_se=cw_se, n=n)
        rows[row] = AgreementBlock(cells)
    return AgreementScores(rows)
