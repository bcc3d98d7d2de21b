"""Spatial-grounding overlays: region specs, readable badges at any resolution, palette."""

from itertools import combinations

import numpy as np
import pytest
from PIL import Image

from colour_vision import delta_e, simulate_cvd
from socialbench.construction.jsonl import read_jsonl, write_jsonl
from socialbench.construction.overlay_regions import parse_regions
from socialbench.construction.overlays import PALETTE, draw_overlay

SPEC = {
    "regions": [
        {"label": "A", "shape": "box", "box": [0.05, 0.4, 0.3, 0.9]},
        {"label": "B", "shape": "polygon", "points": [[0.4, 0.5], [0.6, 0.5], [0.55, 0.9]]},
        {"label": "C", "shape": "arrow", "points": [[0.5, 0.95], [0.7, 0.6]]},
        {"label": "D", "shape": "path", "points": [[0.1, 0.95], [0.2, 0.7], [0.3, 0.6]]},
    ]
}


@pytest.mark.parametrize("size", [(160, 120), (1600, 1200), (4000, 3000)])
def test_badges_scale_with_the_image_and_stay_inside(size):
    img = Image.new("RGB", size, (128, 128, 128))
    regions, problems = parse_regions(SPEC, size)
    assert problems == []
    out, badges = draw_overlay(img, regions)
    assert set(badges) == {"A", "B", "C", "D"}
    for letter, (x0, y0, x1, y1) in badges.items():
        assert 0 <= x0 and x1 <= size[0] and 0 <= y0 and y1 <= size[1]
        diameter = x1 - x0
        assert diameter >= 18 and diameter / min(size) >= 0.06  # readable: a fixed share of the image
        crop = np.asarray(out.crop((x0, y0, x1, y1)))
        letter = (crop.min(axis=2) > 150).sum()  # the badge colours all have a channel below 150
        assert letter >= 0.04 * diameter**2  # the white letter covers a visible share of its badge
    for a, b in combinations(badges.values(), 2):
        assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]  # no overlapping badges


def test_box_outline_uses_the_palette_colour():
    img = Image.new("RGB", (400, 300), (128, 128, 128))
    regions, _ = parse_regions(
        {"regions": [{"label": "A", "shape": "box", "box": [100, 100, 300, 250]}], "coords": "pixel"}, img.size
    )
    out, _ = draw_overlay(img, regions)
    assert out.getpixel((200, 101)) == PALETTE["A"]


def test_palette_stays_distinct_under_colour_blindness_unlike_red_green():
    for kind in ("protanopia", "deuteranopia", "tritanopia"):
        sim = [simulate_cvd(c, kind) for c in PALETTE.values()]
        assert min(delta_e(a, b) for a, b in combinations(sim, 2)) > 15
    red, green = simulate_cvd((200, 40, 40), "deuteranopia"), simulate_cvd((40, 160, 40), "deuteranopia")
    assert delta_e(red, green) < 10


def test_spec_problems_are_reported():
    bad = {
        "regions": [
            {"label": "A", "shape": "box", "box": [0.5, 0.5, 0.2, 0.9]},
            {"label": "A", "shape": "box", "box": [0.1, 0.1, 0.2, 0.2]},
            {"label": "E", "shape": "box", "box": [0.1, 0.1, 0.2, 0.2]},
            {"label": "B", "shape": "polygon", "points": [[0.1, 0.1], [0.2, 0.2]]},
            {"label": "C", "shape": "arrow", "points": [[0.1, 0.1], [1.5, 0.2]]},
        ],
        "answer": ["D"],
    }
    _, problems = parse_regions(bad, (100, 100))
    text = "\n".join(problems)
    for msg in (
        "x0 < x1",
        "label A is used twice",
        "'E' is not one of A-D",
        "polygon needs at least 3 points",
        "outside the image",
        "answer names regions that are not drawn",
    ):
        assert msg in text


