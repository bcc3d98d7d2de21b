"""What a procedural scene is: its time step and sizes, its difficulty knobs
(:class:`SceneConfig`: docs/simulation.md, "Scene knobs"), its people (:class:`AgentSpec`)
and the placed scene (:class:`SceneSetup`); the seeded draw of a configuration.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from socialbench.navigation.scene3d_types import Appearance
from socialbench.navigation.tracks import FRAME_DT

__all__ = [
    "SIM_DT",
    "STEPS_PER_FRAME",
    "TAIL_FRAMES",
    "SCENE_TYPES",
    "ROLES",
    "PERSON_RADIUS",
    "ROBOT_RADIUS",
    "AgentSpec",
    "SceneConfig",
    "SceneSetup",
    "scene_rng",
    "sample_config",
]

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
    """Difficulty knobs and layout of one scene (docs/simulation.md, "Scene knobs")."""

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
