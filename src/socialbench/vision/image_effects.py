"""The image operations behind the perturbations of :mod:`socialbench.vision.perturb`, each
``(image, s, rng) -> image`` with ``s`` the strength and ``L`` the longest image side in pixels.
"""

from __future__ import annotations

import io
import math
from functools import lru_cache

import numpy as np
from PIL import Image, ImageFilter

__all__ = [
    "blur",
    "fisheye",
    "fisheye_water",
    "gaussian_noise",
    "low_light",
    "jpeg_quality",
    "jpeg",
    "mirror",
]


def _to_array(img: Image.Image) -> np.ndarray:
    return np.asarray(img.convert("RGB"), dtype=np.float32)


def _to_image(arr: np.ndarray) -> Image.Image:
    return Image.fromarray(np.clip(np.rint(arr), 0, 255).astype(np.uint8), mode="RGB")


def _bilinear(arr: np.ndarray, sx: np.ndarray, sy: np.ndarray) -> np.ndarray:
    """Sample ``arr`` (H, W, C) at float source coordinates with edge clamping."""
    h, w, c = arr.shape
    sx = np.clip(sx, 0.0, w - 1.0).astype(np.float32, copy=False)
    sy = np.clip(sy, 0.0, h - 1.0).astype(np.float32, copy=False)
    x0 = np.floor(sx).astype(np.intp)
    y0 = np.floor(sy).astype(np.intp)
    fx = (sx - x0)[..., None]
    fy = (sy - y0)[..., None]
    dx = (x0 < w - 1).astype(np.intp)  # 0 at the right edge: x1 == x0
    dy = (y0 < h - 1).astype(np.intp) * w
    flat = arr.reshape(-1, c)
    i00 = y0 * w + x0
    top = np.take(flat, i00, axis=0)
    top += (np.take(flat, i00 + dx, axis=0) - top) * fx
    bottom = np.take(flat, i00 + dy, axis=0)
    bottom += (np.take(flat, i00 + dy + dx, axis=0) - bottom) * fx
    return top + (bottom - top) * fy


def blur(img: Image.Image, s: float, rng: np.random.Generator) -> Image.Image:
    """Gaussian blur of radius ``0.006 * L * s`` (~8 px at s=1 on a 1376 px image)."""
    radius = 0.006 * max(img.size) * s
    return img.filter(ImageFilter.GaussianBlur(radius=radius))


