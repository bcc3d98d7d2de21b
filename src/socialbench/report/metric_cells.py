"""Cells from the blocks of a run's ``metrics.json``: SocialNav-SUB PA / CWPA pairs
(``scores.<row>.<group>``) and RobotEQ statistics (``{"value", "se"}``), shared by the
paper-table builders."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from socialbench.report.table import EMPTY, Cell, fmt_num, mean_se_cell

__all__ = ["sn_block", "sn_pair", "rq_value", "rq_cell"]


def sn_block(metrics: Mapping[str, Any], row: str, group: str) -> Mapping[str, Any] | None:
    """The SocialNav-SUB block of answerer ``row`` (``model``, ``human:oracle``, ...) for
    ``group`` (a category, ``All`` or a question key); None when absent."""
    return ((metrics.get("scores") or {}).get(row) or {}).get(group)


def sn_pair(block: Mapping[str, Any] | None) -> tuple[Cell, Cell]:
    """The PA and CWPA cells (mean ± SE) of a SocialNav-SUB block (empty cells without one)."""
    if not block:
        return EMPTY, EMPTY
    return mean_se_cell(block.get("PA"), block.get("PA_se")), mean_se_cell(block.get("CWPA"), block.get("CWPA_se"))


def rq_value(block: Mapping[str, object] | None, name: str) -> tuple[float | None, float | None]:
    """(value, SE) of statistic ``name`` in a RobotEQ block; (None, None) when absent."""
    stat = (block or {}).get(name)
    if not isinstance(stat, Mapping) or stat.get("value") is None:
        return None, None
    return float(stat["value"]), (None if stat.get("se") is None else float(stat["se"]))


def rq_cell(block: Mapping[str, object] | None, name: str) -> Cell:
    """A percent cell; the kept value and SE are in percent too (as displayed)."""
    v, se = rq_value(block, name)
    return EMPTY if v is None else Cell(fmt_num(v, 2, 100.0), 100 * v, None if se is None else 100 * se)
