"""Renderers: escaping of every format and the CSV raw-value columns."""

from __future__ import annotations

import csv
import io

from socialbench.report.renderers import tex_escape, to_csv, to_html, to_latex, to_markdown
from socialbench.report.table import Cell, Row, Table


def _table(text: str = "a|b_c*<x>&%$#") -> Table:
    return Table("t", "Title & <caption>", ("Model",), ("PA",), (Row((text,), (Cell("0.50 ± 0.01", 0.5, 0.01),)),))


def test_markdown_escapes_table_syntax_and_markup() -> None:
    md = to_markdown(_table())
    assert "a\\|b\\_c\\*&lt;x>&%$#" in md
    assert "<x>" not in md


def test_latex_escapes_special_characters() -> None:
    assert tex_escape("50% & $1_x#{}~^\\") == r"50\% \& \$1\_x\#\{\}\textasciitilde{}\textasciicircum{}\textbackslash{}"
    tex = to_latex(_table())
    assert r"0.50 $\pm$ 0.01" in tex and r"\caption{Title \& <caption>}" in tex


def test_html_escapes_every_text() -> None:
    h = to_html(_table("<script>alert(1)</script>"))
    assert "<script>" not in h and "&lt;script&gt;alert(1)&lt;/script&gt;" in h
    assert "Title &amp; &lt;caption&gt;" in h


def test_csv_has_raw_values_and_se_columns() -> None:
    rows = list(csv.reader(io.StringIO(to_csv(_table("m")))))
    assert rows == [["Model", "PA", "PA SE"], ["m", "0.500000", "0.010000"]]
