"""Deterministic, seeded image perturbations for robustness runs (RobotEQ §6, Figure 8).

A perturbation is a callable ``PIL.Image -> PIL.Image`` applied by the image policy *before*
resizing and encoding (see :func:`socialbench.vision.images.prepare_image`), so a perturbed
run sends exactly the images a model would see through a degraded camera. The same
functions write perturbed copies of a dataset folder (:func:`perturb_dataset`, for
``socialbench data perturb``).

Determinism
-----------
Random parts (noise, water droplets) draw from a generator seeded with SHA-256 over the
perturbation name, the strength, the run seed, the image size and the image's RGB bytes.
The result for one image therefore depends only on (name, strength, seed, image), never on
the order in which images are processed or on the thread that processes them.

Strength
--------
``strength`` is a non-negative float. ``0`` returns the image unchanged for every
perturbation; ``1`` is the default level (roughly the paper's Figure 8); larger values are
stronger. Sizes are relative to the image (a fraction of its longest side), so the effect
looks the same on a 1376 px original and on a 768 px copy.

Perturbations (``s`` = strength, ``L`` = longest image side in pixels)
--------------------------------------------------------------------
``blur``
    Gaussian blur with radius ``0.006 * L * s`` (PIL ``GaussianBlur``; ~8 px at s=1 on a
    1376 px image).
``fisheye``
    Equidistant-style barrel distortion: an output pixel at normalised radius ``r`` (radius
    / half-diagonal) samples the source at ``r_src = tan(r*t) / tan(t)`` with
    ``t = min(1.3, 1.1 * s)`` radians, which magnifies the centre and compresses the
    edges; pixels outside a circle of radius ``1 - 0.3 * min(s, 1)`` half-diagonals are
    blacked out (soft 3 % edge), as with a circular fisheye lens. Bilinear sampling.
``fisheye-water``
    ``fisheye`` followed by ``round(14 * s)`` water droplets on the lens: discs with
    random centre and radius ``(0.02 .. 0.07) * L * sqrt(s)`` inside which the view is
    inverted and shrunk about the droplet centre (a drop acts as a small lens), softened
    and given a darker rim; then a light overall haze (blur radius ``0.0015 * L * s``).
``gaussian-noise``
    Additive i.i.d. Gaussian noise per channel, standard deviation ``0.06 * 255 * s``,
    clipped to [0, 255].
``low-light``
    Gamma darkening ``255 * (x/255) ** (1 + 1.5 s)`` scaled by ``1 / (1 + s)``, plus sensor
    noise with standard deviation ``0.02 * 255 * s``.
``jpeg``
    JPEG re-encoding at quality ``clamp(round(95 - 85 s), 1, 95)`` (10 at s=1), decoded
    again.
``mirror``
    Left-right flip (any strength > 0). It changes the right answer to every question
    about left and right, so it is *metamorphic* (:data:`METAMORPHIC`): only a benchmark
    that maps the expected answers (see :mod:`socialbench.prompting.metamorphic`) accepts
    it, and ``socialbench data perturb`` refuses it. This function flips pixels, text
    included; SocialNav-SUB never applies it to its prompt images but draws them from the
    mirrored scene (:mod:`socialbench.navigation.mirror`), so person numbers and axis text
    read normally. Strength 0 is refused there (the answers would be swapped for unmirrored
    images).

Prompt-only perturbations (:data:`PROMPT_ONLY`) change no image: ``shuffle-options``
permutes the option order in the prompt. They are metamorphic too.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

from socialbench.errors import DataError, Problem, UsageError

__all__ = [
    "PERTURBATIONS",
    "Perturbation",
    "make_perturbation",
    "check_perturbation",
    "perturb_dataset",
    "image_rng",
    "IMAGE_SUFFIXES",
    "METAMORPHIC",
    "PROMPT_ONLY",
    "has_image_part",
]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp")

_Fn = Callable[[Image.Image, float, np.random.Generator], Image.Image]


# --------------------------------------------------------------------------- helpers


def image_rng(name: str, strength: float, seed: int, img: Image.Image) -> np.random.Generator:
    """The generator for one image: SHA-256 over (name, strength, seed, size, RGB bytes)."""
    h = hashlib.sha256()
    h.update(f"{name}\0{strength!r}\0{seed}\0{img.width}x{img.height}\0".encode())
    h.update(img.convert("RGB").tobytes())
    return np.random.default_rng(int.from_bytes(h.digest()[:16], "big"))


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


# --------------------------------------------------------------------------- perturbations


def _blur(img: Image.Image, s: float, rng: np.random.Generator) -> Image.Image:
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


def _fisheye(img: Image.Image, s: float, rng: np.random.Generator) -> Image.Image:
    return _to_image(_fisheye_array(_to_array(img), s))


def _fisheye_water(img: Image.Image, s: float, rng: np.random.Generator) -> Image.Image:
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


def _gaussian_noise(img: Image.Image, s: float, rng: np.random.Generator) -> Image.Image:
    arr = _to_array(img)
    noise = rng.normal(0.0, 0.06 * 255.0 * s, size=arr.shape).astype(np.float32)
    return _to_image(arr + noise)


def _low_light(img: Image.Image, s: float, rng: np.random.Generator) -> Image.Image:
    arr = _to_array(img) / 255.0
    dark = 255.0 * np.power(arr, 1.0 + 1.5 * s) / (1.0 + s)
    noise = rng.normal(0.0, 0.02 * 255.0 * s, size=arr.shape).astype(np.float32)
    return _to_image(dark + noise)


def jpeg_quality(strength: float) -> int:
    """JPEG quality for a strength: clamp(round(95 - 85 * strength), 1, 95)."""
    return int(min(95, max(1, round(95 - 85 * strength))))


def _jpeg(img: Image.Image, s: float, rng: np.random.Generator) -> Image.Image:
    buf = io.BytesIO()
    img.convert("RGB").save(buf, format="JPEG", quality=jpeg_quality(s), optimize=False)
    buf.seek(0)
    with Image.open(buf) as out:
        out.load()
        return out.convert("RGB")


def _mirror(img: Image.Image, s: float, rng: np.random.Generator) -> Image.Image:
    return img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)


PERTURBATIONS: dict[str, tuple[_Fn, str]] = {
    "blur": (_blur, "Gaussian blur, radius 0.006 x longest side x strength"),
    "fisheye": (_fisheye, "barrel (fisheye) distortion with a circular field of view"),
    "fisheye-water": (_fisheye_water, "fisheye plus water droplets on the lens"),
    "gaussian-noise": (_gaussian_noise, "additive Gaussian noise, sigma 0.06 x 255 x strength"),
    "low-light": (_low_light, "gamma darkening plus sensor noise"),
    "jpeg": (_jpeg, "JPEG re-encoding at quality 95 - 85 x strength"),
    "mirror": (_mirror, "left-right mirror (SocialNav-SUB draws it from mirrored tracks); left/right answers swapped"),
}

#: Perturbations of the prompt only (no image is changed), with what they do.
PROMPT_ONLY: dict[str, str] = {
    "shuffle-options": "the options are listed in another (seeded) order in the prompt",
}

#: Perturbations that change the prompt or the right answer: a benchmark must support each
#: one by name (its ``metamorphic`` attribute) and then reports a consistency score.
METAMORPHIC: frozenset[str] = frozenset({"mirror", *PROMPT_ONLY})


def has_image_part(name: str) -> bool:
    """Whether perturbation ``name`` changes images (False for prompt-only ones)."""
    return name in PERTURBATIONS


# --------------------------------------------------------------------------- public API


@dataclass(frozen=True)
class Perturbation:
    """A named, seeded perturbation; call it on a PIL image."""

    name: str
    strength: float
    seed: int

    def __call__(self, img: Image.Image) -> Image.Image:
        rgb = img.convert("RGB")
        if self.strength == 0 or self.name not in PERTURBATIONS:  # prompt-only: no image change
            return rgb.copy()
        fn = PERTURBATIONS[self.name][0]
        return fn(rgb, float(self.strength), image_rng(self.name, self.strength, self.seed, rgb)).convert("RGB")

    def describe(self) -> dict[str, object]:
        what = PERTURBATIONS[self.name][1] if self.name in PERTURBATIONS else PROMPT_ONLY[self.name]
        return {"name": self.name, "strength": self.strength, "seed": self.seed, "what": what}


def check_perturbation(name: str, strength: float) -> None:
    """Raise :class:`UsageError` for an unknown name or a negative / non-finite strength."""
    if name not in PERTURBATIONS and name not in PROMPT_ONLY:
        raise UsageError(f"unknown perturbation {name!r}; choose one of {', '.join([*PERTURBATIONS, *PROMPT_ONLY])}")
    if not isinstance(strength, (int, float)) or not math.isfinite(strength) or strength < 0:
        raise UsageError(f"--perturb-strength must be a finite number >= 0 (got {strength!r})")


def make_perturbation(name: str, strength: float = 1.0, seed: int = 0) -> Perturbation:
    """The perturbation ``name`` at ``strength`` with randomness derived from ``seed``."""
    check_perturbation(name, strength)
    return Perturbation(name, float(strength), int(seed))


def _save_like(img: Image.Image, dst: Path, original_format: str | None) -> None:
    suffix = dst.suffix.lower()
    if suffix in (".jpg", ".jpeg"):
        img.save(dst, format="JPEG", quality=95)
    elif suffix == ".png":
        img.save(dst, format="PNG")
    elif suffix == ".webp":
        img.save(dst, format="WEBP", quality=95)
    else:
        img.save(dst, format=original_format or "PNG")


def perturb_dataset(
    src: Path, dst: Path, name: str, strength: float, seed: int, progress: Callable[[int, int], None] | None = None
) -> int:
    """Write a copy of dataset folder ``src`` to ``dst`` with every image perturbed.

    Every file under ``src`` whose suffix is one of :data:`IMAGE_SUFFIXES` is decoded,
    perturbed and written to the same relative path under ``dst`` in the same format (JPEG
    and WebP at quality 95, PNG lossless); every other file is copied unchanged, so label
    files keep pointing at the right images. A ``perturbation.json`` at the root of ``dst``
    records name, strength, seed and source. Returns the number of images written.
    ``progress(done, total)`` is called after each file (image or not) is written.

    Raises :class:`UsageError` when ``src`` is not a folder, ``dst`` exists and is not
    empty, or ``dst`` lies inside ``src``; raises :class:`DataError` listing every image that
    could not be decoded (the other files are still written).
    """
    check_perturbation(name, strength)
    if name in METAMORPHIC:
        raise UsageError(
            f"--perturb {name} changes the right answers, so a perturbed copy would carry wrong "
            f"labels; use `socialbench eval --perturb {name}` instead"
        )
    src, dst = Path(src), Path(dst)
    if not src.is_dir():
        raise UsageError(f"{src} is not a dataset folder")
    src_r, dst_r = src.resolve(), dst.resolve()
    if dst_r == src_r or src_r in dst_r.parents:
        raise UsageError(f"the output folder {dst} must not be inside the dataset folder {src}")
    if dst.exists() and (not dst.is_dir() or any(dst.iterdir())):
        raise UsageError(f"{dst} already exists and is not empty; choose a new output folder")
    perturb = make_perturbation(name, strength, seed)
    dst.mkdir(parents=True, exist_ok=True)
    written = 0
    problems: list[Problem] = []
    files: list[tuple[Path, Path]] = []  # (source, destination), in walk order
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        rel_dir = Path(dirpath).relative_to(src)
        (dst / rel_dir).mkdir(parents=True, exist_ok=True)
        files += [(Path(dirpath) / fname, dst / rel_dir / fname) for fname in sorted(filenames)]
    for done, (s_path, d_path) in enumerate(files, 1):
        if s_path.suffix.lower() not in IMAGE_SUFFIXES:
            shutil.copyfile(s_path, d_path)
        else:
            try:
                with Image.open(s_path) as img:
                    img.load()
                    fmt = img.format
                    out = perturb(img)
            except (OSError, ValueError) as exc:
                problems.append(
                    Problem(str(s_path), "image", f"cannot decode image: {exc}", "replace or remove the file")
                )
            else:
                _save_like(out, d_path, fmt)
                written += 1
        if progress is not None:
            progress(done, len(files))
    (dst / "perturbation.json").write_text(
        json.dumps({**perturb.describe(), "source": str(src), "images": written}, indent=2) + "\n", encoding="utf-8"
    )
    if problems:
        raise DataError(problems)
    return written
