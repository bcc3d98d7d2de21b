"""``sim recording``: a simulated robot recording with tracker boxes and the true tracks."""

from __future__ import annotations

import pytest

pytest.importorskip("rosbags", reason="rosbags (optional extra record) is not installed")

from socialbench.recording.mot import read_boxes  # noqa: E402
from socialbench.recording.ros_io import read_ros_recording  # noqa: E402
from socialbench.recording.truth_files import read_truth  # noqa: E402
from socialbench.simulation.recording import BoxNoise, simulate_recording  # noqa: E402


def test_sim_recording_is_deterministic(tmp_path):
    a = simulate_recording(tmp_path / "a", scenes=1, seed=5, frame_size=(160, 90), render=False)
    b = simulate_recording(tmp_path / "b", scenes=1, seed=5, frame_size=(160, 90), render=False)
    for rel in ("boxes.txt", "truth/people.csv", "truth/robot.csv"):
        assert (a / rel).read_bytes() == (b / rel).read_bytes()


def test_the_recording_holds_frames_odometry_camera_and_transform(tmp_path):
    rec_dir = simulate_recording(tmp_path / "r", scenes=1, seed=2, rate=8.0, frame_size=(160, 90), render=False)
    rec = read_ros_recording(rec_dir / "recording.mcap")
    assert rec.topics == {"image": "/camera/image", "odometry": "/odom", "camera_info": "/camera/camera_info"}
    assert len(rec.odom_times) == 2 * rec.n_frames - 1  # odometry at twice the frame rate
    assert (rec.camera.width, rec.camera.height) == (160, 90) and rec.camera.translation[2] == pytest.approx(0.6)
    assert rec.frame_times[1] - rec.frame_times[0] == pytest.approx(1 / 8.0)


def test_without_noise_every_box_is_a_seen_person_under_one_id(tmp_path):
    rec_dir = simulate_recording(
        tmp_path / "r", scenes=1, seed=2, frame_size=(160, 90), render=False, noise=BoxNoise(0.0, 0.0, 0.0, 0.0)
    )
    truth = read_truth(rec_dir / "truth")
    boxes = read_boxes(rec_dir / "boxes.txt")
    seen = sum(int(v.sum()) for _, _, v in truth.people.values())
    assert len(boxes) == seen > 0
    assert len({b.track_id for b in boxes}) <= len(
        truth.people
    )  # no switches (re-identification after long gaps aside)


def test_a_non_empty_output_folder_is_refused_untouched(tmp_path):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "keep.txt").write_text("x")
    with pytest.raises(ValueError, match="not an empty folder"):
        simulate_recording(tmp_path / "r", scenes=1, render=False)
    assert [p.name for p in tmp_path.iterdir()] == ["r"] and (tmp_path / "r" / "keep.txt").read_text() == "x"
