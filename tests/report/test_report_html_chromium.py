"""The HTML report opened in headless Chromium: it renders, the viewer works, and model
text carrying markup is shown as text and never runs.

Needs the Debian package ``chromium`` on PATH (``apt-get install -y chromium``); the tests
skip with that reason otherwise."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from socialbench.report.build import build_report
from socialbench.report.loading import load_runs

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not on PATH (Debian: apt-get install -y chromium)"
)

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium(url: str, *extra: str) -> str:
    """Chromium's stdout for ``url``.

    Chromium's profile and its TMPDIR are a short folder under /tmp: Chromium puts a UNIX
    socket under TMPDIR and aborts ("Socket path too long") when that path passes 107 bytes,
    as it does under a long TMPDIR or pytest temp folder."""
    profile = tempfile.mkdtemp(prefix="sb-chr-", dir="/tmp")
    try:
        res = subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, url],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "TMPDIR": profile},
        )
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout


@pytest.fixture(scope="module")
def report(tmp_path_factory, sn_runs: dict[str, Path], xss_run: Path) -> Path:
    out = tmp_path_factory.mktemp("html-report")
    runs = load_runs([sn_runs["rule"], xss_run])
    build_report(runs, out, formats=["html"], n_boot=100)
    return out / "index.html"


@pytest.fixture(scope="module")
def invalid_view(report: Path) -> str:
    """The DOM with the viewer showing the second run's invalid answers (the payloads)."""
    return chromium(report.as_uri() + "#sel=all&run=1&status=invalid", "--dump-dom")


def test_viewer_script_runs_to_the_end(invalid_view: str) -> None:
    assert 'data-viewer="ready"' in invalid_view


def test_model_markup_is_shown_as_text(invalid_view: str) -> None:
    assert "&lt;script&gt;document.body.setAttribute('data-pwned','script')&lt;/script&gt;" in invalid_view
    assert "&lt;img src=x onerror=" in invalid_view
    assert "&lt;/script&gt;&lt;script&gt;" in invalid_view


def test_model_markup_never_runs_or_becomes_elements(invalid_view: str) -> None:
    assert "data-pwned=" not in invalid_view
    assert invalid_view.count("<script") == 2  # the data block and the viewer script
    assert '<img src="x"' not in invalid_view


def test_status_filter_from_the_url_shows_only_matching_cards(invalid_view: str) -> None:
    cards = re.findall(r'class="card" data-key="([^"]+)"', invalid_view)
    assert len(cards) == 3
    assert len(re.findall(r'class="st st-invalid"', invalid_view)) == 3


def test_question_type_filter(report: Path) -> None:
    dom = chromium(report.as_uri() + "#sel=all&base=q_robot_action", "--dump-dom")
    keys = re.findall(r'class="card" data-key="([^"]+)"', dom)
    assert keys and all("/q_robot_action_p" in k for k in keys)


def test_page_has_tables_figures_and_item_images(invalid_view: str, report: Path) -> None:
    assert 'id="table-socialnav_table1"' in invalid_view
    assert 'src="plots/radar_questions.svg"' in invalid_view
    imgs = re.findall(r'<img loading="lazy" alt="[^"]*" src="(images/[^"]+)"', invalid_view)
    assert imgs and all((report.parent / p).is_file() for p in imgs)


def test_screenshot_is_rendered(report: Path, tmp_path: Path) -> None:
    from PIL import Image

    shot = tmp_path / "shot.png"
    chromium(report.as_uri(), f"--screenshot={shot}", "--window-size=1280,1600")
    img = Image.open(shot).convert("L")
    assert img.size == (1280, 1600)
    # a blank page has one grey level; text, tables and figures give many
    assert len(img.getcolors(maxcolors=256 * 256) or []) > 20
    # the header text is dark on a white page
    assert img.crop((0, 0, 600, 60)).getextrema()[0] < 80
