"""Tests for the synthetic SocialNav-SUB fixture writer."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from socialbench.benchmarks.socialnav_sub.synthetic import (
    fixture_people_counts,
    write_synthetic_dataset,
)
from socialbench.benchmarks.socialnav_sub.validate import validate_socialnav
from socialbench.files.safe_pickle import load_pickle_safely


def _hashes(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return write_synthetic_dataset(tmp_path_factory.mktemp("syn") / "data", n_samples=3, people=[1, 4, 2], seed=5)


def test_same_arguments_give_identical_files(tmp_path):
    a = write_synthetic_dataset(tmp_path / "a", n_samples=2, seed=3)
    b = write_synthetic_dataset(tmp_path / "b", n_samples=2, seed=3)
    assert _hashes(a) == _hashes(b)
    assert len(_hashes(a)) > 40


def test_different_seed_gives_different_labels(tmp_path):
    a = write_synthetic_dataset(tmp_path / "a", n_samples=1, people=[3], seed=1)
    b = write_synthetic_dataset(tmp_path / "b", n_samples=1, people=[3], seed=2)
    name = "human_labels/101_Spot_1_155/common_answers.json"
    assert (a / name).read_bytes() != (b / name).read_bytes()


def test_default_people_counts_match_official_totals():
    counts = fixture_people_counts()
    assert (len(counts), sum(counts), min(counts), max(counts)) == (60, 399, 1, 13)
    assert counts == fixture_people_counts()


@pytest.mark.parametrize("n,total,lo,hi", [(5, 20, 1, 13), (1, 4, 1, 13), (10, 10, 1, 1)])
def test_people_counts_respect_total_and_bounds(n, total, lo, hi):
    counts = fixture_people_counts(n, total, lo, hi, seed=7)
    assert len(counts) == n and sum(counts) == total
    assert all(lo <= c <= hi for c in counts)


def test_impossible_people_total_is_rejected():
    with pytest.raises(ValueError):
        fixture_people_counts(2, 30, 1, 13)


def test_layout_is_complete(dataset):
    info = json.loads((dataset / "prompts" / "sample_info.json").read_text())
    assert [s["n_people"] for s in info["samples"]] == [1, 4, 2]
    for rel in ("sample_info.json", "human_labels/sample_info.json"):
        assert json.loads((dataset / rel).read_text()) == info
    for rel in (
        "prompts/survey_prompt.json",
        "prompts/relevant_prev_questions.json",
        "goal_info.json",
        "dataset_cfg.yaml",
    ):
        assert (dataset / rel).is_file()
    for s in info["samples"]:
        sid = s["folderpath"]
        f0 = int(sid.rsplit("_", 1)[1])
        assert all((dataset / "front_view" / sid / f"{f0 + t}.jpg").is_file() for t in range(10))
        assert all((dataset / "prompts" / sid / f"sample_with_bev_{i}.png").is_file() for i in range(10))
        assert (dataset / "prompts" / sid / f"{sid}_localized_obj_coords.json").is_file()


def test_readme_marks_dataset_synthetic(dataset):
    assert "SYNTHETIC" in (dataset / "README.md").read_text()


def test_votes_look_like_official_distributions(dataset):
    data = json.loads((dataset / "human_labels" / "101_Spot_1_155" / "common_answers.json").read_text())
    assert data[""] == ["next"] and data["_n_answers"] == 2
    keys = [k for k in data if k and not k.endswith(("_probabilities", "_n_answers"))]
    assert len(keys) == 3 + 12 * 1
    for k in keys:
        probs, n = data[f"{k}_probabilities"], data[f"{k}_n_answers"]
        assert 7 <= n <= 14
        assert probs == sorted(probs, reverse=True)
        assert abs(sum(probs) - 1) < 1e-9
        assert all(int(p * n) == round(p * n) for p in probs)
    assert all(isinstance(a, list) for a in data["q_robot_moving_direction"])


def test_odometry_is_long_enough(dataset):
    sid = "101_Spot_1_155"
    traj = load_pickle_safely(dataset / "front_view" / sid / "traj_data.pkl")
    assert traj["position"].shape[1] == 2
    assert len(traj["position"]) == len(traj["yaw"]) >= 155 + 11


def test_tracks_have_official_fields(dataset):
    sid = "101_Spot_1_155"
    tracks = json.loads((dataset / "prompts" / sid / f"{sid}_localized_obj_coords.json").read_text())[
        "track_id_to_object_trajectory"
    ]
    assert len(tracks) == 1
    obs = next(iter(tracks.values()))
    assert obs and set(obs[0]) == {"center_x", "center_y", "yaw", "timestep", "bbox", "pos_diff"}
    assert obs[0]["timestep"] == 0


def test_goal_info_uses_official_key_and_format(dataset):
    goals = json.loads((dataset / "goal_info.json").read_text())
    image, raw = goals["101_Spot_1/155.jpg"]
    assert raw.startswith("[") and raw.endswith("]") and len(raw.split(",")) == 2


def test_synthetic_dataset_validates_cleanly(dataset):
    assert validate_socialnav(dataset) == []
