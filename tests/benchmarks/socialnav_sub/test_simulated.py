"""Simulated SocialNav-SUB datasets: release layout, loader/validator, labels, determinism."""

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from socialbench.benchmarks.socialnav_sub import bundled_demo_data
from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
from socialbench.benchmarks.socialnav_sub.simulated import SCORE_WEIGHTS, generate_sample, simulate_dataset
from socialbench.benchmarks.socialnav_sub.validate import validate_socialnav
from socialbench.errors import UsageError
from socialbench.navigation.frames import load_odometry, load_scene, robot_path_from_odometry
from socialbench.navigation.render import render_sample
from socialbench.navigation.rules import rule_based_answers
from socialbench.navigation.tracks import N_FRAMES
from socialbench.navigation.tracks_json import load_tracks
from socialbench.simulation.questions import answer_scene
from socialbench.simulation.scene_config import SCENE_TYPES

SEED, PEOPLE = 5, (2, 6)


@pytest.fixture(scope="module")
def sim_root(tmp_path_factory) -> Path:
    """3 scenes with tracker noise. Treat as read-only."""
    return simulate_dataset(tmp_path_factory.mktemp("sim") / "data", scenes=3, seed=SEED, people=PEOPLE)


@pytest.fixture(scope="module")
def sim_data(sim_root):
    return load_socialnav(sim_root)


@pytest.fixture(scope="module")
def samples():
    """The generator's view of the same 3 scenes (truth, labels), without frames."""
    return [generate_sample(i, SEED, PEOPLE, render_frames=False) for i in range(3)]


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------- layout and loading


def test_generated_dataset_loads_with_the_normal_loader(sim_data):
    assert len(sim_data.items) == 3
    assert sim_data.n_questions == sum(3 + 12 * it.metadata["n_people"] for it in sim_data.items)
    assert all(PEOPLE[0] <= it.metadata["n_people"] <= PEOPLE[1] for it in sim_data.items)


def test_validator_reports_no_problems_for_renderable_scenes_without_composites(sim_root):
    assert validate_socialnav(sim_root) == []


def test_release_files_are_all_there(sim_root, sim_data):
    for rel in (
        "dataset_cfg.yaml",
        "goal_info.json",
        "sample_info.json",
        "prompts/sample_info.json",
        "human_labels/sample_info.json",
        "prompts/survey_prompt.json",
        "prompts/relevant_prev_questions.json",
        "README.md",
        "sample_metadata.json",
    ):
        assert (sim_root / rel).is_file(), rel
    for it in sim_data.items:
        assert [Path(f).is_file() for f in it.metadata["frames"]] == [True] * N_FRAMES
        assert Path(it.metadata["odometry_path"]).is_file() and Path(it.metadata["tracks_path"]).is_file()


def test_common_answers_keep_the_release_stray_key(sim_root, sim_data):
    sid = sim_data.items[0].item_id
    data = json.loads((sim_root / "human_labels" / sid / "common_answers.json").read_text())
    assert (data[""], data["_probabilities"], data["_n_answers"]) == (["next"], [1.0], 2)


def test_frames_have_the_requested_size(sim_data):
    with Image.open(sim_data.items[0].metadata["frames"][0]) as im:
        assert im.size == (640, 360) and im.format == "JPEG"


# --------------------------------------------------------------------------- labels


def test_exact_answers_are_stored_as_two_votes_with_probability_one(sim_data):
    votes = [v for it in sim_data.items for v in it.votes.values()]
    assert all(v.n == 2 and v.probabilities == (1.0,) and len(v.answers) == 1 for v in votes)


def test_stored_answers_are_the_geometric_definitions_on_the_truth(sim_data, samples):
    for it, sample in zip(sim_data.items, samples):
        exact = answer_scene(sample.truth)
        assert {k: v.answers[0] for k, v in it.votes.items()} == exact


def test_loader_numbers_people_as_the_generator_did(sim_data, samples):
    for it, sample in zip(sim_data.items, samples):
        scene = load_scene(it.metadata)
        assert {label: tr.track_id for label, tr in scene.people.items()} == sample.labels


def test_tracks_carry_tracker_noise_while_labels_use_the_truth(sim_data, samples):
    sample = samples[0]
    tracks = load_tracks(sim_data.items[0].metadata["tracks_path"])
    errors = [
        math.hypot(
            o.x - sample.truth.people[label].xy[o.timestep, 0], o.y - sample.truth.people[label].xy[o.timestep, 1]
        )
        for label, tid in sample.labels.items()
        for o in tracks[tid].observations
    ]
    assert 0.2 < np.mean(errors) < 1.3  # noise of mean 1.3 m before smoothing, reduced by it
    assert sample.attributes["track_ade_m"] == pytest.approx(np.mean(errors), abs=1e-3)


