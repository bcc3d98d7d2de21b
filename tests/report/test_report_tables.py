"""Table model, renderers (escaping, best / runner-up marks) and builder rules."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from socialbench.errors import UsageError
from socialbench.report.loading import RunDir, assign_labels, load_runs
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


# --- regressions: Table 1 ranking, RAG table names / labels / options, cached latency


def _stat(v: float) -> dict:
    return {"value": v, "se": 0.01}


def _rq_run(tmp_path: Path, name: str, model: str, f1: float, *, bench: str = "roboteq-bj", strategy: str = "standard",
            options: dict | None = None, perturb: dict | None = None, requests: dict | None = None) -> RunDir:
    block = {m: _stat(f1) for m in ("pa", "cwpa", "micro_f1", "macro_f1")}
    metrics = {"benchmark": bench, "protocol": "paper", "overall": block,
               "by_subset": {"synthetic": block, "real": block, "average": block},
               "requests": requests or {"requests": 4, "cached": 0, "latency_s_per_request": 1.5}}
    run = {"model": model, "strategy": strategy, "benchmark": bench, "options": options or {}, "perturb": perturb}
    return RunDir(tmp_path / name, run, metrics)


def test_roboteq_table1_ranks_vlm_rows_only(tmp_path: Path) -> None:
    runs = [_rq_run(tmp_path, "o", "human:oracle", 1.0), _rq_run(tmp_path, "a", "openai:gpt-4o", 0.7),
            _rq_run(tmp_path, "b", "openai:gpt-4o-mini", 0.6)]
    assign_labels(runs)
    t = roboteq_table1(runs)
    assert [(r.section, r.cells[0].bold, r.cells[0].underline) for r in t.rows] == [
        ("Baseline", False, False), ("VLM", True, False), ("VLM", False, True)]


def test_grounding_rag_table_has_its_own_name(tmp_path: Path) -> None:
    runs = [_rq_run(tmp_path, "s", "openai:gpt-4o", 0.3, bench="roboteq-sg"),
            _rq_run(tmp_path, "r", "openai:gpt-4o", 0.35, bench="roboteq-sg", strategy="rag")]
    assign_labels(runs)
    t = roboteq_rag_table(runs)
    assert t is not None and t.name == "roboteq_sg_rag" and "spatial grounding" in t.title


def test_rag_runs_differing_only_in_backend_get_their_own_labelled_rows(tmp_path: Path) -> None:
    runs = [_rq_run(tmp_path, "raw", "openai:gpt-4o", 0.5),
            _rq_run(tmp_path, "bm25", "openai:gpt-4o", 0.55, strategy="rag"),
            _rq_run(tmp_path, "dense", "openai:gpt-4o", 0.6, strategy="rag", options={"rag_backend": "dense", "rag_k": 4})]
    assign_labels(runs, ["", "", "GPT-4o dense RAG"])
    t = roboteq_rag_table(runs)
    assert t is not None
    assert [(r.stub[0], r.cells[1].text) for r in t.rows] == [("gpt-4o (rag)", "55.00"), ("GPT-4o dense RAG", "60.00")]


def test_rag_table_time_is_blank_with_a_note_when_every_request_was_cached(tmp_path: Path) -> None:
    cached = {"requests": 4, "cached": 4, "latency_s_per_request": 0.0, "rag": {"time_s_per_query": 0.001}}
    runs = [_rq_run(tmp_path, "raw", "openai:gpt-4o", 0.5),
            _rq_run(tmp_path, "rag", "openai:gpt-4o", 0.6, strategy="rag", requests=cached)]
    assign_labels(runs)
    t = roboteq_rag_table(runs)
    assert t is not None and (t.rows[0].cells[3].value, t.rows[0].cells[4].text) == (1.5, "—")
    assert "response cache" in t.notes[0]


def test_robustness_pairs_a_perturbed_rag_run_with_the_clean_run_of_the_same_backend(tmp_path: Path) -> None:
    dense = {"rag_backend": "dense"}
    runs = [_rq_run(tmp_path, "bm25", "openai:gpt-4o", 0.5, strategy="rag"),
            _rq_run(tmp_path, "dense", "openai:gpt-4o", 0.7, strategy="rag", options=dense),
            _rq_run(tmp_path, "dense_blur", "openai:gpt-4o", 0.6, strategy="rag", options=dense, perturb={"name": "blur", "strength": 1})]
    assign_labels(runs)
    t = robustness_table(runs)
    assert t is not None and [r.stub[0] for r in t.rows] == ["gpt-4o (rag, dense)"]
    assert t.rows[0].cells[2].value == pytest.approx(10.0)
