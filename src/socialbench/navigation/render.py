"""Render SocialNav-SUB prompt images: annotated front view, BEV, and composites.

What is drawn follows the official prompt builder (reference §c):

* **Front view** — every labelled person seen at timestep t gets a filled circle
  (radius 30 px) at the centre of its bounding box, coloured by label from matplotlib's
  ``brg`` colormap at ``linspace(0, 1, N)``, with the number in white. The number is
  centred on its inked box, which subsumes the official 14-px left shift of 2-digit labels.
  The goal is not drawn.
* **BEV** — a 7×7 in figure (300 dpi by default: 2100×2100 px), forward (x) up and lateral
  (y) across with left on the left. Axis limits start at x∈[0, 10], y∈[-5, 5] and grow to
  hold every labelled track, every robot waypoint and the goal, each ± 0.5 m (one set of
  limits per sample). People are numbered coloured markers (markersize 20, fontsize 15);
  a heading arrow (length 0.5, width 0.1) is drawn when ``pos_diff`` > 0.075. The robot is
  a black "R" marker with a heading arrow, the goal a black "G" marker.
* **Composite** (``img-with-bev``) — the annotated frame with the BEV resized to the same
  width below it (1280×2000 for SCAND frames).

Image modes: ``img-with-bev`` (default, the paper's main setting), ``img`` (the "No BEV"
ablation) and ``bev``. Unlike the official code, ``bev`` images are RGB (the official ones
are left in BGR order), and the robot pose at timestep t uses odometry frame F0+t
(see :mod:`socialbench.navigation.frames`; ``official_offset=True`` gives F0+1+t).

Determinism: the same inputs give the same pixels. The BEV uses the Agg canvas directly
(no pyplot), matplotlib's default rcParams plus fixed fonts (DejaVu Sans, bundled with
matplotlib), under a lock; :func:`to_png_bytes` writes PNGs without timestamps or
software tags. Pixels can change across matplotlib / Pillow / FreeType versions.
"""

from __future__ import annotations

import io
import math
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from socialbench.errors import DataError, UsageError
from socialbench.navigation.frames import Scene, load_scene
from socialbench.navigation.image_modes import IMAGE_MODES
from socialbench.navigation.tracks import ARROW_POS_DIFF, PersonTrack, RobotPath

if TYPE_CHECKING:  # matplotlib itself is imported lazily, where it draws
    from matplotlib.typing import RcKeyType

RGB = tuple[int, int, int]


# --------------------------------------------------------------------------- styles


@dataclass(frozen=True)
class FrontStyle:
    """Front-view annotation settings (official: radius 30 px; cv2 scale 1.3, thickness 5
    is matched by a 40-px bold DejaVu Sans)."""

    circle_radius: int = 30
    font_size: int = 40
    text_color: RGB = (255, 255, 255)


@dataclass(frozen=True)
class BevStyle:
    """BEV settings (official values). Lower ``dpi`` renders faster at lower resolution;
    everything scales with it."""

    size_in: float = 7.0
    dpi: float = 300
    markersize: float = 20.0
    fontsize: float = 15.0
    arrow_width: float = 0.1
    arrow_length: float = 0.5


def label_colors(n: int) -> list[RGB]:
    """RGB colour of labels 1..n: matplotlib ``brg`` at ``linspace(0, 1, n)``."""
    if n <= 0:
        return []
    import matplotlib

    rgba = matplotlib.colormaps["brg"](np.linspace(0.0, 1.0, n))
    return [tuple(int(round(c * 255)) for c in row[:3]) for row in rgba]  # type: ignore[misc]


def _color(colors: Sequence[RGB], label: int) -> RGB:
    return colors[(label - 1) % len(colors)] if colors else (0, 0, 255)


# --------------------------------------------------------------------------- front view


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont:
    import matplotlib

    path = os.path.join(matplotlib.get_data_path(), "fonts", "ttf", "DejaVuSans-Bold.ttf")
    return ImageFont.truetype(path, size)


