"""OpenCV's bilinear resize (``cv2.resize(img, (W, H))``, ``INTER_LINEAR``) in numpy.

The official SocialNav-SUB harness squashes every API image to 512×512 with
``cv2.resize`` at its default interpolation (``evaluate_vlm.py``). Pillow's ``BILINEAR``
is not the same filter: on a downscale Pillow widens the kernel to the scale (it
antialiases), OpenCV's does not (each output pixel mixes the 2×2 source pixels around
``(x + 0.5) · scale − 0.5``). :func:`resize_linear` is OpenCV's 8-bit path, fixed point
included: 11-bit weights (``INTER_RESIZE_COEF_BITS``), the horizontal pass kept as
integers, the vertical pass as OpenCV's vector code rounds it
(``((b0·(S0>>4))>>16 + (b1·(S1>>4))>>16 + 2) >> 2``). ``perf/image_policy.py`` measures
it against OpenCV: 0 grey levels apart on the downscales the harness makes
(1280×2000, 2100×2100, 1280×720 → 512×512); where OpenCV upscales, at most 1 level on
under 0.1% of the values.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

__all__ = ["resize_linear"]

#: OpenCV's ``INTER_RESIZE_COEF_BITS``: weights are integers out of 2**11.
_COEF_SCALE = 1 << 11


def _taps(n_out: int, n_in: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(left index, right index, left weight, right weight) of each output position along
    one axis, in OpenCV's fixed point (weights add up to 2048)."""
    scale = n_in / n_out
    f = (np.arange(n_out, dtype=np.float64) + 0.5) * scale - 0.5
    i = np.floor(f).astype(np.int64)
    t = f - i
    before = i < 0
    t[before] = 0.0
    i[before] = 0
    after = i >= n_in - 1
    t[after] = 0.0
    i[after] = n_in - 1
    w0 = np.round((1.0 - t) * _COEF_SCALE).astype(np.int64)
    return i, np.minimum(i + 1, n_in - 1), w0, _COEF_SCALE - w0


def resize_linear(img: Image.Image, size: tuple[int, int]) -> Image.Image:
    """``img`` (converted to RGB) resized to exactly ``size`` = (width, height), aspect
    ratio not kept, as ``cv2.resize(array, size)`` computes it (see the module docstring)."""
    width, height = size
    a = np.asarray(img.convert("RGB"))
    h, w = a.shape[:2]
    x0, x1, cx0, cx1 = _taps(width, w)
    y0, y1, cy0, cy1 = _taps(height, h)
    # only the source rows some output row reads; int32 holds every intermediate (< 2**27)
    used, inverse = np.unique(np.concatenate([y0, y1]), return_inverse=True)
    src = a[used].astype(np.int32)
    wx0, wx1 = cx0.astype(np.int32)[None, :, None], cx1.astype(np.int32)[None, :, None]
    rows = (src[:, x0] * wx0 + src[:, x1] * wx1) >> 4  # horizontal pass, x2048, then OpenCV's >> 4
    s0, s1 = rows[inverse[:height]], rows[inverse[height:]]
    wy0, wy1 = cy0.astype(np.int32)[:, None, None], cy1.astype(np.int32)[:, None, None]
    out = (((wy0 * s0) >> 16) + ((wy1 * s1) >> 16) + 2) >> 2
    return Image.fromarray(np.clip(out, 0, 255).astype(np.uint8), "RGB")
