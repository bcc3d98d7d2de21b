"""``build socialnav`` end to end: read, resample to 4 Hz, lift, mine, smooth, write.

Everything is written into a temporary folder beside ``out`` and renamed to ``out`` at the
end, so an interrupted or failed build leaves no folder that looks complete."""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.benchmarks.socialnav_sub.bank import expand_questions
from socialbench.benchmarks.socialnav_sub.bank_file import load_bank
from socialbench.benchmarks.socialnav_sub.release_writer import (
    EXACT_ANSWERS_NOTE,
    RECORDING_CARD_TITLE,
    ReleaseSample,
    write_release_composites,
    write_release_header,
    write_release_index,
    write_release_sample,
)
from socialbench.construction.socialnav.lifting import MAX_RANGE_M, WorldObs, lift_boxes, place_points
from socialbench.construction.socialnav.mining import SPAN, MiningOptions, Window, mine_windows, window_tracks
from socialbench.construction.socialnav.quality import match_sample
from socialbench.errors import DataError, UsageError
from socialbench.files.atomic_write import refuse_link
from socialbench.navigation.frames import Odometry, Pose2D, robot_path_from_odometry, world_to_local
from socialbench.navigation.smoothing import KalmanParams, smooth_track
from socialbench.navigation.track_labels import label_people
from socialbench.navigation.tracks import N_FRAMES, Observation, PersonTrack
from socialbench.recording.clip import RELEASE_DT, Recording, Resampled, resample
from socialbench.recording.mot import MAX_TRACK_GAP, read_boxes
from socialbench.recording.tracks3d import read_tracks3d
from socialbench.recording.truth_files import TruthTracks, read_truth
from socialbench.simulation.annotators import vote_distribution
from socialbench.simulation.questions import answer_scene
from socialbench.simulation.truth import PersonTruth, SceneTruth

__all__ = ["BuildOptions", "build_socialnav", "SMOOTHING", "GOAL_FRAMES"]

#: Kalman smoothing of the lifted tracks (docs/recording.md): measured on simulated
#: recordings with the default box noise (perf/socialnav_build.py).
SMOOTHING = KalmanParams(measurement_std=0.5, accel_std=1.0, initial_velocity_std=1.5)
#: The goal: the robot's position this many 4 Hz frames after the first frame (10 s; the
#: release's goal_info names frame F0 + 40 as the goal image).
GOAL_FRAMES = 40


@dataclass(frozen=True)
class BuildOptions:
    mining: MiningOptions = field(default_factory=MiningOptions)
    smoothing: KalmanParams = SMOOTHING
    goal_frames: int = GOAL_FRAMES
    max_range_m: float = MAX_RANGE_M
    max_track_gap: int = MAX_TRACK_GAP
    answers: str = "auto"  # auto: exact answers from --truth when given, none otherwise
    composites: bool = True


def _poses_at(rec: Recording, times: np.ndarray) -> np.ndarray:
    ot = rec.odom_times
    yaw = np.unwrap(rec.odom_yaw)
    t = np.clip(times, ot[0], ot[-1])
    out = np.stack([np.interp(t, ot, rec.odom_xy[:, 0]), np.interp(t, ot, rec.odom_xy[:, 1]), np.interp(t, ot, yaw)], 1)
    out[:, 2] = (out[:, 2] + math.pi) % (2 * math.pi) - math.pi
    return out


def _exact_answers(truth: SceneTruth, n_people: int) -> dict[str, Any]:
    """``common_answers.json`` of one-answer distributions (two votes, as ``sim socialnav``)."""
    exact = answer_scene(truth)
    out: dict[str, Any] = {}
    for q in expand_questions(load_bank(), n_people):
        answers, probs, n = vote_distribution(q, [exact[q.key], exact[q.key]])
        out[q.key] = [list(a) if isinstance(a, tuple) else a for a in answers]
        out[f"{q.key}_probabilities"] = probs
        out[f"{q.key}_n_answers"] = n
    return out


