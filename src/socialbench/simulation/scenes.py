"""Procedural social-navigation scenes: :func:`simulate` runs a scene drawn and placed by
:mod:`~socialbench.simulation.scene_config` and :mod:`~socialbench.simulation.scene_layout`,
the people by the social force model of :mod:`~socialbench.simulation.crowd` and the robot by
the local planner of :mod:`~socialbench.simulation.planner`. Plain numpy, seeded by the
caller's :class:`numpy.random.Generator`: the same configuration and generator state give
the same trajectories. The scene frame, the warm-up and the time steps: docs/simulation.md,
"How the scenes move".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from socialbench.navigation.tracks import FRAME_DT, N_FRAMES
from socialbench.simulation.crowd import SocialForceCrowd, SocialForceParams
from socialbench.simulation.planner import LocalPlanner, PlannerParams
from socialbench.simulation.scene_config import SIM_DT, STEPS_PER_FRAME, TAIL_FRAMES, SceneSetup

__all__ = ["SimResult", "simulate"]


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


def simulate(
    setup: SceneSetup,
    crowd_params: SocialForceParams | None = None,
    planner_params: PlannerParams | None = None,
) -> SimResult:
    """Run the scene from frame 0 to ``first_frame + N_FRAMES + TAIL_FRAMES - 1`` (default
    parameters when none are given)."""
    crowd_params = crowd_params or SocialForceParams()
    planner_params = planner_params or PlannerParams()
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
