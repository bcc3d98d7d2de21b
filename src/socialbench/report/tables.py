"""The papers' tables, built from run directories and rendered as Markdown, CSV, LaTeX or HTML.

A :class:`Table` is format-neutral: stub columns (e.g. Category, Model), value columns
under optional spanning groups (e.g. "All" over PA and CWPA), rows in sections (Baseline,
VLM), and cells that keep the raw number, its standard error and the display text. The
renderers (:func:`to_markdown`, :func:`to_csv`, :func:`to_latex`, :func:`to_html`) only lay
it out; CSV writes the unrounded numbers (6 decimals, in the displayed unit: percent tables
in percent) with one extra ``SE`` column per value column that has standard errors.

Builders
--------
SocialNav-SUB
    :func:`socialnav_table1` (Table 1: All + three categories, PA and CWPA ± SE, Human
    Oracle / Average Human / baseline rows, then the VLM rows, then perception-assisted and
    human-derived runs in their own sections; the best VLM value of each column in bold),
    :func:`socialnav_question_table` (Tables 10-12: PA and CW PA per question, one column
    pair per model), :func:`socialnav_ablation_table` (Tables 2 / 13: BEV + CoT, No CoT, No
    BEV per model), :func:`socialnav_gt_table` (Table 14: CoT vs CoT-GT per social question),
    :func:`failure_env_table` (Table 4: overall failure rate and FRI per scene attribute
    value) and :func:`action_table` (Table 5).
RobotEQ
    :func:`roboteq_table1` (Table 1: PA, CWPA, MicF1, MacF1 per subset and the Avg CWPA /
    MacF1, in percent; best in bold, runner-up underlined) and :func:`roboteq_rag_table`
    (Table 2: Macro-F1 raw vs RAG, the gain, and seconds per query; ``roboteq_sg_rag`` for
    spatial-grounding runs).
Both
    :func:`robustness_table` (drop of the headline metric under each image perturbation,
    paired with the same model's clean run).

Several runs of different models become rows (or column groups) of one table.
"""

from __future__ import annotations

import csv
import html
import io
import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from socialbench.report.loading import SOCIALNAV_NAMES, RunDir, display_name

# --------------------------------------------------------------------------- table model


@dataclass(frozen=True)
class Cell:
    """One value cell: display ``text`` plus the raw ``value`` and ``se`` (for CSV, ranking)."""

    text: str
    value: float | None = None
    se: float | None = None
    bold: bool = False
    underline: bool = False


EMPTY = Cell("—")


@dataclass(frozen=True)
class Row:
    stub: tuple[str, ...]
    cells: tuple[Cell, ...]
    section: str = ""


@dataclass(frozen=True)
class Table:
    """A format-neutral table (see the module docstring)."""

    name: str  # file stem, e.g. "socialnav_table1"
    title: str  # caption
    stub: tuple[str, ...]  # stub column headers
    columns: tuple[str, ...]  # value column headers
    rows: tuple[Row, ...]
    groups: tuple[tuple[str, int], ...] = ()  # spanning headers over the value columns
    notes: tuple[str, ...] = ()
    section_header: str = ""  # header of the section column ("" = no section column)

    def __post_init__(self) -> None:
        if self.groups and sum(span for _, span in self.groups) != len(self.columns):
            raise ValueError(f"{self.name}: groups span {sum(s for _, s in self.groups)} columns, not {len(self.columns)}")
        for r in self.rows:
            if len(r.cells) != len(self.columns) or len(r.stub) != len(self.stub):
                raise ValueError(f"{self.name}: row {r.stub} does not match the columns")

    def column_names(self) -> list[str]:
        """Flat value-column names, ``"<group> <column>"`` when there are groups."""
        if not self.groups:
            return list(self.columns)
        out, i = [], 0
        for g, span in self.groups:
            for c in self.columns[i:i + span]:
                out.append(f"{g} {c}".strip())
            i += span
        return out


# --------------------------------------------------------------------------- formatting


def fmt_num(value: float | None, digits: int = 2, scale: float = 1.0) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value * scale:.{digits}f}"


def mean_se_cell(value: float | None, se: float | None, digits: int = 2, scale: float = 1.0, pm: str = " ± ") -> Cell:
    """``0.58 ± 0.01`` (SE omitted when unknown)."""
    if value is None:
        return EMPTY
    text = fmt_num(value, digits, scale)
    if se is not None:
        text += pm + fmt_num(se, digits, scale)
    return Cell(text, value, se)


def mark_best(rows: list[Row], candidates: Sequence[int], columns: Sequence[int], *, underline_second: bool) -> list[Row]:
    """Bold the highest value of each column among rows ``candidates`` (ties all bold);
    optionally underline the second-highest distinct value. Nothing is marked when there
    are fewer than two candidate rows."""
    out = list(rows)
    if len(candidates) < 2:
        return out
    for c in columns:
        values = sorted({out[i].cells[c].value for i in candidates if out[i].cells[c].value is not None}, reverse=True)
        if not values:
            continue
        best = values[0]
        second = values[1] if underline_second and len(values) > 1 else None
        for i in candidates:
            cell = out[i].cells[c]
            if cell.value is None:
                continue
            if cell.value == best:
                new = replace(cell, bold=True)
            elif second is not None and cell.value == second:
                new = replace(cell, underline=True)
            else:
                continue
            cells = list(out[i].cells)
            cells[c] = new
            out[i] = replace(out[i], cells=tuple(cells))
    return out


# --------------------------------------------------------------------------- renderers


def _md_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("_", "\\_").replace("<", "&lt;")


def _md_cell(c: Cell) -> str:
    t = _md_escape(c.text)
    if c.underline:
        t = f"<u>{t}</u>"
    if c.bold:
        t = f"**{t}**"
    return t


def to_markdown(t: Table) -> str:
    """GitHub-flavoured Markdown: a bold caption, one header row (group + column), notes."""
    sec = [t.section_header] if t.section_header else []
    header = sec + list(t.stub) + t.column_names()
    lines = [f"**{_md_escape(t.title)}**", ""]
    lines.append("| " + " | ".join(_md_escape(h) for h in header) + " |")
    aligns = ["---"] * (len(sec) + len(t.stub)) + ["---:"] * len(t.columns)
    lines.append("| " + " | ".join(aligns) + " |")
    last = None
    for r in t.rows:
        first = [r.section if r.section != last else ""] if t.section_header else []
        last = r.section
        cells = [_md_escape(s) for s in first] + [_md_escape(s) for s in r.stub] + [_md_cell(c) for c in r.cells]
        lines.append("| " + " | ".join(cells) + " |")
    for n in t.notes:
        lines += ["", _md_escape(n)]
    return "\n".join(lines) + "\n"


