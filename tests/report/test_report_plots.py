"""Figures: every plot writes a PNG and an SVG; SVGs are reproducible."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from socialbench.report import plots
from socialbench.report.loading import load_runs

FIXTURES = Path(__file__).parent / "fixtures"
PNG = b"\x89PNG\r\n\x1a\n"


def _check(files: list[Path]) -> None:
    assert [f.suffix for f in files] == [".png", ".svg"]
    assert files[0].read_bytes()[:8] == PNG
    assert ET.parse(files[1]).getroot().tag.endswith("svg")


def test_radar_with_human_row(tmp_path: Path) -> None:
    files = plots.radar(
        ["a", "b", "c", "d"],
        {"model": [0.1, 0.5, math.nan, 0.9], "Human": [0.8] * 4},
        "t",
        tmp_path / "radar",
        human=["Human"],
    )
    _check(files)
    assert "Human" in files[1].read_text()


def test_radar_needs_three_spokes(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="3 spokes"):
        plots.radar(["a", "b"], {"m": [1, 2]}, "t", tmp_path / "r")


def test_category_bars_question_errorbars_scatter_and_drops(tmp_path: Path) -> None:
    _check(plots.category_bars(["All", "Social"], {"m": [(0.5, 0.01), (0.6, None)]}, "PA", "t", tmp_path / "bars"))
    _check(plots.question_errorbars(["q1", "q2"], {"m": [(0.5, 0.02), (0.4, 0.03)]}, "PA", "t", tmp_path / "qpa"))
    _check(plots.agreement_scatter({"m": [("q1", 0.6, 0.5), ("q2", 0.7, 0.4)]}, "t", tmp_path / "scatter"))
    _check(plots.drop_bars(["m1", "m2"], {"blur": [0.02, 0.05]}, "drop", "t", tmp_path / "drops"))


def test_svg_output_is_reproducible(tmp_path: Path) -> None:
    a = plots.category_bars(["x"], {"m": [(0.5, 0.1)]}, "PA", "t", tmp_path / "a")[1].read_text()
    b = plots.category_bars(["x"], {"m": [(0.5, 0.1)]}, "PA", "t", tmp_path / "b")[1].read_text()
    assert a == b


def test_socialnav_figure_set_from_fixture_runs(tmp_path: Path) -> None:
    runs = load_runs([FIXTURES / "socialnav" / n for n in ("rule_based", "gpt4o", "gpt4o_blur")])
    names = {p.stem for p in plots.socialnav_figures(runs, tmp_path)}
    assert names == {"radar_questions", "category_bars", "question_pa", "agreement_scatter", "perturbation_drops"}


def test_roboteq_figure_set_from_fixture_runs(tmp_path: Path) -> None:
    runs = load_runs([FIXTURES / "roboteq" / n for n in ("gpt55", "qwen", "qwen_fisheye")])
    names = {p.stem for p in plots.roboteq_figures(runs, tmp_path)}
    assert names == {"radar_facets", "perturbation_drops"}  # the fixtures have no by_category


def _rq_run(tmp_path: Path, name: str, bench: str, strategy: str = "standard"):
    from socialbench.report.loading import RunDir

    stat = {"value": 0.5, "se": 0.02}
    block = {"cwpa": stat, "macro_f1": stat, "pa": stat}
    metrics = {
        "benchmark": bench,
        "overall": block,
        "by_subset": {"synthetic": block},
        "by_category": {"Retail": block, "Healthcare": block},
        "by_facet": {f: block for f in ("safety", "privacy", "politeness")},
    }
    run = {"benchmark": bench, "model": "openai:m", "strategy": strategy}
    return RunDir(tmp_path / name, run, metrics, label=name)


def test_roboteq_radar_lists_only_judgment_runs(tmp_path: Path) -> None:
    runs = [_rq_run(tmp_path, "bj-std", "roboteq-bj"), _rq_run(tmp_path, "sg-std", "roboteq-sg")]
    radar = next(p for p in plots.roboteq_figures(runs, tmp_path / "out") if p.name == "radar_facets.svg")
    text = radar.read_text()
    assert "bj-std" in text and "sg-std" not in text


def test_roboteq_category_bars_are_per_category_and_per_task(tmp_path: Path) -> None:
    runs = [_rq_run(tmp_path, "bj-std", "roboteq-bj"), _rq_run(tmp_path, "sg-std", "roboteq-sg")]
    files = {p.name: p for p in plots.roboteq_figures(runs, tmp_path / "out")}
    bj, sg = files["category_bars.svg"].read_text(), files["category_bars_sg.svg"].read_text()
    assert "Healthcare" in bj and "bj-std" in bj and "sg-std" not in bj
    assert "sg-std" in sg and "bj-std" not in sg


def test_roboteq_ablation_bars_compare_strategies(tmp_path: Path) -> None:
    runs = [_rq_run(tmp_path, s, "roboteq-bj", s) for s in ("standard", "no-image", "cot")]
    files = {p.name: p for p in plots.roboteq_figures(runs, tmp_path / "out")}
    text = files["ablation_bars.svg"].read_text()
    assert "No image" in text and "CoT" in text
