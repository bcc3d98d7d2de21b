"""Pedestrians: a social force model (:class:`SocialForceCrowd`), vectorised in numpy
(Helbing & Molnár 1995; Helbing, Farkas & Vicsek 2000; collision prediction after Zanlungo,
Ikeda & Kanda 2011; groups after Moussaïd et al. 2010, simplified). The forces and their
parameters: docs/simulation.md, "How the scenes move"."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from socialbench.simulation.scene_config import PERSON_RADIUS, ROBOT_RADIUS, SIM_DT, SceneSetup

__all__ = ["SocialForceParams", "SocialForceCrowd"]


@dataclass(frozen=True)
class SocialForceParams:
    """Parameters of the pedestrian model (docs/simulation.md)."""

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
