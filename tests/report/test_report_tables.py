"""Table model, renderers (escaping, best / runner-up marks) and builder rules."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from socialbench.errors import UsageError
from socialbench.report.loading import load_runs
from socialbench.report.tables import (
    Cell,
    Row,
    Table,
    mark_best,
    roboteq_rag_table,
    roboteq_table1,
    robustness_table,
    socialnav_table1,
    tex_escape,
    to_csv,
    to_html,
    to_latex,
    to_markdown,
)

FIXTURES = Path(__file__).parent / "fixtures"


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


def _sn_runs() -> list:
    return load_runs([FIXTURES / "socialnav" / n for n in ("rule_based", "gpt4o", "o4mini_cot", "gpt4o_blur")])


def test_socialnav_table1_puts_baselines_before_vlms_and_bolds_best_vlm() -> None:
    t = socialnav_table1(_sn_runs())
    assert [r.stub[0] for r in t.rows] == ["Human Oracle", "Average Human", "Rule-Based", "gpt-4o", "o4-mini (cot)"]
    assert [r.section for r in t.rows] == ["Baseline"] * 3 + ["VLM"] * 2
    all_pa = [r.cells[0] for r in t.rows]
    assert [c.bold for c in all_pa] == [False, False, False, False, True]  # rule-based 0.64 is not a VLM


def test_perturbed_runs_leave_table1_for_the_robustness_table() -> None:
    t = socialnav_table1(_sn_runs())
    assert not any("blur" in r.stub[0] for r in t.rows)
    rob = robustness_table(_sn_runs())
    assert rob is not None and rob.rows[0].stub == ("gpt-4o",)
    assert rob.rows[0].cells[2].value == pytest.approx(0.50 - 0.45)


def test_runs_with_different_protocols_cannot_share_a_table(tmp_path: Path) -> None:
    d = tmp_path / "official"
    shutil.copytree(FIXTURES / "socialnav" / "gpt4o", d)
    m = json.loads((d / "metrics.json").read_text())
    m["protocol"] = "official"
    (d / "metrics.json").write_text(json.dumps(m))
    runs = load_runs([FIXTURES / "socialnav" / "rule_based", d])
    with pytest.raises(UsageError, match="different protocols"):
        socialnav_table1(runs)


def _rq_runs() -> list:
    return load_runs([FIXTURES / "roboteq" / n for n in ("gpt55", "opus46", "qwen", "qwen_rag", "qwen_fisheye")])


def test_roboteq_table1_keeps_clean_standard_runs_in_percent() -> None:
    t = roboteq_table1(_rq_runs())
    assert [r.stub[0] for r in t.rows] == ["gpt-5.5", "claude-opus-4-6", "Qwen2.5-VL-7B-Instruct"]
    assert t.rows[0].cells[0].text == "70.65" and t.rows[0].cells[0].bold
    assert t.rows[1].cells[0].underline
    # Avg CWPA = mean of the synthetic and real CWPA
    assert t.rows[2].cells[8].value == pytest.approx((59.32 + 55.66) / 2)


def test_roboteq_table1_human_row_is_not_ranked() -> None:
    human = {"synthetic": {"pa": {"value": 0.81}, "cwpa": {"value": 0.84}}}
    t = roboteq_table1(_rq_runs(), human)
    assert t.rows[-1].stub[0] == "Human" and not t.rows[-1].cells[0].bold
    assert t.rows[-1].cells[2].text == "—"


def test_rag_table_pairs_each_rag_run_with_its_raw_run() -> None:
    t = roboteq_rag_table(_rq_runs())
    assert t is not None and len(t.rows) == 1
    raw, rag, gain, t_raw, t_rag = t.rows[0].cells
    assert (raw.text, rag.text, gain.text) == ("61.87", "64.49", "+2.62")
    assert (t_raw.value, t_rag.value) == (0.67, 1.32)


def test_rag_table_is_absent_without_pairs() -> None:
    assert roboteq_rag_table(load_runs([FIXTURES / "roboteq" / "gpt55"])) is None
