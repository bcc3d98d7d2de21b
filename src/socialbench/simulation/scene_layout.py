"""Placing the people, groups and goal of a scene (:func:`build_scene`): roles drawn by
scene type, positions near or away from the robot's path, walking directions, groups and
looks, all from the caller's seeded generator."""

from __future__ import annotations

import math

import numpy as np

from socialbench.navigation.scene3d_types import RGB, Appearance
from socialbench.simulation.scene_config import ROLES, AgentSpec, SceneConfig, SceneSetup

__all__ = ["build_scene"]

_SHIRTS: tuple[RGB, ...] = (
    (200, 55, 50),
    (45, 95, 180),
    (230, 190, 60),
    (60, 150, 80),
    (140, 70, 160),
    (235, 120, 40),
    (30, 160, 170),
    (210, 210, 205),
    (90, 90, 95),
    (180, 100, 130),
    (120, 160, 220),
    (160, 120, 60),
)
_TROUSERS: tuple[RGB, ...] = ((40, 45, 70), (60, 60, 60), (110, 90, 70), (30, 30, 35), (80, 95, 120), (150, 140, 120))
_SKIN: tuple[RGB, ...] = ((240, 200, 170), (200, 150, 110), (150, 100, 70), (110, 75, 55), (225, 180, 140))


def _unit(a: float) -> tuple[float, float]:
    return (math.cos(a), math.sin(a))


def _appearance(rng: np.random.Generator) -> Appearance:
    return Appearance(
        height=float(np.clip(rng.normal(1.72, 0.08), 1.5, 1.95)),
        width=float(rng.uniform(0.44, 0.56)),
        shirt=_SHIRTS[int(rng.integers(len(_SHIRTS)))],
        trousers=_TROUSERS[int(rng.integers(len(_TROUSERS)))],
        skin=_SKIN[int(rng.integers(len(_SKIN)))],
    )


_ROLE_WEIGHTS = {
    "corridor": {"oncoming": 0.4, "same": 0.25, "cross": 0.0, "standing": 0.25, "wander": 0.1},
    "crossing": {"oncoming": 0.15, "same": 0.1, "cross": 0.5, "standing": 0.15, "wander": 0.1},
    "plaza": {"oncoming": 0.2, "same": 0.1, "cross": 0.15, "standing": 0.25, "wander": 0.3},
}


def _place(rng: np.random.Generator, near: bool, half_width: float | None) -> tuple[float, float]:
    """A position at F0 in view of the robot: near the robot's path or further out."""
    if near:
        x = float(rng.uniform(1.5, 5.0))
        y = float(rng.uniform(-1.6, 1.6))
    else:
        x = float(rng.uniform(3.0, 10.0))
        y = float(rng.uniform(-1.0, 1.0)) * min(4.5, 0.8 * x)
    if half_width is not None:
        y = float(np.clip(y, -half_width + 0.4, half_width - 0.4))
    return (x, y)


def build_scene(config: SceneConfig, rng: np.random.Generator) -> SceneSetup:
    """Place the people, groups and goal of a scene described by ``config``."""
    walls: tuple[float, ...] = ()
    half = None
    if config.scene_type == "corridor":
        half = config.corridor_width / 2.0
        walls = (half, -half)
    weights = _ROLE_WEIGHTS[config.scene_type]
    roles = [r for r in ROLES if weights[r] > 0]
    probs = np.array([weights[r] for r in roles])
    probs = probs / probs.sum()

    agents: list[AgentSpec] = []
    group_id = 0
    while len(agents) < config.n_people:
        role = roles[int(rng.choice(len(roles), p=probs))]
        near = bool(rng.uniform() < config.proximity)
        pos = _place(rng, near, half)
        speed = float(rng.uniform(0.8, 1.5))
        if role == "oncoming":
            heading = math.pi + float(rng.normal(0.0, 0.15))
        elif role == "same":
            heading = float(rng.normal(0.0, 0.12))
            speed = float(rng.uniform(0.5, 1.4))
        elif role == "cross":
            side = 1.0 if rng.uniform() < 0.5 else -1.0
            # starts to one side, walks across the robot's path
            pos = (pos[0], side * float(rng.uniform(1.0, 4.0)))
            heading = -side * math.pi / 2.0 + float(rng.normal(0.0, 0.25))
        elif role == "standing":
            heading, speed = float(rng.uniform(-math.pi, math.pi)), 0.0
            if half is not None:  # against a wall
                side = 1.0 if rng.uniform() < 0.5 else -1.0
                pos = (pos[0], side * (half - float(rng.uniform(0.35, 0.7))))
        else:  # wander: any direction
            heading = float(rng.uniform(-math.pi, math.pi))
            speed = float(rng.uniform(0.5, 1.2))
        if half is not None and role in ("wander", "cross"):
            heading = math.pi if math.cos(heading) < 0 else 0.0
            heading += float(rng.normal(0.0, 0.15))
        size = 1
        remaining = config.n_people - len(agents)
        if role != "cross" and remaining >= 2 and rng.uniform() < config.group_share:
            size = min(remaining, int(rng.integers(2, 4)))
        gid = group_id if size > 1 else -1
        group_id += size > 1
        d = _unit(heading)
        side_vec = (-d[1], d[0])
        for m in range(size):
            off = (m - (size - 1) / 2.0) * float(rng.uniform(0.6, 0.8))
            p = (pos[0] + side_vec[0] * off, pos[1] + side_vec[1] * off)
            if half is not None:
                p = (p[0], float(np.clip(p[1], -half + 0.35, half - 0.35)))
            agents.append(AgentSpec(role, (round(p[0], 6), round(p[1], 6)), (d[0], d[1]), speed, gid, _appearance(rng)))

    dist = float(rng.uniform(6.0, 12.0))
    sign = 1.0 if rng.uniform() < 0.5 else -1.0
    bearing = sign * config.lateral * math.radians(float(rng.uniform(15.0, 40.0)))
    gx, gy = dist * math.cos(bearing), dist * math.sin(bearing)
    if half is not None:
        gy = float(np.clip(gy, -half + 0.6, half - 0.6))
    return SceneSetup(config, tuple(agents), (round(gx, 3), round(gy, 3)), walls)
