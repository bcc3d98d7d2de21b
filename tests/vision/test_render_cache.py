"""The content-addressed render cache: keys follow the inputs' bytes and every parameter;
entries round-trip; damaged entries are misses."""

import io
import json
import os
from pathlib import Path

import pytest
from PIL import Image

from socialbench.types import EncodedImage
from socialbench.vision import render_cache
from socialbench.vision.render_cache import RenderCache, image_problem, render_key


def _encoded(fmt: str, size: tuple[int, int]) -> EncodedImage:
    buf = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(buf, format=fmt)
    return EncodedImage(buf.getvalue(), f"image/{fmt.lower()}", *size)


IMAGES = (_encoded("JPEG", (4, 3)), _encoded("PNG", (2, 5)))


@pytest.fixture()
def inputs(tmp_path: Path) -> list[Path]:
    paths = [tmp_path / "a.jpg", tmp_path / "b.json"]
    paths[0].write_bytes(b"frame bytes")
    paths[1].write_bytes(b'{"tracks": 1}')
    return paths


def test_same_inputs_give_the_same_key(inputs: list[Path]) -> None:
    assert render_key("job", {"max_side": 768}, inputs) == render_key("job", {"max_side": 768}, inputs)


def test_key_follows_file_content_not_path(inputs: list[Path], tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere.jpg"
    copy.write_bytes(inputs[0].read_bytes())
    assert render_key("job", {}, [copy, inputs[1]]) == render_key("job", {}, inputs)


def test_changing_one_input_byte_changes_the_key(inputs: list[Path]) -> None:
    before = render_key("job", {}, inputs)
    inputs[1].write_bytes(b'{"tracks": 2}')
    assert render_key("job", {}, inputs) != before


def test_changing_a_parameter_changes_the_key(inputs: list[Path]) -> None:
    assert render_key("job", {"max_side": 768}, inputs) != render_key("job", {"max_side": 512}, inputs)


def test_a_new_renderer_version_changes_the_key(inputs: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    before = render_key("job", {}, inputs)
    monkeypatch.setattr(render_cache, "RENDERER_VERSION", render_cache.RENDERER_VERSION + "-next")
    assert render_key("job", {}, inputs) != before


def test_entries_round_trip(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path / "cache")
    cache.put("ab" * 32, IMAGES)
    assert cache.get("ab" * 32) == IMAGES


def test_unknown_key_is_a_miss(tmp_path: Path) -> None:
    assert RenderCache(tmp_path / "cache").get("cd" * 32) is None


def test_truncated_entry_is_a_miss(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path / "cache")
    cache.put("ef" * 32, IMAGES)
    entry = next((tmp_path / "cache").rglob("*.img"))
    entry.write_bytes(entry.read_bytes()[:-3])
    assert cache.get("ef" * 32) is None


def test_unwritable_cache_is_skipped(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = RenderCache(blocker)
    cache.put("12" * 32, IMAGES)  # must not raise
    assert cache.get("12" * 32) is None


def test_a_marked_tag_is_seen(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path / "cache")
    cache.mark_seen(render_cache.seen_tag({"data": "/a"}))
    assert cache.has_seen(render_cache.seen_tag({"data": "/a"}))


def test_an_unmarked_tag_is_not_seen(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path / "cache")
    cache.mark_seen(render_cache.seen_tag({"data": "/a"}))
    assert not cache.has_seen(render_cache.seen_tag({"data": "/b"}))


def test_a_new_renderer_version_sees_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = RenderCache(tmp_path / "cache")
    cache.mark_seen(render_cache.seen_tag({"data": "/a"}))
    monkeypatch.setattr(render_cache, "RENDERER_VERSION", render_cache.RENDERER_VERSION + "-next")
    assert not cache.has_seen(render_cache.seen_tag({"data": "/a"}))


def test_marking_an_unwritable_cache_is_skipped(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    RenderCache(blocker).mark_seen("ab" * 32)  # must not raise
    assert not RenderCache(blocker).has_seen("ab" * 32)


# ------------------------------------------------------ untrusted entries (issue 29)


def _entry(tmp_path: Path) -> Path:
    return next((tmp_path / "cache").rglob("*.img"))


def _rewrite_self_consistent(entry: Path, cut: int) -> None:
    """Cut ``cut`` bytes off the entry's last image and rewrite the header (size and hash)
    to match, as a damaged or hostile cache could."""
    head, _, body = entry.read_bytes().partition(b"\n")
    meta = json.loads(head)
    last = meta["images"][-1]
    start = len(body) - last["size"]
    data = body[start:-cut]
    last["size"] = len(data)
    last["sha256"] = EncodedImage(data, last["mime"], last["width"], last["height"]).sha256
    entry.write_bytes(json.dumps(meta).encode() + b"\n" + body[:start] + data)


@pytest.mark.parametrize("which", [0, 1], ids=["jpeg", "png"])
def test_a_truncated_entry_whose_header_matches_is_a_miss(tmp_path: Path, which: int) -> None:
    cache = RenderCache(tmp_path / "cache")
    images = (IMAGES[which],)
    cache.put("ef" * 32, images)
    _rewrite_self_consistent(_entry(tmp_path), cut=5)
    assert cache.get("ef" * 32) is None


def test_an_image_whose_bytes_differ_from_the_stored_hash_is_a_miss(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path / "cache")
    cache.put("ef" * 32, IMAGES)
    entry = _entry(tmp_path)
    blob = bytearray(entry.read_bytes())
    blob[-20] ^= 0xFF  # one byte inside the PNG's data, same length
    entry.write_bytes(bytes(blob))
    assert cache.get("ef" * 32) is None


def test_an_entry_written_without_hashes_is_a_miss(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path / "cache")
    cache.put("ef" * 32, IMAGES)
    entry = _entry(tmp_path)
    head, _, body = entry.read_bytes().partition(b"\n")
    meta = json.loads(head)
    for m in meta["images"]:
        del m["sha256"]
    entry.write_bytes(json.dumps(meta).encode() + b"\n" + body)
    assert cache.get("ef" * 32) is None


def test_an_entry_that_is_a_fifo_is_a_miss_without_blocking(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path / "cache")
    cache.put("ef" * 32, IMAGES)
    entry = _entry(tmp_path)
    entry.unlink()
    os.mkfifo(entry)  # nobody writes to it: reading it would block forever
    assert cache.get("ef" * 32) is None


def test_an_entry_linked_to_an_endless_device_is_a_miss(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path / "cache")
    cache.put("ef" * 32, IMAGES)
    entry = _entry(tmp_path)
    entry.unlink()
    entry.symlink_to("/dev/zero")  # reading it whole would never end
    assert cache.get("ef" * 32) is None


def test_an_entry_larger_than_the_cap_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = RenderCache(tmp_path / "cache")
    cache.put("ef" * 32, IMAGES)
    monkeypatch.setattr(render_cache, "MAX_ENTRY_BYTES", 16)
    assert cache.get("ef" * 32) is None


def test_encoded_images_are_whole() -> None:
    assert [image_problem(im) for im in IMAGES] == [None, None]


def test_a_png_of_another_size_than_its_header_says_is_not_whole() -> None:
    png = IMAGES[1]
    assert "2x5 PNG" in str(image_problem(EncodedImage(png.data, png.mime, 5, 2)))


def test_an_unknown_image_type_is_not_whole() -> None:
    assert image_problem(EncodedImage(b"GIF89a", "image/gif", 1, 1)) is not None
