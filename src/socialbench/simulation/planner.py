"""Robot: a sampling (velocity-obstacle style) local planner (:class:`LocalPlanner`) for a
unicycle, with a personal-space cost. The rollouts and the cost: docs/simulation.md, "How
the scenes move"."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from socialbench.simulation.scene_config import PERSON_RADIUS, ROBOT_RADIUS

__all__ = ["PlannerParams", "LocalPlanner"]


@dataclass(frozen=True)
class PlannerParams:
    """Parameters of :class:`LocalPlanner` (docs/simulation.md)."""

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


class LocalPlanner:
    """Sampling local planner for a unicycle robot (docs/simulation.md)."""

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
