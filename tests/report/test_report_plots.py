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
    files = plots.radar(["a", "b", "c", "d"], {"model": [0.1, 0.5, math.nan, 0.9], "Human": [0.8] * 4},
                        "t", tmp_path / "radar", human=["Human"])
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
    assert names == {"radar_facets", "category_bars", "perturbation_drops"}
