"""The render job's mirror: drawn from the mirrored scene, keyed apart in the render cache,
and never a pixel flip of the render."""

import pytest

from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset
from socialbench.navigation.render import render_sample, to_png_bytes
from socialbench.navigation.render_job import RenderSample
from socialbench.vision.images import ImagePolicy
from socialbench.vision.prepare import PerturbSpec

POLICY = ImagePolicy(max_side=200, format="PNG")


@pytest.fixture(scope="module")
def meta(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = write_synthetic_dataset(tmp_path_factory.mktemp("job") / "data", n_samples=1, people=[2], seed=5)
    return dict(load_socialnav(root, require_images=True).items[0].metadata)


def test_a_pixel_flip_mirror_is_refused(meta: dict) -> None:
    with pytest.raises(ValueError, match="mirror=True"):
        RenderSample.of(meta, "bev", POLICY, PerturbSpec("mirror"))


def test_a_mirrored_job_has_its_own_cache_key(meta: dict) -> None:
    assert (
        RenderSample.of(meta, "bev", POLICY, mirror=True).cache_key()
        != RenderSample.of(meta, "bev", POLICY).cache_key()
    )


def test_a_mirrored_job_sends_the_mirrored_render(meta: dict) -> None:
    sent = RenderSample.of(meta, "bev", POLICY, mirror=True).run()
    drawn = render_sample(meta, "bev", max_side=POLICY.max_side, mirror=True)
    assert [x.data for x in sent] == [to_png_bytes(d) for d in drawn]
