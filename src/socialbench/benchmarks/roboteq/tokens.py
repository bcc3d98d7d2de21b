"""RobotEQ token estimates of text and images (for accounting and ``perf/roboteq_cost.py``)."""

from __future__ import annotations

import math

__all__ = ["approx_tokens", "image_tokens"]


def approx_tokens(text: str) -> int:
    """``ceil(len(text) / 4)``: ~4 characters per token for English text."""
    return math.ceil(len(text) / 4)


def image_tokens(width: int, height: int, scheme: str = "tiles") -> int:
    """Estimated prompt tokens of one image of ``width`` x ``height`` pixels.

    ``tiles`` (OpenAI high-detail images, e.g. GPT-4o): scale to fit in 2048 x 2048, then so
    that the shorter side is at most 768; cost = 85 + 170 x (number of 512 px tiles),
    tiles = ceil(w / 512) * ceil(h / 512). A 768 x 432 image costs 85 + 170 x 2 = 425.

    ``patch28`` (Qwen2-VL / Qwen2.5-VL style): one token per 28 x 28 pixel patch,
    ceil(w / 28) * ceil(h / 28) (a 768 x 432 image: 28 x 16 = 448).
    """
    if width <= 0 or height <= 0:
        raise ValueError(f"image size must be positive, got {width} x {height}")
    if scheme == "patch28":
        return math.ceil(width / 28) * math.ceil(height / 28)
    if scheme != "tiles":
        raise ValueError(f"unknown image token scheme {scheme!r}; use tiles or patch28")
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        s = 2048 / max(w, h)
        w, h = w * s, h * s
    if min(w, h) > 768:
        s = 768 / min(w, h)
        w, h = w * s, h * s
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)