def _csv_num(v: float | None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return f"{v:.6f}"


def to_csv(t: Table) -> str:
    """CSV with raw numbers (6 decimals); an ``<column> SE`` column follows every value
    column that has a standard error in some row; text-only cells keep their text."""
    names = t.column_names()
    has_se = [any(r.cells[j].se is not None for r in t.rows) for j in range(len(names))]
    header = ([t.section_header] if t.section_header else []) + list(t.stub)
    for name, se in zip(names, has_se):
        header.append(name)
        if se:
            header.append(f"{name} SE")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in t.rows:
        row = ([r.section] if t.section_header else []) + list(r.stub)
        for c, se in zip(r.cells, has_se):
            row.append(_csv_num(c.value) if c.value is not None else ("" if c is EMPTY or c.text == "—" else c.text))
            if se:
                row.append(_csv_num(c.se))
        w.writerow(row)
    return buf.getvalue()


_TEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}
_TEX_RE = re.compile(r"[\\&%$#_{}~^]")


def tex_escape(text: str) -> str:
    """Escape LaTeX special characters; ± × − — – § become LaTeX macros / dashes."""
    out = _TEX_RE.sub(lambda m: _TEX_SPECIAL[m.group()], text)
    for a, b in (("±", r"$\pm$"), ("×", r"$\times$"), ("−", "$-$"), ("—", "---"), ("–", "--"), ("§", r"\S{}")):
        out = out.replace(a, b)
    return out


def _tex_cell(c: Cell) -> str:
    t = tex_escape(c.text)
    if c.underline:
        t = rf"\underline{{{t}}}"
    if c.bold:
        t = rf"\textbf{{{t}}}"
    return t


