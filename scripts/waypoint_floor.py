"""The floor of the waypoint task: how well choices that never look at a person do.

For each data set (the bundled scenes, ``--scenes N`` freshly simulated ones per ``--seeds``
seed written to a temporary folder with ``socialbench sim socialnav``, and any ``--data``
folder), loads ``socialnav-waypoint`` exactly as ``eval`` does and prints its coverage
(samples asked, samples left out with the reason) and, on its items and pooled over all of
them, the accuracy ± SE (sample std / sqrt(n)) of

* every rule of :data:`~socialbench.benchmarks.socialnav_waypoint.rules.GEOMETRIC_RULES`
  (candidate geometry, front-view pixels, list order and letter) and
  :data:`~socialbench.benchmarks.socialnav_waypoint.rules.MOTION_RULES` (the robot's own past
  motion: speed × horizon, constant velocity, constant turn, previous heading, combinations);
* two scikit-learn classifiers (logistic regression, gradient boosting) on people-blind
  features of each candidate (distance, bearing, distance to the constant-velocity and
  constant-turn predictions, step length relative to the robot's speed, pixel position, letter,
  offset from the candidates' mean) and of the robot's own path over the clip (its last nine
  odometry positions in the robot frame at the last frame, from ``traj_data.pkl``),
  cross-validated by scene (GroupKFold, 5 folds): each item's choice is its candidate with the
  highest predicted probability;
* "nearest the predicted move": two gradient-boosting regressors learn the move (x, y) from the
  same people-blind description of the robot's motion, and the rule picks the candidate nearest
  their prediction. The script also prints, for candidate spacings of 0.1-0.5 m, the share of
  items whose move lies within half the spacing of that prediction: a lower bound, for any
  design whose candidates are that far apart, on what this rule scores (no other candidate can
  be nearer the prediction than the move then).

The folds keep together every item that shares a move with another (an item's alternatives
are other samples' moves; :func:`move_components`): split across folds, the same move is a
wrong answer in the training items and the right one in a test item, and the classifier learns
to avoid the right answers (a classifier on the step length alone then scored 12.7%, far below
chance, on one design this session), which hides a real shortcut.
* for reference, the goal-using rules (:data:`~.rules.GOAL_RULES`) and the classifiers with
  the goal's bearing and distance added: they may beat chance (the prompt asks for progress
  to the goal); Table 3 shows them as Baseline rows.

Exit status 1 when any people-blind rule or classifier (goal-free) exceeds chance + 3 points
on the pooled items (``--margin``). Usage::

    python scripts/waypoint_floor.py [--scenes 200] [--seeds 0 1 2] [--data DIR ...]
"""

from __future__ import annotations

import argparse
import functools
import math
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.socialnav_waypoint.benchmark import left_out_line
from socialbench.benchmarks.socialnav_waypoint.rules import (
    GEOMETRIC_RULES,
    GOAL_RULES,
    HORIZON_S,
    MOTION_RULES,
    candidate_rows,
)
from socialbench.types import Item

Row = tuple[str, str, float, float, int]  # name, kind, accuracy, SE, n


