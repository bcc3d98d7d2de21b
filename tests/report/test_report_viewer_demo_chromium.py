"""Headless Chromium screenshot of the item viewer on the bundled demo (issue 30): the frame
opened at full size is the rendered image the model was sent, with the people's numbered
circles, not the raw camera frame. Checked on the pixels of the screenshot. Needs
``chromium`` on PATH (skips otherwise)."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub import bundled_demo_data
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.models.mock import make_mock
from socialbench.models.registry import ModelOptions
from socialbench.navigation.colors import label_colors
from socialbench.report.build import build_report
from socialbench.report.loading import load_runs
from socialbench.runner.run import RunRequest, run_eval
from test_report_html_chromium import chromium

pytestmark = pytest.mark.skipif(
    shutil.which("chromium") is None, reason="chromium is not on PATH (Debian: apt-get install -y chromium)"
)

WIDTH, HEIGHT = 1280, 900
TOP = 44  # the lightbox image's top margin (html.CSS: #lightbox img)


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("demo-viewer")
    model = make_mock("first-option", ModelOptions())
    req = RunRequest(
        "socialnav-sub",
        bundled_demo_data(),
        model.spec,
        root / "run",
        EvalOptions(limit=1),
        show_progress=False,
        image_workers=0,
    )
    assert run_eval(req, SocialNavSub(), model).complete
    build_report(load_runs([root / "run"]), root / "report", formats=["html"], n_boot=20, figures=False)
    request = model.calls[0]
    return {"page": root / "report" / "index.html", "item": request.item, "sent": request.images}


def _screenshot(page: Path, fragment: str, out: Path) -> Image.Image:
    chromium(
        page.as_uri() + "#" + fragment,
        f"--screenshot={out}",
        f"--window-size={WIDTH},{HEIGHT}",
        "--force-device-scale-factor=1",
        "--hide-scrollbars",
        "--virtual-time-budget=5000",
    )
    return Image.open(out).convert("RGB")


def _diff(a: Image.Image, b: Image.Image) -> float:
    """Mean absolute difference per channel (0-255) of two images of one size."""
    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3


def test_the_opened_frame_is_the_image_sent_with_the_person_numbers(demo, tmp_path: Path) -> None:
    item = demo["item"]
    sent = Image.open(io.BytesIO(demo["sent"][2].data)).convert("RGB")
    shot = _screenshot(demo["page"], f"sel=all&open={item.item_id}/3", tmp_path / "shot.png")
    left = (WIDTH - sent.width) // 2
    shown = shot.crop((left, TOP, left + sent.width, TOP + sent.height))
    # the screenshot shows the sent image pixel for pixel (JPEG decoders may differ by a level)
    assert _diff(shown, sent) < 1.0
    # the sent image is not the raw frame: its top is the frame with numbered circles drawn on
    raw = Image.open(item.metadata["frames"][2]).convert("RGB")
    raw_top = raw.resize((sent.width, round(raw.height * sent.width / raw.width)))
    top = shown.crop((0, 0, raw_top.width, raw_top.height))
    assert _diff(top, raw_top) > _diff(shown, sent) + 1.0
    # the people's circles are on screen in their label colours (brg colormap: 1 blue, ..., n green)
    colours = {c for _, c in shown.getcolors(maxcolors=shown.width * shown.height)}
    found = [
        label
        for label, want in enumerate(label_colors(int(item.metadata["n_people"])), start=1)
        if sum(1 for c in colours if max(abs(a - b) for a, b in zip(c, want)) <= 12) >= 3
    ]
    assert len(found) >= 2 and 1 in found, found


def test_the_card_images_are_the_sent_images(demo) -> None:
    html = chromium(demo["page"].as_uri() + "#sel=all", "--dump-dom")
    item = demo["item"].item_id
    srcs = [m for m in re.findall(rf'alt="{re.escape(item)} frame \d+" src="([^"]+)"', html)]
    files = list(dict.fromkeys(srcs))
    assert [(demo["page"].parent / s).read_bytes() for s in files] == [im.data for im in demo["sent"]]
    payload = re.search(r'<script id="sb-data" type="application/json">(.*?)</script>', html, re.S)
    assert payload is not None and json.loads(payload.group(1))["images"][item][0]["what"].startswith("sent to")
