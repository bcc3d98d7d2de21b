"""CSV cells that a spreadsheet would run as formulas are neutralised (issue 29, OWASP)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from socialbench.files.csv_cells import FORMULA_STARTS, csv_cell
from socialbench.report.renderers import to_csv
from socialbench.report.table import Cell, Row, Table


@pytest.mark.parametrize("text", ['=HYPERLINK("http://x","y")', "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"])
def test_a_text_cell_starting_like_a_formula_gets_a_quote(text: str) -> None:
    assert csv_cell(text) == "'" + text


@pytest.mark.parametrize("value", ["-0.5", "+3", "-1e-05", "12", -0.5, 3, "model-a", ""])
def test_numbers_and_plain_text_are_kept(value: object) -> None:
    assert csv_cell(value) == value


@settings(max_examples=300, deadline=None, database=None)
@given(st.text(max_size=20))
def test_no_cell_written_starts_a_formula_unless_it_is_a_number(text: str) -> None:
    out = csv_cell(text)
    if out.startswith(FORMULA_STARTS):
        assert out == text and float(out) == float(out)


def test_a_report_table_with_a_formula_model_name_writes_it_as_text() -> None:
    row = Row(stub=('=HYPERLINK("http://evil","click")',), cells=(Cell(text="-0.50", value=-0.5),))
    table = Table(name="t", title="t", stub=("model",), columns=("PA",), rows=(row,))
    text = to_csv(table)
    assert "'=HYPERLINK" in text and "-0.500000" in text
