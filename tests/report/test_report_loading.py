"""Reading run directories: errors that name the file and the fix, labels, alignment."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from socialbench.errors import DataError, UsageError
from socialbench.report.labels import assign_labels, display_name
from socialbench.report.loading import check_same_benchmark, load_run, load_runs
from socialbench.report.run_dir import RunDir
from socialbench.report.unit_scores import UnitScores, align

FIXTURES = Path(__file__).parent / "fixtures"


def test_missing_metrics_names_the_file_and_the_fix(tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text('{"benchmark": "socialnav-sub", "data": "d"}')
    (tmp_path / "samples.jsonl").write_text('{"item_id": "a"}\n')
    with pytest.raises(DataError) as exc:
        load_run(tmp_path)
    problem = exc.value.problems[0]
    assert problem.file.endswith("metrics.json") and "socialbench score" in problem.fix


def test_invalid_metrics_json_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "metrics.json").write_text('{"scores": \n oops}')
    with pytest.raises(DataError) as exc:
        load_run(tmp_path)
    assert exc.value.problems[0].line == 2 and "metrics.json:2: invalid JSON" in str(exc.value)


def test_metrics_without_scores_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "metrics.json").write_text(json.dumps({"benchmark": "socialnav-sub", "note": "nothing matched"}))
    with pytest.raises(DataError, match="nothing matched"):
        load_run(tmp_path)


@pytest.mark.parametrize(
    "spec, name",
    [
        ("openai:gpt-4o@http://localhost:8000/v1", "gpt-4o"),
        ("hf:Qwen/Qwen2.5-VL-7B-Instruct", "Qwen2.5-VL-7B-Instruct"),
        ("baseline:rule-based", "Rule-Based"),
        ("replay:runs/gpt4o/samples.jsonl", "replay:gpt4o"),
        ("plain", "plain"),
    ],
)
def test_display_names(spec: str, name: str) -> None:
    assert display_name(spec) == name


def test_labels_add_variants_and_stay_unique(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(FIXTURES / "socialnav" / "gpt4o", a)
    shutil.copytree(FIXTURES / "socialnav" / "gpt4o", b)
    runs = load_runs([a, b, FIXTURES / "socialnav" / "o4mini_cot", FIXTURES / "socialnav" / "gpt4o_blur"])
    assert [r.label for r in runs] == ["gpt-4o", "gpt-4o #2", "o4-mini (cot)", "gpt-4o (blur2)"]
    named = load_runs([a, b], labels=["GPT-4o"])
    assert [r.label for r in named] == ["GPT-4o", "gpt-4o"]


def test_too_many_labels_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="at most one per run"):
        load_runs([FIXTURES / "socialnav" / "gpt4o"], labels=["a", "b"])


def test_benchmarks_cannot_be_mixed() -> None:
    runs = load_runs([FIXTURES / "socialnav" / "gpt4o", FIXTURES / "roboteq" / "gpt55"])
    with pytest.raises(UsageError, match="different benchmarks"):
        check_same_benchmark(runs)


def _units(keys: list[tuple[str, str]], pa: list[float]) -> UnitScores:
    n = len(keys)
    z = np.zeros(n, dtype=bool)
    return UnitScores(tuple(keys), np.asarray(pa), np.asarray(pa), z, z, z)


def test_align_keeps_common_questions_in_the_first_runs_order() -> None:
    a = _units([("s1", "q1"), ("s1", "q2"), ("s2", "q1")], [0.1, 0.2, 0.3])
    b = _units([("s2", "q1"), ("s1", "q1")], [0.9, 0.8])
    (ua, ub), dropped = align([a, b])
    assert ua.keys == ub.keys == (("s1", "q1"), ("s2", "q1"))
    assert ua.pa.tolist() == [0.1, 0.3] and ub.pa.tolist() == [0.8, 0.9]
    assert dropped == 1


def test_align_without_common_questions_fails() -> None:
    with pytest.raises(UsageError, match="share no scored question"):
        align([_units([("a", "q")], [1.0]), _units([("b", "q")], [1.0])])


# --- regressions: run options in labels, benchmark in labels of mixed reports


def _run(name: str, bench: str = "roboteq-bj", strategy: str = "standard", options: dict | None = None) -> RunDir:
    run = {"model": "openai:gpt-4o", "benchmark": bench, "strategy": strategy, "options": options or {}}
    return RunDir(Path(name), run, {"benchmark": bench, "overall": {}})


def test_variant_names_non_default_rag_options() -> None:
    assert _run("a", strategy="rag", options={"rag_backend": "hybrid", "rag_k": 4}).variant() == "rag, hybrid, k=4"


def test_variant_ignores_default_options_and_rag_options_of_non_rag_runs() -> None:
    assert _run("a", strategy="rag", options={"rag_backend": "bm25", "rag_k": 2}).variant() == "rag"
    assert _run("b", options={"rag_backend": "dense"}).variant() == ""


def test_rag_runs_differing_only_in_backend_get_distinct_labels() -> None:
    runs = [_run("a", strategy="rag"), _run("b", strategy="rag", options={"rag_backend": "dense"})]
    assign_labels(runs)
    assert [r.label for r in runs] == ["gpt-4o (rag)", "gpt-4o (rag, dense)"]


def test_labels_name_the_benchmark_when_a_report_mixes_tasks() -> None:
    runs = [_run("a"), _run("b", strategy="rag"), _run("c", bench="roboteq-sg"), _run("d", bench="roboteq-sg")]
    assign_labels(runs, ["", "", "", "SG mine"])
    assert [r.label for r in runs] == [
        "gpt-4o (roboteq-bj)",
        "gpt-4o (roboteq-bj, rag)",
        "gpt-4o (roboteq-sg)",
        "SG mine",
    ]
