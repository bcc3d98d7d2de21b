"""Recording the Agg calls of the BEV's prototype artists (a marker, a number, a heading
arrow), so that :class:`socialbench.navigation.bev_stage.Stage` can make the same calls at
other positions and colours instead of drawing each artist anew.

A prototype draws into a :class:`_Recorder` standing in for the Agg renderer; the recorded
call's graphics context, marker path and transforms are checked against what a stage
assumes (the axes' data affine and clip box) and kept in :class:`Prototypes`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

if TYPE_CHECKING:  # matplotlib itself is imported lazily, where it draws
    from matplotlib.axes import Axes
    from matplotlib.backend_bases import GraphicsContextBase
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.path import Path
    from matplotlib.transforms import Bbox, Transform

    from socialbench.navigation.bev_types import BevStyle

_T = TypeVar("_T")


class _Recorder:
    """Stands in for an Agg renderer while a prototype artist draws: every call goes through
    to the renderer except the drawing ones, which are recorded instead."""

    def __init__(self, renderer: RendererAgg):
        self._renderer = renderer
        self.calls: list[tuple[str, tuple[object, ...], dict[str, object]]] = []

    # a proxy: whatever renderer attribute an artist asks for, of whatever type it has
    def __getattr__(self, name: str) -> Any:
        return getattr(self._renderer, name)

    def draw_markers(self, *args: object, **kw: object) -> None:
        self.calls.append(("draw_markers", args, kw))

    def draw_path(self, *args: object, **kw: object) -> None:
        self.calls.append(("draw_path", args, kw))

    def draw_text(self, *args: object, **kw: object) -> None:
        self.calls.append(("draw_text", args, kw))

    def draw_path_collection(self, *args: object, **kw: object) -> None:
        self.calls.append(("draw_path_collection", args, kw))

    def draw_image(self, *args: object, **kw: object) -> None:
        self.calls.append(("draw_image", args, kw))


# ``artist`` is any matplotlib artist, drawn into a duck-typed _Recorder that Artist.draw's
# annotation (RendererBase) does not admit: hence Any
def record(artist: Any, renderer: RendererAgg, expected: str) -> tuple[tuple[object, ...], dict[str, object]]:
    """The arguments of the one ``expected`` call ``artist`` makes when drawn."""
    rec = _Recorder(renderer)
    artist.draw(rec)
    if [name for name, _, _ in rec.calls] != [expected]:
        raise RuntimeError(f"BEV stamp: {type(artist).__name__} drew {[n for n, _, _ in rec.calls]}, not [{expected}]")
    _, args, kw = rec.calls[0]
    return args, kw


def axes_affine_and_clip(ax: Axes) -> tuple[Transform, Bbox]:
    """The frozen data->pixel affine of ``ax`` (``transData.get_affine()``: what its lines,
    patches and texts pass to the renderer) and its clip box (the axes patch's extent, as set
    by ``set_clip_path(ax.patch)``). Frozen: the figure is redrawn at other limits later."""
    from matplotlib.transforms import Bbox, Transform, TransformedBbox

    affine = _of_type(ax.transData.get_affine().frozen(), Transform, "axes affine")
    return affine, TransformedBbox(Bbox.unit(), ax.patch.get_transform()).frozen()


def clipped(gc: GraphicsContextBase, clip: Bbox) -> GraphicsContextBase:
    """A copy of ``gc`` clipped to the box ``clip`` if ``gc`` is clipped at all (``ax.text``
    is not: ``clip_on=False``)."""
    out = copy.copy(gc)
    if gc.get_clip_rectangle() is not None:
        out.set_clip_rectangle(clip)
    return out


def _of_type(value: object, kind: type[_T], what: str) -> _T:
    if not isinstance(value, kind):
        raise RuntimeError(f"BEV stamp: the recorded {what} is a {type(value).__name__}, not a {kind.__name__}")
    return value


@dataclass(frozen=True)
class Prototypes:
    """The graphics contexts (and marker shape) the BEV's artists draw with: recorded once
    per figure; only their clip box depends on the limits."""

    marker_gc: GraphicsContextBase
    marker_path: Path
    marker_trans: Transform
    text_gc: GraphicsContextBase
    arrow_gc: GraphicsContextBase


def record_prototypes(ax: Axes, renderer: RendererAgg, style: BevStyle) -> Prototypes:
    """Draw a marker, a number and an arrow as the BEV draws them into a recorder; check that
    they use the axes' affine and clip box (what stages assume), and keep their calls."""
    from matplotlib.backend_bases import GraphicsContextBase
    from matplotlib.path import Path
    from matplotlib.transforms import Transform

    x0, y0 = sum(ax.get_ylim()) / 2, sum(ax.get_xlim()) / 2
    (line,) = ax.plot(
        [y0], [x0], marker="o", markersize=style.markersize, color="black", linestyle="none", animated=True
    )
    text = ax.text(
        y0, x0, "0", ha="center", va="center", color="white", fontsize=style.fontsize, fontweight="bold", animated=True
    )
    arrow = ax.arrow(y0, x0, 0.0, style.arrow_length, width=style.arrow_width, color="black", length_includes_head=True)
    try:
        (marker_gc, marker_path, marker_trans, _, line_affine, _), _ = record(line, renderer, "draw_markers")
        (text_gc, *_), _ = record(text, renderer, "draw_text")
        (arrow_gc, _, arrow_affine, _), _ = record(arrow, renderer, "draw_path")
    finally:
        for artist in (line, text, arrow):
            artist.remove()
    gcs = [_of_type(gc, GraphicsContextBase, "graphics context") for gc in (marker_gc, text_gc, arrow_gc)]
    affine, clip = axes_affine_and_clip(ax)
    for gc in gcs:
        rect = gc.get_clip_rectangle()
        if rect is not None and not np.array_equal(rect.frozen().get_points(), clip.get_points()):
            raise RuntimeError("BEV stamp: an artist is clipped to another box than the axes'")
        if gc.get_clip_path()[0] is not None:
            raise RuntimeError("BEV stamp: a clip path other than the axes box")
    for a in (line_affine, arrow_affine):
        if not np.array_equal(_of_type(a, Transform, "affine").get_matrix(), affine.get_matrix()):
            raise RuntimeError("BEV stamp: an artist does not draw with the axes' data affine")
    path = _of_type(marker_path, Path, "marker path")
    return Prototypes(gcs[0], path, _of_type(marker_trans, Transform, "marker transform"), gcs[1], gcs[2])