def render_front_view(
    frame: Image.Image, markers: Mapping[int, tuple[float, float]], n_labels: int, style: FrontStyle = FrontStyle()
) -> Image.Image:
    """The frame with a numbered filled circle at each ``{label: (u, v)}`` pixel centre.

    ``n_labels`` is the number of people in the sample (it fixes the colours). Returns a
    new RGB image; ``frame`` is not modified. Markers are drawn in label order."""
    img = frame.convert("RGB") if frame.mode != "RGB" else frame.copy()
    draw = ImageDraw.Draw(img)
    colors = label_colors(max(n_labels, max(markers, default=0)))
    font = _font(style.font_size)
    r = style.circle_radius
    for label in sorted(markers):
        u, v = markers[label]
        if not (math.isfinite(u) and math.isfinite(v)):
            continue
        draw.ellipse((u - r, v - r, u + r, v + r), fill=_color(colors, label))
        text = str(label)
        x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font, anchor="ls")
        draw.text((u - (x0 + x1) / 2.0, v - (y0 + y1) / 2.0), text, font=font, anchor="ls", fill=style.text_color)
    return img


def front_markers(people: Mapping[int, PersonTrack], timestep: int) -> dict[int, tuple[float, float]]:
    """``{label: bbox centre}`` of the people seen (with a bbox) at ``timestep``."""
    out: dict[int, tuple[float, float]] = {}
    for label, tr in people.items():
        o = tr.at(timestep)
        if o is not None and o.bbox_center is not None:
            out[label] = o.bbox_center
    return out


# --------------------------------------------------------------------------- BEV


@dataclass(frozen=True)
class BevLimits:
    """Axis limits in metres (x forward, y left)."""

    x_min: float = 0.0
    x_max: float = 10.0
    y_min: float = -5.0
    y_max: float = 5.0


@dataclass(frozen=True)
class BevPerson:
    """One person in one BEV: position and heading (radians; ``None`` = no arrow)."""

    x: float
    y: float
    heading: float | None = None


def bev_limits(
    people: Mapping[int, PersonTrack], robot: RobotPath | None, goal_xy: tuple[float, float] | None, margin: float = 0.5
) -> BevLimits:
    """Official limits: start at x∈[0, 10], y∈[-5, 5]; grow to every track point, robot
    waypoint and the goal, each ± ``margin``."""
    pts = [tr.positions() for tr in people.values()]
    if robot is not None:
        pts.append(robot.xy())
    if goal_xy is not None:
        pts.append(np.asarray([goal_xy], dtype=float))
    lim = BevLimits()
    allp = np.concatenate(pts) if pts else np.zeros((0, 2))
    allp = allp[np.isfinite(allp).all(axis=1)]
    if len(allp) == 0:
        return lim
    return BevLimits(
        min(lim.x_min, float(allp[:, 0].min()) - margin),
        max(lim.x_max, float(allp[:, 0].max()) + margin),
        min(lim.y_min, float(allp[:, 1].min()) - margin),
        max(lim.y_max, float(allp[:, 1].max()) + margin),
    )


def bev_people(
    people: Mapping[int, PersonTrack], timestep: int, arrow_threshold: float = ARROW_POS_DIFF
) -> dict[int, BevPerson]:
    """``{label: BevPerson}`` at ``timestep``; heading only when ``pos_diff`` > threshold."""
    out: dict[int, BevPerson] = {}
    for label, tr in people.items():
        o = tr.at(timestep)
        if o is None:
            continue
        out[label] = BevPerson(o.x, o.y, tr.heading(timestep) if o.pos_diff > arrow_threshold else None)
    return out


_MPL_LOCK = threading.Lock()
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


