"""Write procedurally simulated scenes as a SocialNav-SUB dataset (official release layout).

:func:`simulate_dataset` is what ``socialbench sim socialnav`` runs: per scene it simulates
people and robot (:mod:`socialbench.simulation.scenes`), renders the front-camera frames,
writes the noisy, RTS-smoothed tracks a tracker would output for the people it sees, and
answers every question from the true geometry (:mod:`socialbench.simulation.questions`).
The steps, the tracker's visibility rule, the labels and the files written are in
docs/benchmarks.md, "Simulated SocialNav-SUB scenes"; each dataset's README.md (the card
written by :func:`dataset_card`) states them too.

Deterministic: scene i is generated from ``SeedSequence([seed, i])`` alone, and every file is
written without timestamps, so the same arguments give the same bytes (with the same
numpy, Pillow and pykalman versions), and the first k scenes do not depend on ``scenes``.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from socialbench.benchmarks.socialnav_sub.bank import base_key_of, expand_questions
from socialbench.benchmarks.socialnav_sub.bank_file import load_bank
from socialbench.benchmarks.socialnav_sub.release_writer import (
    ReleaseSample,
    write_release_composites,
    write_release_header,
    write_release_index,
    write_release_sample,
)
from socialbench.errors import UsageError
from socialbench.files.clear_folder import remove_generated
from socialbench.files.dataset_writer import write_file
from socialbench.navigation.frames import Odometry, Pose2D, local_to_world, robot_path_from_odometry, wrap_angle
from socialbench.navigation.projection import SCAND_DATASET_CFG, PinholeCamera
from socialbench.navigation.scene3d import FrontViewRenderer
from socialbench.navigation.scene3d_types import PersonView
from socialbench.navigation.track_labels import label_people
from socialbench.navigation.tracks import N_FRAMES, Observation, PersonTrack
from socialbench.simulation.annotators import annotator_votes, vote_distribution
from socialbench.simulation.questions import answer_scene
from socialbench.simulation.scene_config import SCENE_TYPES, SceneConfig, sample_config, scene_rng
from socialbench.simulation.scene_layout import build_scene
from socialbench.simulation.scenes import SimResult, simulate
from socialbench.simulation.truth import DEFAULT_THRESHOLDS, AnswerThresholds, PersonTruth, SceneTruth
from socialbench.simulation.visibility import (
    CLOSE_M,
    MAX_DEPTH_M,
    MIN_DEPTH_M,
    MIN_IN_VIEW,
    MIN_VISIBLE,
    SCORE_WEIGHTS,
)
from socialbench.simulation.visibility import seen as seen_by_tracker
from socialbench.types import Answer

if TYPE_CHECKING:
    from PIL import Image

STRIDE_M = 1.4  # one gait cycle per 1.4 m walked (drawing only)
MAX_ATTEMPTS = 60
CARD_TITLE = "# SYNTHETIC SocialNav-SUB scenes (procedural simulation)"

DATASET_CFG = SCAND_DATASET_CFG + "camera_height: 0.6\ncamera_x_offset: 0.0\n"


@dataclass(frozen=True, eq=False)
class SimSample:
    """One generated sample: what is written and the truth its answers come from."""

    index: int
    sample_id: str
    config: SceneConfig
    sim: SimResult
    tracks: dict[str, PersonTrack]  # tracker id -> noisy smoothed track (as written)
    labels: dict[int, str]  # label -> tracker id
    agent_of: dict[str, int]  # tracker id -> agent index
    truth: SceneTruth
    odometry: Odometry
    goal_mm: tuple[int, int]
    frames: tuple[Image.Image, ...] = field(default=(), repr=False)  # when rendered
    attributes: dict[str, Any] = field(default_factory=dict)

    @property
    def n_people(self) -> int:
        return len(self.labels)


#: Tracker noise before smoothing (mean displacement, metres). After RTS smoothing the stored
#: tracks are off by about 0.67 m on average, the paper's ADE for PHALP (App. 7.3); each
#: scene's measured value is stored as ``track_ade_m`` in sample_metadata.json.
DEFAULT_NOISE_M = 1.3


def _views(sim: SimResult, k: int, cum: np.ndarray) -> list[PersonView]:
    agents = sim.setup.agents
    return [
        PersonView(
            float(sim.people[k, i, 0]),
            float(sim.people[k, i, 1]),
            a.appearance,
            phase=float(2 * math.pi * cum[k, i] / STRIDE_M),
            walking=a.role != "standing",
        )
        for i, a in enumerate(agents)
    ]


def _noisy_tracks(
    sim: SimResult,
    seen: dict[int, list[tuple[int, tuple[float, float, float, float]]]],
    noise_m: float,
    rng: np.random.Generator,
) -> tuple[dict[str, PersonTrack], dict[str, int]]:
    """Tracker output: noisy, smoothed positions at the seen timesteps (docs/benchmarks.md)."""
    f0 = sim.first_frame
    sigma = noise_m / math.sqrt(math.pi / 2.0)
    smoother = None
    if sigma > 0:
        from socialbench.navigation.smoothing import KalmanParams, smooth_track

        params = KalmanParams(measurement_std=max(sigma, 0.05))
        smoother = lambda tr: smooth_track(tr, params)  # noqa: E731
    tracks: dict[str, PersonTrack] = {}
    agent_of: dict[str, int] = {}
    for i in sorted(seen):
        obs = seen[i]
        steps = [t for t, _ in obs]
        true = sim.people[[f0 + t for t in steps], i]
        xy = true + (rng.normal(0.0, sigma, size=true.shape) if sigma > 0 else 0.0)
        tid = str(i + 1)
        tr = PersonTrack(tid, tuple(Observation(t, float(x), float(y), box) for (t, box), (x, y) in zip(obs, xy)))
        if smoother is not None and len(tr.observations) >= 2:  # pykalman fails on one observation
            tr = smoother(tr)
        tr = tr.with_positions(np.round(tr.positions(), 4))
        tr = PersonTrack(
            tid, tuple(Observation(o.timestep, o.x, o.y, o.bbox, round(o.pos_diff, 4)) for o in tr.observations)
        )
        tracks[tid] = tr
        agent_of[tid] = i
    return {k: tracks[k] for k in sorted(tracks)}, agent_of  # file order (sorted keys)


def _odometry(sim: SimResult, rng: np.random.Generator) -> Odometry:
    """World odometry: the scene-frame robot poses under a random rigid transform."""
    origin = Pose2D(float(rng.uniform(-50, 50)), float(rng.uniform(-50, 50)), float(rng.uniform(-math.pi, math.pi)))
    pos = np.round(local_to_world(sim.robot[:, :2], origin), 6)
    yaw = np.round(np.asarray(wrap_angle(sim.robot[:, 2] + origin.yaw)), 6)
    return Odometry(pos, yaw, "<simulated>")


def _attributes(
    s_cfg: SceneConfig,
    sim: SimResult,
    truth: SceneTruth,
    tracks: dict[str, PersonTrack],
    agent_of: dict[str, int],
    labels: dict[int, str],
    label_source: str,
) -> dict[str, Any]:
    f0 = sim.first_frame
    robot = truth.robot
    close = 0
    for tid in labels.values():
        d = np.hypot(*(sim.people[f0 : f0 + N_FRAMES, agent_of[tid]] - robot.xy()).T)
        close += bool(d.min() <= CLOSE_M)
    lateral = float(np.abs(robot.y).max())
    errs = [
        float(np.hypot(*(np.array(o.xy) - sim.people[f0 + o.timestep, agent_of[tid]])))
        for tid in labels.values()
        for o in tracks[tid].observations
    ]
    agents = sim.setup.agents
    roles = Counter(a.role for a in agents)
    feats = {"crowd_size": len(labels), "n_close": close, "lateral_motion_m": round(lateral, 3)}
    score = sum(SCORE_WEIGHTS[k] * feats[k] for k in SCORE_WEIGHTS)
    return {
        "synthetic": True,
        "label_source": label_source,
        "scene_type": s_cfg.scene_type,
        **feats,
        "selection_score": round(score, 3),
        "n_agents": len(agents),
        "n_groups": len({a.group for a in agents if a.group >= 0}),
        "n_standing": roles.get("standing", 0),
        "n_cross_traffic": roles.get("cross", 0),
        "proximity_knob": round(s_cfg.proximity, 3),
        "lateral_knob": round(s_cfg.lateral, 3),
        "robot_cruise_speed_mps": round(s_cfg.robot_speed, 3),
        "track_ade_m": round(float(np.mean(errs)), 3) if errs else None,
    }


def generate_sample(
    index: int,
    seed: int,
    people: tuple[int, int],
    *,
    noise_m: float = DEFAULT_NOISE_M,
    frame_size: tuple[int, int] = (640, 360),
    annotators: int = 1,
    camera: PinholeCamera = PinholeCamera(),
    render_frames: bool = True,
) -> SimSample:
    """Scene ``index`` of the dataset with ``seed``: simulated until the number of labelled
    people lies in ``people`` (inclusive), then observed, labelled and answered."""
    lo, hi = people
    rng = scene_rng(seed, index)
    scene_type = SCENE_TYPES[int(rng.integers(len(SCENE_TYPES)))]  # fixed across retries: no bias
    for _ in range(MAX_ATTEMPTS):
        target = int(rng.integers(lo, hi + 1))
        cfg = sample_config(rng, target + int(rng.integers(0, 3)), scene_type=scene_type)
        setup = build_scene(cfg, rng)
        sim = simulate(setup)
        f0 = sim.first_frame
        odom = _odometry(sim, rng)
        robot = robot_path_from_odometry(odom, f0)
        goal_mm = (int(round(setup.goal[0] * 1000)), int(round(setup.goal[1] * 1000)))
        goal_xy = (goal_mm[0] / 1000.0, goal_mm[1] / 1000.0)
        renderer = FrontViewRenderer(camera, frame_size, cfg.scene_type, setup.walls, goal_xy)
        steps = np.linalg.norm(np.diff(sim.people, axis=0), axis=-1)
        cum = np.concatenate([np.zeros((1, steps.shape[1])), np.cumsum(steps, axis=0)])
        seen: dict[int, list[tuple[int, Any]]] = {}
        views_per_t = []
        for t in range(N_FRAMES):
            views = _views(sim, f0 + t, cum)
            views_per_t.append(views)
            for i, det in enumerate(renderer.observe(robot.pose(t), views)):
                if seen_by_tracker(det):
                    seen.setdefault(i, []).append((t, det.bbox))
        tracks, agent_of = _noisy_tracks(sim, seen, noise_m, rng)
        kept = label_people(tracks)
        if lo <= len(kept) <= hi:
            break
    else:
        raise RuntimeError(
            f"scene {index}: no simulation with {lo}-{hi} labelled people in {MAX_ATTEMPTS} attempts; widen --people"
        )
    labels = {label: tr.track_id for label, tr in kept.items()}
    truth = SceneTruth(
        robot,
        goal_xy,
        {
            label: PersonTruth(sim.people[f0 : f0 + N_FRAMES, agent_of[tid]], tracks[tid].timesteps)
            for label, tid in labels.items()
        },
        cruise_speed=cfg.robot_speed,
    )
    source = "exact geometry" if annotators == 1 else f"synthetic panel of {annotators}"
    attrs = _attributes(cfg, sim, truth, tracks, agent_of, labels, source)
    frames = tuple(renderer.render(robot.pose(t), views_per_t[t]) for t in range(N_FRAMES)) if render_frames else ()
    sid = f"sim_Spot_{index:03d}_{f0}"
    return SimSample(index, sid, cfg, sim, tracks, labels, agent_of, truth, odom, goal_mm, frames, attrs)


def common_answers(
    sample: SimSample,
    annotators: int,
    rng: np.random.Generator | None = None,
    th: AnswerThresholds = DEFAULT_THRESHOLDS,
) -> dict[str, Any]:
    """The ``common_answers.json`` object of a sample (labels: docs/benchmarks.md)."""
    questions = expand_questions(load_bank(), sample.n_people)
    if annotators == 1:
        exact = answer_scene(sample.truth, th)
        votes: dict[str, list[Answer]] = {k: [a, a] for k, a in exact.items()}
    else:
        assert rng is not None
        votes = annotator_votes(sample.truth, annotators, rng, th=th)
    out: dict[str, Any] = {}
    for q in questions:
        answers, probs, n = vote_distribution(q, votes[q.key])
        out[q.key] = [list(a) if isinstance(a, tuple) else a for a in answers]
        out[f"{q.key}_probabilities"] = probs
        out[f"{q.key}_n_answers"] = n
    out[""] = ["next"]  # the release's stray key (reference §a)
    out["_probabilities"] = [1.0]
    out["_n_answers"] = 2
    return out


def write_sample(root: Path, sample: SimSample, annotators: int, seed: int) -> None:
    """Write one sample's own files: labels, tracks, odometry and frames (the panel's votes,
    if any, are drawn from ``SeedSequence([seed, index, 1])``)."""
    vote_rng = np.random.default_rng(np.random.SeedSequence([int(seed), sample.index, 1]))
    write_release_sample(
        root,
        sample.sample_id,
        sample.sim.first_frame,
        sample.tracks.values(),
        sample.odometry.position,
        sample.odometry.yaw,
        sample.frames,
        common_answers(sample, annotators, vote_rng),
    )


def _release_entry(s: SimSample) -> ReleaseSample:
    return ReleaseSample(s.sample_id, s.n_people, s.sim.first_frame, s.goal_mm)


def _versions() -> dict[str, str]:
    import PIL

    out = {"numpy": np.__version__, "Pillow": PIL.__version__}
    try:
        import pykalman

        out["pykalman"] = getattr(pykalman, "__version__", "installed")
    except ImportError:  # pragma: no cover - only without the nav extra
        out["pykalman"] = "not installed"
    return out


def simulate_dataset(
    out: Path,
    *,
    scenes: int,
    seed: int,
    people: tuple[int, int],
    frame_size: tuple[int, int] = (640, 360),
    annotators: int = 1,
    noise_m: float = DEFAULT_NOISE_M,
    write_composites: bool = False,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Write ``scenes`` simulated samples under ``out`` in the SocialNav-SUB layout; returns
    ``out``. ``people`` = (min, max) labelled people per scene; ``noise_m``: the tracker's mean
    position error before smoothing (0: exact tracks). With 2 to 21 ``annotators``
    ``int(p * n)`` recovers every vote count exactly (the official scorer truncates).

    ``out`` must be empty or absent; with ``overwrite``, a folder this function wrote
    (recognised by its README) is cleared first. ``progress(done, total)`` is called after
    each scene and, with ``write_composites``, after each scene's composites."""
    if isinstance(scenes, bool) or not isinstance(scenes, int) or scenes < 1:
        raise ValueError(f"scenes must be a positive integer, got {scenes!r}")
    lo, hi = (int(people[0]), int(people[1]))
    if lo < 0 or hi < lo or hi > 20:
        raise ValueError(f"people must be (min, max) with 0 <= min <= max <= 20, got {people!r}")
    if isinstance(annotators, bool) or not isinstance(annotators, int) or annotators < 1:
        raise ValueError(f"annotators must be a positive integer, got {annotators!r}")
    if not math.isfinite(noise_m) or noise_m < 0:
        raise ValueError(f"noise_m must be a non-negative number of metres, got {noise_m!r}")
    w, h = int(frame_size[0]), int(frame_size[1])
    if w < 64 or h < 36:
        raise ValueError(f"frame_size must be at least 64x36, got {frame_size!r}")

    root = Path(out)
    _prepare_folder(root, overwrite)
    write_release_header(root, DATASET_CFG)

    samples: list[SimSample] = []
    metadata: dict[str, Any] = {}
    steps = scenes * (2 if write_composites else 1)
    for i in range(scenes):
        s = generate_sample(i, seed, (lo, hi), noise_m=noise_m, frame_size=(w, h), annotators=annotators)
        samples.append(s)
        metadata[s.sample_id] = s.attributes
        write_sample(root, s, annotators, seed)
        if progress is not None:
            progress(i + 1, steps)
    write_release_index(root, [_release_entry(s) for s in samples], metadata)
    params = {
        "scenes": scenes,
        "seed": seed,
        "people": [lo, hi],
        "frame_size": [w, h],
        "annotators": annotators,
        "noise_m": noise_m,
        "write_composites": write_composites,
    }
    write_file(root / "README.md", dataset_card(samples, params).encode())
    if write_composites:
        write_release_composites(
            root,
            [_release_entry(s) for s in samples],
            None if progress is None else lambda n: progress(scenes + n, steps),
        )
    return root


