"""The matplotlib side of the BEV renderer: a figure per process and style, a cached
background per set of axis limits, and stamps that redraw prototype artists elsewhere.

Drawing one matplotlib artist costs 0.3-1 ms of Python (text layout, transforms, graphics
contexts, artist bookkeeping) around one cheap Agg call. A :class:`Stage` draws one prototype
of each dynamic artist (a marker, a number, a heading arrow) into a recorder, keeps the Agg
call each one makes (graphics context, marker path, font, transform) and makes that same call
at other positions and colours. A full redraw makes the very same calls, so the pixels are
the same (``tests/navigation/test_bev_stage.py`` compares the two), at a fraction of the cost.

Everything here runs under :data:`MPL_LOCK` and :func:`mpl_style` (matplotlib state is
global); the caches are per process and bounded: figures by style (2), stages by (limits,
style) (see :data:`STAGE_CACHE_ENTRIES`), text layouts by string (256 per figure).
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image

if TYPE_CHECKING:  # matplotlib itself is imported lazily, where it draws
    from matplotlib.backend_bases import GraphicsContextBase
    from matplotlib.typing import RcKeyType

    from socialbench.navigation.bev_types import BevLimits, BevStyle

RGBA = tuple[float, float, float, float]

#: Serialises every use of matplotlib here (its rcParams and the cached figures are shared).
MPL_LOCK = threading.Lock()

_RC_FIXED: dict[RcKeyType, Any] = {
    "font.family": "DejaVu Sans",
    "font.sans-serif": ["DejaVu Sans"],
    "mathtext.fontset": "dejavusans",
    "figure.autolayout": False,
}

# rcParams that are not about looks (same spirit as matplotlib's style blacklist)
_NOT_STYLE = (
    "backend",
    "interactive",
    "webagg.",
    "toolbar",
    "tk.",
    "timezone",
    "savefig.directory",
    "figure.max_open_warning",
    "figure.raise_window",
    "docstring.",
    "date.epoch",
)


@lru_cache(maxsize=1)
def _rc() -> dict[RcKeyType, Any]:
    """matplotlib's defaults (ignoring any matplotlibrc / style in effect) plus fixed fonts."""
    import matplotlib

    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        rc = {k: v for k, v in matplotlib.rcParams.items() if not k.startswith(_NOT_STYLE)}
    rc.update(_RC_FIXED)
    return rc


@contextmanager
def mpl_style() -> Iterator[None]:
    """matplotlib's rcParams set to :func:`_rc` for the duration, then restored.

    Only the keys that differ are set and restored (``rc_context`` copies, validates and
    restores all ~300 keys: ~0.7 ms a call)."""
    import matplotlib

    params = matplotlib.rcParams
    get = getattr(params, "_get", params.__getitem__)  # _get skips the deprecation checks
    saved = {}
    want = _rc()
    for k, v in want.items():
        current = get(k)
        if _differs(current, v):
            saved[k] = current
    if saved:
        params.update({k: want[k] for k in saved})
    try:
        yield
    finally:
        if saved:
            params.update(saved)


def _differs(a: Any, b: Any) -> bool:
    if a is b:
        return False
    try:
        return bool(a != b)
    except (TypeError, ValueError):  # e.g. arrays: be safe, set the key
        return True


# --------------------------------------------------------------------------- recording


class _Recorder:
    """Stands in for an Agg renderer while a prototype artist draws: every call goes through
    to the renderer except the drawing ones, which are recorded instead."""

    def __init__(self, renderer: Any):
        self._renderer = renderer
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._renderer, name)

    def draw_markers(self, *args: Any, **kw: Any) -> None:
        self.calls.append(("draw_markers", args, kw))

    def draw_path(self, *args: Any, **kw: Any) -> None:
        self.calls.append(("draw_path", args, kw))

    def draw_text(self, *args: Any, **kw: Any) -> None:
        self.calls.append(("draw_text", args, kw))

    def draw_path_collection(self, *args: Any, **kw: Any) -> None:
        self.calls.append(("draw_path_collection", args, kw))

    def draw_image(self, *args: Any, **kw: Any) -> None:
        self.calls.append(("draw_image", args, kw))