def test_cli_draws_overlays_and_writes_grounding_items(cli, work):
    Image.new("RGB", (320, 240), (90, 90, 90)).save(work / "scene.png")
    write_jsonl(
        work / "specs.jsonl",
        [{"id": "g1", "image": "scene.png", "question": "Where?", "options": {"A": "door"}, "answer": ["A"], **SPEC}],
    )
    res = cli("overlays", "--specs", work / "specs.jsonl", "--work", work)
    assert res.exit_code == 0, res.output
    (rec,) = read_jsonl(work / "grounding_items.jsonl")
    assert rec["image"] == "overlays/g1.png" and rec["proposed_answer"] == ["A"]
    assert Image.open(work / rec["image"]).size == (320, 240)


def test_cli_gives_ids_that_sanitise_alike_their_own_overlay_files(cli, work):
    specs = []
    for rid, grey in (("cafe s-1", 40), ("cafe?s-1", 200)):
        Image.new("RGB", (64, 48), (grey, grey, grey)).save(work / f"scene{grey}.png")
        specs.append({"id": rid, "image": f"scene{grey}.png", "question": "Where?", **SPEC})
    write_jsonl(work / "specs.jsonl", specs)
    assert cli("overlays", "--specs", work / "specs.jsonl", "--work", work).exit_code == 0
    recs = {r["id"]: r["image"] for r in read_jsonl(work / "grounding_items.jsonl")}
    assert recs["cafe s-1"] != recs["cafe?s-1"]
    corners = {rid: Image.open(work / path).convert("RGB").getpixel((0, 0)) for rid, path in recs.items()}
    assert corners == {"cafe s-1": (40, 40, 40), "cafe?s-1": (200, 200, 200)}


def _scene_with_behaviors(work):
    Image.new("RGB", (320, 240), (90, 90, 90)).save(work / "scene.png")
    write_jsonl(
        work / "behaviors.jsonl",
        [
            {
                "id": "s1",
                "image": "scene.png",
                "subset": "synthetic",
                "question": "q",
                "category": "Retail",
                "subcategory": "Hotel",
                "behaviors": [{"k": 1, "text": "Wait", "facets": []}],
            }
        ],
    )


def test_grounding_items_inherit_the_source_scenes_subset_and_category(cli, work):
    _scene_with_behaviors(work)
    write_jsonl(work / "specs.jsonl", [{"id": "g1", "image": "scene.png", "question": "Where?", **SPEC}])
    assert cli("overlays", "--specs", work / "specs.jsonl", "--work", work).exit_code == 0
    (rec,) = read_jsonl(work / "grounding_items.jsonl")
    assert (rec["subset"], rec["category"], rec["subcategory"]) == ("synthetic", "Retail", "Hotel")


def test_exported_grounding_items_carry_the_scenes_subset(cli, work, tmp_path):
    import json

    _scene_with_behaviors(work)
    write_jsonl(work / "specs.jsonl", [{"id": "g1", "image": "scene.png", "question": "Where?", **SPEC}])
    assert cli("overlays", "--specs", work / "specs.jsonl", "--work", work).exit_code == 0
    write_jsonl(
        work / "annotation" / "grounding" / "annotations.jsonl",
        [
            {
                "id": f"grounding:g1:a{i}",
                "kind": "grounding",
                "item_id": "g1",
                "annotator": f"a{i}",
                "selection": ["A"],
                "invalid": False,
            }
            for i in range(3)
        ],
    )
    assert cli("aggregate", "--work", work).exit_code == 0
    res = cli("export", tmp_path / "dataset", "--work", work)
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in (tmp_path / "dataset" / "roboteq.jsonl").read_text().splitlines()]
    (row,) = [r for r in rows if r["id"] == "g1"]
    assert (row["subset"], row["category"], row["subcategory"]) == ("synthetic", "Retail", "Hotel")
    assert row["image"].startswith("images/synthetic/")


def test_a_specs_own_subset_wins_over_the_scenes():
    from socialbench.construction.scene_fields import inherit_scene_fields

    spec = inherit_scene_fields(
        {"image": "x.png", "subset": "real"}, {}, {"x.png": {"subset": "synthetic", "category": "C"}}
    )
    assert (spec["subset"], spec["category"]) == ("real", "C")
