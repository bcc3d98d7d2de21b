"""Render a :class:`~socialbench.report.table.Table` as Markdown, CSV, LaTeX or HTML.

The renderers only lay a table out. Markdown, LaTeX and HTML share one body loop
(:func:`_body_rows`): the section name on the first row of each section (when the table has
a section column), the escaped stub texts, then the value cells with their bold /
underline marks in the format's own markup. CSV writes the unrounded numbers (6 decimals,
in the displayed unit: percent tables in percent) with one extra ``SE`` column per value
column that has standard errors, and the section name on every row.
"""

from __future__ import annotations

import csv
import html
import io
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from socialbench.files.csv_cells import csv_row
from socialbench.report.table import EMPTY, Cell, Table

__all__ = ["to_markdown", "to_csv", "to_latex", "to_html", "tex_escape", "RENDERERS"]


@dataclass(frozen=True)
class _Markup:
    """How one format escapes text and marks a bold or underlined cell."""

    escape: Callable[[str], str]
    bold: tuple[str, str]
    underline: tuple[str, str]

    def cell(self, c: Cell) -> str:
        """The escaped text of ``c``, underlined inside bold when both apply."""
        t = self.escape(c.text)
        if c.underline:
            t = self.underline[0] + t + self.underline[1]
        if c.bold:
            t = self.bold[0] + t + self.bold[1]
        return t


@dataclass(frozen=True)
class _BodyRow:
    """One body row as a renderer needs it."""

    starts_section: bool  # a new section begins here (never on the first row)
    stub: list[str]  # escaped: the section name (first row of a section) or "", then the stub texts
    value_cells: list[Cell]


def _head(t: Table) -> list[str]:
    """The stub headers, after the section column's header when the table has one."""
    return ([t.section_header] if t.section_header else []) + list(t.stub)


def _body_rows(t: Table, escape: Callable[[str], str]) -> Iterator[_BodyRow]:
    """The rows of ``t`` with the section name shown once per section (see :class:`_BodyRow`)."""
    last: str | None = None
    for i, r in enumerate(t.rows):
        starts = bool(t.section_header) and i > 0 and r.section != last
        first = [escape(r.section) if r.section != last else ""] if t.section_header else []
        last = r.section
        yield _BodyRow(starts, first + [escape(s) for s in r.stub], list(r.cells))


# --------------------------------------------------------------------------- Markdown


def _md_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("_", "\\_").replace("<", "&lt;")


_MD = _Markup(_md_escape, bold=("**", "**"), underline=("<u>", "</u>"))


def to_markdown(t: Table) -> str:
    """GitHub-flavoured Markdown: a bold caption, one header row (group + column), notes."""
    header = _head(t) + t.column_names()
    lines = [f"**{_md_escape(t.title)}**", ""]
    lines.append("| " + " | ".join(_md_escape(h) for h in header) + " |")
    aligns = ["---"] * len(_head(t)) + ["---:"] * len(t.columns)
    lines.append("| " + " | ".join(aligns) + " |")
    for row in _body_rows(t, _md_escape):
        lines.append("| " + " | ".join(row.stub + [_MD.cell(c) for c in row.value_cells]) + " |")
    for n in t.notes:
        lines += ["", _md_escape(n)]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- CSV


def _csv_num(v: float | None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return f"{v:.6f}"


def to_csv(t: Table) -> str:
    """CSV with raw numbers (6 decimals); an ``<column> SE`` column follows every value
    column that has a standard error in some row; text-only cells keep their text."""
    names = t.column_names()
    has_se = [any(r.cells[j].se is not None for r in t.rows) for j in range(len(names))]
    header = _head(t)
    for name, se in zip(names, has_se):
        header.append(name)
        if se:
            header.append(f"{name} SE")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(csv_row(header))
    for r in t.rows:
        row = ([r.section] if t.section_header else []) + list(r.stub)
        for c, se in zip(r.cells, has_se):
            row.append(_csv_num(c.value) if c.value is not None else ("" if c is EMPTY or c.text == "—" else c.text))
            if se:
                row.append(_csv_num(c.se))
        w.writerow(csv_row(row))  # a model name like =HYPERLINK(...) is text, never a formula
    return buf.getvalue()


# --------------------------------------------------------------------------- LaTeX


_TEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_TEX_RE = re.compile(r"[\\&%$#_{}~^]")


def tex_escape(text: str) -> str:
    """Escape LaTeX special characters; ± × − — – § † become LaTeX macros / dashes."""
    out = _TEX_RE.sub(lambda m: _TEX_SPECIAL[m.group()], text)
    for a, b in (
        ("±", r"$\pm$"),
        ("×", r"$\times$"),
        ("−", "$-$"),
        ("—", "---"),
        ("–", "--"),
        ("§", r"\S{}"),
        ("†", r"\textsuperscript{\dag}"),
    ):
        out = out.replace(a, b)
    return out


_TEX = _Markup(tex_escape, bold=(r"\textbf{", "}"), underline=(r"\underline{", "}"))


def to_latex(t: Table) -> str:
    """A booktabs ``table`` environment (needs ``\\usepackage{booktabs}``)."""
    n_stub = len(_head(t))
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
    lines.append(" & ".join(tex_escape(h) for h in _head(t) + list(t.columns)) + r" \\")
    lines.append(r"\midrule")
    for row in _body_rows(t, tex_escape):
        if row.starts_section:
            lines.append(r"\midrule")
        lines.append(" & ".join(row.stub + [_TEX.cell(c) for c in row.value_cells]) + r" \\")
    lines.append(r"\bottomrule")
    lines.append(r"\end{tabular}")
    for n in t.notes:
        lines.append(rf"\par\smallskip{{\footnotesize {tex_escape(n)}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- HTML


_HTML = _Markup(html.escape, bold=("<strong>", "</strong>"), underline=("<u>", "</u>"))


def _html_td(c: Cell) -> str:
    value = "" if c.value is None else repr(float(c.value))
    return f'<td data-value="{value}">{_HTML.cell(c)}</td>'


def to_html(t: Table) -> str:
    """An HTML ``<table>`` fragment (every text escaped), with its caption and notes."""
    e = html.escape
    out = [f'<table class="sb-table" id="table-{e(t.name)}">', f"<caption>{e(t.title)}</caption>", "<thead>"]
    if t.groups:
        out.append("<tr>" + "".join(f'<th rowspan="2">{e(h)}</th>' for h in _head(t)))
        out[-1] += "".join(f'<th colspan="{span}">{e(g)}</th>' for g, span in t.groups) + "</tr>"
        out.append("<tr>" + "".join(f"<th>{e(c)}</th>" for c in t.columns) + "</tr>")
    else:
        out.append("<tr>" + "".join(f"<th>{e(h)}</th>" for h in _head(t) + list(t.columns)) + "</tr>")
    out.append("</thead><tbody>")
    for row in _body_rows(t, e):
        cls = ' class="section-start"' if row.starts_section else ""
        tds = "".join(f'<th scope="row">{s}</th>' for s in row.stub) + "".join(_html_td(c) for c in row.value_cells)
        out.append(f"<tr{cls}>{tds}</tr>")
    out.append("</tbody></table>")
    for n in t.notes:
        out.append(f'<p class="note">{e(n)}</p>')
    return "\n".join(out) + "\n"


#: Format name -> (file extension, renderer).
RENDERERS: dict[str, tuple[str, Callable[[Table], str]]] = {
    "md": (".md", to_markdown),
    "csv": (".csv", to_csv),
    "tex": (".tex", to_latex),
    "html": (".html", to_html),
}