def _hold(xy: np.ndarray) -> np.ndarray:
    """NaN rows filled with the nearest finite row (a person leaving the truth mid-window)."""
    ok = np.isfinite(xy).all(axis=1)
    if ok.all() or not ok.any():
        return xy
    idx = np.flatnonzero(ok)
    near = idx[np.abs(np.arange(len(xy))[:, None] - idx[None, :]).argmin(axis=1)]
    return xy[near]


def build_socialnav(
    rec: Recording,
    boxes_path: Path | None,
    out: Path,
    *,
    tracks_path: Path | None = None,
    tracks_frame: str = "robot",
    truth_dir: Path | None = None,
    options: BuildOptions = BuildOptions(),
    name: str = "rec",
) -> dict[str, Any]:
    """Build the dataset folder ``out`` (must be empty or absent); returns the build report
    (also written as ``out/build_report.json``). People come from the MOTChallenge
    ``boxes_path`` (lifted to the floor) or from the 3-D tracks ``tracks_path`` (in the
    ``tracks_frame``: ``robot`` or ``world``): exactly one of the two."""
    if (boxes_path is None) == (tracks_path is None):
        raise UsageError("give either --boxes (MOTChallenge) or --tracks (3-D tracks), not both or neither")
    if tracks_frame not in ("robot", "world"):
        raise UsageError(f"--tracks-frame must be robot or world, got {tracks_frame!r}")
    out = Path(out)
    refuse_link(out, "--out")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out} is not an empty folder; choose a new --out")
    if options.answers not in ("auto", "exact", "none"):
        raise UsageError(f"--answers must be auto, exact or none, got {options.answers!r}")
    if options.answers == "exact" and truth_dir is None:
        raise UsageError("--answers exact needs --truth (the true tracks the answers come from)")
    rs = resample(rec)
    valid = rs.source_index >= 0
    need = SPAN * RELEASE_DT
    if int(valid.sum()) < SPAN:
        raise DataError.single(
            rec.source,
            rec.topics.get("image", "frames"),
            f"recording too short: {rec.duration_s:.2f} s of frames with odometry ({int(valid.sum())} frames at 4 Hz); "
            f"one window needs {SPAN} ({need:g} s: 10 frames + 8 for the waypoint task)",
            "record at least 4.5 s of camera and odometry together",
        )
    truth = read_truth(truth_dir) if truth_dir is not None else None
    # every tick gets a pose (ticks without a frame: the odometry at the tick's own time)
    tick_times = rec.frame_times[0] + RELEASE_DT * np.arange(len(rs))
    pose = np.where(valid[:, None], rs.pose, _poses_at(rec, tick_times))
    rs = Resampled(rs.source_index, np.where(valid, rs.times, tick_times), pose)
    if boxes_path is not None:
        boxes = read_boxes(boxes_path, rec.n_frames, options.max_track_gap)
        obs, lift = lift_boxes(rec, rs, boxes, options.max_range_m)
    else:
        assert tracks_path is not None
        obs, lift = place_points(rs, read_tracks3d(tracks_path, rec.n_frames), tracks_frame == "robot")
    people_src = str(boxes_path if boxes_path is not None else tracks_path)
    chosen, n_cands = mine_windows(obs, rs.pose, valid, options.mining)
    if not chosen:
        raise DataError.single(
            people_src,
            "",
            f"no window of {SPAN} frames with at least {options.mining.min_people} labelled person(s) ({n_cands} scored)",
            "check that the boxes belong to this recording, or lower --min-people",
        )
    exact = options.answers == "exact" or (options.answers == "auto" and truth is not None)
    # beside --out (the final rename stays on one file system, never across devices)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        report = _write(tmp, rec, rs, obs, chosen, n_cands, lift, truth, exact, options, name)
        report["recording"], report["people_from"] = rec.source, people_src
        report["truth"] = None if truth_dir is None else str(truth_dir)
        (tmp / "build_report.json").write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.chmod(tmp, 0o755)
        if out.exists():
            out.rmdir()
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return report


