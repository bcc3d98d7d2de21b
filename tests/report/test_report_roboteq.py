"""``report`` and ``compare`` on real RobotEQ behavior-judgment runs (a tiny canonical
dataset written here): Table 1 with the Human row from the labels, the viewer, McNemar on
gold-label correctness."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.options import EvalOptions
from socialbench.models import baselines
from socialbench.models.registry import ModelOptions
from socialbench.report.build import build_report
from socialbench.report.compare import compare_runs
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
        rows.append(
            {
                "id": f"s{i}",
                "task": "behavior_judgment",
                "image": f"images/s{i}.png",
                "question": "You are a hotel service robot. What is your most appropriate next action?",
                "subset": subset,
                "category": "Hospitality",
                "subcategory": "Hotel",
                "behaviors": [
                    {
                        "k": 1,
                        "text": "Knock and wait.",
                        "label": "proper",
                        "facets": ["privacy", "politeness"],
                        "votes": VOTES[0],
                    },
                    {"k": 2, "text": "Walk in.", "label": "improper", "facets": ["privacy"], "votes": VOTES[1]},
                    {
                        "k": 3,
                        "text": "Shout <b>hello</b>.",
                        "label": "improper",
                        "facets": ["politeness"],
                        "votes": VOTES[1],
                    },
                ],
            }
        )
    (root / "roboteq.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    bench, _ = get_benchmark("roboteq-bj")
    out = {}
    for name, make in (("random", baselines.make_random), ("oracle", baselines.make_oracle)):
        model = make("", ModelOptions(seed=0))
        req = RunRequest(
            "roboteq-bj", root, model.spec, tmp_path_factory.mktemp(name) / "run", EvalOptions(), show_progress=False
        )
        assert run_eval(req, bench, model).complete
        out[name] = req.out
    return out


def test_roboteq_report_has_table1_with_human_row_and_viewer(rq_runs: dict[str, Path], tmp_path: Path) -> None:
    runs = load_runs([rq_runs["oracle"], rq_runs["random"]])
    res = build_report(runs, tmp_path, formats=["md", "html"])
    assert "roboteq_table1" in res["tables"]
    md = (tmp_path / "tables" / "roboteq_table1.md").read_text()
    human = next(line for line in md.splitlines() if line.startswith("| Human (leave-one-out) |"))
    # LOO agreement: votes (2 proper, 1 improper) -> PA 1/3; unanimous -> 1; synthetic mean (1/3 + 1 + 1)/3
    assert "77.78" in human
    page = (tmp_path / "index.html").read_text()
    assert "Shout \\u003cb\\u003ehello\\u003c/b\\u003e." in page and "<b>hello</b>" not in page
    assert len(list((tmp_path / "images").rglob("*.png"))) == 6


def test_roboteq_table1_human_row_has_loo_f1(rq_runs: dict[str, Path], tmp_path: Path) -> None:
    build_report(load_runs([rq_runs["oracle"]]), tmp_path, formats=["md"], figures=False)
    md = (tmp_path / "tables" / "roboteq_table1.md").read_text()
    human = next(line for line in md.splitlines() if line.startswith("| Human (leave-one-out) |"))
    # per subset 3 x (2 proper, 1 improper) + 6 x (3 improper), each annotator vs the others' majority:
    # proper TP 3 FP 3 FN 3 (F1 .5), improper TP 18 FP 3 FN 3 (F1 6/7) -> macro-F1 67.86
    assert "67.86" in human and "—" not in human


def test_roboteq_table1_final_label_row_scores_annotators_against_the_released_label(
    rq_runs: dict[str, Path], tmp_path: Path
) -> None:
    build_report(load_runs([rq_runs["oracle"]]), tmp_path, formats=["md"], figures=False)
    md = (tmp_path / "tables" / "roboteq_table1.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| Human (final label) |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    # per subset 3 x (2 proper, 1 improper; final proper) + 6 x (3 improper; final improper):
    # 24 of 27 labels match -> MicF1 88.89 above PA 77.78 (CWPA (2/3 + 1 + 1) / 3 = 88.89, as
    # leave-one-out); proper TP 6 FN 3 (F1 .8), improper TP 18 FP 3 (F1 12/13) -> MacF1 86.15
    assert cells[2:6] == ["77.78", "88.89", "88.89", "86.15"]
    assert "Human (final label): PA / CWPA (Eq. 1-2) against the other annotators" in md


def test_roboteq_grounding_table_has_a_human_row(tmp_path: Path) -> None:
    root = tmp_path / "data"
    (root / "images").mkdir(parents=True)
    rows = []
    for i, subset in enumerate(["synthetic", "real"]):
        Image.new("RGB", (32, 24), (60 * i, 90, 160)).save(root / "images" / f"g{i}.png")
        rows.append(
            {
                "id": f"g{i}",
                "task": "spatial_grounding",
                "image": f"images/g{i}.png",
                "question": "Where?",
                "answer": ["A", "C"],
                "subset": subset,
                "votes": [["A", "C"], ["A"], ["A", "C"]],
            }
        )
    (root / "roboteq.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    bench, _ = get_benchmark("roboteq-sg")
    model = baselines.make_oracle("", ModelOptions(seed=0))
    req = RunRequest("roboteq-sg", root, model.spec, tmp_path / "run", EvalOptions(), show_progress=False)
    assert run_eval(req, bench, model).complete
    build_report(load_runs([req.out]), tmp_path / "rep", formats=["md"], figures=False)
    md = (tmp_path / "rep" / "tables" / "roboteq_grounding.md").read_text()
    human = next(line for line in md.splitlines() if line.startswith("| Human (leave-one-out) |"))
    # votes {A,C},{A},{A,C}: exact 1/3, Jaccard 2/3, micro-F1 .8, macro-F1 .75 in every subset
    assert human.count("33.33") == 3 and human.count("66.67") == 3 and human.count("75.00") == 3
    final = next(line for line in md.splitlines() if line.startswith("| Human (final label) |"))
    # against the answer {A,C}: exact 2/3, Jaccard 5/6, micro-F1 10/11, macro-F1 .9 in every subset
    assert final.count("66.67") == 3 and final.count("83.33") == 3 and final.count("90.91") == 3
    assert final.count("90.00") == 3


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
    from socialbench.report.labels import assign_labels
    from socialbench.report.run_dir import RunDir

    stat = {"value": 0.5, "se": 0.01}
    block = {m: stat for m in ("pa", "cwpa", "micro_f1", "macro_f1")}
    runs = []
    for bench in ("roboteq-bj", "roboteq-sg"):
        for strategy in ("standard", "rag"):
            path = tmp_path / f"{bench}-{strategy}"
            path.mkdir()
            metrics = {
                "benchmark": bench,
                "protocol": "paper",
                "overall": block,
                "by_subset": {"synthetic": block},
                "requests": {"requests": 2, "cached": 0, "latency_s_per_request": 1.0},
            }
            runs.append(RunDir(path, {"model": "openai:gpt-4o", "strategy": strategy, "benchmark": bench}, metrics))
    assign_labels(runs)
    return runs


def test_report_mixing_judgment_and_grounding_rag_runs_keeps_both_rag_tables(tmp_path: Path) -> None:
    res = build_report(_rag_pair_runs(tmp_path), tmp_path / "report", formats=["md", "html"], figures=False)
    assert {"roboteq_table2", "roboteq_sg_rag"} <= set(res["tables"]) and len(res["tables"]) == len(set(res["tables"]))
    assert "gpt-4o (roboteq-sg, rag)" in (tmp_path / "report" / "tables" / "roboteq_sg_rag.md").read_text()
    page = (tmp_path / "report" / "index.html").read_text()
    assert page.count('id="table-roboteq_table2"') == 1 and page.count('id="table-roboteq_sg_rag"') == 1


def _ablation_runs(tmp_path: Path, settings: list[tuple[str, str, float]], models: list[str] | None = None) -> list:
    """Judgment runs: (strategy, perturbation or "", macro-F1), of ``models[i]`` (default gpt-4o)."""
    from socialbench.report.labels import assign_labels
    from socialbench.report.run_dir import RunDir

    runs = []
    for i, (strategy, pert, f1) in enumerate(settings):
        block = {
            "pa": {"value": f1 - 0.1, "se": 0.01},
            "cwpa": {"value": f1, "se": 0.01},
            "micro_f1": {"value": f1, "se": 0.01},
            "macro_f1": {"value": f1, "se": 0.01},
        }
        path = tmp_path / f"run{i}"
        path.mkdir()
        run = {
            "model": (models or [])[i] if models else "openai:gpt-4o",
            "strategy": strategy,
            "benchmark": "roboteq-bj",
        }
        if pert:
            run["perturb"] = {"name": pert, "strength": 1.0}
        metrics = {
            "benchmark": "roboteq-bj",
            "protocol": "paper",
            "overall": block,
            "by_subset": {"synthetic": block},
            "requests": {"requests": 2, "cached": 0, "latency_s_per_request": 1.0},
        }
        runs.append(RunDir(path, run, metrics))
    assign_labels(runs)
    return runs


def test_ablation_table_compares_no_image_and_cot_with_standard(tmp_path: Path) -> None:
    from socialbench.report.roboteq_tables import roboteq_ablation_table

    runs = _ablation_runs(tmp_path, [("standard", "", 0.6), ("no-image", "", 0.45), ("cot", "", 0.65)])
    table = roboteq_ablation_table(runs)
    (row,) = table.rows
    # PA, MacF1 per strategy, then ΔMacF1 no-image (45 - 60) and CoT (65 - 60)
    assert [c.text for c in row.cells] == ["50.00", "60.00", "35.00", "45.00", "55.00", "65.00", "-15.00", "+5.00"]


def test_report_shows_every_strategy_and_perturbed_run(tmp_path: Path) -> None:
    runs = _ablation_runs(
        tmp_path,
        [("standard", "", 0.6), ("no-image", "", 0.45), ("cot", "", 0.65), ("rag", "", 0.7), ("standard", "blur", 0.5)],
    )
    res = build_report(runs, tmp_path / "report", formats=["md"], figures=False)
    assert {"roboteq_table1", "roboteq_ablation", "roboteq_table2", "robustness", "roboteq_runs"} <= set(res["tables"])
    md = (tmp_path / "report" / "tables" / "roboteq_runs.md").read_text()
    assert "not shown" not in md and not [n for n in res["notes"] if "is not shown" in n]


def test_report_says_why_an_unpaired_rag_run_is_not_shown(tmp_path: Path) -> None:
    # the only standard run is another model's: the RAG run has nothing to be compared with
    runs = _ablation_runs(tmp_path, [("standard", "", 0.6), ("rag", "", 0.7)], ["openai:other", "openai:gpt-4o"])
    res = build_report(runs, tmp_path / "report", formats=["md"], figures=False)
    md = (tmp_path / "report" / "tables" / "roboteq_runs.md").read_text()
    rag_line = next(line for line in md.splitlines() if "| rag |" in line)
    assert "not shown: a RAG run without a standard run" in rag_line
    assert len([n for n in res["notes"] if "is not shown: a RAG run" in n]) == 1


def _no_image_release(root: Path) -> Path:
    (root / "images").mkdir(parents=True)
    Image.new("RGB", (32, 24), (10, 90, 160)).save(root / "images" / "n0.png")
    row = {
        "id": "n0",
        "task": "behavior_judgment",
        "image": "images/n0.png",
        "question": "You are a hotel service robot. What is your most appropriate next action?",
        "subset": "synthetic",
        "behaviors": [
            {
                "k": 1,
                "text": "Knock and wait.",
                "label": "proper",
                "votes": ["proper"] * 3,
                "votes_no_image": ["proper", "improper", "improper"],
            },
            {
                "k": 2,
                "text": "Walk in.",
                "label": "improper",
                "votes": ["improper", "improper", "proper"],
                "votes_no_image": ["proper", "proper", "improper"],
            },
        ],
    }
    (root / "roboteq.jsonl").write_text(json.dumps(row) + "\n")
    return root


def test_roboteq_report_has_the_with_and_without_image_human_table(tmp_path: Path) -> None:
    root = _no_image_release(tmp_path / "data")
    bench, _ = get_benchmark("roboteq-bj")
    model = baselines.make_oracle("", ModelOptions(seed=0))
    req = RunRequest("roboteq-bj", root, model.spec, tmp_path / "run", EvalOptions(), show_progress=False)
    assert run_eval(req, bench, model).complete
    build_report(load_runs([req.out]), tmp_path / "rep", formats=["md"], figures=False)
    md = (tmp_path / "rep" / "tables" / "roboteq_human_image.md").read_text()

    def cells(name: str) -> list[str]:
        row = next(line for line in md.splitlines() if line.startswith(f"| {name} |"))
        return [c.strip() for c in row.strip("|").split("|")][1:]

    # with: 3-0 (final proper) and 2-1 (final improper): PA (1 + 1/3)/2, CWPA (1 + 2/3)/2; vs final:
    # proper TP 3 FP 1 (F1 6/7), improper TP 2 FN 1 (F1 4/5) -> micro 5/6, macro 82.86
    assert cells("With image") == ["6", "66.67", "83.33", "83.33", "82.86"]
    # without: 1-2 against final proper, 2-1 against final improper: PA 1/3, CWPA 2/3; each label
    # TP 1 FP 2 FN 2 (F1 1/3) -> micro = macro = 1/3
    assert cells("Without image") == ["6", "33.33", "66.67", "33.33", "33.33"]
    assert cells("Change (without - with)") == ["—", "-33.33", "-16.67", "-50.00", "-49.52"]


def test_roboteq_report_has_no_without_image_table_without_such_labels(
    rq_runs: dict[str, Path], tmp_path: Path
) -> None:
    res = build_report(load_runs([rq_runs["oracle"]]), tmp_path, formats=["md"], figures=False)
    assert "roboteq_human_image" not in res["tables"] and "roboteq_table1" in res["tables"]
