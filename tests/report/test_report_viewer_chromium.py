"""The item viewer's frames in headless Chromium: every frame shown, a click or ``o`` opens
one at full resolution, arrow keys step through the frames, ``j`` / ``k`` move between items.
Keys are sent through the page's ``#keys=`` replay, which dispatches real keydown events to
the same handler a keyboard would reach. Needs ``chromium`` on PATH (skips otherwise)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from socialbench.report.build import build_report
from socialbench.report.loading import load_runs
from test_report_html_chromium import chromium

pytestmark = pytest.mark.skipif(
    shutil.which("chromium") is None, reason="chromium is not on PATH (Debian: apt-get install -y chromium)"
)


@pytest.fixture(scope="module")
def page(tmp_path_factory, sn_runs: dict[str, Path]) -> Path:
    out = tmp_path_factory.mktemp("viewer")
    build_report(load_runs([sn_runs["rule"]]), out, formats=["html"], n_boot=50, figures=False)
    return out / "index.html"


def dom(page: Path, fragment: str) -> str:
    return chromium(page.as_uri() + "#sel=all&" + fragment, "--dump-dom")


def first_card(html: str) -> str:
    return re.search(r'<div class="card[^"]*" data-key="([^"]+)"', html).group(1)


def lightbox(html: str) -> str:
    return re.search(r'<div id="lightbox"[^>]*>', html).group(0)


def test_every_frame_of_an_item_is_shown(page: Path) -> None:
    html = dom(page, "")
    item = first_card(html).split("/")[0]
    frames = set(re.findall(re.escape(item) + r' frame (\d+)"', html))
    assert frames == {str(n) for n in range(1, 11)}


def test_the_address_opens_a_frame_at_full_resolution(page: Path) -> None:
    html = dom(page, "")
    item = first_card(html).split("/")[0]
    opened = dom(page, f"open={item}/3")
    box = lightbox(opened)
    assert 'class="open"' in box and 'data-frame="3"' in box
    src = re.search(r'<img id="lb-img" alt="[^"]*" src="([^"]+)"', opened).group(1)
    third = re.search(rf'alt="{re.escape(item)} frame 3" src="([^"]+)"', html).group(1)
    assert src == third and (page.parent / src).is_file()


def test_j_moves_to_the_next_item(page: Path) -> None:
    html = dom(page, "keys=j,j")
    keys = re.findall(r'<div class="card[^"]*" data-key="([^"]+)"', html)
    assert re.search(r'<body[^>]*data-current="([^"]+)"', html).group(1) == keys[1]


def test_arrow_keys_step_through_the_frames(page: Path) -> None:
    assert 'data-frame="3"' in lightbox(dom(page, "keys=j,o,ArrowRight,ArrowRight"))
    assert 'data-frame="10"' in lightbox(dom(page, "keys=j,o,ArrowLeft"))


def test_escape_closes_the_frame(page: Path) -> None:
    assert 'class="open"' not in lightbox(dom(page, "keys=j,o,Escape"))
