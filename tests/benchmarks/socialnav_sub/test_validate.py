"""Tests for the SocialNav-SUB dataset validator: each malformed case yields a Problem."""

from __future__ import annotations

import json
import os
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest

from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset
from socialbench.benchmarks.socialnav_sub.validate import validate_socialnav
from socialbench.errors import DataError

SID = "101_Spot_1_155"


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    return write_synthetic_dataset(tmp_path_factory.mktemp("src") / "data", n_samples=2, people=[2, 1], seed=4)


@pytest.fixture()
def root(source, tmp_path) -> Path:
    return Path(shutil.copytree(source, tmp_path / "data"))


def _labels(root: Path) -> Path:
    return root / "human_labels" / SID / "common_answers.json"


def _edit_labels(root: Path, **changes) -> Path:
    path = _labels(root)
    data = json.loads(path.read_text())
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    path.write_text(json.dumps(data, indent=4))
    return path


def _errors(problems):
    return [p for p in problems if not p.message.startswith("warning:")]


def _find(problems, file, field):
    hits = [p for p in problems if p.file == str(file) and p.field == field]
    assert hits, f"no problem for {file} [{field}] in {[str(p) for p in problems]}"
    return hits[0]


def test_clean_dataset_has_no_problems(source):
    assert validate_socialnav(source) == []


def test_missing_question_key(root):
    path = _edit_labels(root, q_person_action_p2=None)
    _find(validate_socialnav(root), path, "q_person_action_p2")


def test_missing_probabilities_and_n_answers(root):
    path = _edit_labels(root, q_robot_action_p1_probabilities=None, q_robot_action_p1_n_answers=None)
    problems = validate_socialnav(root)
    _find(problems, path, "q_robot_action_p1_probabilities")
    _find(problems, path, "q_robot_action_p1_n_answers")


def test_probabilities_not_summing_to_one(root):
    path = _edit_labels(
        root,
        q_person_affected_p1=["yes", "no"],
        q_person_affected_p1_probabilities=[0.5, 0.4],
        q_person_affected_p1_n_answers=10,
    )
    assert "sum to" in _find(validate_socialnav(root), path, "q_person_affected_p1_probabilities").message


def test_lengths_mismatch(root):
    path = _edit_labels(root, q_person_affected_p1=["yes", "no"], q_person_affected_p1_probabilities=[1.0])
    _find(validate_socialnav(root), path, "q_person_affected_p1_probabilities")


def test_fewer_than_two_answers(root):
    path = _edit_labels(
        root, q_goal_position_end=["ahead"], q_goal_position_end_probabilities=[1.0], q_goal_position_end_n_answers=1
    )
    assert "< 2" in _find(validate_socialnav(root), path, "q_goal_position_end_n_answers").message


def test_answer_not_among_options(root):
    path = _edit_labels(
        root, q_person_spatial_position_begin_p1=["ahead"], q_person_spatial_position_begin_p1_probabilities=[1.0]
    )
    problem = _find(validate_socialnav(root), path, "q_person_spatial_position_begin_p1")
    assert "'ahead'" in problem.message and "ahead of" in problem.message


def test_multi_select_answer_must_be_a_list(root):
    path = _edit_labels(root, q_robot_moving_direction=["moving ahead"], q_robot_moving_direction_probabilities=[1.0])
    _find(validate_socialnav(root), path, "q_robot_moving_direction")


def test_sample_id_path_traversal(root):
    info_path = root / "prompts" / "sample_info.json"
    info = json.loads(info_path.read_text())
    info["samples"][1]["folderpath"] = "../x"
    info_path.write_text(json.dumps(info))
    problem = _find(validate_socialnav(root), info_path, "samples[1].folderpath")
    assert "path traversal" in problem.message


@pytest.mark.parametrize("bad", ["../../etc/passwd.jpg", "/etc/passwd", "a/../../b.jpg"])
def test_goal_image_path_traversal(root, bad):
    path = root / "goal_info.json"
    goals = json.loads(path.read_text())
    goals["101_Spot_1/155.jpg"][0] = bad
    path.write_text(json.dumps(goals))
    assert "path traversal" in _find(validate_socialnav(root), path, "101_Spot_1/155.jpg").message


