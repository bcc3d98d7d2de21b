"""People-blind choice rules over an item's candidates: the floor of the waypoint task.

Each rule reads only an item's ``waypoints`` record (:meth:`~.candidates.Candidates.to_json`)
and returns a letter, ties broken by letter; none looks at a person. :data:`GEOMETRIC_RULES`
see only the candidates; :data:`MOTION_RULES` also the robot's own motion over the clip's
last second (``robot``: velocity and yaw rate, from the odometry the clip shows);
:data:`GOAL_RULES` the goal, which the prompt asks to make progress to. The
``baseline:waypoint-*`` models (:mod:`~.baselines`) and ``scripts/waypoint_floor.py`` use them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from socialbench.benchmarks.socialnav_waypoint.candidates import WaypointsJson

__all__ = ["GEOMETRIC_RULES", "GOAL_RULES", "MOTION_RULES", "Rule", "candidate_rows", "closest_to_goal", "toward_goal"]

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


def most_forward(w: WaypointsJson) -> str:
    """The candidate farthest ahead (largest x)."""
    return _argbest(w, lambda x, y, _: -x)


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
    last frame); ``None`` when the item has no goal. Unlike the people-blind floor rules,
    it uses where the goal is, which the prompt shows (G) and asks to make progress to."""
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
    "most forward": most_forward,
    "most typical (nearest the candidates' mean)": most_typical,
    "most isolated": most_isolated,
    "letter A": letter_a,
    "last letter": letter_last,
}


def closest_to_goal(w: WaypointsJson) -> str | None:
    """The candidate nearest the goal point; ``None`` when the item has no goal."""
    goal: Sequence[float] | None = w.get("goal")
    if goal is None:
        return None
    gx, gy = float(goal[0]), float(goal[1])
    return _argbest(w, lambda x, y, _: math.hypot(x - gx, y - gy))


HORIZON_S = 2.0


def _motion(w: WaypointsJson) -> tuple[float, float, float]:
    robot = w.get("robot") or {"velocity": [0.0, 0.0], "yaw_rate": 0.0}
    return float(robot["velocity"][0]), float(robot["velocity"][1]), float(robot["yaw_rate"])


def _closest_to(w: WaypointsJson, px: float, py: float) -> str:
    return _argbest(w, lambda x, y, _: math.hypot(x - px, y - py))


def speed_times_horizon(w: WaypointsJson) -> str:
    """The candidate whose distance is nearest the robot's recent speed × 2 s."""
    vx, vy, _ = _motion(w)
    step = math.hypot(vx, vy) * HORIZON_S
    return _argbest(w, lambda x, y, _: abs(math.hypot(x, y) - step))


def constant_velocity(w: WaypointsJson) -> str:
    """The candidate nearest where the recent velocity takes the robot in 2 s."""
    vx, vy, _ = _motion(w)
    return _closest_to(w, vx * HORIZON_S, vy * HORIZON_S)


def constant_turn(w: WaypointsJson) -> str:
    """The candidate nearest the end of the arc at the recent speed and yaw rate for 2 s."""
    vx, vy, om = _motion(w)
    speed, h = math.hypot(vx, vy), math.atan2(vy, vx) if (vx, vy) != (0.0, 0.0) else 0.0
    if abs(om) < 1e-6:
        return _closest_to(w, speed * HORIZON_S * math.cos(h), speed * HORIZON_S * math.sin(h))
    r = speed / om
    lx, ly = r * math.sin(om * HORIZON_S), r * (1 - math.cos(om * HORIZON_S))
    c, s = math.cos(h), math.sin(h)
    return _closest_to(w, c * lx - s * ly, s * lx + c * ly)


def previous_heading(w: WaypointsJson) -> str:
    """The candidate whose bearing is closest to the direction of the recent velocity."""
    vx, vy, _ = _motion(w)
    h = math.atan2(vy, vx) if (vx, vy) != (0.0, 0.0) else 0.0
    return _argbest(w, lambda x, y, _: abs(math.remainder(_bearing(x, y) - h, 2 * math.pi)))


def half_speed(w: WaypointsJson) -> str:
    """The candidate nearest where half the recent velocity takes the robot (slowing down)."""
    vx, vy, _ = _motion(w)
    return _closest_to(w, vx, vy)


def step_then_straightest(w: WaypointsJson) -> str:
    """Among the candidates whose distance is within 0.25 m of speed × 2 s (all when none
    is), the straightest: a combination."""
    vx, vy, _ = _motion(w)
    step = math.hypot(vx, vy) * HORIZON_S
    rows = candidate_rows(w)
    near = [r for r in rows if abs(math.hypot(r[1], r[2]) - step) <= 0.25] or rows
    return min(near, key=lambda r: (abs(_bearing(r[1], r[2])), r[0]))[0]


def cv_then_letter_a(w: WaypointsJson) -> str:
    """The constant-velocity candidate when it is within 0.5 m of the prediction, else letter A."""
    vx, vy, _ = _motion(w)
    rows = candidate_rows(w)
    best = min(rows, key=lambda r: (math.hypot(r[1] - vx * HORIZON_S, r[2] - vy * HORIZON_S), r[0]))
    return best[0] if math.hypot(best[1] - vx * HORIZON_S, best[2] - vy * HORIZON_S) <= 0.5 else rows[0][0]


#: Rules that look at the candidates and the robot's own past motion, each of which must score chance.
MOTION_RULES: dict[str, Rule] = {
    "recent speed x 2 s": speed_times_horizon,
    "constant velocity": constant_velocity,
    "constant turn": constant_turn,
    "previous heading": previous_heading,
    "half speed (slowing down)": half_speed,
    "speed x 2 s, then straightest": step_then_straightest,
    "constant velocity if close, else A": cv_then_letter_a,
}

#: Rules that use the goal (which the prompt asks to make progress to) but no person.
GOAL_RULES: dict[str, Callable[[WaypointsJson], str | None]] = {
    "toward the goal's bearing": toward_goal,
    "closest to the goal point": closest_to_goal,
}