def test_without_noise_tracks_are_the_true_positions():
    sample = generate_sample(0, SEED, PEOPLE, noise_m=0.0, render_frames=False)
    for label, tid in sample.labels.items():
        tr = sample.tracks[tid]
        truth = sample.truth.people[label].xy[list(tr.timesteps)]
        assert np.allclose(tr.positions(), truth, atol=1e-4)


def test_track_boxes_are_native_camera_pixels_inside_the_image(sim_data):
    boxes = [o.bbox for tr in load_tracks(sim_data.items[1].metadata["tracks_path"]).values() for o in tr.observations]
    assert boxes and all(0 <= b[0] < b[2] <= 1280 and 0 <= b[1] < b[3] <= 720 for b in boxes)


def test_odometry_and_goal_reproduce_the_true_robot_path_and_goal(sim_data, samples):
    it, sample = sim_data.items[2], samples[2]
    robot = robot_path_from_odometry(load_odometry(it.metadata["odometry_path"]), it.metadata["first_frame"])
    assert np.allclose(robot.xy(), sample.truth.robot.xy()) and np.allclose(robot.yaw, sample.truth.robot.yaw)
    assert abs(robot.x[0]) < 1e-5 and abs(robot.yaw[0]) < 1e-5
    assert tuple(it.metadata["goal_xy"]) == sample.truth.goal_xy


def test_rule_based_baseline_on_noisy_tracks_beats_chance(sim_data):
    hits, chance = [], []
    for it in sim_data.items:
        scene = load_scene(it.metadata)
        rules = rule_based_answers(scene.people, scene.robot, scene.goal_xy, it.metadata["n_people"])
        for q in it.questions:
            hits.append(it.votes[q.key].probability(q.canonical(rules[q.key])))
            chance.append(1.0 / len(q.choices))
    assert np.mean(hits) > np.mean(chance) + 0.2


# --------------------------------------------------------------------------- metadata and card


def test_scene_attributes_reach_item_metadata(sim_data):
    meta = sim_data.items[0].metadata
    assert meta["scene_type"] in SCENE_TYPES and meta["synthetic"] is True
    assert meta["crowd_size"] == meta["n_people"]
    assert meta["selection_score"] == pytest.approx(sum(w * meta[k] for k, w in SCORE_WEIGHTS.items()), abs=1e-3)


def test_dataset_card_says_synthetic_and_that_pa_equals_accuracy(sim_root):
    card = (sim_root / "README.md").read_text()
    assert "SYNTHETIC" in card and "PA equals accuracy" in card and "CWPA equals PA" in card


def test_synthetic_panel_gives_multi_vote_distributions(tmp_path):
    root = simulate_dataset(tmp_path / "panel", scenes=1, seed=1, people=(3, 4), annotators=5, noise_m=0.0)
    item = load_socialnav(root).items[0]
    assert all(v.n == 5 for v in item.votes.values())
    assert any(len(v.answers) > 1 for v in item.votes.values())
    assert "synthetic annotator panel" in (root / "README.md").read_text()
    assert item.metadata["label_source"] == "synthetic panel of 5"


# --------------------------------------------------------------------------- images


def test_benchmark_renders_annotated_views_from_the_raw_frames(sim_data):
    meta = sim_data.items[0].metadata
    imgs = render_sample(meta, "img")
    with Image.open(meta["frames"][0]) as raw:
        assert imgs[0].size == raw.size
        assert imgs[0].tobytes() != raw.convert("RGB").tobytes()  # circles were drawn


def test_composites_are_written_on_request(tmp_path):
    root = simulate_dataset(
        tmp_path / "comp", scenes=1, seed=2, people=(2, 3), noise_m=0.0, write_composites=True, frame_size=(320, 180)
    )
    item = load_socialnav(root, require_images=True).items[0]
    sizes = []
    for p in item.metadata["composites"]:
        with Image.open(p) as im:
            sizes.append(im.size)
    assert sizes == [(320, 500)] * N_FRAMES
    assert not [p for p in validate_socialnav(root) if "composites" in p.message]


# --------------------------------------------------------------------------- determinism and arguments


def test_same_arguments_give_identical_bytes(tmp_path):
    a = simulate_dataset(tmp_path / "a", scenes=2, seed=9, people=(2, 4), noise_m=0.3, frame_size=(160, 90))
    b = simulate_dataset(tmp_path / "b", scenes=2, seed=9, people=(2, 4), noise_m=0.3, frame_size=(160, 90))
    assert _files(a) == _files(b)


