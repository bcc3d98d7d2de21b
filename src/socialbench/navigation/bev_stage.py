"""The BEV's axes at one set of limits, as stamps: a cached background per (limits, style),
and the BEV's dynamic artists redrawn from recorded prototypes instead of drawn anew.

Drawing one matplotlib artist costs 0.3-1 ms of Python (text layout, transforms, graphics
contexts, artist bookkeeping) around one cheap Agg call. A :class:`Stage` replays the Agg call
each prototype artist made (graphics context, marker path, font, transform: see
:mod:`socialbench.navigation.bev_prototypes`) at other positions and colours. A full redraw
makes the very same calls, so the pixels are the same (``tests/navigation/test_bev_stage.py``
compares the two), at a fraction of the cost.

Everything here runs under :data:`~socialbench.navigation.mpl_style.MPL_LOCK` (matplotlib
state is global); the per-process caches are bounded (figures: 2 styles; stages:
:data:`STAGE_CACHE_ENTRIES`; text layouts: 256 per figure).
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image

from socialbench.navigation.bev_figure import bev_figure
from socialbench.navigation.bev_prototypes import axes_affine_and_clip, clipped
from socialbench.navigation.mpl_style import MPL_LOCK

if TYPE_CHECKING:  # matplotlib itself is imported lazily, where it draws
    from matplotlib.backend_bases import GraphicsContextBase

    from socialbench.navigation.bev_types import BevLimits, BevStyle

RGBA = tuple[float, float, float, float]


class Stage:
    """The BEV axes at one set of limits and style: the background pixels, the data→pixel
    transform, and stamps of the artists drawn on top (all frozen, so the shared figure can
    be redrawn at other limits meanwhile)."""

    def __init__(self, limits: BevLimits, style: BevStyle):
        f = bev_figure(style)
        self._figure = f
        ax, canvas = f.ax, f.canvas
        ax.set_xlim(limits.y_max, limits.y_min)  # left (+y) on the left
        ax.set_ylim(limits.x_min, limits.x_max)
        canvas.draw()
        renderer = canvas.get_renderer()  # the figure keeps its size, so this renderer for good
        self._renderer = renderer
        self.background = renderer.copy_from_bbox(f.fig.bbox)
        self._canvas_h = renderer.get_canvas_width_height()[1]
        # what the artists' draw() would pass: the axes' data->pixel affine, clipped to the axes
        self._affine, clip = axes_affine_and_clip(ax)
        proto = f.prototypes()
        self._marker = (clipped(proto.marker_gc, clip), proto.marker_path, proto.marker_trans)
        self._text_gc = clipped(proto.text_gc, clip)
        self._arrow_gc = clipped(proto.arrow_gc, clip)
        from matplotlib.patches import FancyArrow

        self._arrow_shape = FancyArrow(0.0, 0.0, 0.0, 1.0, width=style.arrow_width, length_includes_head=True)
        self._gcs: dict[tuple[str, RGBA], GraphicsContextBase] = {}

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return int(self._renderer.width), int(self._renderer.height)

    @property
    def nbytes(self) -> int:
        """Memory held by the background (RGBA)."""
        w, h = self.size
        return 4 * w * h

    def to_pixel(self, x: float, y: float) -> tuple[float, float]:
        """Image (column, row from the top) of the point ``x`` forward, ``y`` left (metres)."""
        col, up = self._affine.transform((y, x))
        return float(col), self.size[1] - float(up)

    def _gc(self, kind: str, rgba: RGBA) -> GraphicsContextBase:
        gc = self._gcs.get((kind, rgba))
        if gc is None:
            gc = copy.copy(self._marker[0] if kind == "marker" else self._arrow_gc)
            gc.set_foreground(rgba, isRGBA=True)
            if len(self._gcs) >= 256:  # colours depend on the number of labels: bounded anyway
                self._gcs.clear()
            self._gcs[(kind, rgba)] = gc
        return gc

    # drawing: each as the corresponding artist's draw would call the renderer

    def restore(self, region: object = None) -> None:
        """Put back ``region`` (default: the background) over the whole canvas."""
        self._renderer.restore_region(self.background if region is None else region)

    def copy(self) -> object:
        """The canvas as it is now, for :meth:`restore`."""
        return self._renderer.copy_from_bbox(self._figure.fig.bbox)

    def marker(self, x: float, y: float, rgba: RGBA) -> None:
        """A filled circle marker (``ax.plot(marker="o")``) at (x forward, y left)."""
        from matplotlib.path import Path

        gc, mpath, mtrans = self._marker
        point = Path(np.array([[y, x]], dtype=float))
        self._renderer.draw_markers(self._gc("marker", rgba), mpath, mtrans, point, self._affine, rgba)

    def text(self, x: float, y: float, s: str) -> None:
        """``s`` in white bold, centred on (x forward, y left) (``ax.text``)."""
        stamp = self._figure.text_stamp(s, self._text_gc)
        posx, posy = self._affine.transform((y, x))
        px, py = stamp.dx + posx, self._canvas_h - (stamp.dy + posy)  # as Text.draw computes them
        renderer = self._renderer
        if stamp.glyphs is None:
            renderer.draw_text(self._text_gc, px, py, *stamp.args, **stamp.kw)
        else:  # what draw_text does once it has laid the string out
            renderer._draw_text_glyphs_and_boxes(self._text_gc, px, py, stamp.args[2], *stamp.glyphs)

    def arrow(self, x: float, y: float, dx: float, dy: float, rgba: RGBA) -> None:
        """A heading arrow (``ax.arrow``, head included in the length) from (x, y) by (dx, dy),
        in (forward, left) metres."""
        shape = self._arrow_shape
        shape.set_data(x=y, y=x, dx=dy, dy=dx)  # plot coordinates are (y, x)
        self._renderer.draw_path(self._gc("arrow", rgba), shape.get_path(), self._affine, rgba)

    def image(self) -> Image.Image:
        """The canvas as an RGB image (a copy)."""
        size = self.size
        out = Image.new("RGB", size)
        # pasting RGBA onto RGB drops the alpha as convert("RGB") does, ~8x faster
        out.paste(Image.frombuffer("RGBA", size, self._renderer.buffer_rgba(), "raw", "RGBA", 0, 1))
        return out


#: Backgrounds kept per process: at most this many, and this many bytes (a 492-px BEV's is
#: 1 MB, a 300-dpi one's 17.6 MB).
STAGE_CACHE_ENTRIES = 4
STAGE_CACHE_BYTES = 40_000_000

_stages: OrderedDict[tuple[BevLimits, BevStyle], Stage] = OrderedDict()


def stage(limits: BevLimits, style: BevStyle) -> Stage:
    """The :class:`Stage` for ``limits`` and ``style``, cached per process (least recently
    used out first): samples whose tracks fit the same limits (often the default ones) share
    one. Call under :data:`MPL_LOCK` and :func:`mpl_style`."""
    key = (limits, style)
    hit = _stages.get(key)
    if hit is not None:
        _stages.move_to_end(key)
        return hit
    new = Stage(limits, style)
    _stages[key] = new
    while len(_stages) > 1 and (
        len(_stages) > STAGE_CACHE_ENTRIES or sum(s.nbytes for s in _stages.values()) > STAGE_CACHE_BYTES
    ):
        _stages.popitem(last=False)
    return new


def clear_stages() -> None:
    """Forget every cached stage (the next sample draws its axes anew)."""
    with MPL_LOCK:
        _stages.clear()