class BevRenderer:
    """Draws the BEVs of one sample: the static part (axes, limits, goal) is rendered once,
    then each :meth:`render` restores it and draws the robot and people on top (Agg
    blitting). The pixels equal a full redraw, since every dynamic artist sits above the
    axes, grid and spines. Serialised by a module lock (matplotlib state is global)."""

    def __init__(
        self,
        limits: BevLimits = BevLimits(),
        goal_xy: tuple[float, float] | None = None,
        n_labels: int = 0,
        style: BevStyle = BevStyle(),
    ):
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.style = style
        self.n_labels = n_labels
        self._colors = label_colors(n_labels)
        with _MPL_LOCK, matplotlib.rc_context(_rc()):
            fig = Figure(figsize=(style.size_in, style.size_in), dpi=style.dpi)
            self._canvas = FigureCanvasAgg(fig)
            ax = fig.add_subplot(1, 1, 1)
            ax.set_xlim(limits.y_max, limits.y_min)  # left (+y) on the left
            ax.set_ylim(limits.x_min, limits.x_max)
            ax.set_aspect("equal", adjustable="box")
            ax.set_xlabel("y (m, left +)")
            ax.set_ylabel("x (m, forward)")
            ax.grid(True, linewidth=0.5, alpha=0.4)
            self._fig, self._ax = fig, ax
            if goal_xy is not None:
                for a in self._marker(goal_xy[0], goal_xy[1], "black", "G", 3.0):
                    a.set_animated(False)
            self._canvas.draw()
            self._background = self._canvas.copy_from_bbox(fig.bbox)

    def _arrow(self, x: float, y: float, h: float, color: Any, z: float) -> list[Any]:
        L, W = self.style.arrow_length, self.style.arrow_width
        # plot coordinates are (y, x): horizontal = lateral, vertical = forward
        return [
            self._ax.arrow(
                y,
                x,
                L * math.sin(h),
                L * math.cos(h),
                width=W,
                color=color,
                length_includes_head=True,
                zorder=z,
                animated=True,
            )
        ]

    def _marker(self, x: float, y: float, color: Any, text: str, z: float) -> list[Any]:
        (line,) = self._ax.plot(
            [y],
            [x],
            marker="o",
            markersize=self.style.markersize,
            color=color,
            linestyle="none",
            zorder=z,
            animated=True,
        )
        txt = self._ax.text(
            y,
            x,
            text,
            ha="center",
            va="center",
            color="white",
            fontsize=self.style.fontsize,
            fontweight="bold",
            zorder=z + 0.5,
            animated=True,
        )
        return [line, txt]

    def render(
        self,
        people: Mapping[int, BevPerson],
        robot_pose: tuple[float, float, float] | None,
        labels: Sequence[tuple[float, float, str]] = (),
    ) -> Image.Image:
        """The BEV with ``people`` (by label) and the robot at (x, y, heading); ``labels``
        are extra lettered markers (x, y, text), e.g. candidate waypoints."""
        import matplotlib

        with _MPL_LOCK, matplotlib.rc_context(_rc()):
            self._canvas.restore_region(self._background)
            artists: list[Any] = []
            if robot_pose is not None:
                rx, ry, rh = robot_pose
                artists += self._arrow(rx, ry, rh, "black", 4.0)
                artists += self._marker(rx, ry, "black", "R", 4.1)
            colors = self._colors if max(people, default=0) <= len(self._colors) else label_colors(max(people))
            for label in sorted(people):
                p = people[label]
                c = tuple(v / 255.0 for v in _color(colors, label))
                if p.heading is not None:
                    artists += self._arrow(p.x, p.y, p.heading, c, 5.0 + label * 0.01)
                artists += self._marker(p.x, p.y, c, str(label), 5.0 + label * 0.01 + 0.001)
            for x, y, text in labels:
                artists += self._marker(x, y, "#6a1b9a", text, 6.0)
            artists.sort(key=lambda a: a.get_zorder())  # draw order as a full redraw would
            for a in artists:
                self._ax.draw_artist(a)
            w, h = self._canvas.get_width_height()
            img = Image.frombuffer("RGBA", (w, h), self._canvas.buffer_rgba(), "raw", "RGBA", 0, 1).convert("RGB")
            for a in artists:
                a.remove()
        return img


def render_bev(
    people: Mapping[int, BevPerson],
    robot_pose: tuple[float, float, float] | None,
    goal_xy: tuple[float, float] | None,
    limits: BevLimits = BevLimits(),
    n_labels: int | None = None,
    style: BevStyle = BevStyle(),
) -> Image.Image:
    """One bird's-eye view as an RGB image of ``size_in·dpi`` pixels square.

    ``robot_pose`` is (x, y, heading) in the initial robot frame; ``people`` are keyed by
    label; ``n_labels`` (default: the largest label) fixes the colours. For many timesteps
    of one sample, :class:`BevRenderer` is faster."""
    n = max(n_labels or 0, max(people, default=0))
    return BevRenderer(limits, goal_xy, n, style).render(people, robot_pose)


