"""The content-addressed render cache: keys follow the inputs' bytes and every parameter;
entries round-trip; damaged entries are misses."""

from pathlib import Path

import pytest

from socialbench.types import EncodedImage
from socialbench.vision import render_cache
from socialbench.vision.render_cache import RenderCache, render_key

IMAGES = (EncodedImage(b"\xff\xd8jpeg-one", "image/jpeg", 4, 3), EncodedImage(b"\x89PNG-two", "image/png", 2, 5))


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
