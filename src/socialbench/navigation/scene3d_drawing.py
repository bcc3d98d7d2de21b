"""Pillow drawing of the simulated front view's pieces: the sky-and-ground background and a
person's figure (legs, torso, head) filling a box, in colour or as an ID-buffer silhouette."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from socialbench.navigation.scene3d_types import Appearance, BBox, Palette


@lru_cache(maxsize=8)
def sky_ground(size: tuple[int, int], horizon: int, pal: Palette) -> Image.Image:
    """Background: vertical sky gradient above the horizon row, flat ground below."""
    w, h = size
    rows = np.zeros((h, 3))
    hz = int(np.clip(horizon, 0, h))
    if hz > 0:
        s = np.linspace(0.0, 1.0, hz)[:, None]
        rows[:hz] = (1 - s) * np.array(pal.sky_top) + s * np.array(pal.sky_bottom)
    rows[hz:] = pal.ground
    arr = np.repeat(np.round(rows).astype(np.uint8)[:, None, :], w, axis=1)
    return Image.fromarray(arr, "RGB")


def _figure_shapes(box: BBox, phase: float, walking: bool) -> list[tuple[str, list[tuple[float, float]]]]:
    """Body parts of a figure filling ``box``: (part, polygon or ellipse box)."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    cx = (x1 + x2) / 2.0
    head_h = 0.13 * h
    hip = y1 + 0.52 * h
    swing = 0.16 * w * math.sin(phase) if walking else 0.0
    leg_w = 0.26 * w
    shapes: list[tuple[str, list[tuple[float, float]]]] = []
    # legs (two quads from the hip to the feet), left then right
    for side, sw in ((-1.0, swing), (1.0, -swing)):
        top_c = cx + side * 0.14 * w
        foot_c = top_c + sw
        shapes.append(
            (
                "trousers",
                [
                    (top_c - leg_w / 2, hip),
                    (top_c + leg_w / 2, hip),
                    (foot_c + leg_w / 2, y2),
                    (foot_c - leg_w / 2, y2),
                ],
            )
        )
    # torso: shoulders to hips
    sh = y1 + head_h * 1.05
    shapes.append(
        (
            "shirt",
            [
                (x1 + 0.05 * w, sh),
                (x2 - 0.05 * w, sh),
                (x2 - 0.16 * w, hip + 0.03 * h),
                (x1 + 0.16 * w, hip + 0.03 * h),
            ],
        )
    )
    # head
    shapes.append(("skin", [(cx - 0.17 * w, y1), (cx + 0.17 * w, y1 + head_h)]))
    return shapes


def draw_figure(
    draw: ImageDraw.ImageDraw, box: BBox, look: Appearance, phase: float, walking: bool, fill: int | None = None
) -> None:
    """A figure filling ``box`` in ``look``'s colours, or all in ``fill`` (an ID buffer)."""
    colours = {"trousers": look.trousers, "shirt": look.shirt, "skin": look.skin}
    for part, pts in _figure_shapes(box, phase, walking):
        colour = fill if fill is not None else colours[part]
        if part == "skin":
            draw.ellipse([pts[0], pts[1]], fill=colour)
        else:
            draw.polygon(pts, fill=colour)
