"""Speed of the procedural SocialNav-SUB simulator (seconds per scene).

Times, for ``--scenes`` scenes drawn as :func:`simulate_dataset` draws them:

* ``simulate``: crowd model + robot planner for one scene (warm-up + 10 frames + tail);
* ``observe``: detector visibility, noisy RTS-smoothed tracks, labels and attributes
  (``generate_sample`` without frames, which includes ``simulate`` and its retries);
* ``render frames``: the 10 raw front views;
* ``answers``: the exact answers of every question;
* ``write``: :func:`write_sample` on generated scenes (answers, JSON, pickle, JPEG frames);
* :func:`simulate_dataset` end to end, without and with ``write_composites``.

Usage: ``python perf/sim_speed.py [--scenes 10] [--people 2-8] [--seed 0]``
(about 30 s on 2 cores with the defaults).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from socialbench.benchmarks.socialnav_sub.simulated import _views, generate_sample, simulate_dataset, write_sample
from socialbench.navigation.scene3d import FrontViewRenderer
from socialbench.navigation.tracks import N_FRAMES
from socialbench.simulation.questions import answer_scene
from socialbench.simulation.scene_config import sample_config, scene_rng
from socialbench.simulation.scene_layout import build_scene
from socialbench.simulation.scenes import simulate


def _per_scene(fn, n: int) -> float:
    t0 = time.perf_counter()
    for i in range(n):
        fn(i)
    return (time.perf_counter() - t0) / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=int, default=10)
    ap.add_argument("--people", default="2-8", help="MIN-MAX labelled people per scene")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    lo, hi = (int(v) for v in args.people.split("-"))
    n = args.scenes

    generate_sample(0, args.seed, (lo, hi), render_frames=False)  # warm-up: imports, pykalman

    def sim_only(i: int) -> None:
        rng = scene_rng(args.seed, i)
        cfg = sample_config(rng, int(rng.integers(lo, hi + 1)))
        simulate(build_scene(cfg, rng))

    t_sim = _per_scene(sim_only, n)
    t_obs = _per_scene(lambda i: generate_sample(i, args.seed, (lo, hi), render_frames=False), n)
    samples = [generate_sample(i, args.seed, (lo, hi)) for i in range(n)]

    def render(i: int) -> None:
        s = samples[i]
        r = FrontViewRenderer(
            size=s.frames[0].size, scene_type=s.config.scene_type, walls=s.sim.setup.walls, goal_xy=s.truth.goal_xy
        )
        steps = np.linalg.norm(np.diff(s.sim.people, axis=0), axis=-1)
        cum = np.concatenate([np.zeros((1, steps.shape[1])), np.cumsum(steps, axis=0)])
        for t in range(N_FRAMES):
            r.render(s.truth.robot.pose(t), _views(s.sim, s.sim.first_frame + t, cum))

    t_render = _per_scene(render, n)
    t_ans = _per_scene(lambda i: answer_scene(samples[i].truth), n)
    with tempfile.TemporaryDirectory() as tmp:
        t_write = _per_scene(lambda i: write_sample(Path(tmp) / "w", samples[i], 1, args.seed), n)
        t0 = time.perf_counter()
        simulate_dataset(Path(tmp) / "a", scenes=n, seed=args.seed, people=(lo, hi))
        t_total = (time.perf_counter() - t0) / n
        t0 = time.perf_counter()
        simulate_dataset(Path(tmp) / "b", scenes=n, seed=args.seed, people=(lo, hi), write_composites=True)
        t_comp = (time.perf_counter() - t0) / n
        size = sum(p.stat().st_size for p in (Path(tmp) / "a").rglob("*") if p.is_file())
    people = statistics.mean(s.n_people for s in samples)
    print(f"{n} scenes, {lo}-{hi} labelled people (mean {people:.1f}), seed {args.seed}\n")
    print("| step | s / scene |")
    print("|---|---|")
    print(f"| simulate (crowd + planner, one attempt) | {t_sim:.3f} |")
    print(f"| observe: visibility, noisy smoothed tracks, labels (incl. simulate and retries) | {t_obs:.3f} |")
    print(f"| render 10 raw frames | {t_render:.3f} |")
    print(f"| exact answers | {t_ans:.4f} |")
    print(f"| write one sample (answers, JSON, pickle, 10 JPEGs) | {t_write:.3f} |")
    print(f"| simulate_dataset total | {t_total:.3f} |")
    print(f"| simulate_dataset with composites | {t_comp:.3f} |")
    print(f"\ndataset size without composites: {size / 1e6 / n:.3f} MB per scene")


if __name__ == "__main__":
    main()
