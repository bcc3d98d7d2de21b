"""Table model: row / column checks and the best / runner-up marks."""

from __future__ import annotations

import pytest

from socialbench.report.table import Cell, Row, Table, mark_best


def test_table_rejects_rows_that_do_not_fit() -> None:
    with pytest.raises(ValueError, match="does not match"):
        Table("t", "T", ("Model",), ("PA", "CWPA"), (Row(("m",), (Cell("1", 1.0),)),))


def _rows(values: list[float]) -> list[Row]:
    return [Row((str(i),), (Cell(str(v), v),)) for i, v in enumerate(values)]


def test_mark_best_bolds_ties_and_underlines_runner_up() -> None:
    rows = mark_best(_rows([0.5, 0.7, 0.7, 0.6]), range(4), [0], underline_second=True)
    assert [r.cells[0].bold for r in rows] == [False, True, True, False]
    assert [r.cells[0].underline for r in rows] == [False, False, False, True]


def test_mark_best_only_among_candidates_and_not_for_a_single_row() -> None:
    rows = mark_best(_rows([0.9, 0.5, 0.6]), [1, 2], [0], underline_second=False)
    assert [r.cells[0].bold for r in rows] == [False, False, True]
    assert not mark_best(_rows([0.9]), [0], [0], underline_second=True)[0].cells[0].bold
