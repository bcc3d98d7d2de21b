"""ROS 1 bags, ROS 2 bags (sqlite3, MCAP) and bare MCAP files read without ROS."""

from __future__ import annotations

import numpy as np
import pytest

from recording_fixtures import CAMERA, NAMES, write_small
from socialbench.errors import DataError
from socialbench.recording.clip import resample
from socialbench.recording.ros_io import FORMATS, read_ros_recording


def _clip(path):
    rec = read_ros_recording(path)
    rs = resample(rec)
    frames = [np.asarray(img)[0, 0, 0] for _, img in rec.load_frames([int(i) for i in rs.source_index if i >= 0])]
    return rec, rs, frames


def test_every_format_reads_to_the_same_clips(tmp_path):
    clips = {fmt: _clip(write_small(tmp_path / NAMES[fmt], fmt)) for fmt in FORMATS}
    ref_rec, ref_rs, ref_frames = clips["mcap"]
    # 10 Hz -> 4 Hz: the frame nearest each tick (a tie, 0.25 s between 0.2 and 0.3, takes the earlier)
    assert len(ref_rs) == 10 and ref_frames[:3] == [0, 16, 40]
    for fmt, (rec, rs, frames) in clips.items():
        assert np.array_equal(rs.source_index, ref_rs.source_index), fmt
        assert np.allclose(rs.pose, ref_rs.pose), fmt
        assert frames == ref_frames, fmt
        assert np.allclose(rec.camera.rotation, ref_rec.camera.rotation), fmt
        assert (rec.camera.fx, rec.camera.width, rec.camera.translation[2]) == (80.0, 64, 0.5), fmt


def test_a_topic_over_several_connections_reads_every_message(tmp_path):
    """A ROS 1 node that restarts mid-recording publishes the same topic over a new connection
    (another caller id): every frame and pose is read, as from one (the first was half)."""
    fmt = "ros1"
    whole = _clip(write_small(tmp_path / ("a" + NAMES[fmt]), fmt))
    split = _clip(write_small(tmp_path / ("b" + NAMES[fmt]), fmt, restart_at=12))
    assert len(split[0].frame_times) == len(whole[0].frame_times) == 25
    assert split[2] == whole[2] and np.allclose(split[1].pose, whole[1].pose)


def test_odometry_is_interpolated_to_each_frame_time(tmp_path):
    rec, rs, _ = _clip(write_small(tmp_path / "r.mcap", "mcap"))
    t = rs.times - 100.0
    assert np.allclose(rs.pose[:, 0], t, atol=1e-9)
    assert np.allclose(rs.pose[:, 2], 0.2 * t, atol=1e-9)


def test_compressed_images_decode(tmp_path):
    _, _, frames = _clip(write_small(tmp_path / "r.mcap", "mcap", compressed=True))
    assert frames[:2] == [0, 16]


def test_camera_info_and_static_tf_give_the_camera(tmp_path):
    rec = read_ros_recording(write_small(tmp_path / "r.bag", "ros1"))
    assert np.allclose(rec.camera.rotation, CAMERA.rotation)
    assert np.allclose(rec.camera.translation, CAMERA.translation)


@pytest.mark.parametrize("what", ["image", "odometry", "camera info"])
def test_a_missing_topic_names_the_file_the_topic_and_the_flag(tmp_path, what):
    kw = {"image": {}, "odometry": {"odom": False}, "camera info": {"info": False}}[what]
    if what == "image":
        path = tmp_path / "r.mcap"
        from socialbench.recording.ros_io import RosRecordingWriter

        with RosRecordingWriter(path, "mcap") as w:
            w.odometry("/odom", 1.0, 0, 0, 0)
    else:
        path = write_small(tmp_path / "r.mcap", "mcap", **kw)
    with pytest.raises(DataError) as e:
        read_ros_recording(path)
    msg = str(e.value)
    flag = {"image": "--image-topic", "odometry": "--odom-topic", "camera info": "--info-topic"}[what]
    assert str(path) in msg and "no " in msg and flag in msg and "\n" not in msg


def test_two_image_topics_ask_which_one(tmp_path):
    from socialbench.recording.ros_io import RosRecordingWriter

    path = tmp_path / "r.mcap"
    with RosRecordingWriter(path, "mcap") as w:
        w.image("/a", 1.0, np.zeros((2, 2, 3), np.uint8))
        w.image("/b", 1.0, np.zeros((2, 2, 3), np.uint8))
    with pytest.raises(DataError, match=r"2 image topics \(/a, /b\).*--image-topic"):
        read_ros_recording(path)


def test_camera_info_without_intrinsics_is_refused(tmp_path):
    path = write_small(tmp_path / "r.mcap", "mcap", intrinsics=False)
    with pytest.raises(DataError, match=r"/cam/info k.*without intrinsics.*--calibration"):
        read_ros_recording(path)


def test_no_static_transform_is_refused_with_the_yaml_fix(tmp_path):
    path = write_small(tmp_path / "r.mcap", "mcap", tf=False)
    with pytest.raises(DataError, match=r"/tf_static.*camera_optical.*base_link.*--extrinsics|--calibration"):
        read_ros_recording(path)


def test_image_timestamps_going_backwards_are_refused(tmp_path):
    stamps = [100.0 + k / 10 for k in range(12)]
    stamps[6] = stamps[4]  # message 7 is stamped before message 6
    path = write_small(tmp_path / "r.mcap", "mcap", stamps=stamps)
    with pytest.raises(DataError) as e:
        read_ros_recording(path)
    msg = str(e.value)
    assert "/cam/image header.stamp" in msg and "go backwards at message 7" in msg and "fix:" in msg


def test_odometry_timestamps_going_backwards_are_refused(tmp_path):
    from socialbench.recording.ros_io import RosRecordingWriter

    path = tmp_path / "r.mcap"
    with RosRecordingWriter(path, "mcap") as w:
        w.static_transform(0.0, "base_link", "camera_optical", CAMERA.rotation, CAMERA.translation)
        w.camera_info("/cam/info", 0.0, CAMERA)
        for k, t in enumerate([1.0, 1.1, 1.05, 1.2]):
            w.odometry("/odom", t, 0.0, 0.0, 0.0, log_t=1.0 + k / 10)
            w.image("/cam/image", 1.0 + k / 10, np.zeros((2, 2, 3), np.uint8))
    with pytest.raises(DataError, match=r"\[/odom header.stamp\]: odometry timestamps go backwards at message 3"):
        read_ros_recording(path)
