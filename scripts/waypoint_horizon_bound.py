"""How predictable the robot's move is from its own motion, at several horizons: the bound
that any waypoint design with well-spaced candidates must live with.

Simulates ``--scenes`` scenes with the simulator's scene sampler (people drawn 2-8) and a
longer tail than releases carry, so that the robot's position 2, 3, 4 and 6 s after the clip
is known. Two gradient-boosting regressors per horizon learn the move (x, y, robot frame at
the clip's last frame) from people-blind inputs: the robot's last nine positions over the clip
and its turn over the last second (``motion``), plus the goal (``goal``); trained on the first
75% of the scenes, measured on the rest. Printed: the median error and, for candidate spacings
of 0.3-1.0 m, the share of moves within half the spacing of the prediction. With candidates
that far apart, "the candidate nearest the prediction" is right at least that often, whatever
the design (scripts/waypoint_floor.py prints the same bound on the release's 2 s horizon).

    python scripts/waypoint_horizon_bound.py [--scenes 1600] [--seed 99]
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence

import numpy as np

HORIZONS_FRAMES = (8, 12, 16, 24)  # 2, 3, 4, 6 s at 4 Hz
SPACINGS_M = (0.3, 0.5, 0.75, 1.0)


def robot_frame(p: Sequence[float], origin: Sequence[float]) -> tuple[float, float]:
    """``p`` (scene frame) in the frame of a robot at ``origin`` = (x, y, yaw)."""
    c, s = math.cos(origin[2]), math.sin(origin[2])
    dx, dy = p[0] - origin[0], p[1] - origin[1]
    return (c * dx + s * dy, -s * dx + c * dy)


def simulate_moves(n_scenes: int, seed: int) -> tuple[np.ndarray, np.ndarray, dict[int, np.ndarray]]:
    """(motion inputs, goal in the last frame, horizon -> moves) of ``n_scenes`` scenes."""
    import socialbench.simulation.scenes as scenes
    from socialbench.simulation.scene_config import sample_config, scene_rng
    from socialbench.simulation.scene_layout import build_scene

    scenes.TAIL_FRAMES = max(HORIZONS_FRAMES)  # a longer run than a release's 8 tail frames
    xs, goals, moves = [], [], {h: [] for h in HORIZONS_FRAMES}
    for i in range(n_scenes):
        rng = scene_rng(seed, i)
        cfg = sample_config(rng, int(rng.integers(2, 9)))
        setup = build_scene(cfg, rng)
        robot = scenes.simulate(setup).robot
        last = cfg.first_frame + 9
        origin = robot[last]
        past = [v for k in range(last - 8, last + 1) for v in robot_frame(robot[k], origin)]
        xs.append([*past, math.remainder(float(robot[last][2] - robot[last - 4][2]), 2 * math.pi)])
        goals.append(robot_frame(setup.goal, origin))
        for h in HORIZONS_FRAMES:
            moves[h].append(robot_frame(robot[last + h], origin))
    return np.asarray(xs), np.asarray(goals), {h: np.asarray(m) for h, m in moves.items()}


def main(argv: Sequence[str] | None = None) -> int:
    from sklearn.ensemble import HistGradientBoostingRegressor

    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--scenes", type=int, default=1600)
    ap.add_argument("--seed", type=int, default=99)
    args = ap.parse_args(argv)
    x, goals, moves = simulate_moves(args.scenes, args.seed)
    cut = int(0.75 * len(x))
    print(f"{args.scenes} simulated scenes, trained on {cut}, measured on {len(x) - cut}")
    for h in HORIZONS_FRAMES:
        for name, inputs in (("motion", x), ("goal", np.hstack([x, goals]))):
            pred = np.stack(
                [
                    HistGradientBoostingRegressor(max_depth=4, max_iter=300, learning_rate=0.05, random_state=0)
                    .fit(inputs[:cut], moves[h][:cut, k])
                    .predict(inputs[cut:])
                    for k in (0, 1)
                ],
                axis=1,
            )
            err = np.hypot(*(moves[h][cut:] - pred).T)
            shares = ", ".join(f"{g:g} m: {100 * np.mean(err < g / 2):.0f}%" for g in SPACINGS_M)
            print(f"horizon {h / 4:g} s, {name:6s}: median error {np.median(err):.2f} m; within spacing/2: {shares}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