@lru_cache(maxsize=8)
def _fisheye_map(h: int, w: int, s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Source coordinates and circular mask of the fisheye for one image size (cached:
    images of one dataset mostly share a size). The arrays are read-only."""
    cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
    half_diag = math.hypot(w / 2.0, h / 2.0)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    dx, dy = xs - cx, ys - cy
    r = np.hypot(dx, dy) / half_diag
    theta = min(1.3, 1.1 * s)
    scale = np.ones_like(r)
    nz = r > 1e-9
    scale[nz] = (np.tan(r[nz] * theta) / math.tan(theta)) / r[nz]
    edge = 1.0 - 0.3 * min(s, 1.0)
    soft = 0.03
    mask = np.clip((edge - r) / soft, 0.0, 1.0)[..., None].astype(np.float32)
    out = (cx + dx * scale, cy + dy * scale, mask)
    for a in out:
        a.setflags(write=False)
    return out


def _fisheye_array(arr: np.ndarray, s: float) -> np.ndarray:
    sx, sy, mask = _fisheye_map(arr.shape[0], arr.shape[1], float(s))
    return _bilinear(arr, sx, sy) * mask


def fisheye(img: Image.Image, s: float, rng: np.random.Generator) -> Image.Image:
    """Barrel distortion: an output pixel at radius ``r`` (in half-diagonals) samples the source
    at ``tan(r*t) / tan(t)``, ``t = min(1.3, 1.1 * s)`` radians (bilinear); outside a circle of
    radius ``1 - 0.3 * min(s, 1)`` black (soft 3 % edge), as with a circular fisheye lens."""
    return _to_image(_fisheye_array(_to_array(img), s))


def fisheye_water(img: Image.Image, s: float, rng: np.random.Generator) -> Image.Image:
    """:func:`fisheye`, then ``round(14 * s)`` droplets of radius ``(0.02 .. 0.07) * L * sqrt(s)``
    showing an inverted, shrunk view with a darker rim, then a haze (blur ``0.0015 * L * s``)."""
    arr = _fisheye_array(_to_array(img), s)
    h, w = arr.shape[:2]
    longest = max(w, h)
    soft = np.asarray(
        _to_image(arr).filter(ImageFilter.GaussianBlur(radius=max(1.0, 0.004 * longest))), dtype=np.float32
    )
    out = arr.copy()
    n_drops = int(round(14 * s))
    for _ in range(n_drops):
        cx = rng.uniform(0, w - 1)
        cy = rng.uniform(0, h - 1)
        rad = rng.uniform(0.02, 0.07) * longest * math.sqrt(s)
        x_lo, x_hi = int(max(0, cx - rad)), int(min(w, cx + rad + 1))
        y_lo, y_hi = int(max(0, cy - rad)), int(min(h, cy + rad + 1))
        if x_hi <= x_lo or y_hi <= y_lo:
            continue
        ys, xs = np.mgrid[y_lo:y_hi, x_lo:x_hi].astype(np.float32)
        d = np.hypot(xs - cx, ys - cy) / rad
        inside = d < 1.0
        if not inside.any():
            continue
        # A drop is a small lens: an inverted, shrunk view of the scene around its centre.
        sx = cx - (xs - cx) * 0.6
        sy = cy - (ys - cy) * 0.6
        lens = _bilinear(soft, sx, sy)
        rim = np.clip((d - 0.75) / 0.25, 0.0, 1.0)[..., None]
        lens = lens * (1.0 - 0.35 * rim) + 12.0 * (1.0 - rim)
        region = out[y_lo:y_hi, x_lo:x_hi]
        region[inside] = lens[inside]
    haze = 0.0015 * longest * s
    result = _to_image(out)
    return result.filter(ImageFilter.GaussianBlur(radius=haze)) if haze > 0 else result


def gaussian_noise(img: Image.Image, s: float, rng: np.random.Generator) -> Image.Image:
    """Additive i.i.d. Gaussian noise per channel, std ``0.06 * 255 * s``, clipped to [0, 255]."""
    arr = _to_array(img)
    noise = rng.normal(0.0, 0.06 * 255.0 * s, size=arr.shape).astype(np.float32)
    return _to_image(arr + noise)


def low_light(img: Image.Image, s: float, rng: np.random.Generator) -> Image.Image:
    """Gamma darkening ``255 * (x/255) ** (1 + 1.5 s) / (1 + s)`` plus noise of std ``0.02 * 255 * s``."""
    arr = _to_array(img) / 255.0
    dark = 255.0 * np.power(arr, 1.0 + 1.5 * s) / (1.0 + s)
    noise = rng.normal(0.0, 0.02 * 255.0 * s, size=arr.shape).astype(np.float32)
    return _to_image(dark + noise)


def jpeg_quality(strength: float) -> int:
    """JPEG quality for a strength: clamp(round(95 - 85 * strength), 1, 95)."""
    return int(min(95, max(1, round(95 - 85 * strength))))


def jpeg(img: Image.Image, s: float, rng: np.random.Generator) -> Image.Image:
    """JPEG re-encoding at :func:`jpeg_quality` (10 at s=1), decoded again."""
    buf = io.BytesIO()
    img.convert("RGB").save(buf, format="JPEG", quality=jpeg_quality(s), optimize=False)
    buf.seek(0)
    with Image.open(buf) as out:
        out.load()
        return out.convert("RGB")


def mirror(img: Image.Image, s: float, rng: np.random.Generator) -> Image.Image:
    """Left-right flip, text included: *metamorphic* (it changes left/right answers), so only a
    benchmark that maps the answers accepts it; SocialNav-SUB draws its images from the mirrored
    scene instead (:mod:`socialbench.navigation.mirror`), and ``data perturb`` refuses it."""
    return img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
