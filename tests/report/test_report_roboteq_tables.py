"""RobotEQ paper-table builder rules (Table 1 ranking, the RAG table's pairs, names, labels and times)."""

from __future__ import annotations

from pathlib import Path

import pytest

from socialbench.report.labels import assign_labels
from socialbench.report.loading import load_runs
from socialbench.report.roboteq_tables import (
    roboteq_ablation_table,
    roboteq_grounding_table,
    roboteq_rag_table,
    roboteq_table1,
)
from socialbench.report.run_dir import RunDir

FIXTURES = Path(__file__).parent / "fixtures"


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
    human = {"final-label": {"synthetic": {"pa": {"value": 0.81}, "cwpa": {"value": 0.84}}}}
    t = roboteq_table1(_rq_runs(), human)
    assert t.rows[-1].stub[0] == "Human (final label)" and not t.rows[-1].cells[0].bold
    assert t.rows[-1].cells[2].text == "—"


def test_roboteq_table1_names_each_human_definition() -> None:
    block = {"synthetic": {"pa": {"value": 0.8}}}
    t = roboteq_table1(_rq_runs(), {"final-label": block, "leave-one-out": block})
    assert [r.stub[0] for r in t.rows[-2:]] == ["Human (final label)", "Human (leave-one-out)"]
    assert "Human (final label):" in t.notes[0] and "Human (leave-one-out):" in t.notes[0]


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


def _rq_run(
    tmp_path: Path,
    name: str,
    model: str,
    f1: float,
    *,
    bench: str = "roboteq-bj",
    strategy: str = "standard",
    options: dict | None = None,
    perturb: dict | None = None,
    requests: dict | None = None,
) -> RunDir:
    block = {m: _stat(f1) for m in ("pa", "cwpa", "micro_f1", "macro_f1")}
    metrics = {
        "benchmark": bench,
        "protocol": "paper",
        "overall": block,
        "by_subset": {"synthetic": block, "real": block, "average": block},
        "requests": requests or {"requests": 4, "cached": 0, "latency_s_per_request": 1.5},
    }
    run = {"model": model, "strategy": strategy, "benchmark": bench, "options": options or {}, "perturb": perturb}
    return RunDir(tmp_path / name, run, metrics)


def test_roboteq_table1_ranks_vlm_rows_only(tmp_path: Path) -> None:
    runs = [
        _rq_run(tmp_path, "o", "human:oracle", 1.0),
        _rq_run(tmp_path, "a", "openai:gpt-4o", 0.7),
        _rq_run(tmp_path, "b", "openai:gpt-4o-mini", 0.6),
    ]
    assign_labels(runs)
    t = roboteq_table1(runs)
    assert [(r.section, r.cells[0].bold, r.cells[0].underline) for r in t.rows] == [
        ("VLM", True, False),
        ("VLM", False, True),
        ("Human-derived", False, False),
    ]


def test_roboteq_table1_never_bolds_a_human_oracle_run(tmp_path: Path) -> None:
    # issue 41: with no VLM row the baselines are ranked, and human:oracle is not one of them
    runs = [
        _rq_run(tmp_path, "o", "human:oracle", 1.0),
        _rq_run(tmp_path, "r", "baseline:random", 0.5),
        _rq_run(tmp_path, "m", "mock:first-option", 0.4),
    ]
    assign_labels(runs)
    t = roboteq_table1(runs)
    assert [(r.stub[0], r.section, r.cells[0].bold) for r in t.rows] == [
        ("Random", "Baseline", True),
        ("Mock (first option)", "Baseline", False),
        ("Human Oracle (run)", "Human-derived", False),
    ]
    assert "Bold: best baseline run" in t.notes[0] and "Human Oracle (run) (Human-derived" in t.notes[0]


def test_roboteq_grounding_table_never_bolds_a_human_oracle_run(tmp_path: Path) -> None:
    runs = [
        _rq_run(tmp_path, "o", "human:oracle", 1.0, bench="roboteq-sg"),
        _rq_run(tmp_path, "r", "baseline:random", 0.5, bench="roboteq-sg"),
        _rq_run(tmp_path, "m", "mock:first-option", 0.4, bench="roboteq-sg"),
    ]
    assign_labels(runs)
    t = roboteq_grounding_table(runs)
    assert t is not None
    bold = {r.stub[0]: any(c.bold for c in r.cells) for r in t.rows}
    assert bold == {"Random": True, "Mock (first option)": False, "Human Oracle (run)": False}


