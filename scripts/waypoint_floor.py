"""The floor of the waypoint task: how well rules that never look at a person choose.

For each data set (the bundled scenes, and ``--scenes N`` freshly simulated ones written to
a temporary folder with ``socialbench sim socialnav``), loads ``socialnav-waypoint`` exactly
as ``eval`` does and scores every scene-blind rule of
:mod:`socialbench.benchmarks.socialnav_waypoint.rules` against chance (the mean of 1 / number
of candidates): accuracy ± SE (sample std / sqrt(n)) and whether it stays within chance +
2 SE. Then the right answer's rank by distance among its item's candidates (1 = nearest), its
histogram and a χ² test of uniformity over the ranks (the p-value must exceed 0.01). Finally,
for reference and not part of the check, two rules that use the scene: toward the goal (the
``baseline:waypoint-toward-goal`` rule) and "keep going" (the candidate nearest to where the
robot's velocity over the clip's last second would take it in 2 s).

Usage::

    python scripts/waypoint_floor.py [--scenes 200] [--seed 0]

Exit status 1 when some geometric rule beats chance + 2 SE or χ² p <= 0.01 on some data set.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from scipy.stats import chisquare

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.socialnav_waypoint.candidates import FRAME_RATE_HZ, HORIZON_FRAMES
from socialbench.benchmarks.socialnav_waypoint.rules import GEOMETRIC_RULES, candidate_rows, toward_goal
from socialbench.types import Item


def accuracy(hits: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error (sample std / sqrt(n)) of 0/1 hits."""
    n = len(hits)
    mean = sum(hits) / n
    se = math.sqrt(sum((h - mean) ** 2 for h in hits) / (n - 1) / n) if n > 1 else float("nan")
    return mean, se


def gold_rank_by_distance(w: Mapping[str, Any]) -> int:
    """1 + how many candidates are nearer the robot than the right one."""
    rows = candidate_rows(w)
    dist = {label: math.hypot(x, y) for label, x, y, _ in rows}
    return 1 + sum(d < dist[w["answer"]] for d in dist.values())


def keep_going(item: Item, source: Item) -> str:
    """The candidate nearest to the robot's position 2 s on at its velocity over the last
    second of the clip (robot frame at the last frame). Uses the robot's own motion."""
    from socialbench.navigation.frames import load_scene
    from socialbench.navigation.relations import relative

    scene = load_scene(source.metadata)
    t = len(scene.robot) - 1
    back = min(int(FRAME_RATE_HZ), t)
    px, py = relative((scene.robot.x[t - back], scene.robot.y[t - back]), scene.robot, t)
    scale = (HORIZON_FRAMES / FRAME_RATE_HZ) / (back / FRAME_RATE_HZ)
    tx, ty = -px * scale, -py * scale
    rows = candidate_rows(item.metadata["waypoints"])
    return min(rows, key=lambda r: (math.hypot(r[1] - tx, r[2] - ty), r[0]))[0]


def measure(name: str, data: Path) -> bool:
    """Print the floor of one data set; True when it passes."""
    bench = get_benchmark("socialnav-waypoint")[0]
    ds = bench.load(data, require_images=False, limit=None)
    items = list(ds.items)
    n = len(items)
    chance = sum(1.0 / len(it.questions[0].options) for it in items) / n
    print(f"\n== {name}: {n} items with candidates, {len(ds.left_out)} samples left out; chance {100 * chance:.1f}%")
    print(f"{'rule':46s} {'accuracy':>9s} {'SE':>6s} {'chance+2SE':>10s}  ok")
    ok = True

    def row(label: str, choose: Callable[[Item], str | None], check: bool) -> None:
        nonlocal ok
        hits = [1.0 if choose(it) == it.votes["q_waypoint"].answers[0] else 0.0 for it in items]
        mean, se = accuracy(hits)
        bound = chance + 2 * se
        passed = mean <= bound + 1e-12
        ok = ok and (passed or not check)
        flag = ("yes" if passed else "NO") if check else "(reference)"
        print(f"{label:46s} {100 * mean:8.1f}% {100 * se:5.1f}% {100 * bound:9.1f}%  {flag}")

    for label, rule in GEOMETRIC_RULES.items():
        row(label, lambda it, rule=rule: rule(it.metadata["waypoints"]), True)
    row("toward the goal (uses the goal)", lambda it: toward_goal(it.metadata["waypoints"]), False)
    row("keep going (uses the robot's own motion)", lambda it: keep_going(it, ds.sources[it.item_id]), False)

    k = max(len(it.questions[0].options) for it in items)
    ranks = [gold_rank_by_distance(it.metadata["waypoints"]) for it in items]
    counts = [ranks.count(r) for r in range(1, k + 1)]
    p = float(chisquare(counts).pvalue)
    ok = ok and p > 0.01
    print(f"right answer's rank by distance (1 = nearest): {dict(zip(range(1, k + 1), counts))}")
    print(f"chi-square uniformity over ranks: p = {p:.3f} ({'ok' if p > 0.01 else 'NOT uniform'})")
    return ok


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=int, default=200, help="freshly simulated scenes (0: bundled scenes only)")
    ap.add_argument("--seed", type=int, default=0, help="simulation seed")
    args = ap.parse_args(argv)
    bench = get_benchmark("socialnav-waypoint")[0]
    ok = measure("bundled scenes", bench.default_data())
    if args.scenes > 0:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "sim"
            cmd = [sys.executable, "-m", "socialbench", "sim", "socialnav", "--out", str(out)]
            cmd += ["--scenes", str(args.scenes), "--seed", str(args.seed)]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            ok = measure(f"{args.scenes} simulated scenes (seed {args.seed})", out) and ok
    print("\nfloor:", "every geometric rule within chance + 2 SE, ranks uniform" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