def _record(artist: Any, renderer: Any, expected: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments of the one ``expected`` call ``artist`` makes when drawn."""
    rec = _Recorder(renderer)
    artist.draw(rec)
    if [name for name, _, _ in rec.calls] != [expected]:
        raise RuntimeError(f"BEV stamp: {type(artist).__name__} drew {[n for n, _, _ in rec.calls]}, not [{expected}]")
    _, args, kw = rec.calls[0]
    return args, kw


def _axes_affine_and_clip(ax: Any) -> tuple[Any, Any]:
    """The frozen data->pixel affine of ``ax`` (``transData.get_affine()``: what its lines,
    patches and texts pass to the renderer) and its clip box (the axes patch's extent, as set
    by ``set_clip_path(ax.patch)``). Frozen: the figure is redrawn at other limits later."""
    from matplotlib.transforms import Bbox, TransformedBbox

    return ax.transData.get_affine().frozen(), TransformedBbox(Bbox.unit(), ax.patch.get_transform()).frozen()


def _clipped(gc: GraphicsContextBase, clip: Any) -> GraphicsContextBase:
    """A copy of ``gc`` clipped to the box ``clip`` if ``gc`` is clipped at all (``ax.text``
    is not: ``clip_on=False``)."""
    out = copy.copy(gc)
    if gc.get_clip_rectangle() is not None:
        out.set_clip_rectangle(clip)
    return out


@dataclass(frozen=True)
class _Prototypes:
    """The graphics contexts (and marker shape) the BEV's artists draw with: recorded once
    per figure; only their clip box depends on the limits."""

    marker_gc: Any
    marker_path: Any
    marker_trans: Any
    text_gc: Any
    arrow_gc: Any


def _record_prototypes(ax: Any, renderer: Any, style: BevStyle) -> _Prototypes:
    """Draw a marker, a number and an arrow as the BEV draws them into a recorder; check that
    they use the axes' affine and clip box (what stages assume), and keep their calls."""
    x0, y0 = sum(ax.get_ylim()) / 2, sum(ax.get_xlim()) / 2
    (line,) = ax.plot(
        [y0], [x0], marker="o", markersize=style.markersize, color="black", linestyle="none", animated=True
    )
    text = ax.text(
        y0, x0, "0", ha="center", va="center", color="white", fontsize=style.fontsize, fontweight="bold", animated=True
    )
    arrow = ax.arrow(y0, x0, 0.0, style.arrow_length, width=style.arrow_width, color="black", length_includes_head=True)
    try:
        (marker_gc, marker_path, marker_trans, _, line_affine, _), _ = _record(line, renderer, "draw_markers")
        (text_gc, *_), _ = _record(text, renderer, "draw_text")
        (arrow_gc, _, arrow_affine, _), _ = _record(arrow, renderer, "draw_path")
    finally:
        for a in (line, text, arrow):
            a.remove()
    affine, clip = _axes_affine_and_clip(ax)
    for gc in (marker_gc, text_gc, arrow_gc):
        rect = gc.get_clip_rectangle()
        if rect is not None and not np.array_equal(rect.frozen().get_points(), clip.get_points()):
            raise RuntimeError("BEV stamp: an artist is clipped to another box than the axes'")
        if gc.get_clip_path()[0] is not None:
            raise RuntimeError("BEV stamp: a clip path other than the axes box")
    for a in (line_affine, arrow_affine):
        if not np.array_equal(a.get_matrix(), affine.get_matrix()):
            raise RuntimeError("BEV stamp: an artist does not draw with the axes' data affine")
    return _Prototypes(marker_gc, marker_path, marker_trans, text_gc, arrow_gc)


# --------------------------------------------------------------------------- figures


@dataclass(frozen=True)
class _TextStamp:
    """How a centred label is drawn: its offset (x right, y up, pixels) from the anchor, the
    rest of Agg's ``draw_text`` call, and, where matplotlib funnels text through
    ``_draw_text_glyphs_and_boxes`` (3.11), the glyphs that call lays out (shaping a string
    costs more than drawing its glyphs)."""

    dx: float
    dy: float
    args: tuple[Any, ...]  # (string, font properties, angle)
    kw: dict[str, Any]
    glyphs: tuple[list[Any], list[Any]] | None


def _laid_out_glyphs(renderer: Any, gc: Any, args: tuple[Any, ...], kw: dict[str, Any]) -> tuple[list, list] | None:
    """The (glyphs, boxes) that ``renderer.draw_text`` passes to its
    ``_draw_text_glyphs_and_boxes`` for ``args``: independent of where the text goes. None
    where this matplotlib draws text another way."""
    if not callable(getattr(type(renderer), "_draw_text_glyphs_and_boxes", None)):
        return None
    seen: list[tuple[float, float, list, list]] = []

    def capture(gc: Any, x: float, y: float, angle: float, glyphs: Any, boxes: Any) -> None:
        seen.append((x, y, list(glyphs), list(boxes)))

    renderer._draw_text_glyphs_and_boxes = capture  # an instance attribute shadows the method
    try:
        renderer.draw_text(gc, 0.0, 0.0, *args, **kw)
    finally:
        del renderer._draw_text_glyphs_and_boxes
    if len(seen) != 1 or seen[0][:2] != (0.0, 0.0):
        return None
    return seen[0][2], seen[0][3]


class _Figure:
    """A figure with the BEV's axes (one per process and style), redrawn at each limits."""

    def __init__(self, style: BevStyle):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.style = style
        self.fig = Figure(figsize=(style.size_in, style.size_in), dpi=style.dpi)
        self.canvas = FigureCanvasAgg(self.fig)
        ax = self.fig.add_subplot(1, 1, 1)
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlabel("y (m, left +)")
        ax.set_ylabel("x (m, forward)")
        ax.grid(True, linewidth=0.5, alpha=0.4)
        self.ax = ax
        self._prototypes: _Prototypes | None = None
        self._texts: OrderedDict[tuple[str, int], _TextStamp] = OrderedDict()

    def prototypes(self) -> _Prototypes:
        """The artists' graphics contexts (recorded at the first call: after a draw)."""
        if self._prototypes is None:
            self._prototypes = _record_prototypes(self.ax, self.canvas.get_renderer(), self.style)
        return self._prototypes

    def text_stamp(self, s: str, gc: Any) -> _TextStamp:
        """How the centred white bold label ``s`` is drawn (cached; ``gc`` is the text's
        graphics context). Per thread, as matplotlib's font objects are."""
        key = (s, threading.get_ident())
        hit = self._texts.get(key)
        if hit is not None:
            self._texts.move_to_end(key)
            return hit
        from matplotlib.text import Text
        from matplotlib.transforms import IdentityTransform

        st = self.style
        text = Text(0.0, 0.0, s, ha="center", va="center", fontsize=st.fontsize, fontweight="bold")
        text.set_transform(IdentityTransform())  # anchored at display (0, 0): the call's x, y are the offset
        text.set_figure(self.fig)
        renderer = self.canvas.get_renderer()
        (_, x, y, *args), kw = _record(text, renderer, "draw_text")
        _, canvas_h = renderer.get_canvas_width_height()
        stamp = _TextStamp(x, canvas_h - y, tuple(args), kw, _laid_out_glyphs(renderer, gc, tuple(args), kw))
        self._texts[key] = stamp
        if len(self._texts) > 256:
            self._texts.popitem(last=False)
        return stamp


@lru_cache(maxsize=2)
def _figure(style: BevStyle) -> _Figure:
    return _Figure(style)


# --------------------------------------------------------------------------- stages


class Stage:
    """The BEV axes at one set of limits and style: the background pixels, the data→pixel
    transform, and stamps of the artists drawn on top (all frozen, so the shared figure can
    be redrawn at other limits meanwhile)."""

    def __init__(self, limits: BevLimits, style: BevStyle):
        f = _figure(style)
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
        self._affine, clip = _axes_affine_and_clip(ax)
        proto = f.prototypes()
        self._marker = (_clipped(proto.marker_gc, clip), proto.marker_path, proto.marker_trans)
        self._text_gc = _clipped(proto.text_gc, clip)
        self._arrow_gc = _clipped(proto.arrow_gc, clip)
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

    def restore(self, region: Any = None) -> None:
        """Put back ``region`` (default: the background) over the whole canvas."""
        self._renderer.restore_region(self.background if region is None else region)

    def copy(self) -> Any:
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


def cached_stages() -> int:
    """How many stages this process holds."""
    return len(_stages)


def clear_stages() -> None:
    """Forget every cached stage (the next sample draws its axes anew)."""
    with MPL_LOCK:
        _stages.clear()
