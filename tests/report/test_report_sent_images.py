"""The item viewer shows the images each run sent (issue 30): on the bundled demo, which has
no pre-rendered composites, the rendered frames with numbered people and the BEV, byte for
byte what the model received; the waypoint task's candidate image; a mirror run's mirrored
scene, its answers on the same cards as an unmirrored run's (never ``missing``)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub import bundled_demo_data
from socialbench.models.mock import MockModel
from socialbench.prompting.metamorphic import split_variant
from socialbench.report.build import build_report
from socialbench.report.loading import load_runs
from socialbench.runner.run import RunRequest, run_eval
from socialbench.types import Request
from socialbench.vision.images import ImagePolicy

LIMIT = 2


def _left_first(request: Request) -> str:
    """The first option that says "left" (else the first option), as a JSON reply."""
    q = request.question
    pick = next((o for o in q.options if "left" in o), q.options[0])
    return json.dumps({"answer": [pick] if q.kind == "multi" else pick})


def _eval(out: Path, benchmark: str, *, render_cache: Path | None, **options: object) -> list:
    """Run a recording mock model on the bundled demo; its requests (with their images)."""
    model = MockModel("mock:left-first", _left_first)
    bench, _ = get_benchmark(benchmark)
    req = RunRequest(
        benchmark,
        bundled_demo_data(),
        model.spec,
        out,
        EvalOptions(limit=LIMIT, **options),
        concurrency=4,
        show_progress=False,
        image_workers=0,
        image_policy=ImagePolicy(max_side=320),
        render_cache=render_cache,
    )
    assert run_eval(req, bench, model).complete
    return model.calls


def _sent(calls: list, variant: bool = False) -> dict[str, list[str]]:
    """item id -> SHA-256 of each image of its requests (one chain: plain or variant)."""
    out: dict[str, list[str]] = {}
    for r in calls:
        if (split_variant(r.question.key)[1] is not None) != variant:
            continue
        digests = [im.sha256 for im in r.images]
        assert out.setdefault(r.item.item_id, digests) == digests  # every question of an item sends the same
    return out


def _payload(report_dir: Path) -> dict:
    page = (report_dir / "index.html").read_text(encoding="utf-8")
    text = re.search(r'<script id="sb-data" type="application/json">(.*?)</script>', page, re.S).group(1)
    return json.loads(text)


def _shown(report_dir: Path, row: dict) -> list[str]:
    return [hashlib.sha256((report_dir / p).read_bytes()).hexdigest() for p in row["src"]]


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("sent-images")
    calls = _eval(root / "run", "socialnav-sub", render_cache=root / "renders")
    build_report(load_runs([root / "run"]), root / "report", formats=["html"], n_boot=20, figures=False)
    return {"root": root, "calls": calls, "payload": _payload(root / "report")}


def test_the_viewer_shows_the_bytes_the_model_was_sent(demo) -> None:
    sent = _sent(demo["calls"])
    images = demo["payload"]["images"]
    assert sorted(images) == sorted(sent)
    for item_id, rows in images.items():
        assert len(rows) == 1 and rows[0]["runs"] == [0]
        assert _shown(demo["root"] / "report", rows[0]) == sent[item_id]


def test_the_images_are_not_the_raw_frames(demo) -> None:
    """The demo has no composites: the raw frames (no numbers, no BEV) were never sent."""
    from socialbench.benchmarks.socialnav_sub.loader import load_socialnav

    item = load_socialnav(bundled_demo_data(), limit=LIMIT).items[0]
    raw = {hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in item.metadata["frames"]}
    row = demo["payload"]["images"][item.item_id][0]
    assert not raw & set(_shown(demo["root"] / "report", row))
    assert row["what"].startswith("sent to the model: img-with-bev, longest side 320 px (aspect kept), JPEG quality 90")


def test_a_report_renders_the_same_bytes_without_the_render_cache(demo, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(demo["root"] / "run", run)
    record = json.loads((run / "run.json").read_text())
    record["render_cache"] = None
    (run / "run.json").write_text(json.dumps(record))
    build_report(load_runs([run]), tmp_path / "report", formats=["html"], n_boot=20, figures=False)
    sent = _sent(demo["calls"])
    for item_id, rows in _payload(tmp_path / "report")["images"].items():
        assert _shown(tmp_path / "report", rows[0]) == sent[item_id]


def test_a_run_without_image_settings_shows_source_files_and_says_so(demo, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(demo["root"] / "run", run)
    record = json.loads((run / "run.json").read_text())
    del record["image_policy"]
    (run / "run.json").write_text(json.dumps(record))
    build_report(load_runs([run]), tmp_path / "report", formats=["html"], n_boot=20, figures=False)
    row = next(iter(_payload(tmp_path / "report")["images"].values()))[0]
    assert row["what"].startswith("source files, not the images sent") and "image_policy" in row["what"]


def test_waypoint_items_show_the_candidate_image(tmp_path: Path) -> None:
    calls = _eval(tmp_path / "run", "socialnav-waypoint", render_cache=None)
    sent = _sent(calls)
    build_report(load_runs([tmp_path / "run"]), tmp_path / "report", formats=["html"], images="first-last", n_boot=20)
    images = _payload(tmp_path / "report")["images"]
    assert sorted(images) == sorted(sent)
    for item_id, rows in images.items():
        assert len(sent[item_id]) == 11  # the clip's ten and the candidate image
        assert _shown(tmp_path / "report", rows[0]) == [sent[item_id][0], sent[item_id][-1]]
        assert rows[0]["cap"] == ["frame 1", "waypoint candidates A-E"]


def test_a_mirror_run_shares_the_cards_of_an_unmirrored_run(demo, tmp_path: Path) -> None:
    calls = _eval(tmp_path / "mirror", "socialnav-sub", render_cache=None, perturb="mirror")
    build_report(
        load_runs([demo["root"] / "run", tmp_path / "mirror"]), tmp_path / "report", formats=["html"], n_boot=20
    )
    payload = _payload(tmp_path / "report")
    assert payload["total"] == len(demo["calls"])  # one card per question, not one per variant
    assert all(a[2] != "missing" for rec in payload["records"] for a in rec["a"])
    assert all("@" not in rec["k"] for rec in payload["records"])
    mirrored, plain = _sent(calls, variant=True), _sent(demo["calls"])
    for item_id, rows in payload["images"].items():
        by_run = {r: row for row in rows for r in row["runs"]}
        assert _shown(tmp_path / "report", by_run[0]) == plain[item_id]
        assert _shown(tmp_path / "report", by_run[1]) == mirrored[item_id]
        assert "mirrored scene" in by_run[1]["what"]
    # an answer to a left/right question is shown in the card's terms and as given
    shown = {rec["a"][1][1] for rec in payload["records"]}
    assert "to the right of (answered 'to the left of' to the mirror variant)" in shown