_GENERATED = (
    "front_view",
    "prompts",
    "human_labels",
    "dataset_cfg.yaml",
    "goal_info.json",
    "sample_info.json",
    "sample_metadata.json",
    "README.md",
)


def _prepare_folder(root: Path, overwrite: bool) -> None:
    """``root`` made ready for a new dataset: absent or empty; with ``overwrite``, a folder that
    :func:`simulate_dataset` wrote (its README) is cleared. Anything else is refused with a
    :class:`UsageError` naming the folder and the fix (never a traceback at the command line)."""
    if root.exists() and not root.is_dir():
        raise UsageError(f"--out {root} is a file; give a folder for the dataset (a new path, or an empty folder)")
    if root.is_dir() and any(root.iterdir()):
        readme = root / "README.md"
        ours = readme.is_file() and readme.read_text(encoding="utf-8", errors="replace").startswith(CARD_TITLE)
        if not ours:
            raise UsageError(
                f"--out {root} is not empty and holds no simulated dataset; choose a new folder"
                " (socialbench clears only folders it wrote)"
            )
        if not overwrite:
            raise UsageError(
                f"--out {root} already holds a simulated dataset; choose a new folder or pass --overwrite to replace it"
            )
        remove_generated(root, _GENERATED)
    root.mkdir(parents=True, exist_ok=True)