# --------------------------------------------------------------------------- composites


def compose(front: Image.Image, bev: Image.Image) -> Image.Image:
    """``front`` on top, ``bev`` resized (bilinear) to the same width below it."""
    w = front.width
    h = max(1, round(bev.height * w / bev.width))
    bev_r = bev.convert("RGB")
    if bev_r.size != (w, h):
        bev_r = bev_r.resize((w, h), Image.Resampling.BILINEAR)
    out = Image.new("RGB", (w, front.height + h))
    out.paste(front.convert("RGB"), (0, 0))
    out.paste(bev_r, (0, front.height))
    return out


def to_png_bytes(img: Image.Image) -> bytes:
    """PNG bytes with no metadata chunks (stable for identical pixels)."""
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, compress_level=6)
    return buf.getvalue()


def _check_mode(mode: str) -> None:
    if mode not in IMAGE_MODES:
        raise UsageError(f"unknown image mode {mode!r}; choose one of {', '.join(IMAGE_MODES)}")


def render_scene(
    scene: Scene,
    mode: str = "img-with-bev",
    frames: Sequence[Image.Image] | None = None,
    front_style: FrontStyle = FrontStyle(),
    bev_style: BevStyle | None = None,
    bbox_space: tuple[int, int] = (1280, 720),
    max_side: int = 0,
) -> list[Image.Image]:
    """One image per timestep of ``scene.robot`` in ``mode``.

    ``frames`` (already loaded images, e.g. from a simulator) take precedence over
    ``scene.frames`` (paths); they are needed for ``img`` and ``img-with-bev``.

    Bounding boxes are in pixels of a ``bbox_space`` image (the camera's native
    resolution). Frames of another size get the marker positions scaled to them, and the
    circle radius and font scaled with the width.

    With ``bev_style`` None, ``bev`` images are 7 in at 300 dpi (2100 px, official) and
    composites draw the BEV directly at the frame's width (dpi = width / 7), which looks the
    same as the official 300-dpi render shrunk to that width and is about twice as fast;
    pass ``BevStyle(dpi=300)`` for the official render-then-shrink path.

    ``max_side`` > 0 draws every image at the size it will be sent at: no longer side than
    ``max_side`` (the image policy's), never upscaled. Frames are shrunk first (JPEG frames
    are decoded at a reduced scale where possible), markers, circles and fonts scale with
    them, and the BEV is drawn at the matching dpi. The result looks like the full-size
    render shrunk to that size (same layout, colours and labels; not the same pixels), at a
    fraction of the cost. 0 renders at full size."""
    _check_mode(mode)
    n_t = len(scene.robot)
    n_labels = max(len(scene.people), scene.n_people or 0)
    imgs: list[Image.Image] = []
    if mode != "bev":
        if frames is None:
            if len(scene.frames) < n_t:
                raise DataError.single(
                    scene.sample_id or "<scene>",
                    "frames",
                    f"needs {n_t} raw frames, has {len(scene.frames)}",
                    "add front_view/<S>/<F>.jpg for F0..F0+9",
                )
            frames = [_load_frame(p, mode, max_side) for p in scene.frames[:n_t]]
        elif len(frames) < n_t:
            raise UsageError(f"render_scene: {len(frames)} frames given for {n_t} timesteps")
        if max_side > 0:
            frames = [_shrink_frame(f, mode, max_side) for f in frames[:n_t]]
    bev_renderer = None
    if bev_style is None:
        bev_style = BevStyle()
        if mode == "img-with-bev" and frames is not None:
            bev_style = BevStyle(dpi=frames[0].width / bev_style.size_in)
        elif mode == "bev" and max_side > 0:
            side = bev_style.size_in * bev_style.dpi
            if side > max_side:
                bev_style = BevStyle(dpi=max_side / bev_style.size_in)
    if mode != "img":
        limits = bev_limits(scene.people, scene.robot, scene.goal_xy)
        bev_renderer = BevRenderer(limits, scene.goal_xy, n_labels, bev_style)
    for t in range(n_t):
        front = None
        if frames is not None and mode != "bev":
            frame = frames[t]
            sx, sy = frame.width / bbox_space[0], frame.height / bbox_space[1]
            markers = {k: (u * sx, v * sy) for k, (u, v) in front_markers(scene.people, t).items()}
            style = (
                front_style
                if sx == 1.0
                else FrontStyle(
                    max(1, round(front_style.circle_radius * sx)),
                    max(6, round(front_style.font_size * sx)),
                    front_style.text_color,
                )
            )
            front = render_front_view(frame, markers, n_labels, style)
        if mode == "img":
            imgs.append(front)  # type: ignore[arg-type]
            continue
        rx, ry, _ = scene.robot.pose(t)
        assert bev_renderer is not None
        bev = bev_renderer.render(bev_people(scene.people, t), (rx, ry, float(scene.robot.heading[t])))
        imgs.append(bev if mode == "bev" else compose(front, bev))  # type: ignore[arg-type]
    return imgs


