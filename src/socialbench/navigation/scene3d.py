"""Raw front-camera frames of a simulated scene: a simple 3-D world through a pinhole camera.

The world (initial robot frame, x forward, y left, z up, metres) holds a ground plane with a
1 m grid, optional corridor walls (vertical planes 2.6 m high along lines ``y = const``), a goal
marker (a 1.5 m pole with a flag) and people drawn as upright coloured figures (legs,
torso, head, ground shadow) whose size comes from :meth:`PinholeCamera.person_bbox`, the same
box the tracks file stores. Everything is projected by
:class:`~socialbench.navigation.projection.PinholeCamera` from the robot's pose at each
timestep (the camera looks along the robot's yaw).

Depth ordering and occlusion: walls are drawn first (from a camera inside the corridor they
never hide the people or the goal), then the goal and people far to near (painter's
algorithm), so nearer figures cover farther ones. :meth:`FrontViewRenderer.observe` measures
what a detector would see: each person's box in native camera pixels (clipped to the image)
and the visible share of their silhouette, from an ID buffer drawn in the same order at a
fixed resolution (``visibility_size``), so visibility does not depend on the frame size
asked for.

These frames are *raw* (no numbers or circles: :mod:`socialbench.navigation.render` draws
them, as for real frames). Pillow only, no randomness: the same inputs give the same pixels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from PIL import Image, ImageDraw

from socialbench.navigation.projection import PinholeCamera
from socialbench.navigation.scene3d_drawing import draw_figure, sky_ground
from socialbench.navigation.scene3d_geometry import (
    camera_pixels,
    clip_near,
    clip_to_rect,
    person_boxes,
    scaled_camera,
    to_robot,
)
from socialbench.navigation.scene3d_types import PALETTES, RGB, Detection, PersonView

WALL_HEIGHT = 2.6
GOAL_POLE_HEIGHT = 1.5
GRID_EXTENT = 10.0  # the ground grid covers a square of ± this many metres around the robot
WALL_EXTENT = 25.0  # walls are drawn ± this many metres along x around the robot


class FrontViewRenderer:
    """Renders the raw frames of one scene and measures what a detector would see.

    ``camera`` is the native camera (box coordinates); frames are drawn at ``size`` with
    the intrinsics scaled to it. ``walls`` are the ``y`` of corridor walls in the initial
    robot frame; ``goal_xy`` the goal marker (None: no marker)."""

    def __init__(
        self,
        camera: PinholeCamera = PinholeCamera(),
        size: tuple[int, int] = (640, 360),
        scene_type: str = "plaza",
        walls: Sequence[float] = (),
        goal_xy: tuple[float, float] | None = None,
        visibility_size: tuple[int, int] = (320, 180),
    ):
        if scene_type not in PALETTES:
            raise ValueError(f"scene_type must be one of {sorted(PALETTES)}, got {scene_type!r}")
        self.native = camera
        self.camera = scaled_camera(camera, size)
        self.vis_camera = scaled_camera(camera, visibility_size)
        self.size = (int(size[0]), int(size[1]))
        self.palette = PALETTES[scene_type]
        self.walls = tuple(float(w) for w in walls)
        self.goal_xy = goal_xy

    # ------------------------------------------------------------------ geometry

    def _cam_points(self, pose: tuple[float, float, float], pts3: np.ndarray) -> np.ndarray:
        """Initial-frame 3-D points -> camera frame of the robot at ``pose``."""
        xy = to_robot(pts3[:, :2], pose)
        return self.camera.robot_to_camera(np.column_stack([xy, pts3[:, 2]]))

    def _polygon(
        self, draw: ImageDraw.ImageDraw, pose: tuple[float, float, float], pts3: np.ndarray, colour: RGB
    ) -> None:
        cam = clip_near(self._cam_points(pose, pts3), self.camera.near)
        if len(cam) >= 3:
            draw.polygon(camera_pixels(self.camera, cam), fill=colour)

    def _segments(
        self, draw: ImageDraw.ImageDraw, pose: tuple[float, float, float], segs: np.ndarray, colour: RGB, width: int = 1
    ) -> None:
        """Draw initial-frame 3-D segments ``(M, 2, 3)``, clipped to the near plane and to the
        image (all at once)."""
        segs = np.asarray(segs, dtype=float).reshape(-1, 2, 3)
        if len(segs) == 0:
            return
        cam = self._cam_points(pose, segs.reshape(-1, 3)).reshape(-1, 2, 3)
        a, b = cam[:, 0, :], cam[:, 1, :]
        near = self.camera.near
        keep = (a[:, 2] >= near) | (b[:, 2] >= near)
        a, b = a[keep], b[keep]
        with np.errstate(divide="ignore", invalid="ignore"):
            sa = np.where(a[:, 2] < near, (near - a[:, 2]) / (b[:, 2] - a[:, 2]), 0.0)
            sb = np.where(b[:, 2] < near, (near - b[:, 2]) / (a[:, 2] - b[:, 2]), 0.0)
        a2 = a + sa[:, None] * (b - a)
        b2 = b + sb[:, None] * (a - b)
        cam_ = self.camera
        pa = np.column_stack([cam_.fx * a2[:, 0] / a2[:, 2] + cam_.cx, cam_.fy * a2[:, 1] / a2[:, 2] + cam_.cy])
        pb = np.column_stack([cam_.fx * b2[:, 0] / b2[:, 2] + cam_.cx, cam_.fy * b2[:, 1] / b2[:, 2] + cam_.cy])
        pa, pb, ok = clip_to_rect(pa, pb, -2.0, -2.0, cam_.width + 2.0, cam_.height + 2.0)
        for p, q in zip(pa[ok], pb[ok]):
            draw.line([(float(p[0]), float(p[1])), (float(q[0]), float(q[1]))], fill=colour, width=width)

    # ------------------------------------------------------------------ drawing

    def _ground(self, draw: ImageDraw.ImageDraw, pose: tuple[float, float, float]) -> None:
        lim = GRID_EXTENT
        cx, cy = round(pose[0]), round(pose[1])
        ylo, yhi = cy - lim, cy + lim
        if len(self.walls) >= 2:
            ylo, yhi = max(ylo, min(self.walls)), min(yhi, max(self.walls))
        ks = np.arange(-int(lim), int(lim) + 1, dtype=float)
        across = np.stack(
            [
                np.column_stack([cx + ks, np.full_like(ks, ylo), np.zeros_like(ks)]),
                np.column_stack([cx + ks, np.full_like(ks, yhi), np.zeros_like(ks)]),
            ],
            axis=1,
        )
        gy = cy + ks
        gy = gy[(gy >= ylo) & (gy <= yhi)]
        along = np.stack(
            [
                np.column_stack([np.full_like(gy, cx - lim), gy, np.zeros_like(gy)]),
                np.column_stack([np.full_like(gy, cx + lim), gy, np.zeros_like(gy)]),
            ],
            axis=1,
        )
        self._segments(draw, pose, np.concatenate([across, along]), self.palette.grid)

    def _walls(self, draw: ImageDraw.ImageDraw, pose: tuple[float, float, float]) -> None:
        pal = self.palette
        x0, x1 = pose[0] - WALL_EXTENT, pose[0] + WALL_EXTENT
        ks = 2.0 * np.arange(int(math.floor(x0 / 2.0)), int(math.ceil(x1 / 2.0)) + 1)  # pillars every 2 m
        for wy in self.walls:
            quad = np.array([[x0, wy, 0.0], [x1, wy, 0.0], [x1, wy, WALL_HEIGHT], [x0, wy, WALL_HEIGHT]])
            self._polygon(draw, pose, quad, pal.wall)
            pillars = np.stack(
                [
                    np.column_stack([ks, np.full_like(ks, wy), np.zeros_like(ks)]),
                    np.column_stack([ks, np.full_like(ks, wy), np.full_like(ks, WALL_HEIGHT)]),
                ],
                axis=1,
            )
            base = np.array([[[x0, wy, 0.0], [x1, wy, 0.0]]])
            self._segments(draw, pose, np.concatenate([pillars, base]), pal.wall_line, 2)

    def _goal(self, draw: ImageDraw.ImageDraw, pose: tuple[float, float, float]) -> None:
        assert self.goal_xy is not None
        gx, gy = self.goal_xy
        rel = to_robot(np.array([[gx, gy]]), pose)[0]
        n = np.array([-rel[1], rel[0]]) / max(1e-9, float(np.hypot(*rel)))  # across the line of sight
        c, s = math.cos(pose[2]), math.sin(pose[2])
        side = np.array([c * n[0] - s * n[1], s * n[0] + c * n[1]])  # in the initial frame
        hw = 0.05
        a, b = np.array([gx, gy]) - hw * side, np.array([gx, gy]) + hw * side
        pole = np.array(
            [[a[0], a[1], 0.0], [b[0], b[1], 0.0], [b[0], b[1], GOAL_POLE_HEIGHT], [a[0], a[1], GOAL_POLE_HEIGHT]]
        )
        base = np.array(
            [[gx - 0.3, gy - 0.3, 0.0], [gx + 0.3, gy - 0.3, 0.0], [gx + 0.3, gy + 0.3, 0.0], [gx - 0.3, gy + 0.3, 0.0]]
        )
        tip = np.array([gx, gy]) + 0.45 * side
        flag = np.array(
            [
                [b[0], b[1], GOAL_POLE_HEIGHT],
                [tip[0], tip[1], GOAL_POLE_HEIGHT - 0.15],
                [b[0], b[1], GOAL_POLE_HEIGHT - 0.3],
            ]
        )
        self._polygon(draw, pose, base, (240, 120, 20))
        self._polygon(draw, pose, pole, (200, 40, 30))
        self._polygon(draw, pose, flag, (250, 210, 30))

    def _people_order(
        self, pose: tuple[float, float, float], people: Sequence[PersonView]
    ) -> tuple[np.ndarray, np.ndarray]:
        """(indices far to near, robot-frame xy ``(N, 2)``) of ``people``."""
        if not people:
            return np.zeros(0, dtype=int), np.zeros((0, 2))
        rel = to_robot(np.array([[p.x, p.y] for p in people]), pose)
        return np.argsort(-rel[:, 0], kind="stable"), rel

    def render(self, pose: tuple[float, float, float], people: Sequence[PersonView]) -> Image.Image:
        """The raw frame seen from the robot at ``pose`` = (x, y, yaw) (initial frame)."""
        horizon = int(round(self.camera.cy))  # level camera: the horizon is the principal row
        img = sky_ground(self.size, horizon, self.palette).copy()
        draw = ImageDraw.Draw(img)
        self._ground(draw, pose)
        self._walls(draw, pose)
        order, rel = self._people_order(pose, people)
        boxes = person_boxes(
            self.camera, rel, [p.appearance.height for p in people], [p.appearance.width for p in people]
        )
        sprites: list[tuple[float, int]] = [(float(rel[i, 0]), int(i)) for i in order if np.isfinite(boxes[i]).all()]
        if self.goal_xy is not None:
            gd = float(to_robot(np.array([self.goal_xy]), pose)[0, 0])
            if gd > self.camera.near:
                sprites.append((gd, -1))
        sprites.sort(key=lambda s: (-s[0], s[1]))
        for _, i in sprites:
            if i < 0:
                self._goal(draw, pose)
                continue
            p = people[i]
            x1, y1, x2, y2 = (float(v) for v in boxes[i])
            w = x2 - x1
            draw.ellipse([x1 - 0.15 * w, y2 - 0.06 * w, x2 + 0.15 * w, y2 + 0.06 * w], fill=(70, 70, 70))
            draw_figure(draw, (x1, y1, x2, y2), p.appearance, p.phase, p.walking)
        return img

    def observe(self, pose: tuple[float, float, float], people: Sequence[PersonView]) -> list[Detection]:
        """One :class:`Detection` per person (in input order) for the robot at ``pose``."""
        cam = self.vis_camera
        vw, vh = cam.width, cam.height
        ids = Image.new("I", (vw, vh), 0)
        draw = ImageDraw.Draw(ids)
        order, rel = self._people_order(pose, people)
        heights = [p.appearance.height for p in people]
        widths = [p.appearance.width for p in people]
        native = person_boxes(self.native, rel, heights, widths)
        small = person_boxes(cam, rel, heights, widths)
        W, H = self.native.width, self.native.height
        dets: list[Detection] = []
        full: dict[int, int] = {}
        for i, p in enumerate(people):
            depth = float(rel[i, 0] - self.native.x_offset)
            if not (np.isfinite(native[i]).all() and np.isfinite(small[i]).all()):
                dets.append(Detection(None, 0.0, 0.0, depth))
                continue
            x1, y1, x2, y2 = (float(v) for v in native[i])
            cx1, cx2 = min(max(x1, 0.0), W), min(max(x2, 0.0), W)
            cy1, cy2 = min(max(y1, 0.0), H), min(max(y2, 0.0), H)
            in_view = (cx2 - cx1) / (x2 - x1) if x2 > x1 else 0.0
            box = (round(cx1, 1), round(cy1, 1), round(cx2, 1), round(cy2, 1)) if cx2 > cx1 and cy2 > cy1 else None
            dets.append(Detection(box, 0.0, float(in_view), depth))
            if box is not None:
                sb = (float(small[i, 0]), float(small[i, 1]), float(small[i, 2]), float(small[i, 3]))
                alone = Image.new("1", (vw, vh), 0)
                draw_figure(ImageDraw.Draw(alone), sb, p.appearance, p.phase, p.walking, fill=1)
                full[i] = int(np.count_nonzero(np.asarray(alone)))
        for i in order:  # far to near: nearer silhouettes overwrite farther ones
            if int(i) in full:
                q = people[i]
                sb = (float(small[i, 0]), float(small[i, 1]), float(small[i, 2]), float(small[i, 3]))
                draw_figure(draw, sb, q.appearance, q.phase, q.walking, fill=int(i) + 1)
        counts = np.bincount(np.asarray(ids, dtype=np.int64).reshape(-1), minlength=len(people) + 1)
        for i, n_full in full.items():
            frac = float(counts[i + 1]) / n_full if n_full > 0 else 0.0
            dets[i] = replace(dets[i], visible_fraction=min(1.0, frac))
        return dets


__all__ = ["FrontViewRenderer", "WALL_HEIGHT", "GOAL_POLE_HEIGHT"]
