"""Drawing composites at the size that will be sent (``max_side``) instead of drawing at full
size and shrinking: same size, layout and colours as the shrunk full render, not the same
pixels."""

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset
from socialbench.navigation.frame_files import target_frame_size
from socialbench.navigation.render import render_sample
from socialbench.navigation.render_job import RenderSample
from socialbench.vision.images import ImagePolicy


@pytest.fixture(scope="module")
def meta(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = write_synthetic_dataset(
        tmp_path_factory.mktemp("target") / "data", n_samples=1, people=[4], seed=3, frame_size=(640, 360)
    )
    return dict(load_socialnav(root, require_images=True).items[0].metadata)


def _shrunk(img: Image.Image, size: tuple[int, int]) -> np.ndarray:
    return np.asarray(img.resize(size, Image.Resampling.LANCZOS), dtype=float)


@pytest.mark.parametrize("mode", ["img-with-bev", "img", "bev"])
def test_no_side_is_longer_than_max_side(meta: dict, mode: str) -> None:
    img = render_sample(meta, mode, max_side=300)[0]
    assert max(img.size) <= 300


def test_composite_has_the_shrunk_full_render_size(meta: dict) -> None:
    full = render_sample(meta, "img-with-bev")[0]
    small = render_sample(meta, "img-with-bev", max_side=300)[0]
    scale = 300 / max(full.size)
    assert small.size == (round(full.width * scale), round(full.height * scale))


def test_composite_looks_like_the_shrunk_full_render(meta: dict) -> None:
    full = render_sample(meta, "img-with-bev")[3]
    small = render_sample(meta, "img-with-bev", max_side=300)[3]
    diff = np.abs(_shrunk(full, small.size) - np.asarray(small, dtype=float))
    assert diff.mean() < 12  # same layout and colours; edges and text differ a little


def test_front_view_markers_keep_their_place(meta: dict) -> None:
    full = render_sample(meta, "img")[0]
    small = render_sample(meta, "img", max_side=320)[0]
    diff = np.abs(_shrunk(full, small.size) - np.asarray(small, dtype=float))
    assert np.percentile(diff, 99) < 80  # a misplaced circle would leave a patch far off


def test_a_small_enough_image_is_drawn_at_full_size(meta: dict) -> None:
    assert render_sample(meta, "img-with-bev", max_side=4000)[0].size == render_sample(meta, "img-with-bev")[0].size


def test_frame_gets_the_height_left_under_the_bev() -> None:
    w, h = target_frame_size((1280, 720), "img-with-bev", 768)
    assert (w, h + w) == (492, 768)


def test_render_job_key_changes_with_a_frame(meta: dict, tmp_path: Path) -> None:
    frames = []
    for i, f in enumerate(meta["frames"]):
        copy = tmp_path / f"{i}.jpg"
        copy.write_bytes(Path(f).read_bytes())
        frames.append(str(copy))
    job = RenderSample.of({**meta, "frames": frames}, "img-with-bev", ImagePolicy())
    before = job.cache_key()
    Image.new("RGB", (640, 360), (1, 2, 3)).save(frames[5])
    assert job.cache_key() != before


def test_render_job_key_changes_with_the_policy(meta: dict) -> None:
    a = RenderSample.of(meta, "img-with-bev", ImagePolicy(max_side=768)).cache_key()
    b = RenderSample.of(meta, "img-with-bev", ImagePolicy(max_side=512)).cache_key()
    assert a != b


def test_render_job_sends_what_render_sample_draws(meta: dict) -> None:
    images = RenderSample.of(meta, "img-with-bev", ImagePolicy(max_side=300)).run()
    drawn = render_sample(meta, "img-with-bev", max_side=300)
    assert [(i.width, i.height) for i in images] == [d.size for d in drawn]
