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
    from socialbench.report.run_dir import RunDir

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


# --------------------------------------------------------------------------- 13 runs stay readable

RUNS13 = [f"model-{i:02d} (cot-img-with-bev, seed {i})" for i in range(13)]


@pytest.fixture()
def drawn(monkeypatch: pytest.MonkeyPatch) -> list:
    """The matplotlib figures the plot functions draw, kept open (saved as usual)."""
    figures = []

    def keep(fig, stem):
        fig.canvas.draw()
        figures.append(fig)
        stem.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(stem.with_suffix(".svg"))
        return []

    monkeypatch.setattr(plots, "save", keep)
    yield figures
    for fig in figures:
        plots._plt().close(fig)


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _legend_outside(fig) -> None:
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        legend = ax.get_legend()
        assert legend is not None
        box = legend.get_window_extent(renderer)
        assert not _overlap(box, ax.get_window_extent(renderer))
        for t in ax.get_xticklabels() + ax.get_yticklabels():
            if t.get_text():
                assert not _overlap(box, t.get_window_extent(renderer)), t.get_text()


def _styles(ax) -> list[tuple[str, str]]:
    """(colour, marker) of each of the 13 runs' legend entries."""
    from matplotlib.colors import to_hex
    from matplotlib.patches import Rectangle

    out = []
    for handle, label in zip(*ax.get_legend_handles_labels()):
        if label not in RUNS13:
            continue
        artist = handle[0] if isinstance(handle, tuple) else handle  # an error bar's or bars' first part
        if isinstance(artist, Rectangle):  # bars
            out.append((to_hex(artist.get_facecolor()), ""))
        elif hasattr(artist, "get_marker"):
            out.append((to_hex(artist.get_color()), str(artist.get_marker())))
        elif hasattr(artist, "get_paths") and hasattr(artist, "get_facecolor"):  # a scatter
            out.append((to_hex(artist.get_facecolor()[0]), str(artist.get_paths()[0].vertices.round(3).tolist())))
    return out


def test_thirteen_runs_get_distinct_colours_and_markers(drawn, tmp_path: Path) -> None:
    plots.radar(["a", "b", "c", "d"], {r: [0.5, 0.6, 0.7, 0.8] for r in RUNS13}, "t", tmp_path / "radar")
    plots.question_errorbars(["q1", "q2"], {r: [(0.5, 0.1), (0.4, 0.1)] for r in RUNS13}, "PA", "t", tmp_path / "q")
    plots.agreement_scatter({r: [("q1", 0.6, 0.5)] for r in RUNS13}, "t", tmp_path / "s")
    for fig in drawn:
        styles = _styles(fig.axes[0])
        assert len(styles) == 13
        assert len({c for c, _ in styles}) == 13 and len({m for _, m in styles}) == 13


def test_thirteen_bars_get_distinct_colours(drawn, tmp_path: Path) -> None:
    plots.category_bars(["All", "Social"], {r: [(0.5, 0.1), (0.6, 0.1)] for r in RUNS13}, "PA", "t", tmp_path / "b")
    styles = _styles(drawn[0].axes[0])
    assert len({c for c, _ in styles}) == 13


def test_legends_sit_outside_the_axes(drawn, tmp_path: Path) -> None:
    plots.radar(["a", "b", "c", "d"], {r: [0.5, 0.6, 0.7, 0.8] for r in RUNS13}, "t", tmp_path / "radar")
    plots.category_bars(["All", "Social"], {r: [(0.5, 0.1), (0.6, 0.1)] for r in RUNS13}, "PA", "t", tmp_path / "b")
    plots.question_errorbars(["q1", "q2"], {r: [(0.5, 0.1), (0.4, 0.1)] for r in RUNS13}, "PA", "t", tmp_path / "q")
    plots.agreement_scatter({r: [("q1", 0.6, 0.5)] for r in RUNS13}, "t", tmp_path / "s")
    plots.drop_bars(RUNS13, {"blur": [0.01] * 13, "low-light": [0.02] * 13}, "drop", "t", tmp_path / "d")
    assert len(drawn) == 5
    for fig in drawn:
        _legend_outside(fig)


def test_labels_under_thirteen_bar_groups_do_not_overlap(drawn, tmp_path: Path) -> None:
    plots.drop_bars(RUNS13, {"blur": [0.01] * 13}, "drop", "t", tmp_path / "d")
    plots.category_bars(RUNS13, {"standard": [(0.5, 0.1)] * 13, "cot": [(0.4, 0.1)] * 13}, "F1", "t", tmp_path / "c")
    for fig in drawn:
        renderer = fig.canvas.get_renderer()
        boxes = [t.get_window_extent(renderer) for t in fig.axes[0].get_xticklabels() if t.get_text()]
        assert len(boxes) == 13
        assert not any(_overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


def test_long_labels_under_few_bar_groups_do_not_overlap(drawn, tmp_path: Path) -> None:
    cats = ["Cultural and religious sites", "Industrial and logistics", "Offices and education", "Public spaces"]
    plots.category_bars(cats, {r: [(0.5, 0.1)] * 4 for r in RUNS13}, "F1", "t", tmp_path / "c")
    renderer = drawn[0].canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in drawn[0].axes[0].get_xticklabels() if t.get_text()]
    assert len(boxes) == 4 and not any(_overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
