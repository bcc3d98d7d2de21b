"""Colour-vision test helpers: how an sRGB colour looks under the common colour-vision
deficiencies (Machado, Oliveira & Fernandes 2009, severity 1.0, applied in linear RGB) and the
CIE76 colour difference between two colours (Delta E*ab on CIELAB, D65 white)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

_CVD = {
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]
    ),
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]
    ),
    "tritanopia": np.array(
        [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]]
    ),
}


def _to_linear(c: NDArray[np.float64]) -> NDArray[np.float64]:
    c = c / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _to_srgb(c: NDArray[np.float64]) -> NDArray[np.float64]:
    c = np.clip(c, 0, 1)
    return 255.0 * np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055)


def simulate_cvd(rgb: Sequence[float], kind: str) -> NDArray[np.float64]:
    """``rgb`` as seen under ``protanopia``, ``deuteranopia`` or ``tritanopia`` (sRGB 0-255)."""
    return _to_srgb(_CVD[kind] @ _to_linear(np.asarray(rgb, dtype=float)))


def _lab(rgb: Sequence[float]) -> NDArray[np.float64]:
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = m @ _to_linear(np.asarray(rgb, dtype=float)) / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e(a: Sequence[float], b: Sequence[float]) -> float:
    """CIE76 colour difference: the Euclidean distance of the two colours in CIELAB."""
    return float(np.linalg.norm(_lab(a) - _lab(b)))