def test_a_different_seed_gives_different_scenes(tmp_path):
    a = simulate_dataset(tmp_path / "a", scenes=1, seed=1, people=(2, 4), noise_m=0.0, frame_size=(64, 36))
    b = simulate_dataset(tmp_path / "b", scenes=1, seed=2, people=(2, 4), noise_m=0.0, frame_size=(64, 36))
    assert _files(a)["goal_info.json"] != _files(b)["goal_info.json"]


def test_first_scenes_do_not_depend_on_the_number_of_scenes(tmp_path, sim_root):
    one = simulate_dataset(tmp_path / "one", scenes=1, seed=SEED, people=PEOPLE)
    sid = load_socialnav(one).items[0].item_id
    big, small = _files(sim_root), _files(one)
    per_scene = [k for k in small if sid in k]
    assert per_scene and all(small[k] == big[k] for k in per_scene)


def test_refuses_a_non_empty_folder_it_did_not_write(tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(UsageError, match="holds no simulated dataset"):
        simulate_dataset(tmp_path, scenes=1, seed=0, people=(2, 3), overwrite=True)
    assert (tmp_path / "mine.txt").read_text() == "keep me"


def test_overwrite_replaces_a_previous_simulation(tmp_path):
    small = {"seed": 0, "people": (2, 3), "noise_m": 0.0, "frame_size": (64, 36)}
    root = simulate_dataset(tmp_path / "d", scenes=2, **small)
    with pytest.raises(UsageError, match="pass --overwrite"):
        simulate_dataset(root, scenes=1, **small)
    simulate_dataset(root, scenes=1, overwrite=True, **small)
    assert len(list((root / "human_labels").iterdir())) == 2  # one sample folder + sample_info.json


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"scenes": 0}, "scenes"),
        ({"people": (5, 2)}, "people"),
        ({"annotators": 0}, "annotators"),
        ({"noise_m": -1.0}, "noise_m"),
        ({"frame_size": (10, 10)}, "frame_size"),
    ],
)
def test_invalid_arguments_are_rejected(tmp_path, kwargs, match):
    args = {"scenes": 1, "seed": 0, "people": (2, 3), **kwargs}
    with pytest.raises(ValueError, match=match):
        simulate_dataset(tmp_path / "x", **args)


# --------------------------------------------------------------------------- the bundled default


def _same_value(a, b) -> bool:
    """JSON values equal, floats to 1e-6 (last-digit float differences across numpy builds)."""
    if isinstance(a, float) or isinstance(b, float):
        return (
            isinstance(a, (int, float))
            and isinstance(b, (int, float))
            and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)
        )
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    return a == b


def _same_file(a: Path, b: Path) -> bool:
    """Same content, where only the encoders' bytes may differ with library versions: JPEGs
    decode to the same size and nearly the same pixels, odometry to the same arrays, JSON to
    the same values, and the card says the same apart from the versions it was written with."""
    if a.suffix == ".jpg":
        pa, pb = np.asarray(Image.open(a).convert("RGB"), int), np.asarray(Image.open(b).convert("RGB"), int)
        return pa.shape == pb.shape and float(np.abs(pa - pb).mean()) < 1.0
    if a.suffix == ".pkl":
        oa, ob = load_odometry(a), load_odometry(b)
        return np.allclose(oa.position, ob.position, atol=1e-9) and np.allclose(oa.yaw, ob.yaw, atol=1e-9)
    if a.suffix == ".json":
        return _same_value(json.loads(a.read_text()), json.loads(b.read_text()))
    if a.name == "README.md":

        def unversioned(p: Path) -> str:
            return re.sub(r"\(written with [^)]*\)", "", p.read_text())

        return unversioned(a) == unversioned(b)
    return a.read_bytes() == b.read_bytes()


@pytest.mark.slow
def test_bundled_default_is_what_the_generator_writes(tmp_path):
    regenerated = simulate_dataset(tmp_path / "demo", scenes=20, seed=2026, people=(2, 8))
    bundled = bundled_demo_data()
    names = sorted(_files(regenerated))
    assert names == sorted(_files(bundled))
    assert [n for n in names if not _same_file(regenerated / n, bundled / n)] == []


def test_progress_counts_every_scene_then_every_scenes_composites(tmp_path):
    calls: list[tuple[int, int]] = []
    simulate_dataset(
        tmp_path / "d",
        scenes=2,
        seed=1,
        people=(1, 2),
        write_composites=True,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
