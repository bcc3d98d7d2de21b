"""Proxemics of the simulator's robot planner over many simulated scenes (issue 14 §4).

For each scene (generated as ``socialbench sim socialnav`` does: scene ``i`` of seed ``S``,
one configuration draw, no retries), the minimum robot-person centre distance over the
sample's frames and the tail after it, and whether the robot

* passes comfortably: minimum distance >= 1.2 m (proxemics: social zone for passing), or
* yields: at the closest approach the robot is nearly stopped (< 0.2 m/s) and the
  distance is still >= 0.8 m.

Usage: ``.venv/bin/python perf/sim_proxemics.py [--scenes 200] [--seed 0]``; prints a
summary (quantiles of the minimum distance, the shares) and, with ``--json``, one line of
JSON. Measures only; changes nothing.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from socialbench.simulation.scene_config import SCENE_TYPES, sample_config, scene_rng
from socialbench.simulation.scene_layout import build_scene
from socialbench.simulation.scenes import simulate

COMFORT_M = 1.2
YIELD_SPEED = 0.2
YIELD_MIN_M = 0.8


def scene_proxemics(index: int, seed: int, people: tuple[int, int] = (2, 6)) -> dict:
    rng = scene_rng(seed, index)
    scene_type = SCENE_TYPES[int(rng.integers(len(SCENE_TYPES)))]
    n = int(rng.integers(people[0], people[1] + 1))
    setup = build_scene(sample_config(rng, n, scene_type=scene_type), rng)
    sim = simulate(setup)
    window = slice(sim.first_frame, sim.n_frames)
    d = np.linalg.norm(sim.people[window] - sim.robot[window, None, :2], axis=-1)  # (K, N)
    k, i = np.unravel_index(int(np.argmin(d)), d.shape)
    dmin = float(d[k, i])
    speed = float(sim.robot_speed[window][k])
    return {
        "index": index,
        "scene_type": scene_type,
        "min_distance_m": dmin,
        "speed_at_min": speed,
        "comfortable_pass": dmin >= COMFORT_M,
        "yields": speed < YIELD_SPEED and dmin >= YIELD_MIN_M,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = [scene_proxemics(i, a.seed) for i in range(a.scenes)]
    d = np.array([r["min_distance_m"] for r in rows])
    ok = [r["comfortable_pass"] or r["yields"] for r in rows]
    summary = {
        "scenes": len(rows),
        "seed": a.seed,
        "min_distance_quantiles_m": {q: round(float(np.quantile(d, q / 100)), 3) for q in (5, 25, 50, 75, 95)},
        "share_below_0_6_m": round(float(np.mean(d < 0.6)), 3),
        "share_below_1_2_m": round(float(np.mean(d < COMFORT_M)), 3),
        "share_comfortable_pass": round(float(np.mean([r["comfortable_pass"] for r in rows])), 3),
        "share_yields": round(float(np.mean([r["yields"] for r in rows])), 3),
        "share_social": round(float(np.mean(ok)), 3),
    }
    print(json.dumps(summary) if a.json else "\n".join(f"{k}: {v}" for k, v in summary.items()))


if __name__ == "__main__":
    main()
