"""Label colours shared by the front view and the BEV: matplotlib's ``brg`` colormap over
the labels of a sample (reference §c)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

RGB = tuple[int, int, int]


def label_colors(n: int) -> list[RGB]:
    """RGB colour of labels 1..n: matplotlib ``brg`` at ``linspace(0, 1, n)``."""
    return list(_label_colors(n)) if n > 0 else []


@lru_cache(maxsize=64)
def _label_colors(n: int) -> tuple[RGB, ...]:
    import matplotlib

    rgba = matplotlib.colormaps["brg"](np.linspace(0.0, 1.0, n))  # the registry copies the map: ~0.3 ms
    return tuple(tuple(int(round(c * 255)) for c in row[:3]) for row in rgba)  # type: ignore[misc]


def label_color(colors: Sequence[RGB], label: int) -> RGB:
    """The colour of ``label`` among ``colors`` (cycling; blue when there are none)."""
    return colors[(label - 1) % len(colors)] if colors else (0, 0, 255)
