"""The format-neutral table of a report: :class:`Table` (stub columns, value columns under
optional spanning groups, rows in sections), its :class:`Cell` values and the formatting
helpers the table builders share.

A cell keeps the raw number, its standard error and the display text, so the renderers
(:mod:`socialbench.report.renderers`) only lay a table out, and CSV can write the
unrounded numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

__all__ = ["Cell", "EMPTY", "Row", "Table", "TableSet", "fmt_num", "fmt_pct", "mean_se_cell", "mark_best"]


@dataclass(frozen=True)
class Cell:
    """One value cell: display ``text`` plus the raw ``value`` and ``se`` (for CSV, ranking)."""

    text: str
    value: float | None = None
    se: float | None = None
    bold: bool = False
    underline: bool = False


EMPTY = Cell("—")


@dataclass(frozen=True)
class Row:
    """One table row: its stub texts, one cell per value column and its section."""

    stub: tuple[str, ...]
    cells: tuple[Cell, ...]
    section: str = ""


@dataclass(frozen=True)
class Table:
    """A format-neutral table (see the module docstring)."""

    name: str  # file stem, e.g. "socialnav_table1"
    title: str  # caption
    stub: tuple[str, ...]  # stub column headers
    columns: tuple[str, ...]  # value column headers
    rows: tuple[Row, ...]
    groups: tuple[tuple[str, int], ...] = ()  # spanning headers over the value columns
    notes: tuple[str, ...] = ()
    section_header: str = ""  # header of the section column ("" = no section column)

    def __post_init__(self) -> None:
        if self.groups and sum(span for _, span in self.groups) != len(self.columns):
            raise ValueError(
                f"{self.name}: groups span {sum(s for _, s in self.groups)} columns, not {len(self.columns)}"
            )
        for r in self.rows:
            if len(r.cells) != len(self.columns) or len(r.stub) != len(self.stub):
                raise ValueError(f"{self.name}: row {r.stub} does not match the columns")

    def column_names(self) -> list[str]:
        """Flat value-column names, ``"<group> <column>"`` when there are groups."""
        if not self.groups:
            return list(self.columns)
        out, i = [], 0
        for g, span in self.groups:
            for c in self.columns[i : i + span]:
                out.append(f"{g} {c}".strip())
            i += span
        return out


@dataclass
class TableSet:
    """Tables of one report, in display order; :meth:`add` skips a builder's ``None``."""

    tables: list[Table] = field(default_factory=list)

    def add(self, t: Table | None) -> None:
        if t is not None:
            self.tables.append(t)


# --------------------------------------------------------------------------- formatting


def fmt_num(value: float | None, digits: int = 2, scale: float = 1.0) -> str:
    """``value * scale`` with ``digits`` decimals (``—`` when unknown or NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value * scale:.{digits}f}"


def mean_se_cell(value: float | None, se: float | None, digits: int = 2, scale: float = 1.0, pm: str = " ± ") -> Cell:
    """``0.58 ± 0.01`` (SE omitted when unknown)."""
    if value is None:
        return EMPTY
    text = fmt_num(value, digits, scale)
    if se is not None:
        text += pm + fmt_num(se, digits, scale)
    return Cell(text, value, se)


def fmt_pct(v: float | None, digits: int = 2) -> str:
    """``v`` as a percentage, ``0.1234`` -> ``12.34%`` (``—`` when unknown)."""
    return "—" if v is None else f"{100 * v:.{digits}f}%"


def mark_best(
    rows: list[Row], candidates: Sequence[int], columns: Sequence[int], *, underline_second: bool
) -> list[Row]:
    """Bold the highest value of each column among rows ``candidates`` (ties all bold);
    optionally underline the second-highest distinct value. Nothing is marked when there
    are fewer than two candidate rows."""
    out = list(rows)
    if len(candidates) < 2:
        return out
    for c in columns:
        values = sorted({v for i in candidates if (v := out[i].cells[c].value) is not None}, reverse=True)
        if not values:
            continue
        best = values[0]
        second = values[1] if underline_second and len(values) > 1 else None
        for i in candidates:
            cell = out[i].cells[c]
            if cell.value is None:
                continue
            if cell.value == best:
                new = replace(cell, bold=True)
            elif second is not None and cell.value == second:
                new = replace(cell, underline=True)
            else:
                continue
            cells = list(out[i].cells)
            cells[c] = new
            out[i] = replace(out[i], cells=tuple(cells))
    return out