def _answer_summary(samples: Sequence[SimSample]) -> list[str]:
    """Share of each exact answer per base question, as markdown table rows."""
    counts: dict[str, Counter[str]] = {}
    for s in samples:
        for key, ans in answer_scene(s.truth).items():
            counts.setdefault(base_key_of(key), Counter())[", ".join(ans) if isinstance(ans, tuple) else ans] += 1
    rows = []
    for base in sorted(counts):
        c = counts[base]
        total = sum(c.values())
        shares = "; ".join(f"{a} {n / total:.0%}" for a, n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))
        rows.append(f"| {base} | {total} | {shares} |")
    return rows


def dataset_card(samples: Sequence[SimSample], params: dict[str, Any]) -> str:
    """The ``README.md`` written at the dataset root."""
    n_people = [s.n_people for s in samples]
    types = Counter(s.config.scene_type for s in samples)
    n_q = sum(3 + 12 * n for n in n_people)
    ade = [s.attributes["track_ade_m"] for s in samples if s.attributes.get("track_ade_m") is not None]
    exact = params["annotators"] == 1
    lines = [
        CARD_TITLE,
        "",
        "Generated by `socialbench.benchmarks.socialnav_sub.simulated.simulate_dataset` "
        "(`socialbench sim socialnav`). Every file is **synthetic**: simulated people and robot, "
        "rendered frames, and answers computed from the simulation's exact geometry. The layout "
        "and formats are those of the SocialNav-SUB release, so every socialbench command "
        "accepts this folder (`--benchmark socialnav-sub --data DIR`).",
        "",
        "## Contents",
        "",
        f"- {len(samples)} samples, {sum(n_people)} labelled people (min {min(n_people)}, "
        f"max {max(n_people)}, mean {np.mean(n_people):.2f}), {n_q} questions.",
        "- Scene types: " + ", ".join(f"{k} {types[k]}" for k in sorted(types)) + ".",
        "- 10 frames per sample at 4 Hz (2.5 s), raw front views at "
        f"{params['frame_size'][0]}x{params['frame_size'][1]} JPEG; bounding boxes and "
        "`dataset_cfg.yaml` refer to the native 1280x720 camera (SCAND Spot intrinsics, camera "
        "height 0.6 m).",
        "- Composites (`prompts/<S>/sample_with_bev_<i>.png`): "
        + (
            "written."
            if params["write_composites"]
            else "not written; socialbench renders them from the frames, tracks and odometry."
        ),
        "- `sample_metadata.json`: per-scene attributes usable as facets: `scene_type` "
        "(corridor / crossing / plaza), the three features of the paper's scene-selection score "
        "(§7.2) `crowd_size` (labelled people), `n_close` (labelled people within "
        f"{CLOSE_M:g} m of the robot at some frame) and `lateral_motion_m` (largest sideways "
        "offset of the robot from its initial heading line), `selection_score` = "
        + " + ".join(f"{w:g}·{k}" for k, w in SCORE_WEIGHTS.items())
        + " (the paper does not publish its weights; these are socialbench's), the knobs, "
        "and `track_ade_m`.",
        "",
        "## How the labels were made",
        "",
    ]
    if exact:
        lines += [
            "There is no human panel. Each question's answer is computed exactly from the true "
            "positions with the written definitions in `socialbench/simulation/questions.py` "
            "(angular sectors, distance band, corridor to the goal, closest-approach "
            "interactions). It is stored as a one-answer distribution: `n_answers` = 2 with "
            "both votes on the exact answer (probability 1.0), because the agreement metrics "
            "need at least two votes. **Consequently PA equals accuracy against the exact "
            "answer, CWPA equals PA**, and the human-oracle and average-human rows are 1.0 by "
            "construction. They are not comparable with numbers on the real SocialNav-SUB, "
            "whose labels are distributions over human answers.",
        ]
    else:
        lines += [
            f"Votes come from a **synthetic annotator panel** of {params['annotators']} simulated "
            "annotators (`questions.annotator_votes`): each re-answers the exact definitions "
            "with jittered thresholds (±25 %) and displaced positions (0.25 m per person). The "
            "panel is synthetic; it only exercises multi-vote metrics (PA, CWPA) and says "
            "nothing about human judgement.",
        ]
    lines += [
        "",
        "Tracks (`<S>_localized_obj_coords.json`) are what a tracker would output, not the "
        f"truth: Gaussian noise with a mean displacement of {params['noise_m']:g} m (the paper "
        "reports 0.67 ± 0.14 m ADE for its PHALP pipeline) on the seen frames, then RTS "
        "smoothing"
        + (f"; mean displacement error after smoothing {np.mean(ade):.2f} m." if ade else ".")
        + " The rule-based baseline and the drawn circles use these tracks; the answers use "
        "the truth.",
        "",
        "## Simulation",
        "",
        "Pedestrians follow a social force model with groups, standing people and cross "
        "traffic; the robot follows a sampling local planner with a personal-space cost "
        "(`socialbench/simulation/scenes.py`). A person counts as seen by the tracker when "
        f"{MIN_DEPTH_M:g}-{MAX_DEPTH_M:g} m in front of the camera, with >= {MIN_IN_VIEW:.0%} of the "
        f"box in the image and >= {MIN_VISIBLE:.0%} of the silhouette unoccluded.",
        "",
        "## Exact answers by question",
        "",
        "| question | n | answers |",
        "|---|---|---|",
        *_answer_summary(samples),
        "",
        "## Regenerate",
        "",
        "```",
        f"socialbench sim socialnav --scenes {params['scenes']} --seed {params['seed']} "
        f"--people {params['people'][0]}-{params['people'][1]} --out DIR",
        "```",
        "",
        "Parameters: `" + json.dumps(params, sort_keys=True) + "`. The same parameters give "
        "byte-identical files with the same library versions (written with "
        + ", ".join(f"{k} {v}" for k, v in _versions().items())
        + ").",
        "",
    ]
    return "\n".join(lines)


__all__ = [
    "SimSample",
    "simulate_dataset",
    "generate_sample",
    "write_sample",
    "common_answers",
    "dataset_card",
    "DATASET_CFG",
    "SCORE_WEIGHTS",
    "CARD_TITLE",
]
