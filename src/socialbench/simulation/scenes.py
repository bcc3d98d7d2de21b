"""Procedural social-navigation scenes: a pedestrian crowd model and a robot local planner.

Everything here is plain numpy, seeded by the caller's :class:`numpy.random.Generator`, and
deterministic: the same configuration and generator state give the same trajectories.

Frames and time
---------------
The *scene frame* is the robot frame at the sample's first frame F0 (x forward, y left,
metres): the robot stands at the origin facing +x at F0, so ground-truth positions need no
conversion to be in the SocialNav-SUB "initial robot frame". The source sequence has
``first_frame + N_FRAMES + TAIL_FRAMES`` frames at 4 Hz; the simulation integrates at
``SIM_DT`` = 0.05 s (5 steps per frame) and keeps every 5th state. Frames 0..F0-1 are a
warm-up in which people settle into their motion while the robot approaches along the x axis
at its cruise speed (scripted, like a tele-operated approach); from F0 on, the robot is driven
by :class:`LocalPlanner`.

Pedestrians: a social force model
---------------------------------
Each person ``i`` (position ``x_i``, velocity ``v_i``, radius ``r_i`` = 0.25 m) accelerates by
(Helbing & Molnár 1995; Helbing, Farkas & Vicsek 2000; groups after Moussaïd et al. 2010,
simplified):

* driving term ``(v0_i - v_i) / tau`` with ``tau`` = 0.5 s. ``v0_i`` is the desired velocity:
  the person's cruise speed along their walking direction (walkers, cross traffic, group
  members; they walk through the scene), or for standing people ``k_stand · (spot_i - x_i)``
  with ``k_stand`` = 1 s⁻¹, capped at 0.5 m/s (they stay put, step aside when pressed, and
  return);
* person-person repulsion ``A exp((r_i + r_j - d_ij) / B) n_ij · w(phi)`` with ``A`` = 2.1
  m/s², ``B`` = 0.3 m, where ``d_ij`` and ``n_ij`` are taken at the predicted closest
  approach within ``anticipation`` = 1 s if both keep their velocities (the
  collision-prediction variant of Zanlungo, Ikeda & Kanda 2011, so people start evading an
  oncoming walker before it is close), and the anisotropy
  ``w = lambda + (1 - lambda)(1 + cos phi)/2``, ``lambda`` = 0.35, where ``phi`` is the angle
  between person i's walking direction and the direction to j (people react more to what is in front of them). Members of one group
  repel each other with a third of ``A``;
* robot-person repulsion, same form (with the prediction) with ``A_robot`` = 3.0 m/s²,
  ``B_robot`` = 0.4 m and the robot's radius 0.35 m (people give a machine more room);
* wall repulsion (corridors) ``A_wall exp((r_i - d_wall) / B_wall)`` with 10 m/s² and 0.2 m;
* group cohesion ``k_group · (c_g - x_i) · max(0, 1 - R_group / |c_g - x_i|)``, ``c_g`` the
  centroid of the other members, ``k_group`` = 1.5 s⁻², ``R_group`` = 0.9 m.

Velocities are integrated with semi-implicit Euler and capped at 1.3 × the cruise speed
(at least 0.6 m/s).

Libraries were weighed first: pysocialforce configures the root logger and writes a log file
on import, and an ORCA binding (a compiled extension) would add a platform-dependent
dependency to a generator whose output must be byte-stable; so the model is implemented here
in numpy.

Robot: a sampling (velocity-obstacle style) local planner
----------------------------------------------------------
The robot is a unicycle (``v`` forward speed, ``omega`` yaw rate; the camera looks along the
yaw). Every ``replan_dt`` = 0.1 s :class:`LocalPlanner` scores 7 speeds × 11 yaw rates (up to
1.4 rad/s), each rolled out for ``horizon`` = 2 s against constant-velocity predictions of
every person, and takes the cheapest:

``cost = w_goal·|end - goal| + w_heading·|angle to goal at the end| + w_speed·(1 - v/v_cruise)
+ w_social·Σ_i intrusion_i² + w_smooth·|omega - omega_prev|
+ collision·(K - k_c)/K + collision·[leaves the corridor]``

Personal space: ``d_i`` is the closest the robot comes to person i, over the rollout steps
``d_ik`` and after it, as the closest approach within ``lookahead`` = 2 s more if both keep
their velocities at the end of the rollout (so stopping in the path of an oncoming walker
does not look safe just because the meeting falls beyond the horizon). ``intrusion_i =
max(0, r_comfort - d_i) / (r_comfort - r_contact)``: 0 beyond the comfort distance
``r_comfort`` = 1.6 m (centre to centre: the 1.2 m passing margin of proxemics plus 0.4 m
for prediction error), 1 at contact, and steepest near contact, so the planner trades
progress for distance most where it matters. ``w_social`` = 25. ``r_contact`` = robot +
person radius + 0.05 m, and ``k_c`` is the first rollout step with some ``d_ik <
r_contact`` (``K`` if none), so that when every candidate predicts a contact the one that
delays it most wins. Commands are then followed with acceleration limits (1.0 m/s², 2.0
rad/s²). The social term makes it slow down behind, steer around or stop for people crossing
its path, so yielding, avoiding and following emerge from geometry rather than from scripts.

Measured with ``perf/sim_proxemics.py`` (200 scenes, seed 0; minimum robot-person centre
distance from the sample's first frame on): before this cost (a Gaussian of the gap with
σ = 0.45 m, ``w_social`` = 1.6, 11 yaw rates up to 0.9 rad/s) the 5th percentile / median
were 0.76 / 1.31 m and 41.5 % of scenes had a pass within 1.2 m; see the README for the
figures now.

Difficulty knobs (:class:`SceneConfig`)
---------------------------------------
``n_people`` (crowd size), ``proximity`` (0..1, the share of people placed close to the
robot's path at F0) and ``lateral`` (0..1, how far the goal lies to the side, which makes
the robot turn and move sideways). ``scene_type`` chooses the layout and the mix of
behaviours: ``corridor`` (walls 3-5 m apart, oncoming and same-direction walkers, people
standing along the walls), ``crossing`` (mostly cross traffic) or ``plaza`` (open space, all
directions, standing people and groups).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from socialbench.navigation.scene3d import RGB, Appearance
from socialbench.navigation.tracks import FRAME_DT, N_FRAMES

#: Integration step (s); 5 steps per 4 Hz frame.
SIM_DT = 0.05
STEPS_PER_FRAME = int(round(FRAME_DT / SIM_DT))
#: Frames simulated after the sample's last frame: odometry for the official F0+1+t offset and
#: for the waypoint task's right answer, 8 frames (2 s) after the clip
#: (``socialbench.benchmarks.socialnav_waypoint.candidates.HORIZON_FRAMES``).
TAIL_FRAMES = 8
SCENE_TYPES: tuple[str, ...] = ("corridor", "crossing", "plaza")
ROLES: tuple[str, ...] = ("oncoming", "same", "cross", "standing", "wander")
PERSON_RADIUS = 0.25
ROBOT_RADIUS = 0.35

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


# --------------------------------------------------------------------------- parameters


@dataclass(frozen=True)
class SocialForceParams:
    """Parameters of the pedestrian model (see the module docstring)."""

    tau: float = 0.5
    anticipation: float = 1.0
    agent_a: float = 2.1
    agent_b: float = 0.3
    anisotropy: float = 0.35
    group_repulsion_factor: float = 1.0 / 3.0
    robot_a: float = 3.0
    robot_b: float = 0.4
    wall_a: float = 10.0
    wall_b: float = 0.2
    group_k: float = 1.5
    group_radius: float = 0.9
    stand_k: float = 1.0
    stand_max_speed: float = 0.5
    max_speed_factor: float = 1.3
    min_max_speed: float = 0.6


@dataclass(frozen=True)
class PlannerParams:
    """Parameters of :class:`LocalPlanner` (see the module docstring)."""

    n_speeds: int = 7
    n_yaw_rates: int = 11
    max_yaw_rate: float = 1.4
    horizon: float = 2.0
    rollout_dt: float = 0.25
    replan_dt: float = 0.1
    max_accel: float = 1.0
    max_yaw_accel: float = 2.0
    comfort_distance: float = 1.6
    lookahead: float = 2.0
    contact_margin: float = 0.05
    w_goal: float = 1.0
    w_heading: float = 0.4
    w_speed: float = 0.6
    w_social: float = 25.0
    w_smooth: float = 0.15
    collision: float = 100.0
    wall_clearance: float = 0.45
    goal_tolerance: float = 0.4


# --------------------------------------------------------------------------- scenes


@dataclass(frozen=True)
class AgentSpec:
    """One pedestrian: where it is at F0, how it wants to move, and how it looks.

    ``position`` is the planned position at F0 (scene frame); the simulation starts it
    ``first_frame`` frames earlier, moved back along its initial velocity, so that it is
    close to there at F0. ``direction`` is the unit walking direction (unused when
    standing)."""

    role: str
    position: tuple[float, float]
    direction: tuple[float, float]
    speed: float
    group: int = -1
    appearance: Appearance = field(default_factory=Appearance)


@dataclass(frozen=True)
class SceneConfig:
    """Difficulty knobs and layout of one scene (see the module docstring)."""

    scene_type: str = "plaza"
    n_people: int = 6
    proximity: float = 0.5
    lateral: float = 0.5
    first_frame: int = 6
    corridor_width: float = 4.0
    robot_speed: float = 1.0
    group_share: float = 0.3

    def __post_init__(self) -> None:
        if self.scene_type not in SCENE_TYPES:
            raise ValueError(f"scene_type must be one of {SCENE_TYPES}, got {self.scene_type!r}")
        if self.n_people < 0:
            raise ValueError(f"n_people must be >= 0, got {self.n_people}")
        for name in ("proximity", "lateral", "group_share"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{name} must lie in [0, 1], got {v}")
        if self.first_frame < 1:
            raise ValueError(f"first_frame must be >= 1 (a warm-up is needed), got {self.first_frame}")
        if self.robot_speed <= 0:
            raise ValueError(f"robot_speed must be > 0, got {self.robot_speed}")


@dataclass(frozen=True)
class SceneSetup:
    """A scene ready to simulate: the config, the people, the goal (scene frame, metres)
    and the corridor walls (``y`` of each wall line; empty when open)."""

    config: SceneConfig
    agents: tuple[AgentSpec, ...]
    goal: tuple[float, float]
    walls: tuple[float, ...] = ()


@dataclass(frozen=True, eq=False)
class SimResult:
    """Trajectories at every frame of the source sequence (scene frame).

    ``people[k, i]`` is person i's position at frame k, ``people_vel`` its velocity;
    ``robot[k]`` = (x, y, yaw). Frame ``first_frame`` is the sample's first frame, where the
    robot is at (0, 0, 0)."""

    setup: SceneSetup
    people: np.ndarray  # (K, N, 2)
    people_vel: np.ndarray  # (K, N, 2)
    robot: np.ndarray  # (K, 3)
    robot_speed: np.ndarray  # (K,)

    @property
    def first_frame(self) -> int:
        return self.setup.config.first_frame

    @property
    def n_frames(self) -> int:
        return int(self.robot.shape[0])

    def sample_slice(self) -> slice:
        """Frames F0..F0+9 of the sample."""
        return slice(self.first_frame, self.first_frame + N_FRAMES)


# --------------------------------------------------------------------------- generation


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


def scene_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of scene ``index`` of a dataset with ``seed``."""
    return np.random.default_rng(np.random.SeedSequence([int(seed), int(index)]))


