"""``resize_linear`` is OpenCV's ``cv2.resize(img, (W, H))`` (INTER_LINEAR), which the
official SocialNav-SUB harness applies to every image it sends."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from PIL import Image

from socialbench.vision.resize import resize_linear


def _picture(width: int, height: int, seed: int) -> np.ndarray:
    """Noise over gradients: every pixel differs from its neighbours (aliasing shows)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width]
    base = np.stack([xx * 255 // width, yy * 255 // height, (xx + yy) % 256], axis=-1)
    return np.clip(base + rng.integers(-40, 41, base.shape), 0, 255).astype(np.uint8)


@pytest.mark.parametrize(("width", "height"), [(1280, 2000), (2100, 2100), (1280, 720), (640, 1000)])
def test_downscales_equal_opencv_to_the_grey_level(width: int, height: int) -> None:
    src = _picture(width, height, seed=width + height)
    mine = np.asarray(resize_linear(Image.fromarray(src), (512, 512)))
    assert np.array_equal(mine, cv2.resize(src, (512, 512)))


def test_upscales_are_within_one_grey_level_of_opencv() -> None:
    src = _picture(300, 200, seed=3)
    diff = np.abs(np.asarray(resize_linear(Image.fromarray(src), (512, 512))).astype(int) - cv2.resize(src, (512, 512)))
    assert diff.max() <= 1
