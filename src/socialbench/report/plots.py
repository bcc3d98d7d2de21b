"""Report figures (matplotlib, Agg backend), each written as PNG and SVG.

* :func:`radar` — one spoke per facet (RobotEQ facets, SocialNav-SUB question types), one
  polygon per run, the human row drawn dashed;
* :func:`category_bars` — grouped bars per category with SE error bars;
* :func:`drop_bars` — the drop of a metric under each perturbation, per model;
* :func:`question_errorbars` — per-question PA with SE error bars, one marker per run;
* :func:`agreement_scatter` — per question type, human-human agreement (Average Human PA)
  against the model's agreement with humans (PA), with the diagonal.

:func:`socialnav_figures` / :func:`roboteq_figures` draw the set for a list of runs. The
functions take plain numbers, so they can be reused outside reports. matplotlib is imported
only when a figure is drawn; SVGs are reproducible (fixed hash salt, no date).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from socialbench.report.run_dir import RunDir

if TYPE_CHECKING:  # matplotlib is imported only when a figure is drawn
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Line styles of the human reference rows, in the order they are given.
HUMAN_STYLES = ({"linestyle": "--", "color": "black"}, {"linestyle": ":", "color": "dimgray"})
#: Colours of the runs, in order: matplotlib's tab10, then ten more of distinct hue and
#: lightness, so that 20 runs get 20 colours (none is the humans' black or grey).
RUN_COLORS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#7f7f7f",
    "#000080", "#808000", "#800000", "#00ced1", "#ff1493", "#9acd32", "#4b0082", "#daa520", "#2f4f4f", "#d2691e",
)  # fmt: skip
#: Markers of the runs, in order: each run also differs from every other by its marker.
RUN_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "<", ">", "p", "d", "8", "H", "1", "2", "3", "4", "+")
#: Labels longer than this are wrapped onto several lines under bars.
LABEL_WRAP = 18
#: Where every legend goes: right of the axes, outside them.
LEGEND_OUTSIDE = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0, "fontsize": 7}


def run_style(j: int) -> dict[str, str]:
    """The colour and marker of the ``j``-th run of a figure (both differ between any two
    of the first :data:`RUN_COLORS` runs; past that the pairs still differ)."""
    n_c, n_m = len(RUN_COLORS), len(RUN_MARKERS)
    return {"color": RUN_COLORS[j % n_c], "marker": RUN_MARKERS[(j + j // n_c) % n_m]}


def _wrap(label: str) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(label, LABEL_WRAP, break_long_words=True)) or label


def _bar_axis(ax: Axes, labels: Sequence[str]) -> None:
    """Tick labels under groups of bars that do not overlap: wrapped at :data:`LABEL_WRAP`
    characters, and upright (turned 90°) when there are more than four, so that each takes
    a few lines' height of the group's width (at least 0.9 in, see :func:`_bar_width`)."""
    many = len(labels) > 4
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels([_wrap(lab) for lab in labels], fontsize=8, rotation=90 if many else 0, ha="center")


def _bar_width(labels: Sequence[str], n_series: int) -> float:
    """Figure width (inches) for groups of ``n_series`` bars under ``labels``: per group at
    least 0.9 in (room for an upright wrapped label), 0.12 in per bar, and where the labels
    lie flat (four groups or fewer) the width of the longest wrapped line at 8 pt."""
    longest = max((len(line) for lab in labels for line in _wrap(lab).splitlines()), default=0)
    flat = 0.08 * longest + 0.2 if len(labels) <= 4 else 0.0
    return max(6.0, len(labels) * max(0.9, 0.12 * n_series + 0.3, flat) + 1.0)


def _human_style(label: str, human: Sequence[str]) -> dict[str, str]:
    i = list(human).index(label)
    return dict(HUMAN_STYLES[min(i, len(HUMAN_STYLES) - 1)])


def _plt() -> ModuleType:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "socialbench"
    plt.rcParams["svg.fonttype"] = "none"
    return plt


def save(fig: Figure, stem: Path) -> list[Path]:
    """Write ``stem.png`` (150 dpi) and ``stem.svg``; close the figure; return both paths."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    png, svg = stem.with_suffix(".png"), stem.with_suffix(".svg")
    fig.savefig(png, dpi=150, bbox_inches="tight", metadata={"Software": None})
    fig.savefig(svg, bbox_inches="tight", metadata={"Date": None, "Creator": None})
    _plt().close(fig)
    return [png, svg]


