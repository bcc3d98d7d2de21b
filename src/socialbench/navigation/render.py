"""Render SocialNav-SUB prompt images: annotated front view, BEV, and composites.

What is drawn follows the official prompt builder (reference §c):

* **Front view** — every labelled person seen at timestep t gets a filled circle
  (radius 30 px) at the centre of its bounding box, coloured by label from matplotlib's
  ``brg`` colormap at ``linspace(0, 1, N)``, with the number in white. The number is
  centred on its inked box, which subsumes the official 14-px left shift of 2-digit labels.
  The goal is not drawn.
* **BEV** — see :mod:`socialbench.navigation.bev` (re-exported here).
* **Composite** (``img-with-bev``) — the annotated frame with the BEV resized to the same
  width below it (1280×2000 for SCAND frames).

Unlike the official code, ``bev`` images are RGB (the official ones are left in BGR order),
and the robot pose at timestep t uses odometry frame F0+t (see
:mod:`socialbench.navigation.frames`; ``official_offset=True`` gives F0+1+t). ``mirror=True``
draws the mirror image (:mod:`socialbench.navigation.mirror`).

Determinism: the same inputs give the same pixels (the BEV's are matplotlib's, drawn with
fixed rcParams under a lock); :func:`to_png_bytes` writes PNGs without timestamps or software
tags. Pixels can change across matplotlib / Pillow / FreeType versions.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from socialbench.errors import DataError, UsageError
from socialbench.navigation.bev import BevRenderer, BevStyle, bev_limits, bev_people
from socialbench.navigation.colors import RGB, label_color, label_colors
from socialbench.navigation.frame_files import load_frame, shrink_frame
from socialbench.navigation.frames import Scene, load_scene
from socialbench.navigation.image_modes import IMAGE_MODES
from socialbench.navigation.mirror import mirror_scene
from socialbench.navigation.tracks import PersonTrack

# --------------------------------------------------------------------------- styles


@dataclass(frozen=True)
class FrontStyle:
    """Front-view annotation settings (official: radius 30 px; cv2 scale 1.3, thickness 5
    is matched by a 40-px bold DejaVu Sans)."""

    circle_radius: int = 30
    font_size: int = 40
    text_color: RGB = (255, 255, 255)


# --------------------------------------------------------------------------- front view


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont:
    import matplotlib

    path = os.path.join(matplotlib.get_data_path(), "fonts", "ttf", "DejaVuSans-Bold.ttf")
    return ImageFont.truetype(path, size)


@lru_cache(maxsize=256)
def _text_box(text: str, size: int) -> tuple[float, float, float, float]:
    """The inked box of ``text`` at ``size`` anchored at its baseline ("ls") at (0, 0), as
    ``ImageDraw.textbbox`` measures it on an RGB image (cached: it lays the text out)."""
    x0, y0, x1, y1 = ImageDraw.Draw(Image.new("RGB", (1, 1))).textbbox((0, 0), text, font=_font(size), anchor="ls")
    return x0, y0, x1, y1


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
        draw.ellipse((u - r, v - r, u + r, v + r), fill=label_color(colors, label))
        text = str(label)
        x0, y0, x1, y1 = _text_box(text, style.font_size)
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


# --------------------------------------------------------------------------- composites


def compose(front: Image.Image, bev: Image.Image) -> Image.Image:
    """``front`` on top, ``bev`` resized (bilinear) to the same width below it."""
    w = front.width
    h = max(1, round(bev.height * w / bev.width))
    bev_r = bev if bev.mode == "RGB" else bev.convert("RGB")
    if bev_r.size != (w, h):
        bev_r = bev_r.resize((w, h), Image.Resampling.BILINEAR)
    out = Image.new("RGB", (w, front.height + h))
    out.paste(front if front.mode == "RGB" else front.convert("RGB"), (0, 0))
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
    mirror: bool = False,
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
    fraction of the cost. 0 renders at full size.

    ``mirror`` draws the scene's mirror image (:func:`~socialbench.navigation.mirror.mirror_scene`
    on flipped frames), its numbers and axes drawn afterwards so that they read normally."""
    _check_mode(mode)
    if mirror:
        scene = mirror_scene(scene, bbox_space[0])
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
            frames = [load_frame(p, mode, max_side) for p in scene.frames[:n_t]]
        elif len(frames) < n_t:
            raise UsageError(f"render_scene: {len(frames)} frames given for {n_t} timesteps")
        if max_side > 0:
            frames = [shrink_frame(f, mode, max_side) for f in frames[:n_t]]
        if mirror:
            frames = [f.transpose(Image.Transpose.FLIP_LEFT_RIGHT) for f in frames[:n_t]]
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


def render_sample(
    source: Mapping[str, Any] | Scene,
    mode: str = "img-with-bev",
    official_offset: bool = False,
    bev_dpi: float | None = None,
    bbox_space: tuple[int, int] = (1280, 720),
    max_side: int = 0,
    mirror: bool = False,
) -> list[Image.Image]:
    """The 10 prompt images of one sample from raw frames, tracks, odometry and goal.

    ``source`` is a SocialNav-SUB item's metadata (``tracks_path``, ``odometry_path``,
    ``frames``, ``first_frame``, ``goal_xy``, ``n_people``) or a loaded :class:`Scene`.
    ``bev_dpi`` None picks the defaults of :func:`render_scene`, which explains the other
    arguments (``bbox_space``: ``dataset_cfg.yaml``'s native resolution)."""
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
        mirror=mirror,
    )