def to_latex(t: Table) -> str:
    """A booktabs ``table`` environment (needs ``\\usepackage{booktabs}``)."""
    sec = 1 if t.section_header else 0
    n_stub = sec + len(t.stub)
    spec = "l" * n_stub + "r" * len(t.columns)
    lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{tex_escape(t.title)}}}", rf"\label{{tab:{t.name}}}"]
    lines.append(rf"\begin{{tabular}}{{{spec}}}")
    lines.append(r"\toprule")
    if t.groups:
        parts = [""] * n_stub
        rules = []
        col = n_stub + 1
        for g, span in t.groups:
            parts.append(rf"\multicolumn{{{span}}}{{c}}{{{tex_escape(g)}}}" if span > 1 else tex_escape(g))
            if g:
                rules.append(rf"\cmidrule(lr){{{col}-{col + span - 1}}}")
            col += span
        lines.append(" & ".join(parts) + r" \\")
        if rules:
            lines.append(" ".join(rules))
    head = ([tex_escape(t.section_header)] if sec else []) + [tex_escape(s) for s in t.stub] + [tex_escape(c) for c in t.columns]
    lines.append(" & ".join(head) + r" \\")
    lines.append(r"\midrule")
    last = None
    for i, r in enumerate(t.rows):
        if sec and r.section != last and i > 0:
            lines.append(r"\midrule")
        first = [tex_escape(r.section) if r.section != last else ""] if sec else []
        last = r.section
        cells = first + [tex_escape(s) for s in r.stub] + [_tex_cell(c) for c in r.cells]
        lines.append(" & ".join(cells) + r" \\")
    lines.append(r"\bottomrule")
    lines.append(r"\end{tabular}")
    for n in t.notes:
        lines.append(rf"\par\smallskip{{\footnotesize {tex_escape(n)}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def _html_cell(c: Cell) -> str:
    t = html.escape(c.text)
    if c.underline:
        t = f"<u>{t}</u>"
    if c.bold:
        t = f"<strong>{t}</strong>"
    return t


def to_html(t: Table) -> str:
    """An HTML ``<table>`` fragment (every text escaped), with its caption and notes."""
    e = html.escape
    sec = [t.section_header] if t.section_header else []
    out = [f'<table class="sb-table" id="table-{e(t.name)}">', f"<caption>{e(t.title)}</caption>", "<thead>"]
    n_stub = len(sec) + len(t.stub)
    if t.groups:
        out.append("<tr>" + "".join(f"<th rowspan=\"2\">{e(h)}</th>" for h in sec + list(t.stub)))
        out[-1] += "".join(f'<th colspan="{span}">{e(g)}</th>' for g, span in t.groups) + "</tr>"
        out.append("<tr>" + "".join(f"<th>{e(c)}</th>" for c in t.columns) + "</tr>")
    else:
        out.append("<tr>" + "".join(f"<th>{e(h)}</th>" for h in sec + list(t.stub) + list(t.columns)) + "</tr>")
    out.append("</thead><tbody>")
    last = None
    for r in t.rows:
        cls = ' class="section-start"' if t.section_header and r.section != last and last is not None else ""
        first = [e(r.section) if r.section != last else ""] if t.section_header else []
        last = r.section
        tds = "".join(f"<th scope=\"row\">{s}</th>" for s in first + [e(s) for s in r.stub])
        tds += "".join(f'<td data-value="{"" if c.value is None else repr(float(c.value))}">{_html_cell(c)}</td>' for c in r.cells)
        out.append(f"<tr{cls}>{tds}</tr>")
    out.append("</tbody></table>")
    del n_stub
    for n in t.notes:
        out.append(f'<p class="note">{e(n)}</p>')
    return "\n".join(out) + "\n"


RENDERERS: dict[str, tuple[str, Callable[[Table], str]]] = {
    "md": (".md", to_markdown),
    "csv": (".csv", to_csv),
    "tex": (".tex", to_latex),
    "html": (".html", to_html),
}


# --------------------------------------------------------------------------- SocialNav-SUB

SN_GROUPS = ("All", "Spatial reasoning", "Spatiotemporal reasoning", "Social reasoning")
SN_GROUP_TITLES = {"All": "All", "Spatial reasoning": "Spatial Reasoning",
                   "Spatiotemporal reasoning": "Spatiotemporal Reasoning", "Social reasoning": "Social Reasoning"}

#: Base questions in the order and with the names of the paper's Tables 10-12.
QUESTION_TABLE: tuple[tuple[str, str, str], ...] = (
    ("Spatial", "q_person_spatial_position_begin", "Person Initial Position"),
    ("Spatial", "q_person_spatial_position_end", "Person Ending Position"),
    ("Spatial", "q_goal_position_begin", "Goal Initial Position"),
    ("Spatial", "q_goal_position_end", "Goal End Position"),
    ("Spatial", "q_obstructing_end_position", "Person End Goal Obstruction"),
    ("Spatiotemporal", "q_robot_moving_direction", "Robot Moving Direction"),
    ("Spatiotemporal", "q_person_distance_change", "Person Distance Change"),
    ("Spatiotemporal", "q_obstructing_path", "Person Goal Obstruction"),
    ("Social", "q_robot_affected", "Robot Affected by Person"),
    ("Social", "q_robot_action", "Robot Action to Person"),
    ("Social", "q_person_affected", "Person Affected by Robot"),
    ("Social", "q_person_action", "Person Action to Robot"),
    ("Social", "q_robot_suggested_affected", "Robot Affected by Person at end"),
    ("Social", "q_robot_suggested_action", "Robot Action to Person at end"),
    ("Social", "q_human_future_action_prediction", "Person Action to Robot at end"),
)
QUESTION_NAMES = {k: n for _, k, n in QUESTION_TABLE}

HUMAN_ROWS = (("human:oracle", "Human Oracle"), ("human:average", "Average Human"))


def _check_protocol(runs: Sequence[RunDir]) -> str:
    protocols = {r.protocol for r in runs}
    if len(protocols) > 1:
        from socialbench.errors import UsageError

        raise UsageError(
            "the runs were scored with different protocols ("
            + ", ".join(f"{r.label}: {r.protocol}" for r in runs)
            + "); re-score them with one `socialbench score --protocol ...`"
        )
    return protocols.pop()


def _sn_block(metrics: Mapping[str, Any], row: str, group: str) -> Mapping[str, Any] | None:
    return ((metrics.get("scores") or {}).get(row) or {}).get(group)


def _sn_pair(block: Mapping[str, Any] | None) -> tuple[Cell, Cell]:
    if not block:
        return EMPTY, EMPTY
    return mean_se_cell(block.get("PA"), block.get("PA_se")), mean_se_cell(block.get("CWPA"), block.get("CWPA_se"))


#: ``--method`` values whose spatial answers come from humans / from a perception module.
HUMAN_DERIVED_METHODS = ("cot-gt",)
ASSISTED_METHODS = ("scene-context",)
HUMAN_DERIVED = "Human-derived"
ASSISTED = "Perception-assisted"


def sn_section(r: RunDir) -> str:
    """The Table 1 section of a run: ``Human-derived`` (answers partly from the human labels:
    ``human:*`` models, ``cot-gt``), ``Perception-assisted`` (``scene-context``: spatial
    answers from the rule-based module), ``Baseline`` or ``VLM``. Only VLM rows are ranked."""
    method = r.run.get("method")
    if r.model.startswith(("human:", "replay:human")) or method in HUMAN_DERIVED_METHODS:
        return HUMAN_DERIVED
    if method in ASSISTED_METHODS:
        return ASSISTED
    return "Baseline" if r.is_baseline else "VLM"


def main_runs(runs: Sequence[RunDir]) -> list[RunDir]:
    """The runs on clean images (all runs when every one is perturbed): perturbed runs
    are reported in :func:`robustness_table`."""
    clean = [r for r in runs if r.perturbation is None]
    return clean or list(runs)


def socialnav_table1(runs: Sequence[RunDir]) -> Table:
    """SocialNav-SUB Table 1: PA and CWPA (± SE) for All and the three categories.

    Rows: Human Oracle and Average Human (the reference rows of the first run's
    metrics.json), the baseline runs (``baseline:*``, ``mock:*``), every other run under
    "VLM" (perturbed runs only when all are, see :func:`main_runs`), then the runs whose
    answers come partly from elsewhere in their own sections (:func:`sn_section`:
    ``scene-context`` under "Perception-assisted", ``cot-gt`` and ``human:*`` under
    "Human-derived"). The best VLM value of each column is bold (the best baseline run when
    no VLM is present); reference, perception-assisted and human-derived rows are never
    marked.
    """
    protocol = _check_protocol(runs)
    runs = main_runs(runs)
    columns = tuple(m for _ in SN_GROUPS for m in ("PA", "CWPA"))
    groups = tuple((SN_GROUP_TITLES[g], 2) for g in SN_GROUPS)
    rows: list[Row] = []
    ref = runs[0].metrics
    for key, name in HUMAN_ROWS:
        cells = [c for g in SN_GROUPS for c in _sn_pair(_sn_block(ref, key, g))]
        rows.append(Row((name,), tuple(cells), "Baseline"))
    n_ref = len(rows)
    order = ("Baseline", "VLM", ASSISTED, HUMAN_DERIVED)
    for r in sorted(runs, key=lambda x: order.index(sn_section(x))):
        cells = [c for g in SN_GROUPS for c in _sn_pair(_sn_block(r.metrics, "model", g))]
        rows.append(Row((r.label,), tuple(cells), sn_section(r)))
    vlm = [i for i, row in enumerate(rows) if row.section == "VLM"]
    candidates = vlm or [i for i in range(n_ref, len(rows)) if rows[i].section == "Baseline"]
    rows = mark_best(rows, candidates, range(len(columns)), underline_second=False)
    notes = [
        f"Protocol: {protocol}. Mean ± standard error over questions; Human Oracle and Average Human from "
        f"{runs[0].label}'s labels. Bold: best {'VLM' if vlm else 'baseline run'} per column."
    ]
    sections = {row.section for row in rows}
    if ASSISTED in sections:
        notes.append("Perception-assisted: the rule-based module answered the spatial and spatiotemporal questions "
                     "and its answers were given to the model (--method scene-context); not ranked.")
    if HUMAN_DERIVED in sections:
        notes.append("Human-derived: answers taken partly or wholly from the human labels (cot-gt: spatial and "
                     "spatiotemporal answers are the human mode; human:* runs); not ranked. A Sampled Human run "
                     "scores one drawn human vote against a distribution that includes that vote, so it is higher "
                     "than the leave-one-out Average Human row.")
    return Table(
        "socialnav_table1",
        "Average performance across question categories (SocialNav-SUB Table 1)",
        ("Model",), columns, tuple(rows), groups, tuple(notes), section_header="Category",
    )


def socialnav_question_table(runs: Sequence[RunDir], which: str = "models") -> Table | None:
    """Per-question PA and CW PA (SocialNav-SUB Tables 10-12), one column pair per answerer.

    ``which="models"``: the non-baseline runs (Tables 10 and 11); ``"baselines"``: Human
    Oracle, Average Human and the baseline runs (Table 12). ``None`` when there is nothing
    to show.
    """
    protocol = _check_protocol(runs)
    runs = main_runs(runs)
    answerers: list[tuple[str, Mapping[str, Any], str]] = []
    if which == "baselines":
        answerers += [(name, runs[0].metrics, key) for key, name in HUMAN_ROWS]
        answerers += [(r.label, r.metrics, "model") for r in runs if r.is_baseline]
        title = "Performance across individual questions for baselines (SocialNav-SUB Table 12)"
    elif which == "models":
        answerers += [(r.label, r.metrics, "model") for r in runs if not r.is_baseline]
        title = "Performance across individual questions for models (SocialNav-SUB Tables 10-11)"
    else:
        raise ValueError(f"which must be 'models' or 'baselines', got {which!r}")
    if not answerers:
        return None
    present = set()
    for _, m, key in answerers:
        present |= set(((m.get("scores") or {}).get(key) or {}).keys())
    order = [q for q in QUESTION_TABLE if q[1] in present]
    if not order:
        return None
    rows = []
    for cat, key, name in order:
        cells = []
        for _, m, row in answerers:
            cells += list(_sn_pair(_sn_block(m, row, key)))
        rows.append(Row((name,), tuple(cells), cat))
    columns = tuple(c for _ in answerers for c in ("PA", "CW PA"))
    groups = tuple((label, 2) for label, _, _ in answerers)
    notes = (f"Protocol: {protocol}. Mean ± standard error over the questions of each type.",)
    return Table(
        f"socialnav_questions_{which}", title, ("Question Name",), columns, tuple(rows), groups, notes,
        section_header="Category",
    )


#: The rows of the paper's Tables 2 / 13: (row name, --method, --images).
ABLATIONS: tuple[tuple[str, str, str], ...] = (
    ("BEV + CoT", "cot", "img-with-bev"),
    ("No CoT", "independent", "img-with-bev"),
    ("No BEV", "cot", "img"),
)
#: The columns of Table 14 (and the hybrid strategy next to them): (title, --method).
GT_METHODS: tuple[tuple[str, str], ...] = (
    ("CoT", "cot"),
    ("CoT with ground-truth spatial(temporal) answers", "cot-gt"),
    ("Scene context (rule-based perception)", "scene-context"),
)


def _same_model_key(r: RunDir) -> tuple[Any, ...]:
    """What runs that differ only in ``--method`` / ``--images`` share."""
    return (r.benchmark, r.model, r.options_key(rag=True))


def _by_model(runs: Sequence[RunDir]) -> dict[tuple[Any, ...], dict[tuple[str, str], RunDir]]:
    """Clean runs grouped by :func:`_same_model_key`, then by (method, images)."""
    out: dict[tuple[Any, ...], dict[tuple[str, str], RunDir]] = {}
    for r in runs:
        if r.perturbation is not None:
            continue
        cfg = (str(r.run.get("method") or "independent"), str(r.run.get("images") or "img-with-bev"))
        out.setdefault(_same_model_key(r), {}).setdefault(cfg, r)
    return out


def socialnav_ablation_table(runs: Sequence[RunDir]) -> Table | None:
    """SocialNav-SUB Tables 2 / 13: the querying-strategy ablation, PA ± SE per category.

    For each model with at least two of the :data:`ABLATIONS` configurations among the runs
    (same model, benchmark and options; clean images), one row per configuration present:
    BEV + CoT (``--method cot``), No CoT (``--method independent``), No BEV (``--method cot
    --images img``). ``None`` when no model has two.
    """
    protocol = _check_protocol(runs)
    cats = SN_GROUPS[1:]
    rows = []
    for configs in _by_model(runs).values():
        present = [(name, configs[(m, i)]) for name, m, i in ABLATIONS if (m, i) in configs]
        if len(present) < 2:
            continue
        for name, r in present:
            cells = tuple(_sn_pair(_sn_block(r.metrics, "model", c))[0] for c in cats)
            rows.append(Row((display_name(r.model), name), cells))
    if not rows:
        return None
    notes = (f"Protocol: {protocol}. Probability of Agreement, mean ± standard error over questions. "
             "BEV + CoT: --method cot; No CoT: --method independent; No BEV: --method cot --images img "
             "(front view only).",)
    return Table("socialnav_table2_ablation",
                 "Ablation experiment of querying strategies, PA (SocialNav-SUB Tables 2 and 13)",
                 ("Model", "Ablation"), tuple(SN_GROUP_TITLES[c] for c in cats), tuple(rows), (), notes)


def socialnav_gt_table(runs: Sequence[RunDir]) -> Table | None:
    """SocialNav-SUB Table 14: CoT vs CoT with the human answers to the spatial and
    spatiotemporal questions, per social question (PA and CW PA ± SE).

    For each model with a ``cot`` run and a ``cot-gt`` run (same images and options; clean),
    one section of seven rows; a ``scene-context`` run of the same model adds a third column
    pair (the rule-based perception module's answers instead of the humans'). ``None`` when
    no model has both.
    """
    protocol = _check_protocol(runs)
    social = [(key, name) for cat, key, name in QUESTION_TABLE if cat == "Social"]
    blocks = []
    for configs in _by_model(runs).values():
        for images in sorted({i for _, i in configs}):
            if ("cot", images) not in configs or ("cot-gt", images) not in configs:
                continue
            blocks.append((configs[("cot", images)], [configs.get((m, images)) for _, m in GT_METHODS]))
    if not blocks:
        return None
    with_context = any(found[2] is not None for _, found in blocks)
    methods = GT_METHODS if with_context else GT_METHODS[:2]
    rows = []
    for base, found in blocks:
        label = display_name(base.model) + ("" if base.run.get("images") in (None, "img-with-bev")
                                            else f" ({base.run.get('images')})")
        for key, name in social:
            cells: list[Cell] = []
            for r in found[:len(methods)]:
                cells += list(_sn_pair(_sn_block(r.metrics, "model", key) if r is not None else None))
            rows.append(Row((name,), tuple(cells), label))
    notes = [f"Protocol: {protocol}. Mean ± standard error over the questions of each type. CoT with ground truth: "
             "the spatial and spatiotemporal questions are answered by the human mode and given to the model as "
             "chain-of-thought context (--method cot-gt); only the social questions are the model's."]
    if with_context:
        notes.append("Scene context: the same questions answered by the rule-based module on the tracks instead "
                     "(--method scene-context).")
    return Table("socialnav_table14_cot_gt",
                 "CoT vs CoT with ground-truth spatial and spatiotemporal answers (SocialNav-SUB Table 14)",
                 ("Question Name",), tuple(c for _ in methods for c in ("PA", "CW PA")), tuple(rows),
                 tuple((title, 2) for title, _ in methods), tuple(notes), section_header="Model")


#: Table 3's columns: (title, how a run's ``--context`` starts).
WAYPOINT_CONTEXTS: tuple[tuple[str, str], ...] = (
    ("No Context", "none"), ("Random", "random"), ("Same-Model", "model:"), ("Human Oracle", "human-oracle"),
)


def waypoint_table(runs: Sequence[RunDir]) -> Table | None:
    """SocialNav-SUB Table 3: waypoint accuracy (%) ± SE per model and scene-context source.

    One row per model (and image mode / options other than the context), one column per
    context; a run made with ``--epochs`` shows its mean ± SE across epochs, others the SE
    over samples. ``None`` without ``socialnav-waypoint`` runs."""
    rows_by: dict[tuple[Any, ...], dict[str, RunDir]] = {}
    for r in runs:
        if r.benchmark != "socialnav-waypoint" or r.perturbation is not None:
            continue
        context = str((r.run.get("options") or {}).get("context") or r.metrics.get("context") or "none")
        column = next((t for t, prefix in WAYPOINT_CONTEXTS if context == prefix or
                       (prefix.endswith(":") and context.startswith(prefix))), None)
        if column is None:
            continue
        others = tuple((k, v) for k, v in r.options_key() if k != "context")
        rows_by.setdefault((r.model, r.run.get("images"), others), {}).setdefault(column, r)
    if not rows_by:
        return None
    rows = []
    any_epochs = False
    for (model, images, _), by in rows_by.items():
        cells = []
        for title, _ in WAYPOINT_CONTEXTS:
            r = by.get(title)
            acc = ((r.metrics.get("overall") or {}).get("accuracy") or {}) if r is not None else {}
            any_epochs = any_epochs or bool(r is not None and r.metrics.get("epochs"))
            v, se = acc.get("value"), acc.get("se")
            cells.append(EMPTY if v is None else Cell(f"{_pct(v)} ± {_pct(se)}" if se is not None else _pct(v),
                                                      100 * v, None if se is None else 100 * se))
        label = display_name(str(model)) + ("" if images in (None, "img-with-bev") else f" ({images})")
        rows.append(Row((label,), tuple(cells)))
    notes = ("Accuracy of choosing the operator's waypoint, percent. "
             + ("Runs made with --epochs: mean ± SE across epochs; others: ± SE over samples. " if any_epochs else
                "± SE over samples (use eval --epochs N for mean ± SE across repeated runs). ")
             + "Same-Model: the scene context of --context model:RUN_DIR (a SocialNav-SUB run of the model).",)
    return Table("socialnav_table3_waypoints", "Waypoint selection accuracy by scene-context source (SocialNav-SUB Table 3)",
                 ("Model",), tuple(t for t, _ in WAYPOINT_CONTEXTS), tuple(rows), (), notes)


def _pct(v: float | None, digits: int = 2) -> str:
    return "—" if v is None else f"{100 * v:.{digits}f}%"


def failure_env_table(per_run: Sequence[tuple[str, Mapping[str, Any], Sequence[Mapping[str, Any]]]]) -> Table | None:
    """SocialNav-SUB Table 4: overall failure rate and FRI per scene-attribute value.

    ``per_run``: ``(label, failure_summary(...), [failure_rate_by_attribute(...), ...])``
    for each run. Cells: ``1.39× (32.91% ± 2.15%)``; the value kept for CSV is the FRI.
    An attribute with a single value over all runs (every scene indoors, say) gives no
    column: its FRI is 1 by construction and says nothing.
    """
    if not per_run:
        return None
    # columns: union of (attribute, value) in first-seen order
    cols: list[tuple[str, Any]] = []
    for _, _, analyses in per_run:
        for a in analyses:
            for g in a["groups"]:
                if (a["attribute"], g.value) not in cols:
                    cols.append((a["attribute"], g.value))
    n_values: dict[str, int] = {}
    for attribute, _ in cols:
        n_values[attribute] = n_values.get(attribute, 0) + 1
    cols = [c for c in cols if n_values[c[0]] > 1]
    rows = []
    for label, summary, analyses in per_run:
        overall = Cell(f"{_pct(summary['failure_rate'])} ± {_pct(summary['failure_rate_se'])}",
                       summary["failure_rate"], summary["failure_rate_se"])
        found = {(a["attribute"], g.value): g for a in analyses for g in a["groups"]}
        cells = [overall]
        for col in cols:
            g = found.get(col)
            if g is None:
                cells.append(EMPTY)
            else:
                fri = "—" if g.fri is None else f"{g.fri:.2f}×"
                cells.append(Cell(f"{fri} ({_pct(g.failure_rate)} ± {_pct(g.failure_rate_se)})", g.fri, None))
        rows.append(Row((label,), tuple(cells)))
    columns = ("Overall FR",) + tuple(_attr_label(a, v) for a, v in cols)
    notes = (
        "Failure: an answer no human gave (invalid answers and model errors included). Attribute cells: "
        "failure-rate increase FRI = FR(group) / overall FR (1 = the model's average), with the group's FR ± SE.",
    )
    return Table("socialnav_failures_by_attribute", "Failure rate by scene attribute (SocialNav-SUB Table 4)",
                 ("Model",), columns, tuple(rows), (), notes)


def _attr_label(attribute: str, value: Any) -> str:
    if isinstance(value, bool):
        return attribute if value else f"not {attribute}"
    return f"{attribute}: {value}"


#: Table 5's column order in the paper, per question type.
PAPER_ACTION_ORDER: dict[str, tuple[str, ...]] = {
    "q_robot_action": ("yielding to", "overtaking", "following", "avoiding", "not considering"),
}


def action_table(per_run: Sequence[tuple[str, Mapping[str, Any]]]) -> Table | None:
    """SocialNav-SUB Table 5: per chosen action, failure rate (occurrence %) per run.

    ``per_run``: ``(label, action_distribution(...))``. A never-chosen action is "—".
    """
    per_run = [(lab, d) for lab, d in per_run if d.get("actions")]
    if not per_run:
        return None
    actions: list[str] = []
    for _, d in per_run:
        for a in d["actions"]:
            if a.action not in actions:
                actions.append(a.action)
    paper = PAPER_ACTION_ORDER.get(per_run[0][1]["base_key"], ())
    actions.sort(key=lambda a: paper.index(a) if a in paper else len(paper))  # stable: others keep their order
    rows = []
    for label, d in per_run:
        by = {a.action: a for a in d["actions"]}
        cells = []
        for name in actions:
            a = by.get(name)
            if a is None or a.failure_rate is None:
                cells.append(EMPTY)
            else:
                cells.append(Cell(f"{_pct(a.failure_rate)} ({100 * a.share:.1f}%)", a.failure_rate, None))
        rows.append(Row((label,), tuple(cells)))
    base = per_run[0][1]["base_key"]
    name = QUESTION_NAMES.get(base, base)
    notes = ("Cells: failure rate among the answers that chose the action; parentheses: how often the model "
             "chose it (% of valid answers). —: never chosen.",)
    return Table(f"socialnav_actions_{base}", f"{name}: chosen action and failure rate (SocialNav-SUB Table 5)",
                 ("Model",), tuple(a[:1].upper() + a[1:] for a in actions), tuple(rows), (), notes)


# --------------------------------------------------------------------------- RobotEQ

RQ_SUBSETS = (("synthetic", "Synthetic Subset (%)"), ("real", "Real Subset (%)"))
RQ_METRICS = (("PA", "pa"), ("CWPA", "cwpa"), ("MicF1", "micro_f1"), ("MacF1", "macro_f1"))
RQ_AVG = (("CWPA", "cwpa"), ("MacF1", "macro_f1"))


def _rq_value(block: Mapping[str, Any] | None, name: str) -> tuple[float | None, float | None]:
    stat = (block or {}).get(name)
    if not isinstance(stat, Mapping) or stat.get("value") is None:
        return None, None
    return float(stat["value"]), (None if stat.get("se") is None else float(stat["se"]))


def _rq_cell(block: Mapping[str, Any] | None, name: str) -> Cell:
    """A percent cell; the kept value and SE are in percent too (as displayed)."""
    v, se = _rq_value(block, name)
    return EMPTY if v is None else Cell(fmt_num(v, 2, 100.0), 100 * v, None if se is None else 100 * se)


def roboteq_table1(runs: Sequence[RunDir], human: Mapping[str, Mapping[str, Any]] | None = None) -> Table:
    """RobotEQ Table 1 (behavior judgment): PA, CWPA, MicF1, MacF1 per subset and Avg
    CWPA / MacF1, in percent, from each run's ``by_subset`` (``average`` = the unweighted
    mean of the two subsets). Best of each column in bold, runner-up underlined, among the
    VLM rows (baseline / oracle rows and the Human row are not ranked; all runs are ranked
    when none is a VLM, as in the SocialNav-SUB Table 1). Rows: the runs with the standard strategy and clean
    images (all runs when there are none); the others belong to Table 2 and the
    robustness table.

    ``human``: optional ``{subset: {"pa": {"value", "se"}, "cwpa": ..., "micro_f1": ...,
    "macro_f1": ...}}`` (leave-one-out human baselines per subset, computed from the labels'
    per-annotator votes, :mod:`socialbench.metrics.human`) for an unranked Human row.
    """
    columns = tuple(m for _ in RQ_SUBSETS for m, _ in RQ_METRICS) + tuple(m for m, _ in RQ_AVG)
    groups = tuple((title, len(RQ_METRICS)) for _, title in RQ_SUBSETS) + (("Avg (%)", len(RQ_AVG)),)
    main = [r for r in runs if r.strategy == "standard" and r.perturbation is None]
    left_out = len(runs) - len(main) if main else 0
    rows = []
    for r in (main or runs):
        by = r.metrics.get("by_subset") or {}
        cells = [_rq_cell(by.get(s), m) for s, _ in RQ_SUBSETS for _, m in RQ_METRICS]
        cells += [_rq_cell(by.get("average"), m) for _, m in RQ_AVG]
        size = str(r.run.get("model_size") or "–")
        rows.append(Row((r.label, size), tuple(cells), "Baseline" if r.is_baseline else "VLM"))
    vlm = [i for i, row in enumerate(rows) if row.section == "VLM"]
    rows = mark_best(rows, vlm or list(range(len(rows))), range(len(columns)), underline_second=True)
    if human:
        cells = [_rq_cell(human.get(s), m) for s, _ in RQ_SUBSETS for _, m in RQ_METRICS]
        cells += [_rq_cell(human.get("average"), m) for _, m in RQ_AVG]
        rows.append(Row(("Human", "–"), tuple(cells), "Human"))
    ranked = "VLM" if vlm else "run"
    notes = (f"Percent. Avg: unweighted mean of the synthetic and real subsets. Bold: best {ranked}; underlined: runner-up."
             + (f" {left_out} run(s) with another strategy or a perturbation are not rows here: the runs table "
                "(roboteq_runs) says where each one is shown (ablation, RAG or robustness table)." if left_out else "")
             + (" Human: each annotator against the majority of the other annotators (leave-one-out; Eq. 1-2 for PA / "
                "CWPA, pooled counts for F1; a tie among the others counts both ways with weight 1/2)." if human else ""),)
    return Table("roboteq_table1", "Main results on behavior judgment (RobotEQ Table 1)", ("Model", "Size"),
                 columns, tuple(rows), groups, notes)


def _rag_macro_f1(r: RunDir) -> tuple[float | None, str]:
    by = r.metrics.get("by_subset") or {}
    if "synthetic" in by:
        return _rq_value(by["synthetic"], "macro_f1")[0], "synthetic"
    return _rq_value(r.metrics.get("overall"), "macro_f1")[0], "overall"


def _seconds_per_query(r: RunDir) -> tuple[float | None, bool]:
    """Mean seconds per model request (RAG runs: including retrieval) and whether it is
    unknown because every request was answered from the response cache (a cached request
    has latency 0 and says nothing about the model's speed)."""
    req = r.metrics.get("requests") or {}
    n = req.get("requests")
    if (n and int(req.get("cached") or 0) >= int(n)) or req.get("latency_note"):
        return None, True
    rag = req.get("rag") or {}
    value = rag.get("time_s_per_query") if r.strategy == "rag" and rag else req.get("latency_s_per_request")
    if value is not None:
        return float(value), False
    return r.seconds_per_query(), False


def _pair_key(r: RunDir) -> tuple[Any, ...]:
    """What a RAG run and its raw (standard) run share: benchmark, model, per-behavior and
    every non-default option that is not a RAG setting."""
    return (r.benchmark, r.model, bool(r.run.get("per_behavior")), r.options_key(rag=False))


def roboteq_rag_table(runs: Sequence[RunDir]) -> Table | None:
    """RobotEQ Table 2: Macro-F1 (%) without and with RAG, the gain, and seconds per query.

    Pairs each ``--strategy rag`` run with the same model's ``standard`` run (same
    benchmark and non-RAG options, no perturbation). Rows are labelled from the RAG run
    (its ``--label``, or the model and its RAG settings), so runs that differ only in the
    RAG backend or ``rag_k`` keep their own rows. Macro-F1 is the synthetic subset's when
    present (as in the paper), else the overall one. Judgment runs give ``roboteq_table2``;
    spatial-grounding runs (option-level Macro-F1) give ``roboteq_sg_rag``. ``None`` when
    no pair exists. The runs must be of one benchmark (``roboteq-bj`` or ``roboteq-sg``).
    """
    benches = {r.benchmark for r in runs}
    if len(benches) > 1:
        raise ValueError(f"roboteq_rag_table takes runs of one benchmark, got {sorted(benches)}")
    raw = {_pair_key(r): r for r in runs if r.strategy == "standard" and r.perturbation is None}
    rows = []
    basis = set()
    all_cached = False
    for r in runs:
        if r.strategy != "rag" or r.perturbation is not None:
            continue
        base = raw.get(_pair_key(r))
        if base is None:
            continue
        f_raw, b1 = _rag_macro_f1(base)
        f_rag, b2 = _rag_macro_f1(r)
        basis |= {b1, b2}
        gain = None if f_raw is None or f_rag is None else f_rag - f_raw
        (t_raw, c_raw), (t_rag, c_rag) = _seconds_per_query(base), _seconds_per_query(r)
        all_cached = all_cached or c_raw or c_rag
        cells = (
            EMPTY if f_raw is None else Cell(fmt_num(f_raw, 2, 100), 100 * f_raw),
            EMPTY if f_rag is None else Cell(fmt_num(f_rag, 2, 100), 100 * f_rag),
            EMPTY if gain is None else Cell(f"{100 * gain:+.2f}", 100 * gain),
            EMPTY if t_raw is None else Cell(f"{t_raw:.2f}", t_raw),
            EMPTY if t_rag is None else Cell(f"{t_rag:.2f}", t_rag),
        )
        rows.append(Row((r.label, str(r.run.get("model_size") or base.run.get("model_size") or "–")), cells))
    if not rows:
        return None
    where = "synthetic subset" if basis == {"synthetic"} else "overall" if basis == {"overall"} else "synthetic subset where present, else overall"
    grounding = benches == {"roboteq-sg"}
    what = "option-level Macro-F1" if grounding else "Macro-F1"
    note = f"{what} on the {where}. Time: mean seconds per model request (RAG: including retrieval), over requests not answered from the cache."
    if all_cached:
        note += " —: every request of that run was answered from the response cache, so no time was measured."
    if grounding:
        return Table("roboteq_sg_rag", "Role of RAG on spatial grounding (RobotEQ, as Table 2)", ("Model", "Size"),
                     ("Raw", "RAG", "Gain", "Raw", "RAG"), tuple(rows), (("Macro-F1 (%)", 3), ("Time (s/query)", 2)), (note,))
    return Table("roboteq_table2", "Role of RAG (RobotEQ Table 2)", ("Model", "Size"),
                 ("Raw", "RAG", "Gain", "Raw", "RAG"), tuple(rows), (("Macro-F1 (%)", 3), ("Time (s/query)", 2)), (note,))


# --------------------------------------------------------------------------- ablations

#: The strategies of the with/without-image and CoT comparison (RobotEQ Figure 6), in column order.
ABLATION_STRATEGIES = (("standard", "Standard"), ("no-image", "No image"), ("cot", "CoT"))


def ablation_groups(runs: Sequence[RunDir]) -> list[dict[str, RunDir]]:
    """Clean (unperturbed) standard / no-image / CoT runs grouped by model and settings
    (:func:`_pair_key`): one dict strategy -> run per group. A second run of a strategy
    already in its group opens a new group, so no run is hidden."""
    wanted = {s for s, _ in ABLATION_STRATEGIES}
    groups: list[tuple[tuple[Any, ...], dict[str, RunDir]]] = []
    for r in runs:
        if r.perturbation is not None or r.strategy not in wanted:
            continue
        k = _pair_key(r)
        target = next((g for key, g in groups if key == k and r.strategy not in g), None)
        if target is None:
            groups.append((k, {}))
            target = groups[-1][1]
        target[r.strategy] = r
    return [g for _, g in groups]


def _headline_block(r: RunDir) -> tuple[Mapping[str, Any] | None, str]:
    by = r.metrics.get("by_subset") or {}
    if "average" in by:
        return by["average"], "average"
    return r.metrics.get("overall"), "overall"


def roboteq_ablation_table(runs: Sequence[RunDir]) -> Table | None:
    """With / without image and CoT vs standard (RobotEQ Figure 6a/6b): per model, PA
    (judgment; exact match for grounding) and Macro-F1 of the standard, no-image and CoT
    runs, and the Macro-F1 change of no-image and CoT against standard, in percent. Values
    are the unweighted synthetic / real average when both subsets are present, else
    overall. ``None`` unless some clean run uses ``no-image`` or ``cot``. The runs must be of
    one benchmark."""
    benches = {r.benchmark for r in runs}
    if len(benches) > 1:
        raise ValueError(f"roboteq_ablation_table takes runs of one benchmark, got {sorted(benches)}")
    groups = ablation_groups(runs)
    if not any(set(g) - {"standard"} for g in groups):
        return None
    grounding = benches == {"roboteq-sg"}
    first = ("Exact", "exact_match") if grounding else ("PA", "pa")
    metrics = (first, ("MacF1", "macro_f1"))
    rows, basis = [], set()
    for g in groups:
        cells: list[Cell] = []
        f1: dict[str, float | None] = {}
        for strat, _ in ABLATION_STRATEGIES:
            r = g.get(strat)
            block, b = _headline_block(r) if r is not None else (None, "")
            if r is not None:
                basis.add(b)
            cells += [_rq_cell(block, m) for _, m in metrics]
            f1[strat] = _rq_value(block, "macro_f1")[0] if r is not None else None
        for strat in ("no-image", "cot"):
            a, b0 = f1.get(strat), f1.get("standard")
            cells.append(EMPTY if a is None or b0 is None else Cell(f"{100 * (a - b0):+.2f}", 100 * (a - b0)))
        any_run = next(iter(g.values()))
        name = g["standard"].label if "standard" in g else any_run.model
        rows.append(Row((name,), tuple(cells), "Baseline" if any_run.is_baseline else "VLM"))
    columns = tuple(m for _ in ABLATION_STRATEGIES for m, _ in metrics) + ("No image", "CoT")
    groups_hdr = tuple((title, len(metrics)) for _, title in ABLATION_STRATEGIES) + (("ΔMacF1 vs standard", 2),)
    where = "the synthetic / real average" if basis == {"average"} else "overall" if basis == {"overall"} else \
        "the synthetic / real average where both subsets are present, else overall"
    notes = (f"Percent, on {where}. Rows: one model and settings each (named after its standard run when there is one); "
             "ΔMacF1 = strategy − standard in points (negative: worse). —: no run of that strategy.",)
    if grounding:
        return Table("roboteq_sg_ablation", "Spatial grounding with / without image and CoT (as RobotEQ Figure 6)",
                     ("Model",), columns, tuple(rows), groups_hdr, notes)
    return Table("roboteq_ablation", "With / without image and CoT vs standard (RobotEQ Figure 6)", ("Model",),
                 columns, tuple(rows), groups_hdr, notes)


def roboteq_run_coverage(runs: Sequence[RunDir], tables: Sequence[Table]) -> tuple[Table, list[str]]:
    """Where each RobotEQ run of a report is shown, and for runs shown nowhere, why:
    the ``roboteq_runs`` table and one note per run that is not shown."""
    names = {t.name for t in tables}
    shown: dict[int, list[str]] = {i: [] for i in range(len(runs))}
    index = {id(r): i for i, r in enumerate(runs)}
    for bench, t1, abl, rag in (("roboteq-bj", "roboteq_table1", "roboteq_ablation", "roboteq_table2"),
                                ("roboteq-sg", "roboteq_grounding", "roboteq_sg_ablation", "roboteq_sg_rag")):
        mine = [r for r in runs if r.benchmark == bench]
        if bench == "roboteq-bj":
            main = [r for r in mine if r.strategy == "standard" and r.perturbation is None] or mine
        else:
            main = mine
        if t1 in names:
            for r in main:
                shown[index[id(r)]].append(t1)
        if abl in names:
            for g in ablation_groups(mine):
                for r in g.values():
                    if abl not in shown[index[id(r)]]:
                        shown[index[id(r)]].append(abl)
        if rag in names:
            raw = {_pair_key(r): r for r in mine if r.strategy == "standard" and r.perturbation is None}
            for r in mine:
                base = raw.get(_pair_key(r)) if r.strategy == "rag" and r.perturbation is None else None
                if base is not None:
                    for x in (r, base):
                        if rag not in shown[index[id(x)]]:
                            shown[index[id(x)]].append(rag)
    if "robustness" in names:
        clean = {robustness_key(r): r for r in runs if r.perturbation is None}
        for r in runs:
            base = clean.get(robustness_key(r)) if r.perturbation is not None else None
            if base is not None:
                for x in (r, base):
                    if "robustness" not in shown[index[id(x)]]:
                        shown[index[id(x)]].append("robustness")
    rows, notes = [], []
    for i, r in enumerate(runs):
        pert = r.perturbation
        if shown[i]:
            where = ", ".join(shown[i])
        else:
            if r.strategy == "rag":
                why = "a RAG run without a standard run of the same model and settings to compare with"
            elif pert is not None:
                why = "a perturbed run without a clean run of the same model and settings to compare with"
            else:
                why = "no table of this report takes it"
            where = f"not shown: {why}"
            notes.append(f"run {r.label} ({r.path}) is not shown: {why}")
        rows.append(Row((r.label,), (Cell(r.benchmark), Cell(r.strategy), Cell("—" if pert is None else f"{pert[0]} {pert[1]:g}"),
                                     Cell(where))))
    return (Table("roboteq_runs", "Runs in this report and where each is shown", ("Run",),
                  ("Benchmark", "Strategy", "Perturbation", "Shown in"), tuple(rows), (),
                  ("Every run given to `socialbench report`; a run shown nowhere says why.",)), notes)


# --------------------------------------------------------------------------- robustness


def headline_metric(r: RunDir) -> tuple[str, float | None]:
    """The metric robustness drops are reported on: PA (All) for SocialNav-SUB, macro-F1
    (overall) for RobotEQ."""
    if r.benchmark in SOCIALNAV_NAMES:
        block = _sn_block(r.metrics, "model", "All") or {}
        return "PA", block.get("PA")
    return "MacF1", _rq_value(r.metrics.get("overall"), "macro_f1")[0]


def robustness_key(r: RunDir) -> tuple[Any, ...]:
    """What a perturbed run and its clean run share: benchmark, model, strategy, method,
    images and every non-default option."""
    return (r.benchmark, r.model, r.strategy, bool(r.run.get("per_behavior")), r.run.get("method"), r.run.get("images"),
            r.options_key(rag=True))


def robustness_table(runs: Sequence[RunDir]) -> Table | None:
    """Drop of the headline metric under each image perturbation (RobotEQ Figure 8).

    Each perturbed run is paired with the run of the same model, benchmark and settings
    without perturbation. Cells: perturbed value and the drop ``clean - perturbed`` (in
    points; positive = worse). ``None`` when no pair exists.
    """
    key = robustness_key
    clean = {key(r): r for r in runs if r.perturbation is None}
    perts: list[str] = []
    pairs: dict[tuple[Any, ...], dict[str, RunDir]] = {}
    for r in runs:
        p = r.perturbation
        if p is None or key(r) not in clean:
            continue
        name = f"{p[0]} {p[1]:g}"
        if name not in perts:
            perts.append(name)
        pairs.setdefault(key(r), {})[name] = r
    if not pairs:
        return None
    metric = headline_metric(next(iter(clean.values())))[0]
    scale = 100.0 if metric == "MacF1" else 1.0
    digits = 2
    rows = []
    for k, by_name in pairs.items():
        base = clean[k]
        _, v0 = headline_metric(base)
        cells = [EMPTY if v0 is None else Cell(fmt_num(v0, digits, scale), v0 * scale)]
        for name in perts:
            r = by_name.get(name)
            v = headline_metric(r)[1] if r is not None else None
            if v is None or v0 is None:
                cells += [EMPTY, EMPTY]
            else:
                cells += [Cell(fmt_num(v, digits, scale), v * scale), Cell(f"{(v0 - v) * scale:+.{digits}f}", (v0 - v) * scale)]
        rows.append(Row((base.label,), tuple(cells)))
    columns = ("Clean",) + tuple(c for _ in perts for c in (metric, "Drop"))
    groups = (("", 1),) + tuple((p, 2) for p in perts)
    unit = "percent" if scale == 100 else "agreement"
    notes = (f"{metric} ({unit}) on clean and perturbed images; Drop = clean − perturbed (positive: worse).",)
    return Table("robustness", f"Robustness to visual perturbations ({metric})", ("Model",), columns, tuple(rows), groups, notes)


@dataclass
class TableSet:
    """Tables of one report, in display order."""

    tables: list[Table] = field(default_factory=list)

    def add(self, t: Table | None) -> None:
        if t is not None:
            self.tables.append(t)