def _finite(v: object) -> float:
    return float(v) if isinstance(v, (int, float)) and math.isfinite(v) else math.nan


def radar(
    spokes: Sequence[str], series: Mapping[str, Sequence[float]], title: str, stem: Path, human: Sequence[str] = ()
) -> list[Path]:
    """A radar chart; ``series`` maps a label to one value in [0, 1] per spoke (NaN = gap);
    labels in ``human`` are drawn dashed black."""
    plt = _plt()
    n = len(spokes)
    if n < 3:
        raise ValueError("a radar chart needs at least 3 spokes")
    angles = [2 * math.pi * i / n for i in range(n)] + [0.0]
    fig = plt.figure(figsize=(7, 7))
    ax = fig.add_subplot(111, polar=True)
    runs = [label for label in series if label not in human]
    for label, values in series.items():
        vals = [_finite(v) for v in values]
        vals = vals + vals[:1]
        style = _human_style(label, human) if label in human else run_style(runs.index(label))
        ax.plot(angles, vals, label=label, linewidth=1.5, markersize=4, **style)
        if label not in human and len(runs) <= 4:  # more fills would hide each other
            ax.fill(angles, [0 if math.isnan(v) else v for v in vals], alpha=0.08, color=style["color"])
    ax.set_xticks(angles[:-1])
    ax.set_xticklabels(list(spokes), fontsize=7)
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=11, pad=18)
    # right of the circle and its spoke labels, never over them
    ax.legend(**{**LEGEND_OUTSIDE, "bbox_to_anchor": (1.22, 1.0)})
    return save(fig, stem)


def category_bars(
    categories: Sequence[str],
    series: Mapping[str, Sequence[tuple[float, float | None]]],
    ylabel: str,
    title: str,
    stem: Path,
) -> list[Path]:
    """Grouped bars: one group per category, one bar per series, SE as error bars."""
    plt = _plt()
    k = max(len(series), 1)
    width = 0.8 / k
    fig, ax = plt.subplots(figsize=(_bar_width(categories, k), 4))
    for j, (label, values) in enumerate(series.items()):
        xs = [i - 0.4 + width * (j + 0.5) for i in range(len(categories))]
        ys = [_finite(v) for v, _ in values]
        err = [0.0 if se is None else _finite(se) for _, se in values]
        ax.bar(xs, ys, width, yerr=err, capsize=2 if k <= 6 else 0, label=label, color=run_style(j)["color"])
    _bar_axis(ax, categories)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    # the legend sits right of the axes, never over the bars
    ax.legend(**LEGEND_OUTSIDE)
    ax.grid(axis="y", alpha=0.3)
    return save(fig, stem)


def drop_bars(
    models: Sequence[str], drops: Mapping[str, Sequence[float]], ylabel: str, title: str, stem: Path
) -> list[Path]:
    """Bars of the drop (clean - perturbed) per model, one colour per perturbation."""
    plt = _plt()
    k = max(len(drops), 1)
    width = 0.8 / k
    fig, ax = plt.subplots(figsize=(_bar_width(models, k), 4))
    for j, (pert, values) in enumerate(drops.items()):
        xs = [i - 0.4 + width * (j + 0.5) for i in range(len(models))]
        ax.bar(xs, [_finite(v) for v in values], width, label=pert, color=run_style(j)["color"])
    ax.axhline(0, color="black", linewidth=0.8)
    _bar_axis(ax, models)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(**LEGEND_OUTSIDE)
    return save(fig, stem)


