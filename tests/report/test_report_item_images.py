"""Which images the viewer shows for an item."""

from __future__ import annotations

from socialbench.report.viewer import item_images
from socialbench.types import Item


def _item(tmp_path, composites: bool) -> Item:
    frames, comps = [], []
    for i in range(3):
        f = tmp_path / f"{i}.jpg"
        f.write_bytes(b"x")
        frames.append(str(f))
        c = tmp_path / f"sample_with_bev_{i}.png"
        if composites:
            c.write_bytes(b"x")
        comps.append(str(c))
    return Item("s", (), {}, {"frames": frames, "composites": comps})


def test_every_composite_is_shown_when_the_release_has_them(tmp_path):
    assert [p.rsplit("/", 1)[-1] for p in item_images(_item(tmp_path, True), "all")] == [
        "sample_with_bev_0.png",
        "sample_with_bev_1.png",
        "sample_with_bev_2.png",
    ]


def test_raw_frames_are_shown_when_composites_are_missing(tmp_path):
    assert [p.rsplit("/", 1)[-1] for p in item_images(_item(tmp_path, False), "all")] == ["0.jpg", "1.jpg", "2.jpg"]


def test_first_last_keeps_two(tmp_path):
    assert len(item_images(_item(tmp_path, True), "first-last")) == 2