def test_malformed_json_reports_line(root):
    path = _labels(root)
    lines = path.read_text().splitlines()
    lines[5] = lines[5] + " ,,"
    path.write_text("\n".join(lines))
    problem = _find(validate_socialnav(root), path, "")
    assert problem.line == 6 and "invalid JSON" in problem.message


def test_missing_labels_file(root):
    _labels(root).unlink()
    assert "missing" in _find(validate_socialnav(root), _labels(root), "").message


def test_every_problem_is_collected(root):
    path = _edit_labels(root, q_person_action_p1=None, q_robot_action_p2_n_answers=0)
    (root / "goal_info.json").write_text("{")
    problems = validate_socialnav(root)
    _find(problems, path, "q_person_action_p1")
    _find(problems, path, "q_robot_action_p2_n_answers")
    _find(problems, root / "goal_info.json", "")


def test_unreadable_image(root):
    frame = root / "front_view" / SID / "158.jpg"
    frame.write_bytes(b"not a jpeg")
    assert "unreadable image" in _find(validate_socialnav(root), frame, "").message


def test_images_are_skipped_when_not_checked(root):
    (root / "front_view" / SID / "158.jpg").write_bytes(b"not a jpeg")
    assert _errors(validate_socialnav(root, check_images=False)) == []


class _Evil:
    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_malicious_odometry_pickle(root, tmp_path):
    marker = tmp_path / "created"
    odo = root / "front_view" / SID / "traj_data.pkl"
    odo.write_bytes(pickle.dumps({"position": _Evil(str(marker)), "yaw": []}))
    problem = _find(validate_socialnav(root, check_images=False), odo, "")
    assert "refused" in problem.message
    assert not marker.exists()


def test_short_odometry(root):
    odo = root / "front_view" / SID / "traj_data.pkl"
    odo.write_bytes(pickle.dumps({"position": np.zeros((160, 2)), "yaw": np.zeros(160)}))
    assert "at least 165" in _find(validate_socialnav(root), odo, "position").message


def test_truncating_counts_is_only_a_warning(root):
    path = _edit_labels(
        root,
        q_obstructing_path_p1=["yes", "no"],
        q_obstructing_path_p1_probabilities=[15 / 22, 7 / 22],
        q_obstructing_path_p1_n_answers=22,
    )
    problem = _find(validate_socialnav(root), path, "q_obstructing_path_p1_probabilities")
    assert problem.message.startswith("warning:") and "int(p*n)" in problem.message
    assert load_socialnav(root).items[0].votes["q_obstructing_path_p1"].n == 22


def test_loader_raises_the_same_errors(root):
    path = _edit_labels(root, q_person_action_p1=None)
    with pytest.raises(DataError) as err:
        load_socialnav(root)
    assert err.value.problems == _errors(validate_socialnav(root, check_images=False))
    assert err.value.problems[0].file == str(path)


def test_stray_next_key_is_ignored(source):
    assert "" in json.loads(_labels(source).read_text())
    assert validate_socialnav(source, check_images=False) == []


# ----------------------------------------------------------------- bad input found by fuzzing


def _tracks(root: Path) -> Path:
    return root / "prompts" / SID / f"{SID}_localized_obj_coords.json"


def _edit_first_observation(root: Path, **changes) -> Path:
    path = _tracks(root)
    data = json.loads(path.read_text())
    next(iter(data["track_id_to_object_trajectory"].values()))[0].update(changes)
    path.write_text(json.dumps(data))
    return path


def _edit_sample_info(root: Path, **changes) -> Path:
    for rel in ("prompts/sample_info.json", "sample_info.json", "human_labels/sample_info.json"):
        path = root / rel
        data = json.loads(path.read_text())
        data["samples"][0].update(changes)
        path.write_text(json.dumps(data))
    return root / "prompts" / "sample_info.json"


def test_huge_n_people_is_an_error(root):
    path = _edit_sample_info(root, n_people=1_000_000)
    assert "0 to" in _find(validate_socialnav(root), path, "samples[0].n_people").message


def test_empty_sample_list_is_an_error(root):
    path = root / "prompts" / "sample_info.json"
    path.write_text('{"samples": []}')
    assert "empty" in _find(validate_socialnav(root), path, "samples").message