def test_grounding_rag_table_has_its_own_name(tmp_path: Path) -> None:
    runs = [
        _rq_run(tmp_path, "s", "openai:gpt-4o", 0.3, bench="roboteq-sg"),
        _rq_run(tmp_path, "r", "openai:gpt-4o", 0.35, bench="roboteq-sg", strategy="rag"),
    ]
    assign_labels(runs)
    t = roboteq_rag_table(runs)
    assert t is not None and t.name == "roboteq_sg_rag" and "spatial grounding" in t.title


def test_rag_runs_differing_only_in_backend_get_their_own_labelled_rows(tmp_path: Path) -> None:
    runs = [
        _rq_run(tmp_path, "raw", "openai:gpt-4o", 0.5),
        _rq_run(tmp_path, "bm25", "openai:gpt-4o", 0.55, strategy="rag"),
        _rq_run(tmp_path, "dense", "openai:gpt-4o", 0.6, strategy="rag", options={"rag_backend": "dense", "rag_k": 4}),
    ]
    assign_labels(runs, ["", "", "GPT-4o dense RAG"])
    t = roboteq_rag_table(runs)
    assert t is not None
    assert [(r.stub[0], r.cells[1].text) for r in t.rows] == [("gpt-4o (rag)", "55.00"), ("GPT-4o dense RAG", "60.00")]


def test_rag_table_time_is_blank_with_a_note_when_every_request_was_cached(tmp_path: Path) -> None:
    cached = {"requests": 4, "cached": 4, "latency_s_per_request": 0.0, "rag": {"time_s_per_query": 0.001}}
    runs = [
        _rq_run(tmp_path, "raw", "openai:gpt-4o", 0.5),
        _rq_run(tmp_path, "rag", "openai:gpt-4o", 0.6, strategy="rag", requests=cached),
    ]
    assign_labels(runs)
    t = roboteq_rag_table(runs)
    assert t is not None and (t.rows[0].cells[3].value, t.rows[0].cells[4].text) == (1.5, "—")
    assert "response cache" in t.notes[0]


def test_human_image_table_rows_and_change() -> None:
    from socialbench.report.roboteq_tables import roboteq_human_image_table

    block = {"pairs": 10, "pa": 0.9, "cwpa": 0.95, "micro_f1": 0.92, "macro_f1": 0.9}
    blind = {"pairs": 10, "pa": 0.7, "cwpa": 0.8, "micro_f1": 0.75, "macro_f1": None}
    t = roboteq_human_image_table({"n": 5, "with_image": block, "without_image": blind})
    assert t is not None and [r.stub[0] for r in t.rows] == ["With image", "Without image", "Change (without - with)"]
    assert [c.text for c in t.rows[2].cells] == ["—", "-20.00", "-15.00", "-17.00", "—"]
    assert "5 behaviors" in t.notes[0]


def test_human_image_table_is_absent_without_labels() -> None:
    from socialbench.report.roboteq_tables import roboteq_human_image_table

    assert roboteq_human_image_table(None) is None


def test_roboteq_ablation_rows_are_named_as_the_report_names_runs(tmp_path: Path) -> None:
    # issue 41: a model with no standard run was named by its raw spec (mock:first-option)
    runs = [
        _rq_run(tmp_path, "s", "mock:first-option", 0.5),
        _rq_run(tmp_path, "c", "mock:first-option", 0.6, strategy="cot"),
        _rq_run(tmp_path, "n", "mock:first-option", 0.4, strategy="no-image", options={"per_behavior": True}),
    ]
    runs[2].run = {**runs[2].run, "per_behavior": True}
    assign_labels(runs)
    t = roboteq_ablation_table(runs)
    assert t is not None
    names = [r.stub[0] for r in t.rows]
    assert not any(n.startswith("mock:") for n in names) and all(n.startswith("Mock (first option)") for n in names)