def sample_config(
    rng: np.random.Generator,
    n_people: int,
    *,
    scene_type: str | None = None,
    proximity: float | None = None,
    lateral: float | None = None,
) -> SceneConfig:
    """Draw a :class:`SceneConfig` with ``n_people`` people; the other knobs are drawn
    (scene type uniformly, proximity and lateral uniform in [0, 1], warm-up 1-2.5 s, robot
    cruise speed 0.8-1.2 m/s, corridor width 3-5 m) unless given."""
    st = scene_type if scene_type is not None else SCENE_TYPES[int(rng.integers(len(SCENE_TYPES)))]
    prox = float(rng.uniform(0.0, 1.0)) if proximity is None else proximity
    lat = float(rng.uniform(0.0, 1.0)) if lateral is None else lateral
    return SceneConfig(
        scene_type=st,
        n_people=n_people,
        proximity=prox,
        lateral=lat,
        first_frame=int(rng.integers(4, 11)),
        corridor_width=float(rng.uniform(3.0, 5.0)),
        robot_speed=float(rng.uniform(0.8, 1.2)),
        group_share=float(rng.uniform(0.0, 0.5)),
    )


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


# --------------------------------------------------------------------------- crowd model


class SocialForceCrowd:
    """Vectorised social force model for the people of one scene."""

    def __init__(self, setup: SceneSetup, params: SocialForceParams = SocialForceParams()):
        self.p = params
        self.walls = np.asarray(setup.walls, dtype=float)
        agents = setup.agents
        n = len(agents)
        self.n = n
        self.direction = np.array([a.direction for a in agents], dtype=float).reshape(n, 2)
        self.speed = np.array([a.speed for a in agents], dtype=float)
        self.standing = np.array([a.role == "standing" for a in agents], dtype=bool)
        self.group = np.array([a.group for a in agents], dtype=int)
        self.spot = np.array([a.position for a in agents], dtype=float).reshape(n, 2)
        self.max_speed = np.maximum(self.speed * params.max_speed_factor, params.min_max_speed)
        same_group = (self.group[:, None] == self.group[None, :]) & (self.group[:, None] >= 0)
        np.fill_diagonal(same_group, False)
        self.same_group = same_group
        self.group_weight = np.where(same_group, params.group_repulsion_factor, 1.0)
        np.fill_diagonal(self.group_weight, 0.0)

    def initial_state(self, warmup_s: float) -> tuple[np.ndarray, np.ndarray]:
        """Positions ``warmup_s`` before F0 (moved back along the walking direction) and
        initial velocities."""
        vel = self.direction * np.where(self.standing, 0.0, self.speed)[:, None]
        return self.spot - vel * warmup_s, vel

    def desired_velocity(self, pos: np.ndarray) -> np.ndarray:
        walk = self.direction * self.speed[:, None]
        back = self.p.stand_k * (self.spot - pos)
        norm = np.linalg.norm(back, axis=1, keepdims=True)
        back = back * np.minimum(1.0, self.p.stand_max_speed / np.maximum(norm, 1e-9))
        return np.where(self.standing[:, None], back, walk)

    def _predicted(self, dp: np.ndarray, dv: np.ndarray) -> np.ndarray:
        """Relative positions at the closest approach within ``anticipation`` seconds if
        both keep their velocities (collision prediction)."""
        dvv = (dv * dv).sum(axis=-1)
        tau = np.clip(-(dp * dv).sum(axis=-1) / np.maximum(dvv, 1e-9), 0.0, self.p.anticipation)
        return dp + dv * tau[..., None]

    def _anisotropy(self, heading: np.ndarray, n_ij: np.ndarray) -> np.ndarray:
        # cos(phi) between i's heading and the direction from i to the other (-n_ij)
        cos_phi = -(heading[:, None, :] * n_ij).sum(axis=-1) if n_ij.ndim == 3 else -(heading * n_ij).sum(axis=-1)
        lam = self.p.anisotropy
        return lam + (1.0 - lam) * (1.0 + cos_phi) / 2.0

    def forces(self, pos: np.ndarray, vel: np.ndarray, robot_xy: np.ndarray, robot_vel: np.ndarray) -> np.ndarray:
        """Acceleration of every person (``(N, 2)``, m/s²)."""
        p = self.p
        n = self.n
        f = (self.desired_velocity(pos) - vel) / p.tau
        spd = np.linalg.norm(vel, axis=1, keepdims=True)
        heading = np.where(
            spd > 0.1, vel / np.maximum(spd, 1e-9), np.where(self.standing[:, None], 0.0, self.direction)
        )
        if n > 1:
            diff = self._predicted(pos[:, None, :] - pos[None, :, :], vel[:, None, :] - vel[None, :, :])
            dist = np.linalg.norm(diff, axis=-1)
            np.fill_diagonal(dist, np.inf)
            n_ij = diff / np.maximum(dist, 1e-9)[..., None]
            mag = p.agent_a * np.exp((2 * PERSON_RADIUS - dist) / p.agent_b) * self.group_weight
            w = self._anisotropy(heading, n_ij)
            f += ((mag * w)[..., None] * n_ij).sum(axis=1)
            if self.same_group.any():
                cnt = self.same_group.sum(axis=1)
                centroid = (self.same_group[..., None] * pos[None, :, :]).sum(axis=1) / np.maximum(cnt, 1)[:, None]
                to_c = centroid - pos
                dc = np.linalg.norm(to_c, axis=1)
                pull = p.group_k * np.maximum(0.0, 1.0 - p.group_radius / np.maximum(dc, 1e-9))
                f += np.where((cnt > 0)[:, None], to_c * pull[:, None], 0.0)
        # the robot
        diff_r = self._predicted(pos - robot_xy[None, :], vel - robot_vel[None, :])
        dist_r = np.linalg.norm(diff_r, axis=1)
        n_r = diff_r / np.maximum(dist_r, 1e-9)[:, None]
        mag_r = p.robot_a * np.exp((PERSON_RADIUS + ROBOT_RADIUS - dist_r) / p.robot_b)
        f += (mag_r * self._anisotropy(heading, n_r))[:, None] * n_r
        # corridor walls (lines y = const)
        for wy in self.walls:
            d = np.abs(wy - pos[:, 1])
            away = -np.sign(wy - pos[:, 1])
            f[:, 1] += p.wall_a * np.exp((PERSON_RADIUS - d) / p.wall_b) * away
        return f

    def step(
        self, pos: np.ndarray, vel: np.ndarray, robot_xy: np.ndarray, robot_vel: np.ndarray, dt: float = SIM_DT
    ) -> tuple[np.ndarray, np.ndarray]:
        """One semi-implicit Euler step."""
        vel = vel + self.forces(pos, vel, robot_xy, robot_vel) * dt
        spd = np.linalg.norm(vel, axis=1)
        vel = vel * np.minimum(1.0, self.max_speed / np.maximum(spd, 1e-9))[:, None]
        return pos + vel * dt, vel


