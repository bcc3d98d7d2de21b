"""Tests for loading a SocialNav-SUB dataset folder."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset
from socialbench.errors import DataError, UsageError

SID = "101_Spot_1_155"
METADATA_KEYS = {
    "n_people",
    "sample_dir",
    "tracks_path",
    "odometry_path",
    "frames",
    "first_frame",
    "composites",
    "goal_xy",
}


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    return write_synthetic_dataset(tmp_path_factory.mktemp("src") / "data", n_samples=3, people=[2, 1, 3], seed=11)


@pytest.fixture()
def root(source, tmp_path) -> Path:
    """A private copy that a test may modify."""
    return Path(shutil.copytree(source, tmp_path / "data"))


def _json(path: Path):
    return json.loads(path.read_text())


def test_one_item_per_sample_in_order(source):
    ds = load_socialnav(source)
    info = _json(source / "prompts" / "sample_info.json")["samples"]
    assert [it.item_id for it in ds.items] == [s["folderpath"] for s in info]
    assert [len(it.questions) for it in ds.items] == [3 + 12 * s["n_people"] for s in info]
    assert ds.n_questions == 3 * 3 + 12 * 6


def test_votes_match_file_with_canonical_answers(source):
    item = load_socialnav(source).items[0]
    raw = _json(source / "human_labels" / SID / "common_answers.json")
    v = item.votes["q_robot_moving_direction"]
    assert v.answers == tuple(tuple(a) for a in raw["q_robot_moving_direction"])
    assert v.n == raw["q_robot_moving_direction_n_answers"]
    p = item.votes["q_person_action_p2"]
    assert p.answers == tuple(raw["q_person_action_p2"])
    assert p.probabilities == tuple(raw["q_person_action_p2_probabilities"])
    assert set(item.votes) == {q.key for q in item.questions}


def test_multi_select_answers_are_put_in_option_order(root):
    path = root / "human_labels" / SID / "common_answers.json"
    data = _json(path)
    data["q_robot_moving_direction"] = [["turning left", "moving ahead"], ["turning right"]]
    data["q_robot_moving_direction_probabilities"] = [0.5, 0.5]
    data["q_robot_moving_direction_n_answers"] = 8
    path.write_text(json.dumps(data))
    v = load_socialnav(root).items[0].votes["q_robot_moving_direction"]
    assert v.answers == (("moving ahead", "turning left"), ("turning right",))


@pytest.mark.parametrize("probabilities, n", [([0.5, 0.5], 3), ([0.5, 0.5], 5)], ids=["0.5+0.5 of 3", "0.5+0.5 of 5"])
def test_probabilities_that_are_not_whole_votes_are_one_error_naming_the_key(root, probabilities, n):
    # round(p*n) must add up to n: the human-agreement rows count the votes (issue 29)
    path = root / "human_labels" / SID / "common_answers.json"
    data = _json(path)
    data["q_robot_moving_direction"] = [["moving ahead"], ["turning left"]]
    data["q_robot_moving_direction_probabilities"] = probabilities
    data["q_robot_moving_direction_n_answers"] = n
    path.write_text(json.dumps(data))
    with pytest.raises(DataError) as err:
        load_socialnav(root)
    (problem,) = err.value.problems
    assert (problem.file, problem.field) == (str(path), "q_robot_moving_direction_probabilities")
    assert "not whole votes" in problem.message and problem.fix


def test_metadata_keys_and_paths(source):
    item = load_socialnav(source).items[0]
    meta = item.metadata
    assert set(meta) == METADATA_KEYS
    assert meta["n_people"] == 2 and meta["first_frame"] == 155
    assert meta["sample_dir"] == str(source / "prompts" / SID)
    assert meta["frames"] == [str(source / "front_view" / SID / f"{155 + t}.jpg") for t in range(10)]
    assert meta["composites"][3] == str(source / "prompts" / SID / "sample_with_bev_3.png")
    assert Path(meta["tracks_path"]).is_file() and Path(meta["odometry_path"]).is_file()


def test_goal_is_parsed_from_millimetres(source):
    item = load_socialnav(source).items[0]
    raw = _json(source / "goal_info.json")["101_Spot_1/155.jpg"][1]
    gx, gy = (int(v) for v in raw.strip("[]").split(","))
    assert item.metadata["goal_xy"] == [gx / 1000, gy / 1000]


def test_goal_entry_with_spaces_and_brackets(root):
    path = root / "goal_info.json"
    goals = _json(path)
    goals["101_Spot_1/155.jpg"][1] = "[ 5250 , -1500 ]"
    path.write_text(json.dumps(goals))
    assert load_socialnav(root).items[0].metadata["goal_xy"] == [5.25, -1.5]


def test_camera_is_read_from_dataset_cfg(source):
    camera = load_socialnav(source).camera
    assert camera["camera_matrix"]["fx"] == pytest.approx(623.3087)
    assert camera["native_resolution_x"] == 1280


def test_labels_alone_suffice(root):
    shutil.rmtree(root / "front_view")
    for png in root.glob("prompts/*/*.png"):
        png.unlink()
    item = load_socialnav(root).items[0]
    assert item.metadata["odometry_path"] is None
    assert len(item.metadata["frames"]) == 10


def test_require_images_reports_missing_frames(root):
    (root / "front_view" / SID / "157.jpg").unlink()
    with pytest.raises(DataError) as err:
        load_socialnav(root, require_images=True, image_mode="img")
    assert [p.file for p in err.value.problems] == [str(root / "front_view" / SID / "157.jpg")]


def test_missing_frames_without_composites_are_errors_for_img_with_bev(root):
    (root / "front_view" / SID / "157.jpg").unlink()
    (root / "prompts" / SID / "sample_with_bev_0.png").unlink()
    with pytest.raises(DataError) as err:
        load_socialnav(root, require_images=True, image_mode="img-with-bev")
    assert [p.file for p in err.value.problems] == [str(root / "front_view" / SID / "157.jpg")]


def test_composites_alone_suffice_for_img_with_bev(root):
    for jpg in root.glob("front_view/*/*.jpg"):
        jpg.unlink()
    ds = load_socialnav(root, require_images=True, image_mode="img-with-bev")
    assert all(Path(p).is_file() for p in ds.items[0].metadata["composites"])


def test_bev_mode_needs_no_frames(root):
    for jpg in root.glob("front_view/*/*.jpg"):
        jpg.unlink()
    for png in root.glob("prompts/*/*.png"):
        png.unlink()
    assert len(load_socialnav(root, require_images=True, image_mode="bev").items) == 3


def test_limit_keeps_first_samples(source):
    ds = load_socialnav(source, limit=2)
    assert [it.item_id for it in ds.items] == [it.item_id for it in load_socialnav(source).items[:2]]


def test_negative_limit_is_a_usage_error(source):
    with pytest.raises(UsageError):
        load_socialnav(source, limit=-1)


def test_sample_metadata_extension_adds_attributes(root):
    (root / "sample_metadata.json").write_text(json.dumps({SID: {"indoors": True}}))
    ds = load_socialnav(root)
    assert ds.items[0].metadata["indoors"] is True
    assert "indoors" not in ds.items[1].metadata


def test_sample_metadata_cannot_override_reserved_keys(root):
    (root / "sample_metadata.json").write_text(json.dumps({SID: {"n_people": 99}}))
    with pytest.raises(DataError) as err:
        load_socialnav(root)
    assert err.value.problems[0].field == SID


def test_dataset_bank_overrides_builtin(root):
    path = root / "prompts" / "survey_prompt.json"
    bank = _json(path)
    bank["q_person_action"]["question"] = "{PERSON} is probably ___ the robot."
    path.write_text(json.dumps(bank))
    item = load_socialnav(root).items[0]
    assert item.question("q_person_action_p1").text == "Person 1 is probably ___ the robot."


def test_sample_info_fallback_locations(root):
    (root / "prompts" / "sample_info.json").unlink()
    (root / "sample_info.json").unlink()
    assert len(load_socialnav(root).items) == 3


def test_all_label_errors_are_reported_together(root):
    for sid_path in sorted((root / "human_labels").glob("*/common_answers.json"))[:2]:
        data = _json(sid_path)
        del data["q_goal_position_begin"]
        sid_path.write_text(json.dumps(data))
    with pytest.raises(DataError) as err:
        load_socialnav(root)
    assert len(err.value.problems) == 2
    assert {p.field for p in err.value.problems} == {"q_goal_position_begin"}


def test_symlink_escaping_root_is_rejected(root, tmp_path):
    outside = tmp_path / "outside.json"
    labels = root / "human_labels" / SID / "common_answers.json"
    outside.write_bytes(labels.read_bytes())
    labels.unlink()
    os.symlink(outside, labels)
    with pytest.raises(DataError) as err:
        load_socialnav(root)
    assert "outside the dataset folder" in err.value.problems[0].message


def test_symlinked_sample_folder_escaping_root_rejects_its_images(root, tmp_path):
    folder = root / "front_view" / SID
    outside = Path(shutil.copytree(folder, tmp_path / "outside_frames"))
    shutil.rmtree(folder)
    os.symlink(outside, folder)
    with pytest.raises(DataError) as err:
        load_socialnav(root, require_images=True)
    flagged = {Path(p.file).name for p in err.value.problems if "outside the dataset folder" in p.message}
    assert flagged >= {"155.jpg", "164.jpg"}


def test_symlinked_image_escaping_root_is_rejected(root, tmp_path):
    frame = root / "front_view" / SID / "158.jpg"
    outside = tmp_path / "158.jpg"
    outside.write_bytes(frame.read_bytes())
    frame.unlink()
    os.symlink(outside, frame)
    with pytest.raises(DataError) as err:
        load_socialnav(root, require_images=True)
    assert [Path(p.file).name for p in err.value.problems] == ["158.jpg"]


def test_symlink_inside_root_is_accepted(root):
    frame = root / "front_view" / SID / "158.jpg"
    copy = root / "front_view" / SID / "copy_of_158.jpg"
    copy.write_bytes(frame.read_bytes())
    frame.unlink()
    os.symlink(copy, frame)
    assert len(load_socialnav(root, require_images=True).items) == 3


def test_image_that_is_not_an_image_fails_loading_for_inference(root):
    frame = root / "front_view" / SID / "158.jpg"
    frame.write_bytes(b"not a jpeg")
    with pytest.raises(DataError) as err:
        load_socialnav(root, require_images=True)
    assert "unreadable image" in err.value.problems[0].message


def test_missing_folder_is_a_data_error(tmp_path):
    with pytest.raises(DataError):
        load_socialnav(tmp_path / "nope")


def test_a_release_bank_reaches_the_prompt_verbatim(root):
    # README: with the release's own prompts/survey_prompt.json, every text of a prompt is the release's
    from socialbench.benchmarks.socialnav_sub.prompts import build_prompt

    path = root / "prompts" / "survey_prompt.json"
    bank = _json(path)
    bank["survey_instructions"] = ["Release line one.", "Release line two."]
    bank["goal_location_instructions"] = ["Release goal block."]
    bank["answers_format_mc"] = "\nRelease answer format."
    path.write_text(json.dumps(bank))
    ds = load_socialnav(root)
    prompt = build_prompt(ds.bank, ds.items[0].question("q_goal_position_begin"))
    assert prompt == (
        "Release line one.\nRelease line two.\n\nRelease goal block.\n\n"
        "In the beginning frame, the goal is ___ of the robot.\n"
        'Possible answers: "ahead", "to the left", "to the right"\nRelease answer format.'
    )
