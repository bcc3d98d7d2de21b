"""Scene-blind choice rules over an item's candidates: the floor of the waypoint task.

Each rule reads only an item's ``waypoints`` record (:meth:`~.candidates.Candidates.to_json`)
and returns a letter, ties broken by letter; none looks at a person. The ``baseline:waypoint-*``
models (:mod:`~.baselines`) and ``scripts/waypoint_floor.py`` use them. By construction of
:mod:`~.candidates` every rule in :data:`GEOMETRIC_RULES` scores exactly 1 / 5 on complete
groups; :func:`toward_goal` may beat that, as heading for the goal is part of the task.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from socialbench.benchmarks.socialnav_waypoint.candidates import WaypointsJson

__all__ = ["GEOMETRIC_RULES", "Rule", "candidate_rows", "toward_goal"]

Rule = Callable[[WaypointsJson], str]


def candidate_rows(waypoints: WaypointsJson) -> list[tuple[str, float, float, tuple[float, float] | None]]:
    """(letter, x, y, front-view pixel or None) of every candidate, in letter order."""
    rows = []
    for c in waypoints["candidates"]:
        px = c.get("pixel")
        rows.append(
            (str(c["label"]), float(c["x"]), float(c["y"]), None if px is None else (float(px[0]), float(px[1])))
        )
    return sorted(rows)


def _argbest(waypoints: WaypointsJson, key: Callable[[float, float, tuple[float, float] | None], float]) -> str:
    rows = candidate_rows(waypoints)
    return min(rows, key=lambda r: (key(r[1], r[2], r[3]), r[0]))[0]


def _bearing(x: float, y: float) -> float:
    return math.atan2(y, x) if (x, y) != (0.0, 0.0) else 0.0


def nearest(w: WaypointsJson) -> str:
    """The candidate closest to the robot."""
    return _argbest(w, lambda x, y, _: math.hypot(x, y))


def farthest(w: WaypointsJson) -> str:
    """The candidate farthest from the robot."""
    return _argbest(w, lambda x, y, _: -math.hypot(x, y))


def straightest(w: WaypointsJson) -> str:
    """The candidate with the smallest |bearing| (straight ahead; one at the robot counts as 0)."""
    return _argbest(w, lambda x, y, _: abs(_bearing(x, y)))


def widest(w: WaypointsJson) -> str:
    """The candidate with the largest |bearing|."""
    return _argbest(w, lambda x, y, _: -abs(_bearing(x, y)))


def leftmost_bev(w: WaypointsJson) -> str:
    """Leftmost in the last image's BEV (largest y: the BEV is drawn forward-up)."""
    return _argbest(w, lambda x, y, _: -y)


def rightmost_bev(w: WaypointsJson) -> str:
    """Rightmost in the last image's BEV (smallest y)."""
    return _argbest(w, lambda x, y, _: y)


def _front(w: WaypointsJson, sign: float) -> str:
    rows = candidate_rows(w)
    seen = [r for r in rows if r[3] is not None]
    if not seen:  # nothing in the camera's view: the BEV's order
        return leftmost_bev(w) if sign > 0 else rightmost_bev(w)
    return min(seen, key=lambda r: (sign * r[3][0], r[0]))[0]  # type: ignore[index]


def leftmost_front(w: WaypointsJson) -> str:
    """Leftmost disc in the front view (smallest column; the BEV's order when none is in view)."""
    return _front(w, 1.0)


def rightmost_front(w: WaypointsJson) -> str:
    """Rightmost disc in the front view (largest column)."""
    return _front(w, -1.0)


def lowest_front(w: WaypointsJson) -> str:
    """The disc lowest in the front view (largest row: nearest on the ground); the nearest
    candidate when none is in view."""
    rows = [r for r in candidate_rows(w) if r[3] is not None]
    if not rows:
        return nearest(w)
    return min(rows, key=lambda r: (-r[3][1], r[0]))[0]  # type: ignore[index]


def only_in_view(w: WaypointsJson) -> str:
    """The first candidate drawn in the front view (A when none or all are)."""
    rows = candidate_rows(w)
    seen = [r[0] for r in rows if r[3] is not None]
    return seen[0] if seen and len(seen) < len(rows) else rows[0][0]


def letter_a(w: WaypointsJson) -> str:
    """Always the first letter."""
    return candidate_rows(w)[0][0]


def letter_last(w: WaypointsJson) -> str:
    """Always the last letter."""
    return candidate_rows(w)[-1][0]


def most_typical(w: WaypointsJson) -> str:
    """The candidate closest to the mean of the candidates (the 'crowded spot')."""
    rows = candidate_rows(w)
    mx = sum(r[1] for r in rows) / len(rows)
    my = sum(r[2] for r in rows) / len(rows)
    return _argbest(w, lambda x, y, _: math.hypot(x - mx, y - my))


def most_isolated(w: WaypointsJson) -> str:
    """The candidate farthest from the mean of the candidates."""
    rows = candidate_rows(w)
    mx = sum(r[1] for r in rows) / len(rows)
    my = sum(r[2] for r in rows) / len(rows)
    return _argbest(w, lambda x, y, _: -math.hypot(x - mx, y - my))


def toward_goal(w: WaypointsJson) -> str | None:
    """The candidate whose bearing is closest to the goal's (both in the robot frame at the
    last frame); ``None`` when the item has no goal. Not scene-blind in the sense of the
    others: it uses where the goal is, which the prompt shows (G) and asks to make progress to."""
    goal: Sequence[float] | None = w.get("goal")
    if goal is None:
        return None
    g = math.atan2(float(goal[1]), float(goal[0]))
    return _argbest(w, lambda x, y, _: abs(math.remainder(_bearing(x, y) - g, 2 * math.pi)))


#: Rules that look only at the candidates (name -> rule), each of which must score chance.
GEOMETRIC_RULES: dict[str, Rule] = {
    "nearest": nearest,
    "farthest": farthest,
    "straightest (smallest |bearing|)": straightest,
    "widest bearing": widest,
    "leftmost in the BEV": leftmost_bev,
    "rightmost in the BEV": rightmost_bev,
    "leftmost in the front view": leftmost_front,
    "rightmost in the front view": rightmost_front,
    "lowest in the front view": lowest_front,
    "first in view / not in view": only_in_view,
    "most typical (nearest the candidates' mean)": most_typical,
    "most isolated": most_isolated,
    "letter A": letter_a,
    "last letter": letter_last,
}
