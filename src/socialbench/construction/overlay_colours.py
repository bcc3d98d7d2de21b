"""The overlay colours and their colour-vision checks: the Okabe-Ito palette (:data:`PALETTE`,
region colours by letter), how a colour looks under the common colour-vision deficiencies
(:func:`simulate_cvd`, Machado et al. 2009) and the CIE76 colour difference (:func:`delta_e`)
the tests use to show the letters stay distinguishable."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = ["OKABE_ITO", "PALETTE", "simulate_cvd", "delta_e"]

#: The Okabe-Ito colour-blind-safe palette.
OKABE_ITO = {
    "black": (0, 0, 0),
    "orange": (230, 159, 0),
    "sky_blue": (86, 180, 233),
    "bluish_green": (0, 158, 115),
    "yellow": (240, 228, 66),
    "blue": (0, 114, 178),
    "vermillion": (213, 94, 0),
    "reddish_purple": (204, 121, 167),
}
#: Region colours by letter (Okabe-Ito: blue, vermillion, bluish green, reddish purple).
PALETTE: dict[str, tuple[int, int, int]] = {
    "A": OKABE_ITO["blue"],
    "B": OKABE_ITO["vermillion"],
    "C": OKABE_ITO["bluish_green"],
    "D": OKABE_ITO["reddish_purple"],
}

#: Machado et al. (2009) simulation matrices at severity 1.0, applied to linear RGB.
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


def simulate_cvd(rgb: Sequence[int], kind: str) -> tuple[float, float, float]:
    """How an sRGB colour looks under ``protanopia``, ``deuteranopia`` or ``tritanopia``."""
    lin = _to_linear(np.asarray(rgb, dtype=float))
    return tuple(float(v) for v in _to_srgb(_CVD[kind] @ lin))  # type: ignore[return-value]


def _lab(rgb: Sequence[float]) -> NDArray[np.float64]:
    lin = _to_linear(np.asarray(rgb, dtype=float))
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = m @ lin / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e(a: Sequence[float], b: Sequence[float]) -> float:
    """CIE76 colour difference between two sRGB colours."""
    return float(np.linalg.norm(_lab(a) - _lab(b)))