def _write(
    root: Path,
    rec: Recording,
    rs: Resampled,
    obs: Mapping[str, list[WorldObs]],
    chosen: list[Window],
    n_cands: int,
    lift: Any,
    truth: TruthTracks | None,
    exact: bool,
    options: BuildOptions,
    name: str,
) -> dict[str, Any]:
    write_release_header(root, rec.camera.dataset_cfg())
    odom = Odometry(rs.pose[:, :2].copy(), rs.pose[:, 2].copy(), rec.source)
    samples: list[ReleaseSample] = []
    metadata: dict[str, Any] = {}
    scen: list[dict[str, Any]] = []
    errors: list[float] = []
    expected = recovered = switches = false_tracks = from_estimate = 0
    k = len(rs)
    ordered = sorted(chosen, key=lambda w: w.start)
    for i, w in enumerate(ordered, 1):
        s = w.start
        sid = f"{name}_Spot_{i}_{s}"
        origin = Pose2D(float(rs.pose[s, 0]), float(rs.pose[s, 1]), float(rs.pose[s, 2]))
        raw = window_tracks(obs, s, origin)
        smoothed = {}
        for tid, tr in raw.items():
            sm = smooth_track(tr, options.smoothing) if len(tr.observations) >= 2 else tr
            sm = sm.with_positions(np.round(sm.positions(), 4))
            smoothed[tid] = PersonTrack(
                tid, tuple(Observation(o.timestep, o.x, o.y, o.bbox, round(o.pos_diff, 4)) for o in sm.observations)
            )
        labels = label_people(smoothed)
        shown = {tr.track_id: tr for tr in labels.values()}
        g = min(s + options.goal_frames, k - 1)
        goal = world_to_local(rs.pose[g, :2], origin)
        goal_mm = (int(round(float(goal[0]) * 1000)), int(round(float(goal[1]) * 1000)))
        robot = robot_path_from_odometry(odom, s)
        entry: dict[str, Any] = {
            "sample_id": sid,
            "first_frame": s,
            "start_time": round(float(rs.times[s]), 6),
            "source_frames": [int(rs.source_index[s]) + 1, int(rs.source_index[s + SPAN - 1]) + 1],
            "features": w.features,
            "score": w.score,
            "n_people": len(labels),
            "goal_xy": [goal_mm[0] / 1000, goal_mm[1] / 1000],
            "goal_frame": g,
        }
        answers = None
        if truth is not None:
            frames = rs.source_index[s : s + N_FRAMES]
            txy, tvis = {}, {}
            for pid in truth.people:
                xy = truth.at(pid, frames)
                if np.isfinite(xy).any():
                    loc = np.full_like(xy, np.nan)
                    ok = np.isfinite(xy).all(axis=1)
                    loc[ok] = world_to_local(xy[ok], origin)
                    txy[pid], tvis[pid] = loc, truth.visible_at(pid, frames)
            q = match_sample(shown, txy, tvis)
            errors += q.errors
            expected += q.expected
            recovered += q.recovered
            switches += q.id_switches
            false_tracks += q.false_tracks
            entry["ade_m"] = None if q.ade_m is None else round(q.ade_m, 3)
            entry["recovered"] = [q.recovered, q.expected]
            entry["id_switches"] = q.id_switches
            if exact:
                people = {}
                for label, tr in labels.items():
                    match = q.assignment.get(tr.track_id)
                    if match is not None:
                        xy = _hold(txy[match])
                    else:  # a false track has no truth: its own smoothed positions answer
                        from_estimate += 1
                        est = np.full((N_FRAMES, 2), np.nan)
                        for o in tr.observations:
                            est[o.timestep] = (o.x, o.y)
                        xy = _hold(est)
                    people[label] = PersonTruth(xy, tr.timesteps)
                speed = np.hypot(*np.diff(rs.pose[s : s + SPAN, :2], axis=0).T) / RELEASE_DT
                st = SceneTruth(robot, (goal_mm[0] / 1000, goal_mm[1] / 1000), people, float(np.median(speed)))
                answers = _exact_answers(st, len(labels))
        write_release_sample(
            root,
            sid,
            s,
            smoothed.values(),
            odom.position,
            odom.yaw,
            _frames(rec, rs, s),
            answers,
        )
        samples.append(ReleaseSample(sid, len(labels), s, goal_mm, goal_frame=g))
        metadata[sid] = {**w.features, "selection_score": w.score, "start_time_s": entry["start_time"]}
        scen.append(entry)
    write_release_index(root, samples, metadata)
    if options.composites:
        write_release_composites(root, samples)
    (root / "README.md").write_text(_card(rec, samples, exact, truth is not None, options), encoding="utf-8")
    report: dict[str, Any] = {
        "scenarios": len(samples),
        "candidates": n_cands,
        "frames": rec.n_frames,
        "duration_s": round(rec.duration_s, 3),
        "ticks_4hz": int(len(rs)),
        "ticks_without_frame": int((rs.source_index < 0).sum()),
        "topics": rec.topics,
        "lifting": {
            "boxes": lift.boxes,
            "boxes_at_4hz_frames": lift.at_ticks,
            "above_horizon": lift.above_horizon,
            "beyond_range": lift.too_far,
            "max_range_m": options.max_range_m,
        },
        "mining": {
            "weights": dict(options.mining.weights),
            "close_m": options.mining.close_m,
            "max_scenarios": options.mining.max_scenarios,
            "min_people": options.mining.min_people,
            "window_frames": N_FRAMES,
            "tail_frames": SPAN - N_FRAMES,
        },
        "smoothing": asdict(options.smoothing),
        "goal": f"robot position {options.goal_frames} frames ({options.goal_frames * RELEASE_DT:g} s) after the first frame, in its robot frame (the recording's last frame when it ends sooner)",
        "answers": (
            "exact answers from the true tracks (simulation's definitions; NOT human answers)"
            if exact
            else "none: run a survey (build socialnav-survey / socialnav-answers) to add human answers"
        ),
        "scenario_list": scen,
        "ade_m": round(float(np.mean(errors)), 4) if errors else None,
        "recovered_share": round(recovered / expected, 4) if expected else None,
        "true_people_expected": expected,
        "true_people_recovered": recovered,
        "id_switches": switches if truth is not None else None,
        "false_tracks": false_tracks if truth is not None else None,
        "answers_from_estimate": from_estimate if exact else None,
    }
    return report