def test_astronomical_n_answers_is_an_error(root):
    path = _edit_labels(
        root,
        q_obstructing_path_p1=["yes"],
        q_obstructing_path_p1_probabilities=[1.0],
        q_obstructing_path_p1_n_answers=10**40,
    )
    problem = _find(validate_socialnav(root), path, "q_obstructing_path_p1_n_answers")
    assert not problem.message.startswith("warning:")


def test_probability_too_large_for_a_float_is_an_error(root):
    path = _edit_labels(root, q_obstructing_path_p1=["yes"], q_obstructing_path_p1_probabilities=[10**400])
    assert _find(validate_socialnav(root), path, "q_obstructing_path_p1_probabilities")


def test_truncated_jpeg_is_an_error(root):
    frame = root / "front_view" / SID / "158.jpg"
    frame.write_bytes(frame.read_bytes()[: frame.stat().st_size // 2])
    assert "unreadable image" in _find(validate_socialnav(root), frame, "").message


def test_png_claiming_ten_thousand_squared_pixels_is_an_error(root):
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    png = root / "prompts" / SID / "sample_with_bev_2.png"
    png.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 10000, 10000, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )
    assert "10000x10000" in _find(validate_socialnav(root), png, "").message


@pytest.mark.parametrize("field,value", [("position", np.nan), ("yaw", np.inf)])
def test_non_finite_poses_are_errors(root, field, value):
    odo = root / "front_view" / SID / "traj_data.pkl"
    data = {"position": np.zeros((200, 2)), "yaw": np.zeros(200)}
    data[field][157] = value
    odo.write_bytes(pickle.dumps(data))
    assert "NaN or infinite" in _find(validate_socialnav(root), odo, field).message


@pytest.mark.parametrize("changes", [{"bbox": "abc"}, {"timestep": -5}, {"timestep": 10}])
def test_malformed_track_observations_are_errors(root, changes):
    path = _edit_first_observation(root, **changes)
    assert [p for p in _errors(validate_socialnav(root)) if p.file == str(path)]


def test_sample_info_symlinked_outside_is_an_error(root, tmp_path):
    outside = tmp_path / "elsewhere.json"
    for rel in ("prompts/sample_info.json", "sample_info.json", "human_labels/sample_info.json"):
        outside.write_text((root / rel).read_text())
        (root / rel).unlink()
        (root / rel).symlink_to(outside)
    path = root / "prompts" / "sample_info.json"
    assert "outside the dataset" in _find(validate_socialnav(root), path, "").message


def test_lone_surrogate_in_metadata_is_an_error(root):
    path = root / "sample_metadata.json"
    path.write_text(json.dumps({SID: {"site": "a\ud800b"}}))
    assert "surrogate" in _find(validate_socialnav(root), path, f"{SID}.site").message


def test_labels_fifo_is_an_error_without_blocking(root):
    path = _labels(root)
    path.unlink()
    os.mkfifo(path)
    assert "not a regular file" in _find(validate_socialnav(root), path, "").message


def test_config_in_another_encoding_is_an_error(root):
    path = root / "dataset_cfg.yaml"
    path.write_bytes(b"camera: \xff\xfe\n")
    assert "UTF-8" in _find(validate_socialnav(root), path, "").message


def test_a_mistyped_config_key_is_an_error_naming_the_nearest_key(root):
    path = root / "dataset_cfg.yaml"
    path.write_text(path.read_text() + "camera_heigth: 1.2\n")
    problem = _find(validate_socialnav(root), path, "camera_heigth")
    assert problem.message == "unknown key" and "did you mean `camera_height`?" in problem.fix


def test_an_unknown_camera_matrix_key_is_an_error(root):
    path = root / "dataset_cfg.yaml"
    path.write_text("camera_matrix: {fx: 600, fy: 600, cx: 640, cy: 360, skew: 0.1}\n")
    assert _find(validate_socialnav(root), path, "camera_matrix.skew").message == "unknown key"


def test_a_config_key_written_twice_is_an_error_naming_both_lines(root):
    path = root / "dataset_cfg.yaml"
    path.write_text("camera_height: 0.6\ncamera_height: 1.2\n")
    assert "written twice (lines 1 and 2)" in _find(validate_socialnav(root), path, "").message


# ----------------------------------------------------------------- releases as they are shipped


def test_labels_only_folder_is_ok_and_says_what_it_supports(root):
    shutil.rmtree(root / "front_view")
    for png in root.glob("prompts/*/*.png"):
        png.unlink()
    problems = validate_socialnav(root)
    assert _errors(problems) == []
    assert len(problems) == 1 and "OK for `socialbench score`" in problems[0].message


def test_labels_only_folder_says_rule_based_lacks_tracks_and_odometry(root):
    shutil.rmtree(root / "front_view")
    for png in root.glob("prompts/*/*.png"):
        png.unlink()
    (message,) = [p.message for p in validate_socialnav(root)]
    assert "not `eval -m baseline:rule-based`, which needs tracks and odometry that 2 of 2 sample(s) lack" in message


def test_labels_only_folder_with_tracks_and_odometry_says_rule_based_can_run(root):
    for f in [*root.glob("front_view/*/*.jpg"), *root.glob("prompts/*/*.png")]:
        f.unlink()
    (message,) = [p.message for p in validate_socialnav(root)]
    assert "`eval -m baseline:rule-based` (it has the tracks and odometry it needs)" in message


def test_sample_without_odometry_is_named_for_rule_based(root):
    odometry = root / "front_view" / SID / "traj_data.pkl"
    odometry.unlink()
    (warning,) = [p for p in validate_socialnav(root) if "baseline:rule-based" in p.message]
    assert f"1 of 2 sample(s) lack (e.g. {SID}: no odometry (front_view/{SID}/traj_data.pkl))" in warning.message


def test_loading_a_labels_only_folder_for_a_vision_model_is_one_error(root):
    shutil.rmtree(root / "front_view")
    for png in root.glob("prompts/*/*.png"):
        png.unlink()
    with pytest.raises(DataError) as e:
        load_socialnav(root, require_images=True, image_mode="img-with-bev")
    (problem,) = e.value.problems
    assert problem.message.startswith("labels only:") and "baseline:random" in problem.fix


def test_composites_only_folder_is_ok_with_a_warning(root):
    for jpg in root.glob("front_view/*/*.jpg"):
        jpg.unlink()
    problems = validate_socialnav(root)
    assert _errors(problems) == []
    assert len(problems) == 1 and "OK for `eval --images img-with-bev`" in problems[0].message


def test_missing_frames_without_composites_are_errors(root):
    frame = root / "front_view" / SID / "158.jpg"
    frame.unlink()
    (root / "prompts" / SID / "sample_with_bev_0.png").unlink()
    assert _find(validate_socialnav(root), frame, "").message == "missing frame"


def test_a_file_given_as_the_dataset_folder_is_named_a_file(tmp_path):
    f = tmp_path / "release.zip"
    f.write_bytes(b"PK")
    problems = validate_socialnav(f)
    assert [p.message for p in problems] == ["is a file, not a folder"]


def test_a_roboteq_folder_is_named_as_one_with_the_benchmarks_to_use(tmp_path):
    (tmp_path / "behavior_judgment").mkdir()
    (tmp_path / "behavior_judgment" / "metadata.jsonl").write_text("{}\n")
    problems = validate_socialnav(tmp_path)
    robot_eq = [p for p in _errors(problems) if "looks like a RobotEQ dataset" in p.message]
    assert len(robot_eq) == 1 and "-b roboteq-bj" in robot_eq[0].fix
    assert not any("sample_info.json with" in p.fix for p in problems)


def test_a_goal_entry_of_no_sample_is_warned_naming_the_nearest_sample_key(root):
    path = root / "goal_info.json"
    goals = json.loads(path.read_text())
    key = next(iter(goals))
    goals[key[:-1] + "q"] = goals.pop(key)
    path.write_text(json.dumps(goals))
    problem = _find(validate_socialnav(root), path, key[:-1] + "q")
    assert problem.message == "warning: names no sample of the sample list" and f"did you mean {key!r}?" in problem.fix


def test_many_goal_entries_of_no_sample_are_one_warning(root):
    path = root / "goal_info.json"
    goals = json.loads(path.read_text())
    goals.update({f"x_Spot_{i}/1.jpg": ["x.jpg", "[0, 0]"] for i in range(10)})
    path.write_text(json.dumps(goals))
    assert "10 entries name no sample" in _find(validate_socialnav(root), path, "").message