def question_errorbars(
    questions: Sequence[str],
    series: Mapping[str, Sequence[tuple[float, float | None]]],
    xlabel: str,
    title: str,
    stem: Path,
    human: Sequence[str] = (),
) -> list[Path]:
    """Per-question values with SE bars: questions on the y axis, one marker per series."""
    plt = _plt()
    k = max(len(series), 1)
    step = 0.7 / k
    fig, ax = plt.subplots(figsize=(7, max(3, 0.4 * len(questions) + 1)))
    runs = [label for label in series if label not in human]
    for j, (label, values) in enumerate(series.items()):
        ys = [i - 0.35 + step * (j + 0.5) for i in range(len(questions))]
        xs = [_finite(v) for v, _ in values]
        err = [0.0 if se is None else _finite(se) for _, se in values]
        style = (
            {"color": _human_style(label, human)["color"], "marker": "|"}
            if label in human
            else run_style(runs.index(label))
        )
        ax.errorbar(xs, ys, xerr=err, linestyle="none", markersize=4, capsize=2, label=label, **style)
    ax.set_yticks(range(len(questions)))
    ax.set_yticklabels(list(questions), fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(**LEGEND_OUTSIDE)
    return save(fig, stem)


def agreement_scatter(points: Mapping[str, Sequence[tuple[str, float, float]]], title: str, stem: Path) -> list[Path]:
    """``points[label] = [(name, human agreement, model agreement), ...]`` with the y = x line."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle=":")
    for j, (label, pts) in enumerate(points.items()):
        ax.scatter([_finite(p[1]) for p in pts], [_finite(p[2]) for p in pts], label=label, s=18, **run_style(j))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("human agreement (Average Human PA)")
    ax.set_ylabel("model agreement with humans (PA)")
    ax.set_title(title)
    ax.legend(**LEGEND_OUTSIDE)
    ax.grid(alpha=0.3)
    return save(fig, stem)


# --------------------------------------------------------------------------- figure sets


def legend_label(r: RunDir) -> str:
    """A run's label in a figure legend; a run kept apart from the models
    (:mod:`socialbench.report.provenance`) says so: ``gpt-4o (cot-gt) [Human-derived, not ranked]``."""
    from socialbench.report.provenance import answer_source

    source = answer_source(r.model, r.run)
    return r.label if source.ranked else f"{r.label} [{source.kind}, not ranked]"


def _sn(m: Mapping[str, Any], row: str, group: str, metric: str) -> tuple[float, float | None]:
    b = ((m.get("scores") or {}).get(row) or {}).get(group) or {}
    v = b.get(metric)
    return (math.nan if v is None else float(v)), b.get(metric + "_se")


def _drop_figure(runs: Sequence[RunDir], out: Path) -> list[Path]:
    """:func:`drop_bars` of the robustness table's drops, when it has any."""
    from socialbench.report.robustness_table import robustness_table

    t = robustness_table(runs)
    if t is None:
        return []
    models = [r.stub[0] for r in t.rows]
    perts = [g for g, span in t.groups if span == 2]
    drops = {p: [] for p in perts}  # type: dict[str, list[float]]
    for r in t.rows:
        for j, p in enumerate(perts):
            cell = r.cells[2 + 2 * j]
            drops[p].append(math.nan if cell.value is None else float(cell.value))
    return drop_bars(
        models, drops, f"drop in {t.columns[1]}", "Drop under image perturbations", out / "perturbation_drops"
    )


def socialnav_figures(runs: Sequence[RunDir], out: Path) -> list[Path]:
    """Radar (per question type, with the human rows), category bars, per-question error
    bars, the human-vs-model agreement scatter and, when perturbed runs exist, the drops."""
    from socialbench.report.socialnav_tables import QUESTION_TABLE, SN_GROUP_TITLES, SN_GROUPS, human_rows

    # the human series as Table 1 has them: on the questions the ranked runs were scored on
    references = human_rows(runs)[0]
    present: set[str] = set()
    for _, key, metrics in references:
        present |= set(((metrics.get("scores") or {}).get(key) or {}).keys())
    for r in runs:
        present |= set(((r.metrics.get("scores") or {}).get("model") or {}).keys())
    qs = [q for q in QUESTION_TABLE if q[1] in present]
    names = [n for _, _, n in qs]
    files: list[Path] = []
    humans = {name: (key, ref) for name, key, ref in references}
    series_rows = [(label, row, m) for label, (row, m) in humans.items()] + [
        (legend_label(r), "model", r.metrics) for r in runs
    ]
    if len(qs) >= 3:
        files += radar(
            names,
            {lab: [_sn(m, row, k, "PA")[0] for _, k, _ in qs] for lab, row, m in series_rows},
            "PA per question type",
            out / "radar_questions",
            human=list(humans),
        )
    cats = [g for g in SN_GROUPS]
    files += category_bars(
        [SN_GROUP_TITLES[c] for c in cats],
        {lab: [_sn(m, row, c, "PA") for c in cats] for lab, row, m in series_rows},
        "PA",
        "PA per category (± SE)",
        out / "category_bars",
    )
    if qs:
        files += question_errorbars(
            names,
            {lab: [_sn(m, row, k, "PA") for _, k, _ in qs] for lab, row, m in series_rows},
            "PA",
            "PA per question type (± SE)",
            out / "question_pa",
            human=list(humans),
        )
        pts = {
            legend_label(r): [
                # each run beside the Average Human of its own questions
                (n, _sn(r.metrics, "human:average", k, "PA")[0], _sn(r.metrics, "model", k, "PA")[0])
                for _, k, n in qs
            ]
            for r in runs
        }
        files += agreement_scatter(pts, "Human vs model agreement per question type", out / "agreement_scatter")
    return files + _drop_figure(runs, out)


def roboteq_figures(runs: Sequence[RunDir], out: Path, human_by_facet: Mapping[str, float] | None = None) -> list[Path]:
    """Radar of CWPA per facet over the behavior-judgment runs (with the Human row when
    given); macro-F1 per scenario category, one figure per task (judgment, grounding);
    macro-F1 of standard / no-image / CoT per model (Figure 6); drops under perturbations."""
    files: list[Path] = []
    bj = [r for r in runs if r.benchmark == "roboteq-bj"]
    facets = list(dict.fromkeys(f for r in bj for f in r.metrics.get("by_facet") or {}))

    def val(block: object, name: str) -> float:
        stat = (block or {}).get(name) if isinstance(block, Mapping) else None
        return math.nan if not isinstance(stat, Mapping) or stat.get("value") is None else float(stat["value"])

    def val_se(block: object, name: str) -> tuple[float, float | None]:
        stat = (block or {}).get(name) if isinstance(block, Mapping) else None
        return val(block, name), stat.get("se") if isinstance(stat, Mapping) else None

    if len(facets) >= 3:
        series = {r.label: [val((r.metrics.get("by_facet") or {}).get(f), "cwpa") for f in facets] for r in bj}
        human = []
        if human_by_facet:
            series["Human"] = [float(human_by_facet.get(f, math.nan)) for f in facets]
            human = ["Human"]
        files += radar(facets, series, "CWPA per facet (behavior judgment)", out / "radar_facets", human=human)
    for bench, stem, what in (
        ("roboteq-bj", "category_bars", "behavior judgment"),
        ("roboteq-sg", "category_bars_sg", "spatial grounding, option-level"),
    ):
        mine = [r for r in runs if r.benchmark == bench]
        cats = list(dict.fromkeys(c for r in mine for c in r.metrics.get("by_category") or {}))
        if cats:
            series2 = {
                r.label: [val_se((r.metrics.get("by_category") or {}).get(c), "macro_f1") for c in cats] for r in mine
            }
            files += category_bars(
                cats, series2, "macro-F1", f"Macro-F1 per scenario category ({what}, ± SE)", out / stem
            )
    from socialbench.report.roboteq_tables import ABLATION_STRATEGIES, ablation_groups

    for bench, stem in (("roboteq-bj", "ablation_bars"), ("roboteq-sg", "ablation_bars_sg")):
        groups = ablation_groups([r for r in runs if r.benchmark == bench])
        if any(set(g) - {"standard"} for g in groups):
            models = [g["standard"].label if "standard" in g else next(iter(g.values())).label for g in groups]
            series3 = {}
            for strat, title in ABLATION_STRATEGIES:
                blocks = [
                    (g[strat].metrics.get("by_subset") or {}).get("average") or g[strat].metrics.get("overall")
                    if strat in g
                    else None
                    for g in groups
                ]
                series3[title] = [val_se(b, "macro_f1") for b in blocks]
            files += category_bars(models, series3, "macro-F1", "Standard vs no image vs CoT (± SE)", out / stem)
    return files + _drop_figure(runs, out)