# --------------------------------------------------------------------------- robot


class LocalPlanner:
    """Sampling local planner for a unicycle robot (see the module docstring)."""

    def __init__(
        self,
        goal: Sequence[float],
        cruise_speed: float,
        walls: Sequence[float] = (),
        params: PlannerParams = PlannerParams(),
    ):
        self.p = params
        self.goal = np.asarray(goal, dtype=float)
        self.cruise = float(cruise_speed)
        self.walls = tuple(float(w) for w in walls)
        self.speeds = np.linspace(0.0, self.cruise, params.n_speeds)
        self.yaw_rates = np.linspace(-params.max_yaw_rate, params.max_yaw_rate, params.n_yaw_rates)
        self.n_roll = int(round(params.horizon / params.rollout_dt))
        v, w = np.meshgrid(self.speeds, self.yaw_rates, indexing="ij")
        self.cand_v, self.cand_w = v.reshape(-1), w.reshape(-1)
        k = np.arange(1, self.n_roll + 1) * params.rollout_dt  # (K,)
        # unicycle displacement in the robot frame for each candidate and rollout time
        wt = self.cand_w[:, None] * k[None, :]
        small = np.abs(self.cand_w) < 1e-6
        safe_w = np.where(small, 1.0, self.cand_w)[:, None]
        fx = np.where(small[:, None], self.cand_v[:, None] * k[None, :], self.cand_v[:, None] * np.sin(wt) / safe_w)
        fy = np.where(small[:, None], 0.0, self.cand_v[:, None] * (1.0 - np.cos(wt)) / safe_w)
        self._local = np.stack([fx, fy], axis=-1)  # (C, K, 2)
        self._dyaw = wt  # (C, K)
        self._k = k

    def command(
        self, pose: np.ndarray, omega_prev: float, people: np.ndarray, people_vel: np.ndarray
    ) -> tuple[float, float]:
        """(v, omega) for the robot at ``pose`` = (x, y, yaw) among ``people``."""
        p = self.p
        x, y, yaw = float(pose[0]), float(pose[1]), float(pose[2])
        to_goal = self.goal - np.array([x, y])
        if float(np.hypot(*to_goal)) < p.goal_tolerance:
            return 0.0, 0.0
        c, s = math.cos(yaw), math.sin(yaw)
        lx, ly = self._local[..., 0], self._local[..., 1]
        traj = np.stack([x + c * lx - s * ly, y + s * lx + c * ly], axis=-1)  # (C, K, 2)
        end = traj[:, -1, :]
        end_yaw = yaw + self._dyaw[:, -1]
        dgoal = self.goal[None, :] - end
        cost = p.w_goal * np.linalg.norm(dgoal, axis=1)
        ang = np.arctan2(dgoal[:, 1], dgoal[:, 0]) - end_yaw
        cost += p.w_heading * np.abs((ang + math.pi) % (2 * math.pi) - math.pi)
        cost += p.w_speed * (1.0 - self.cand_v / self.cruise)
        cost += p.w_smooth * np.abs(self.cand_w - omega_prev)
        if len(people):
            pred = people[:, None, :] + people_vel[:, None, :] * self._k[None, :, None]  # (N, K, 2)
            d = np.linalg.norm(traj[:, None, :, :] - pred[None, :, :, :], axis=-1)  # (C, N, K)
            contact = ROBOT_RADIUS + PERSON_RADIUS + p.contact_margin
            # after the rollout: closest approach within `lookahead` if both keep their velocities
            v_end = self.cand_v[:, None] * np.stack([np.cos(end_yaw), np.sin(end_yaw)], axis=-1)  # (C, 2)
            dp = end[:, None, :] - pred[None, :, -1, :]  # (C, N, 2)
            dv = v_end[:, None, :] - people_vel[None, :, :]
            tau = np.clip(-(dp * dv).sum(axis=-1) / np.maximum((dv * dv).sum(axis=-1), 1e-9), 0.0, p.lookahead)
            closest = np.minimum(d.min(axis=2), np.linalg.norm(dp + dv * tau[..., None], axis=-1))  # (C, N)
            intrusion = np.maximum(0.0, p.comfort_distance - closest) / (p.comfort_distance - contact)
            cost += p.w_social * (intrusion**2).sum(axis=1)
            hit = (d < contact).any(axis=1)  # (C, K)
            first = np.where(hit.any(axis=1), hit.argmax(axis=1), self.n_roll)
            cost += p.collision * (self.n_roll - first) / self.n_roll  # earlier contact costs more
        for wy in self.walls:
            near_wall = np.abs(wy - traj[..., 1]) < p.wall_clearance
            cost += p.collision * near_wall.any(axis=1)
        best = int(np.argmin(cost))
        return float(self.cand_v[best]), float(self.cand_w[best])


