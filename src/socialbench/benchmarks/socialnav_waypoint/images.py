"""The waypoint image: the clip's last frame with the candidate waypoints drawn on it.

Front view: the last raw frame with the people's numbered circles and each candidate as a
purple lettered disc at its ground point, projected with the dataset's pinhole camera from
the robot's pose at the last frame (a candidate out of view is drawn only in the BEV). BEV:
the last timestep's bird's-eye view with the candidates, drawn in the robot's frame **at the
last timestep** (:func:`last_frame_bev_scene`), unlike the clip's BEVs, drawn in the frame of
the first image. ``--images`` picks which of the two are sent.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw

from socialbench.types import EncodedImage
from socialbench.vision.images import ImagePolicy, prepare_image
from socialbench.vision.prepare import PerturbSpec

if TYPE_CHECKING:
    from socialbench.navigation.bev import BevLimits, BevPerson
    from socialbench.navigation.frames import Scene

__all__ = ["LastFrameBev", "WaypointImage", "last_frame_bev_scene", "render_waypoint_image"]

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


@dataclass(frozen=True)
class LastFrameBev:
    """What the waypoint image's BEV shows, in the robot frame at the last timestep."""

    people: dict[int, BevPerson]  # label -> person
    robot: tuple[float, float, float]  # (0, 0, direction of travel)
    goal: tuple[float, float] | None
    limits: BevLimits


#: The waypoint BEV's starting window (metres, robot frame at the last frame): 10 m square,
#: 1.5 m behind the robot; it grows to hold everything drawn. Markers are drawn at
#: :data:`MARKER_SCALE` of the official size so that candidates :data:`~.candidates.MIN_SPACING_M`
#: apart do not overlap in a 10 m window.
START_LIMITS = (-1.5, 8.5, -5.0, 5.0)
MARKER_SCALE = 0.5


def last_frame_bev_scene(
    scene: Scene, candidates: tuple[tuple[str, float, float], ...], margin: float = 0.5
) -> LastFrameBev:
    """The scene at its last timestep moved into the robot frame of that timestep (robot at
    the origin facing +x, drawn up), with limits that start at :data:`START_LIMITS` and grow
    to every drawn person, the robot, the goal and every candidate, each ± ``margin``."""
    import numpy as np

    from socialbench.navigation.bev import BevLimits, BevPerson, bev_people
    from socialbench.navigation.frames import Pose2D, world_to_local, wrap_angle

    t = len(scene.robot) - 1
    origin = Pose2D(*scene.robot.pose(t))

    def local(p: tuple[float, float]) -> tuple[float, float]:
        q = world_to_local(np.asarray(p, dtype=float), origin)
        return (float(q[0]), float(q[1]))

    people = {
        label: BevPerson(*local((p.x, p.y)), None if p.heading is None else wrap_angle(p.heading - origin.yaw))
        for label, p in bev_people(scene.people, t).items()
    }
    goal = local(scene.goal_xy) if scene.goal_xy is not None else None
    pts = [(p.x, p.y) for p in people.values()] + [(0.0, 0.0)] + [(x, y) for _, x, y in candidates]
    pts += [goal] if goal is not None else []
    allp = np.asarray(pts, dtype=float)
    allp = allp[np.isfinite(allp).all(axis=1)]
    x0, x1, y0, y1 = START_LIMITS
    lim = BevLimits(
        min(x0, float(allp[:, 0].min()) - margin),
        max(x1, float(allp[:, 0].max()) + margin),
        min(y0, float(allp[:, 1].min()) - margin),
        max(y1, float(allp[:, 1].max()) + margin),
    )
    heading = wrap_angle(float(scene.robot.heading[t]) - origin.yaw)
    return LastFrameBev(people, (0.0, 0.0, heading), goal, lim)


def render_waypoint_image(
    metadata: Mapping[str, object],
    camera_cfg: Mapping[str, object],
    candidates: tuple[tuple[str, float, float], ...],
    mode: str = "img-with-bev",
) -> Image.Image:
    """The annotated last frame (see the module docstring). ``candidates`` are (label, x, y)
    in the robot frame at the last frame."""
    import numpy as np

    from socialbench.navigation.bev import BevRenderer, BevStyle
    from socialbench.navigation.frame_files import load_frame
    from socialbench.navigation.frames import load_scene
    from socialbench.navigation.projection import PinholeCamera
    from socialbench.navigation.render import FrontStyle, compose, front_markers, render_front_view

    scene = load_scene(metadata)
    t = len(scene.robot) - 1
    n_labels = max(len(scene.people), scene.n_people or 0)
    front = None
    if mode != "bev":
        frame = load_frame(scene.frames[t], "img")
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
    view = last_frame_bev_scene(scene, candidates)
    official = BevStyle()
    bev_style = BevStyle(
        dpi=front.width / official.size_in if front is not None else official.dpi,
        markersize=official.markersize * MARKER_SCALE,
        fontsize=official.fontsize * MARKER_SCALE,
    )
    bev = BevRenderer(view.limits, view.goal, n_labels, bev_style).render(
        view.people, view.robot, labels=[(x, y, label) for label, x, y in candidates]
    )
    if mode == "bev":
        return bev
    assert front is not None  # drawn above for every mode but "bev"
    return compose(front, bev)


@dataclass(frozen=True)
class WaypointImage:
    """A picklable image job (see :mod:`socialbench.vision.prepare`): one encoded image."""

    metadata: Mapping[str, object]
    camera_cfg: Mapping[str, object]
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
