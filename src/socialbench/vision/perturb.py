"""Deterministic, seeded image perturbations for robustness runs (RobotEQ §6, Figure 8).

A perturbation is a callable ``PIL.Image -> PIL.Image`` applied *before* resizing and
encoding (:func:`socialbench.vision.images.prepare_image`), so a run sends what a degraded
camera would show; the operations and their formulas are in
:mod:`socialbench.vision.image_effects`. Random parts draw from a generator seeded with
SHA-256 over (name, strength, seed, image size, RGB bytes): the result never depends on
processing order or thread. Strength ``0`` leaves every image unchanged, ``1`` is the
default level; sizes are fractions of the longest side, so the effect looks the same at any
resolution. Prompt-only perturbations (:data:`PROMPT_ONLY`, ``shuffle-options``) change no
image; they are metamorphic too.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PIL import Image

from socialbench.errors import UsageError
from socialbench.vision.image_effects import blur, fisheye, fisheye_water, gaussian_noise, jpeg, low_light, mirror

__all__ = [
    "PERTURBATIONS",
    "Perturbation",
    "make_perturbation",
    "check_perturbation",
    "image_rng",
    "METAMORPHIC",
    "PROMPT_ONLY",
    "has_image_part",
]

_Fn = Callable[[Image.Image, float, np.random.Generator], Image.Image]


def image_rng(name: str, strength: float, seed: int, img: Image.Image) -> np.random.Generator:
    """The generator for one image: SHA-256 over (name, strength, seed, size, RGB bytes)."""
    h = hashlib.sha256()
    h.update(f"{name}\0{strength!r}\0{seed}\0{img.width}x{img.height}\0".encode())
    h.update(img.convert("RGB").tobytes())
    return np.random.default_rng(int.from_bytes(h.digest()[:16], "big"))


PERTURBATIONS: dict[str, tuple[_Fn, str]] = {
    "blur": (blur, "Gaussian blur, radius 0.006 x longest side x strength"),
    "fisheye": (fisheye, "barrel (fisheye) distortion with a circular field of view"),
    "fisheye-water": (fisheye_water, "fisheye plus water droplets on the lens"),
    "gaussian-noise": (gaussian_noise, "additive Gaussian noise, sigma 0.06 x 255 x strength"),
    "low-light": (low_light, "gamma darkening plus sensor noise"),
    "jpeg": (jpeg, "JPEG re-encoding at quality 95 - 85 x strength"),
    "mirror": (mirror, "left-right mirror (SocialNav-SUB draws it from mirrored tracks); left/right answers swapped"),
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
