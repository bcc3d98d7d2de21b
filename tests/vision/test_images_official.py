"""Images under the official SocialNav-SUB policy are the bytes the official harness sends:
``cv2.resize(img, (512, 512))`` then ``cv2.imencode(".jpg", bgr)`` (quality 95), measured
against OpenCV on rendered SocialNav-SUB frames."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest
from PIL import Image

from socialbench.benchmarks.socialnav_sub import bundled_demo_data
from socialbench.vision.image_size import squashed_policy
from socialbench.vision.images import ImagePolicy, prepare_image


def _official(img: Image.Image) -> bytes:
    """What ``evaluate_vlm.py`` sends for one image (reference §c)."""
    resized = cv2.resize(np.asarray(img.convert("RGB")), (512, 512))
    ok, data = cv2.imencode(".jpg", cv2.cvtColor(resized, cv2.COLOR_RGB2BGR))
    assert ok
    return bytes(data.tobytes())


@pytest.fixture(scope="module")
def frames() -> list[Image.Image]:
    """Three composites (front view + BEV) of a bundled sample, as the renderer draws them."""
    from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
    from socialbench.navigation.render import render_sample

    item = load_socialnav(bundled_demo_data(), limit=1).items[0]
    return list(render_sample(item.metadata, "img-with-bev"))[:3]


def test_the_bytes_are_opencvs(frames: list[Image.Image]) -> None:
    sent = [prepare_image(f, squashed_policy(512, 512)).data for f in frames]
    assert sent == [_official(f) for f in frames]


def test_the_quality_class_is_opencvs_default(frames: list[Image.Image]) -> None:
    """Same decoded size and quantisation tables as OpenCV's quality-95 JPEG."""
    sent = Image.open(io.BytesIO(prepare_image(frames[0], squashed_policy(512, 512)).data))
    official = Image.open(io.BytesIO(_official(frames[0])))
    assert (sent.size, sent.quantization) == (official.size, official.quantization)


def test_a_max_side_policy_is_recorded_as_before() -> None:
    """Old runs' run.json and render-cache keys stay valid: no new keys for them."""
    assert ImagePolicy().describe() == {"max_side": 768, "format": "JPEG", "quality": 90}
