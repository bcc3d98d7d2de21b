"""``report`` and ``compare`` on real RobotEQ behavior-judgment runs (a tiny canonical
dataset written here): Table 1 with the Human row from the labels, the viewer, McNemar on
gold-label correctness."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from socialbench.benchmarks.base import EvalOptions, get_benchmark
from socialbench.models import baselines
from socialbench.models.registry import ModelOptions
from socialbench.report.commands import build_report, compare_runs
from socialbench.report.loading import load_runs
from socialbench.runner.run import RunRequest, run_eval

VOTES = (["proper", "proper", "improper"], ["improper", "improper", "improper"])


@pytest.fixture(scope="module")
def rq_runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("rq") / "data"
    (root / "images").mkdir(parents=True)
    rows = []
    for i, subset in enumerate(["synthetic", "synthetic", "synthetic", "real", "real", "real"]):
        Image.new("RGB", (32, 24), (40 * i, 90, 160)).save(root / "images" / f"s{i}.png")
        rows.append({
            "id": f"s{i}", "task": "behavior_judgment", "image": f"images/s{i}.png",
            "question": "You are a hotel service robot. What is your most appropriate next action?",
            "subset": subset, "category": "Hospitality", "subcategory": "Hotel",
            "behaviors": [
                {"k": 1, "text": "Knock and wait.", "label": "proper", "facets": ["privacy", "politeness"], "votes": VOTES[0]},
                {"k": 2, "text": "Walk in.", "label": "improper", "facets": ["privacy"], "votes": VOTES[1]},
                {"k": 3, "text": "Shout <b>hello</b>.", "label": "improper", "facets": ["politeness"], "votes": VOTES[1]},
            ],
        })
    (root / "roboteq.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    bench, _ = get_benchmark("roboteq-bj")
    out = {}
    for name, make in (("random", baselines.make_random), ("oracle", baselines.make_oracle)):
        model = make("", ModelOptions(seed=0))
        req = RunRequest("roboteq-bj", root, model.spec, tmp_path_factory.mktemp(name) / "run", EvalOptions(), show_progress=False)
        assert run_eval(req, bench, model).complete
        out[name] = req.out
    return out


def test_roboteq_report_has_table1_with_human_row_and_viewer(rq_runs: dict[str, Path], tmp_path: Path) -> None:
    runs = load_runs([rq_runs["oracle"], rq_runs["random"]])
    res = build_report(runs, tmp_path, formats=["md", "html"])
    assert "roboteq_table1" in res["tables"]
    md = (tmp_path / "tables" / "roboteq_table1.md").read_text()
    human = next(line for line in md.splitlines() if line.startswith("| Human |"))
    # LOO agreement: votes (2 proper, 1 improper) -> PA 1/3; unanimous -> 1; synthetic mean (1/3 + 1 + 1)/3
    assert "77.78" in human
    page = (tmp_path / "index.html").read_text()
    assert "Shout \\u003cb\\u003ehello\\u003c/b\\u003e." in page and "<b>hello</b>" not in page
    assert len(list((tmp_path / "images").rglob("*.png"))) == 6


def test_roboteq_compare_scores_correctness_against_gold_labels(rq_runs: dict[str, Path]) -> None:
    runs = load_runs([rq_runs["oracle"], rq_runs["random"]])
    res = compare_runs(runs, seed=0, n_boot=100, n_perm=200)
    pair = res["pairs"][0]
    assert res["n"] == 18 and res["n_clusters"] == 6
    assert pair["correct"]["a"] == 1.0  # the human mode equals the gold label here
    m = json.loads((rq_runs["random"] / "metrics.json").read_text())
    assert pair["correct"]["b"] == pytest.approx(m["overall"]["accuracy"]["value"])
    assert pair["PA"]["b"] == pytest.approx(m["overall"]["pa"]["value"])


def _rag_pair_runs(tmp_path: Path) -> list:
    from socialbench.report.loading import RunDir, assign_labels

    stat = {"value": 0.5, "se": 0.01}
    block = {m: stat for m in ("pa", "cwpa", "micro_f1", "macro_f1")}
    runs = []
    for bench in ("roboteq-bj", "roboteq-sg"):
        for strategy in ("standard", "rag"):
            path = tmp_path / f"{bench}-{strategy}"
            path.mkdir()
            metrics = {"benchmark": bench, "protocol": "paper", "overall": block, "by_subset": {"synthetic": block},
                       "requests": {"requests": 2, "cached": 0, "latency_s_per_request": 1.0}}
            runs.append(RunDir(path, {"model": "openai:gpt-4o", "strategy": strategy, "benchmark": bench}, metrics))
    assign_labels(runs)
    return runs


def test_report_mixing_judgment_and_grounding_rag_runs_keeps_both_rag_tables(tmp_path: Path) -> None:
    res = build_report(_rag_pair_runs(tmp_path), tmp_path / "report", formats=["md", "html"], figures=False)
    assert {"roboteq_table2", "roboteq_sg_rag"} <= set(res["tables"]) and len(res["tables"]) == len(set(res["tables"]))
    assert "gpt-4o (roboteq-sg, rag)" in (tmp_path / "report" / "tables" / "roboteq_sg_rag.md").read_text()
    page = (tmp_path / "report" / "index.html").read_text()
    assert page.count('id="table-roboteq_table2"') == 1 and page.count('id="table-roboteq_sg_rag"') == 1