def accuracy(hits: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error (sample std / sqrt(n)) of 0/1 hits."""
    n = len(hits)
    mean = sum(hits) / n
    se = math.sqrt(sum((h - mean) ** 2 for h in hits) / (n - 1) / n) if n > 1 else float("nan")
    return mean, se


def gold(item: Item) -> str:
    return str(item.votes["q_waypoint"].answers[0])


def scene_of(item: Item) -> str:
    """The scene an item comes from (the sample id without its trailing ``_<frame>``)."""
    scene = item.metadata.get("scene")
    return str(scene) if scene else item.item_id.rsplit("_", 1)[0]


def move_components(items: Sequence[Item]) -> list[str]:
    """For each item, a label shared by every item it is linked to through a shared move (its
    own id and its candidates' ``source`` samples, transitively): the cross-validation groups."""
    parent: dict[str, str] = {}

    def find(a: str) -> str:
        parent.setdefault(a, a)
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for it in items:
        for c in it.metadata["waypoints"]["candidates"]:
            if c.get("source"):
                parent[find(str(c["source"]))] = find(it.item_id)
    return [find(it.item_id) for it in items]


def past_path(item: Item) -> np.ndarray:
    """The robot's last nine odometry positions over the clip (metres, robot frame at the
    clip's last frame), flattened: what the clip and its BEVs show of the robot's own path."""
    return np.asarray(_past_path(str(item.metadata["odometry_path"]), int(item.metadata["first_frame"])))


@functools.cache
def _past_path(odometry_path: str, first_frame: int) -> tuple[float, ...]:
    """:func:`past_path` of the clip starting at ``first_frame``: each ``traj_data.pkl`` is
    read once, however many classifiers and regressors need the path."""
    from socialbench.benchmarks.socialnav_sub.layout import N_FRAMES
    from socialbench.navigation.frames import load_odometry

    odom = load_odometry(odometry_path)
    last = first_frame + N_FRAMES - 1
    yaw = float(odom.yaw[last])
    c, s = math.cos(yaw), math.sin(yaw)
    out = []
    for k in range(last - 8, last + 1):
        dx, dy = odom.position[max(k, 0)] - odom.position[last]
        out += [float(c * dx + s * dy), float(-s * dx + c * dy)]
    return tuple(out)


def motion_features(item: Item, with_goal: bool) -> np.ndarray:
    """People-blind description of the robot's motion (velocity, yaw rate, past path) and, with
    ``with_goal``, the goal: the inputs of the move predictor."""
    w = item.metadata["waypoints"]
    robot = w.get("robot") or {"velocity": [0.0, 0.0], "yaw_rate": 0.0}
    f = [float(robot["velocity"][0]), float(robot["velocity"][1]), float(robot["yaw_rate"]), *past_path(item)]
    if with_goal:
        goal = w.get("goal") or [0.0, 0.0]
        f += [float(goal[0]), float(goal[1])]
    return np.asarray(f, dtype=float)


def true_move(item: Item) -> tuple[float, float]:
    """The right candidate's position (the operator's move)."""
    c = next(c for c in item.metadata["waypoints"]["candidates"] if c["label"] == gold(item))
    return float(c["x"]), float(c["y"])


def predicted_moves(items: Sequence[Item], with_goal: bool, folds: int = 5) -> np.ndarray | None:
    """Each item's move as gradient boosting predicts it from :func:`motion_features`, trained
    on the other folds (:func:`move_components`); None with fewer than two groups."""
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.model_selection import GroupKFold

    groups = move_components(items)
    if len(set(groups)) < 2:
        return None
    x = np.stack([motion_features(it, with_goal) for it in items])
    y = np.asarray([true_move(it) for it in items])
    out = np.zeros_like(y)
    for train, test in GroupKFold(n_splits=min(folds, len(set(groups)))).split(x, y, groups):
        for k in (0, 1):
            model = HistGradientBoostingRegressor(max_depth=4, max_iter=300, learning_rate=0.05, random_state=0)
            out[test, k] = model.fit(x[train], y[train, k]).predict(x[test])
    return out


def nearest_prediction_hits(items: Sequence[Item], predicted: np.ndarray) -> list[float]:
    """0/1 hits of "the candidate nearest the predicted move" (ties by letter)."""
    hits = []
    for it, (px, py) in zip(items, predicted):
        rows = candidate_rows(it.metadata["waypoints"])
        pick = min(rows, key=lambda r: (math.hypot(r[1] - px, r[2] - py), r[0]))[0]
        hits.append(1.0 if pick == gold(it) else 0.0)
    return hits


#: Candidate spacings (metres) at which :func:`spacing_bound` is printed.
BOUND_SPACINGS = (0.1, 0.2, 0.35, 0.5)


def spacing_bound(items: Sequence[Item], predicted: np.ndarray, spacing: float) -> float:
    """Share of items whose move lies within ``spacing / 2`` of the predicted move: with
    candidates at least ``spacing`` apart, "nearest the prediction" is right at least this often."""
    moves = np.asarray([true_move(it) for it in items])
    return float(np.mean(np.hypot(*(moves - predicted).T) < spacing / 2))


def candidate_features(w: Any, with_goal: bool) -> tuple[list[str], np.ndarray]:
    """(letters, feature matrix) of one item's candidates; people-blind (see the module docstring)."""
    rows = candidate_rows(w)
    robot = w.get("robot") or {"velocity": [0.0, 0.0], "yaw_rate": 0.0}
    vx, vy = float(robot["velocity"][0]), float(robot["velocity"][1])
    om = float(robot["yaw_rate"])
    speed = math.hypot(vx, vy)
    h = math.atan2(vy, vx) if speed > 0 else 0.0
    cv = (vx * HORIZON_S, vy * HORIZON_S)
    if abs(om) > 1e-6 and speed > 0:
        r = speed / om
        lx, ly = r * math.sin(om * HORIZON_S), r * (1 - math.cos(om * HORIZON_S))
        ct = (math.cos(h) * lx - math.sin(h) * ly, math.sin(h) * lx + math.cos(h) * ly)
    else:
        ct = cv
    mx = sum(r[1] for r in rows) / len(rows)
    my = sum(r[2] for r in rows) / len(rows)
    goal = w.get("goal")
    feats = []
    for k, (_, x, y, px) in enumerate(rows):
        d = math.hypot(x, y)
        b = math.atan2(y, x) if d > 0 else 0.0
        f = [
            d,
            b,
            x,
            y,
            math.hypot(x - cv[0], y - cv[1]),
            math.hypot(x - ct[0], y - ct[1]),
            d / max(speed * HORIZON_S, 0.1),
            d - speed * HORIZON_S,
            math.remainder(b - h, 2 * math.pi),
            -1.0 if px is None else px[0],
            -1.0 if px is None else px[1],
            float(k),
            x - mx,
            y - my,
            speed,
            om,
        ]
        if with_goal:
            gx, gy = (float(goal[0]), float(goal[1])) if goal is not None else (0.0, 0.0)
            f += [math.remainder(b - math.atan2(gy, gx), 2 * math.pi), math.hypot(x - gx, y - gy)]
        feats.append(f)
    return [r[0] for r in rows], np.asarray(feats, dtype=float)


def classifier_hits(items: Sequence[Item], kind: str, with_goal: bool, folds: int = 5) -> list[float]:
    """0/1 hits of a classifier cross-validated by scene (see the module docstring)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    blocks = [candidate_features(it.metadata["waypoints"], with_goal) for it in items]
    paths = [past_path(it) for it in items]
    x = np.concatenate([np.hstack([f, np.tile(p, (len(f), 1))]) for (_, f), p in zip(blocks, paths)])
    y = np.concatenate([[1 if lab == gold(it) else 0 for lab in labs] for it, (labs, _) in zip(items, blocks)])
    owner = np.concatenate([[i] * len(labs) for i, (labs, _) in enumerate(blocks)])
    component = move_components(items)
    scenes = np.asarray([component[i] for i in owner])
    hits = [0.0] * len(items)
    n_folds = min(folds, len(set(scenes)))
    for train, test in GroupKFold(n_splits=n_folds).split(x, y, scenes):
        if kind == "logistic regression":
            model: Any = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
        else:
            model = HistGradientBoostingClassifier(max_iter=100, max_depth=3, random_state=0)
        model.fit(x[train], y[train])
        p = model.predict_proba(x[test])[:, 1]
        for i in sorted(set(owner[test].tolist())):
            sel = owner[test] == i
            labs = blocks[i][0]
            hits[i] = 1.0 if labs[int(np.argmax(p[sel]))] == gold(items[i]) else 0.0
    return hits


def battery(items: Sequence[Item], classifiers: bool = True, predicted: np.ndarray | None = None) -> list[Row]:
    """Every rule and classifier on ``items``: (name, kind, accuracy, SE, n); kind is
    ``people-blind`` (must stay at chance) or ``goal`` (reference). ``predicted``: the
    people-blind :func:`predicted_moves` of ``items`` when the caller has them already."""
    out: list[Row] = []

    def add(name: str, kind: str, hits: Sequence[float]) -> None:
        if hits:
            out.append((name, kind, *accuracy(hits), len(hits)))

    def rule_hits(rule: Callable[[Any], str | None]) -> list[float]:
        picks = [(rule(it.metadata["waypoints"]), gold(it)) for it in items]
        return [1.0 if p == g else 0.0 for p, g in picks if p is not None]

    for name, rule in {**GEOMETRIC_RULES, **MOTION_RULES}.items():
        add(name, "people-blind", rule_hits(rule))
    for name, goal_rule in GOAL_RULES.items():
        add(name, "goal", rule_hits(goal_rule))
    if classifiers and len(set(move_components(items))) >= 2:
        for kind in ("logistic regression", "gradient boosting"):
            add(f"{kind} (people-blind features, CV by scene)", "people-blind", classifier_hits(items, kind, False))
            add(f"{kind} (+ goal features, CV by scene)", "goal", classifier_hits(items, kind, True))
        for with_goal in (False, True):
            moves = predicted if predicted is not None and not with_goal else predicted_moves(items, with_goal)
            if moves is not None:
                name = "nearest the predicted move" + (" (+ goal)" if with_goal else " (people-blind regressor)")
                add(name, "goal" if with_goal else "people-blind", nearest_prediction_hits(items, moves))
    return out


def chance_of(items: Sequence[Item]) -> float:
    return sum(1.0 / len(it.questions[0].options) for it in items) / len(items)


def print_battery(
    title: str, items: Sequence[Item], margin: float, classifiers: bool = True, predicted: np.ndarray | None = None
) -> bool:
    """Print the battery on ``items``; True when every people-blind row is within chance + ``margin``."""
    chance = chance_of(items)
    print(f"\n-- {title}: {len(items)} items, chance {100 * chance:.1f}%")
    print(f"{'rule':62s} {'accuracy':>9s} {'SE':>6s}  within chance+{100 * margin:g}")
    ok = True
    for name, kind, mean, se, n in battery(items, classifiers, predicted):
        within = mean <= chance + margin + 1e-12
        if kind == "people-blind":
            ok = ok and within
        flag = ("yes" if within else "NO") if kind == "people-blind" else "(uses the goal: Baseline row)"
        print(f"{name:62s} {100 * mean:8.1f}% {100 * se:5.1f}%  {flag}" + ("" if n == len(items) else f"  n={n}"))
    return ok


def load(data: Path) -> tuple[list[Item], int, str | None]:
    """The waypoint items of ``data``, its number of samples and its left-out line."""
    bench = get_benchmark("socialnav-waypoint")[0]
    ds = bench.load(data, require_images=False, limit=None)
    return list(ds.items), len(ds.items) + len(ds.left_out), left_out_line(ds)


def simulate(out: Path, scenes: int, seed: int) -> None:
    cmd = [sys.executable, "-m", "socialbench", "sim", "socialnav", "--out", str(out)]
    cmd += ["--scenes", str(scenes), "--seed", str(seed), "--no-progress"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--scenes", type=int, default=200, help="simulated scenes per seed (0: none)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="simulation seeds")
    ap.add_argument("--data", type=Path, nargs="*", default=[], help="more dataset folders")
    ap.add_argument("--no-bundled", action="store_true", help="leave out the bundled scenes")
    ap.add_argument("--margin", type=float, default=0.03, help="allowed excess over chance (0.03: 3 points)")
    args = ap.parse_args(argv)
    sets: list[tuple[str, Path]] = []
    if not args.no_bundled:
        sets.append(("bundled scenes", get_benchmark("socialnav-waypoint")[0].default_data()))
    sets += [(str(d), d) for d in args.data]
    pooled: list[Item] = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.scenes > 0:
            for seed in args.seeds:
                out = Path(tmp) / f"sim-{seed}"
                simulate(out, args.scenes, seed)
                sets.append((f"{args.scenes} simulated scenes (seed {seed})", out))
        print("coverage (samples asked / samples):")
        loaded = []
        for name, data in sets:
            items, total, line = load(data)
            print(
                f"  {name}: {len(items)} / {total} ({100 * len(items) / max(total, 1):.1f}%)"
                + (f"; {line}" if line else "")
            )
            loaded.append((name, items))
        for name, items in loaded:
            if items:
                print_battery(name, items, args.margin, classifiers=False)
            pooled += items
        # inside the temporary folder: the classifiers read each clip's odometry
        predicted = predicted_moves(pooled, False) if pooled else None
        ok = (
            print_battery(f"pooled ({len(loaded)} data sets)", pooled, args.margin, predicted=predicted)
            if pooled
            else False
        )
        if predicted is not None:
            print("\nbound for any design with candidates that far apart (share of moves within spacing / 2 of the")
            print("people-blind predicted move; 'nearest the predicted move' scores at least this):")
            print(
                "  " + ", ".join(f"{g:g} m: {100 * spacing_bound(pooled, predicted, g):.1f}%" for g in BOUND_SPACINGS)
            )
    print("\nfloor:", f"every people-blind rule within chance + {100 * args.margin:g} points" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
