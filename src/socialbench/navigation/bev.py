"""The bird's-eye view (BEV) of a SocialNav-SUB sample: limits, people and the renderer.

What is drawn follows the official prompt builder (reference §c): a 7×7 in figure (300 dpi by
default: 2100×2100 px), forward (x) up and lateral (y) across with left on the left. Axis
limits start at x∈[0, 10], y∈[-5, 5] and grow to hold every labelled track, every robot
waypoint and the goal, each ± 0.5 m (one set of limits per sample). People are numbered
coloured markers (markersize 20, fontsize 15); a heading arrow (length 0.5, width 0.1) is
drawn when ``pos_diff`` > 0.075. The robot is a black "R" marker with a heading arrow, the goal
a black "G" marker.

The same inputs give the same pixels (Agg canvas, no pyplot, default rcParams plus the
bundled DejaVu Sans, under a lock); they can change across matplotlib / FreeType versions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from PIL import Image

from socialbench.navigation.bev_stage import RGBA, stage
from socialbench.navigation.bev_types import BevLimits, BevPerson, BevStyle
from socialbench.navigation.colors import label_color, label_colors
from socialbench.navigation.mpl_style import MPL_LOCK, mpl_style
from socialbench.navigation.tracks import ARROW_POS_DIFF, PersonTrack, RobotPath

__all__ = ["BevLimits", "BevPerson", "BevRenderer", "BevStyle", "bev_limits", "bev_people"]


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


_DEFAULT_LIMITS, _DEFAULT_STYLE = BevLimits(), BevStyle()
_BLACK: RGBA = (0.0, 0.0, 0.0, 1.0)
_WAYPOINT: RGBA = (0x6A / 255, 0x1B / 255, 0x9A / 255, 1.0)  # "#6a1b9a"

# z-orders (a marker's number sits 0.5 above it, so every number is above every marker)
_Z_GOAL, _Z_ROBOT_ARROW, _Z_ROBOT, _Z_PEOPLE, _Z_WAYPOINT = 3.0, 4.0, 4.1, 5.0, 6.0


class BevRenderer:
    """Draws the BEVs of one sample: the static part (axes at the sample's limits, goal) once,
    then each :meth:`render` puts it back and draws the robot and people on top.

    The axes are drawn by matplotlib (cached per process by limits and style: see
    :mod:`socialbench.navigation.bev_stage`); markers, numbers and arrows are drawn with the
    Agg calls their artists make, in the order a full redraw sorts them (robot arrow, robot,
    then each person's arrow and marker by label, then every number above every marker), so
    the pixels equal a full ``canvas.draw()`` of the same artists. Serialised by a module lock
    (matplotlib state is global)."""

    def __init__(
        self,
        limits: BevLimits = _DEFAULT_LIMITS,
        goal_xy: tuple[float, float] | None = None,
        n_labels: int = 0,
        style: BevStyle = _DEFAULT_STYLE,
    ):
        self.style = style
        self.limits = limits
        self.n_labels = n_labels
        self._colors = label_colors(n_labels)
        with MPL_LOCK, mpl_style():
            self._stage = stage(limits, style)
            self._background = None
            if goal_xy is not None and all(map(math.isfinite, goal_xy)):
                self._stage.restore()
                ops: list[tuple[float, int, tuple]] = []
                self._marker_ops(ops, goal_xy[0], goal_xy[1], _BLACK, "G", _Z_GOAL)
                self._draw(ops)
                self._background = self._stage.copy()

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the images in pixels."""
        return self._stage.size

    def to_pixel(self, x: float, y: float) -> tuple[float, float]:
        """Image (column, row from the top) of the point ``x`` forward, ``y`` left (metres)."""
        return self._stage.to_pixel(x, y)

    def _arrow_ops(self, ops: list, x: float, y: float, heading: float, rgba: RGBA, z: float) -> None:
        if math.isfinite(heading):
            L = self.style.arrow_length
            ops.append((z, len(ops), ("arrow", x, y, L * math.cos(heading), L * math.sin(heading), rgba)))

    @staticmethod
    def _marker_ops(ops: list, x: float, y: float, rgba: RGBA, text: str, z: float) -> None:
        ops.append((z, len(ops), ("marker", x, y, rgba)))
        ops.append((z + 0.5, len(ops), ("text", x, y, text)))

    def _draw(self, ops: list[tuple[float, int, tuple]]) -> None:
        st = self._stage
        for _, _, op in sorted(ops):  # by z-order, then in the order added: as a full redraw
            kind, x, y, *rest = op
            if not (math.isfinite(x) and math.isfinite(y)):
                continue
            if kind == "marker":
                st.marker(x, y, rest[0])
            elif kind == "text":
                st.text(x, y, rest[0])
            else:
                st.arrow(x, y, rest[0], rest[1], rest[2])

    def render(
        self,
        people: Mapping[int, BevPerson],
        robot_pose: tuple[float, float, float] | None,
        labels: Sequence[tuple[float, float, str]] = (),
    ) -> Image.Image:
        """The BEV with ``people`` (by label) and the robot at (x, y, heading); ``labels``
        are extra lettered markers (x, y, text), e.g. candidate waypoints."""
        ops: list[tuple[float, int, tuple]] = []
        if robot_pose is not None:
            rx, ry, rh = robot_pose
            self._arrow_ops(ops, rx, ry, rh, _BLACK, _Z_ROBOT_ARROW)
            self._marker_ops(ops, rx, ry, _BLACK, "R", _Z_ROBOT)
        colors = self._colors if max(people, default=0) <= len(self._colors) else label_colors(max(people))
        for label in sorted(people):
            p = people[label]
            r, g, b = (v / 255.0 for v in label_color(colors, label))
            z = _Z_PEOPLE + label * 0.01
            if p.heading is not None:
                self._arrow_ops(ops, p.x, p.y, p.heading, (r, g, b, 1.0), z)
            self._marker_ops(ops, p.x, p.y, (r, g, b, 1.0), str(label), z + 0.001)
        for x, y, text in labels:
            self._marker_ops(ops, x, y, _WAYPOINT, text, _Z_WAYPOINT)
        with MPL_LOCK, mpl_style():
            self._stage.restore(self._background)
            self._draw(ops)
            return self._stage.image()
