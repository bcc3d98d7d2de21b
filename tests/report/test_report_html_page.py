"""The static HTML page around the tables: no empty sections, long run paths wrap."""

from __future__ import annotations

import re
from pathlib import Path

from socialbench.report.html import CSS, write_report_html

RUN = {"label": "m", "model": "mock:x", "benchmark": "socialnav-sub", "protocol": "paper", "status": "complete"}


def test_a_report_without_figures_has_no_figures_heading(tmp_path: Path) -> None:
    page = write_report_html(tmp_path, title="t", runs=[RUN], tables=[], figures=[], viewer=None).read_text()
    assert "<h2>Figures</h2>" not in page and 'href="#figures"' not in page


def test_a_report_with_figures_lists_them_under_a_heading(tmp_path: Path) -> None:
    svg = tmp_path / "plots" / "radar.svg"
    svg.parent.mkdir()
    svg.write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    page = write_report_html(tmp_path, title="t", runs=[RUN], tables=[], figures=[svg], viewer=None).read_text()
    assert '<h2>Figures</h2><div class="figs"><figure><img src="plots/radar.svg"' in page


def test_the_run_directory_cell_wraps_long_paths(tmp_path: Path) -> None:
    long = "/" + "/".join(["a-very-long-folder-name"] * 12)
    page = write_report_html(
        tmp_path, title="t", runs=[{**RUN, "path": long}], tables=[], figures=[], viewer=None
    ).read_text()
    assert f'<td class="path">{long}</td>' in page
    rule = re.search(r"\.runs td\.path\{([^}]*)\}", CSS)
    assert rule is not None and "overflow-wrap:anywhere" in rule.group(1)