def target_frame_size(size: tuple[int, int], mode: str, max_side: int) -> tuple[int, int]:
    """The size a ``size`` frame is drawn at so that the ``mode`` image it ends up in has
    no side longer than ``max_side`` (0: unchanged; never upscaled).

    A composite is the frame above a square BEV of the same width, so the frame gets the
    height left under ``max_side`` once the width is scaled."""
    w, h = size
    full_h = h + w if mode == "img-with-bev" else h
    if max_side <= 0 or max(w, full_h) <= max_side:
        return w, h
    s = max_side / max(w, full_h)
    tw = max(1, round(w * s))
    th = max(1, round(full_h * s) - (tw if mode == "img-with-bev" else 0))
    return tw, th


def _shrink_frame(frame: Image.Image, mode: str, max_side: int) -> Image.Image:
    size = target_frame_size(frame.size, mode, max_side)
    if size == frame.size:
        return frame
    return frame.convert("RGB").resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)


def _load_frame(path: Path, mode: str = "img", max_side: int = 0) -> Image.Image:
    """A raw frame as RGB; with ``max_side`` a JPEG is decoded at the smallest DCT scale
    that still covers the size it will be drawn at (see :func:`target_frame_size`)."""
    try:
        with Image.open(path) as im:
            if max_side > 0 and im.format == "JPEG":
                im.draft("RGB", target_frame_size(im.size, mode, max_side))
            return im.convert("RGB")
    except FileNotFoundError:
        raise DataError.single(path, "", "raw frame not found", "check front_view/<S>/") from None
    except OSError as e:
        raise DataError.single(path, "", f"cannot read image: {e}") from None


def render_sample(
    source: Mapping[str, Any] | Scene,
    mode: str = "img-with-bev",
    official_offset: bool = False,
    bev_dpi: float | None = None,
    bbox_space: tuple[int, int] = (1280, 720),
    max_side: int = 0,
) -> list[Image.Image]:
    """The 10 prompt images of one sample from raw frames, tracks, odometry and goal.

    ``source`` is a SocialNav-SUB item's metadata (``tracks_path``, ``odometry_path``,
    ``frames``, ``first_frame``, ``goal_xy``, ``n_people``) or a loaded :class:`Scene`.
    ``bev_dpi`` None picks the defaults of :func:`render_scene`; ``bbox_space`` is the
    resolution the tracks' bounding boxes refer to (``dataset_cfg.yaml``'s native
    resolution); ``max_side`` > 0 draws at the size that will be sent (see
    :func:`render_scene`)."""
    _check_mode(mode)
    scene = (
        source
        if isinstance(source, Scene)
        else load_scene(source, official_offset=official_offset, require_odometry=(mode != "img"))
    )
    return render_scene(
        scene,
        mode,
        bev_style=None if bev_dpi is None else BevStyle(dpi=bev_dpi),
        bbox_space=bbox_space,
        max_side=max_side,
    )