# --------------------------------------------------------------------------- simulation


def simulate(
    setup: SceneSetup,
    crowd_params: SocialForceParams = SocialForceParams(),
    planner_params: PlannerParams = PlannerParams(),
) -> SimResult:
    """Run the scene from frame 0 to ``first_frame + N_FRAMES + TAIL_FRAMES - 1``."""
    cfg = setup.config
    f0 = cfg.first_frame
    n_frames = f0 + N_FRAMES + TAIL_FRAMES
    crowd = SocialForceCrowd(setup, crowd_params)
    planner = LocalPlanner(setup.goal, cfg.robot_speed, setup.walls, planner_params)
    warmup = f0 * FRAME_DT
    pos, vel = crowd.initial_state(warmup)
    v_cruise = cfg.robot_speed
    rx, ry, ryaw = -v_cruise * warmup, 0.0, 0.0
    v, omega = v_cruise, 0.0
    cmd_v, cmd_w = v, omega
    replan_every = max(1, int(round(planner_params.replan_dt / SIM_DT)))

    n = crowd.n
    out_p = np.zeros((n_frames, n, 2))
    out_v = np.zeros((n_frames, n, 2))
    out_r = np.zeros((n_frames, 3))
    out_s = np.zeros(n_frames)
    total_steps = (n_frames - 1) * STEPS_PER_FRAME
    start_plan = f0 * STEPS_PER_FRAME
    for step in range(total_steps + 1):
        if step % STEPS_PER_FRAME == 0:
            k = step // STEPS_PER_FRAME
            if k == f0:  # remove float drift of the scripted approach: F0 is the origin
                rx, ry = 0.0, 0.0
            out_p[k], out_v[k] = pos, vel
            out_r[k] = (rx, ry, ryaw)
            out_s[k] = v
        if step == total_steps:
            break
        robot_xy = np.array([rx, ry])
        robot_vel = np.array([v * math.cos(ryaw), v * math.sin(ryaw)])
        if step >= start_plan and (step - start_plan) % replan_every == 0:
            cmd_v, cmd_w = planner.command(np.array([rx, ry, ryaw]), omega, pos, vel)
        if step >= start_plan:
            dv = float(np.clip(cmd_v - v, -planner_params.max_accel * SIM_DT, planner_params.max_accel * SIM_DT))
            dw = float(
                np.clip(cmd_w - omega, -planner_params.max_yaw_accel * SIM_DT, planner_params.max_yaw_accel * SIM_DT)
            )
            v, omega = v + dv, omega + dw
        pos, vel = crowd.step(pos, vel, robot_xy, robot_vel)
        rx += v * math.cos(ryaw) * SIM_DT
        ry += v * math.sin(ryaw) * SIM_DT
        ryaw = (ryaw + omega * SIM_DT + math.pi) % (2 * math.pi) - math.pi
    return SimResult(setup, out_p, out_v, out_r, out_s)


__all__ = [
    "SIM_DT",
    "STEPS_PER_FRAME",
    "TAIL_FRAMES",
    "SCENE_TYPES",
    "ROLES",
    "PERSON_RADIUS",
    "ROBOT_RADIUS",
    "SocialForceParams",
    "PlannerParams",
    "AgentSpec",
    "SceneConfig",
    "SceneSetup",
    "SimResult",
    "scene_rng",
    "sample_config",
    "build_scene",
    "SocialForceCrowd",
    "LocalPlanner",
    "simulate",
]
