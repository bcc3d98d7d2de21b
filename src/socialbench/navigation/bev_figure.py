"""The one matplotlib figure with the BEV's axes per process and style, and the cached
layouts of the numbers drawn on it (a centred label's offset and glyphs, per string)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from socialbench.navigation.bev_prototypes import Prototypes, record, record_prototypes

if TYPE_CHECKING:  # matplotlib itself is imported lazily, where it draws
    from matplotlib.backend_bases import GraphicsContextBase
    from matplotlib.backends.backend_agg import RendererAgg

    from socialbench.navigation.bev_types import BevStyle


@dataclass(frozen=True)
class TextStamp:
    """How a centred label is drawn: its offset (x right, y up, pixels) from the anchor, the
    rest of Agg's ``draw_text`` call, and, where matplotlib funnels text through
    ``_draw_text_glyphs_and_boxes`` (3.11), the glyphs that call lays out (shaping a string
    costs more than drawing its glyphs)."""

    dx: float
    dy: float
    args: tuple[object, ...]  # (string, font properties, angle)
    kw: dict[str, object]
    glyphs: tuple[list[object], list[object]] | None


def _laid_out_glyphs(
    renderer: RendererAgg, gc: GraphicsContextBase, args: tuple[object, ...], kw: dict[str, object]
) -> tuple[list[object], list[object]] | None:
    """The (glyphs, boxes) that ``renderer.draw_text`` passes to its
    ``_draw_text_glyphs_and_boxes`` for ``args``: independent of where the text goes. None
    where this matplotlib draws text another way."""
    if not callable(getattr(type(renderer), "_draw_text_glyphs_and_boxes", None)):
        return None
    seen: list[tuple[float, float, list[object], list[object]]] = []

    def capture(
        gc: GraphicsContextBase, x: float, y: float, angle: float, glyphs: Iterable[object], boxes: Iterable[object]
    ) -> None:
        seen.append((x, y, list(glyphs), list(boxes)))

    shadow = vars(renderer)  # an instance attribute shadows the method
    shadow["_draw_text_glyphs_and_boxes"] = capture
    try:
        renderer.draw_text(gc, 0.0, 0.0, *args, **kw)
    finally:
        del shadow["_draw_text_glyphs_and_boxes"]
    if len(seen) != 1 or seen[0][:2] != (0.0, 0.0):
        return None
    return seen[0][2], seen[0][3]


class BevFigure:
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
        self._prototypes: Prototypes | None = None
        self._texts: OrderedDict[tuple[str, int], TextStamp] = OrderedDict()

    def prototypes(self) -> Prototypes:
        """The artists' graphics contexts (recorded at the first call: after a draw)."""
        if self._prototypes is None:
            self._prototypes = record_prototypes(self.ax, self.canvas.get_renderer(), self.style)
        return self._prototypes

    def text_stamp(self, s: str, gc: GraphicsContextBase) -> TextStamp:
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
        (_, x, y, *args), kw = record(text, renderer, "draw_text")
        if not isinstance(x, float) or not isinstance(y, float):
            raise RuntimeError(f"BEV stamp: Text drew at ({x!r}, {y!r}), not at float coordinates")
        _, canvas_h = renderer.get_canvas_width_height()
        stamp = TextStamp(x, canvas_h - y, tuple(args), kw, _laid_out_glyphs(renderer, gc, tuple(args), kw))
        self._texts[key] = stamp
        if len(self._texts) > 256:
            self._texts.popitem(last=False)
        return stamp


@lru_cache(maxsize=2)
def bev_figure(style: BevStyle) -> BevFigure:
    """The :class:`BevFigure` for ``style`` (one per process; call under the matplotlib lock)."""
    return BevFigure(style)
