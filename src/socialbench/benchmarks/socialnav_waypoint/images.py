"""The waypoint image: the clip's last frame with the candidate waypoints drawn on it.

Front view: the last raw frame with the people's numbered circles (as SocialNav-SUB) and each
candidate as a purple lettered disc at its ground point, projected with the dataset's pinhole
camera (``dataset_cfg.yaml``) from the robot's pose at the last frame; a candidate outside
the camera's view is drawn only in the BEV. BEV: the last timestep's bird's-eye view with the
candidates as purple lettered markers. ``--images`` picks front view and BEV stacked
(``img-with-bev``), the front view (``img``) or the BEV (``bev``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from socialbench.types import EncodedImage
from socialbench.vision.images import ImagePolicy, prepare_image
from socialbench.vision.prepare import PerturbSpec

__all__ = ["WaypointImage", "render_waypoint_image"]

_PURPLE = (106, 27, 154)


def _draw_letters(img: Image.Image, points: list[tuple[float, float, str]], radius: int, font_size: int) -> Image.Image:
    from socialbench.navigation.render import _font

    out = img.copy()
    draw = ImageDraw.Draw(out)
    font = _font(font_size)
    for u, v, text in points:
        if not (math.isfinite(u) and math.isfinite(v)) or not (0 <= u < img.width and 0 <= v < img.height):
            continue
        draw.ellipse((u - radius, v - radius, u + radius, v + radius), fill=_PURPLE, outline=(255, 255, 255), width=2)
        x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font, anchor="ls")
        draw.text((u - (x0 + x1) / 2.0, v - (y0 + y1) / 2.0), text, font=font, anchor="ls", fill=(255, 255, 255))
    return out


def render_waypoint_image(
    metadata: Mapping[str, Any],
    camera_cfg: Mapping[str, Any],
    candidates: tuple[tuple[str, float, float], ...],
    mode: str = "img-with-bev",
) -> Image.Image:
    """The annotated last frame (see the module docstring). ``candidates`` are (label, x, y)
    in the robot frame at the last frame."""
    import numpy as np

    from socialbench.navigation.bev import BevLimits, BevRenderer, BevStyle, bev_limits, bev_people
    from socialbench.navigation.frames import load_scene
    from socialbench.navigation.projection import PinholeCamera
    from socialbench.navigation.render import (
        FrontStyle,
        _load_frame,
        compose,
        front_markers,
        render_front_view,
    )

    scene = load_scene(metadata)
    t = len(scene.robot) - 1
    rx, ry, ryaw = scene.robot.pose(t)
    c, s = math.cos(ryaw), math.sin(ryaw)
    initial = [(rx + c * x - s * y, ry + s * x + c * y, label) for label, x, y in candidates]
    n_labels = max(len(scene.people), scene.n_people or 0)
    front = None
    if mode != "bev":
        frame = _load_frame(scene.frames[t], "img")
        camera = PinholeCamera.from_dataset_cfg(dict(camera_cfg)) if camera_cfg else PinholeCamera()
        sx, sy = frame.width / camera.width, frame.height / camera.height
        markers = {
            k: (u * frame.width / 1280, v * frame.height / 720) for k, (u, v) in front_markers(scene.people, t).items()
        }
        style = FrontStyle()
        scale = frame.width / 1280
        style = FrontStyle(
            max(1, round(style.circle_radius * scale)), max(6, round(style.font_size * scale)), style.text_color
        )
        front = render_front_view(frame, markers, n_labels, style)
        pts = np.array([[x, y, 0.0] for _, x, y in candidates], dtype=float)
        uv, depth = camera.project(pts)
        letters = [
            (float(u) * sx, float(v) * sy, label) for (u, v), z, (label, _, _) in zip(uv, depth, candidates) if z > 0
        ]
        front = _draw_letters(front, letters, style.circle_radius, style.font_size)
    if mode == "img":
        assert front is not None
        return front
    limits = bev_limits(scene.people, scene.robot, scene.goal_xy)
    xs = [p[0] for p in initial] + [limits.x_min + 0.5, limits.x_max - 0.5]
    ys = [p[1] for p in initial] + [limits.y_min + 0.5, limits.y_max - 0.5]
    limits = BevLimits(min(xs) - 0.5, max(xs) + 0.5, min(ys) - 0.5, max(ys) + 0.5)
    bev_style = BevStyle(dpi=front.width / BevStyle().size_in) if front is not None else BevStyle()
    bev = BevRenderer(limits, scene.goal_xy, n_labels, bev_style).render(
        bev_people(scene.people, t), (rx, ry, float(scene.robot.heading[t])), labels=initial
    )
    if mode == "bev":
        return bev
    assert front is not None  # drawn above for every mode but "bev"
    return compose(front, bev)


@dataclass(frozen=True)
class WaypointImage:
    """A picklable image job (see :mod:`socialbench.vision.prepare`): one encoded image."""

    metadata: Mapping[str, Any]
    camera_cfg: Mapping[str, Any]
    candidates: tuple[tuple[str, float, float], ...]
    mode: str
    policy: ImagePolicy
    perturb: PerturbSpec | None = None  # the run's image perturbation, applied before resizing

    def cache_key(self) -> str | None:
        return None  # one image, cheap next to the clip's ten; not cached

    def run(self) -> tuple[EncodedImage, ...]:
        img = render_waypoint_image(self.metadata, self.camera_cfg, self.candidates, self.mode)
        transform = self.perturb.transform() if self.perturb is not None else None
        return (prepare_image(img, self.policy, transform),)