def _frames(rec: Recording, rs: Resampled, s: int) -> list[Any]:
    idx = [int(i) for i in rs.source_index[s : s + N_FRAMES]]
    got = dict(rec.load_frames(idx))
    return [got[i] for i in idx]


def _card(rec: Recording, samples: list[ReleaseSample], exact: bool, has_truth: bool, options: BuildOptions) -> str:
    n = [s.n_people for s in samples]
    labels = (
        f"{EXACT_ANSWERS_NOTE}: each is the exact answer computed from the "
        "true tracks (given with `--truth`) by the simulator's definitions (docs/simulation.md), stored "
        "as a two-vote one-answer distribution, so PA equals accuracy against those answers."
        if exact
        else "There are no answers (`human_labels/<S>/common_answers.json` absent): the scenarios "
        "have no questions to score until a survey's answers are imported "
        "(`socialbench build socialnav-answers`)."
    )
    return (
        f"{RECORDING_CARD_TITLE}\n\n"
        f"Built by `socialbench build socialnav` from `{rec.source}`: {len(samples)} scenarios, "
        f"{sum(n)} labelled people (10 frames at 4 Hz each, official release layout). "
        "Tracks: tracker boxes lifted to the floor through the calibrated camera, moved into each "
        "scenario's first robot frame with the odometry, Kalman-smoothed. Mining, goal and "
        "smoothing settings: `build_report.json`.\n\n"
        f"{labels}\n"
    )
