"""The other inputs of ``build socialnav``: a plain folder (frames, odometry CSV, calibration
YAML) and 3-D tracks instead of boxes."""

from __future__ import annotations

import csv
import json

import numpy as np

from socialbench.construction.socialnav.pipeline import BuildOptions, build_socialnav
from socialbench.navigation.frames import Pose2D, world_to_local
from socialbench.recording.camera import matrix_quaternion
from socialbench.recording.folder_reader import read_folder_recording
from socialbench.recording.ros_io import read_ros_recording

OPTS = BuildOptions(composites=False)


def _as_folder(rec, folder):
    """The recording's frames (lossless PNG), odometry and calibration as a plain folder."""
    folder.mkdir()
    rows = ["file,time\n"]
    for i, img in rec.load_frames(range(rec.n_frames)):
        img.save(folder / f"{i:05d}.png")
        rows.append(f"{i:05d}.png,{float(rec.frame_times[i])!r}\n")
    (folder / "frames.csv").write_text("".join(rows))
    (folder / "odometry.csv").write_text(
        "time,x,y,yaw\n"
        + "".join(
            f"{float(t)!r},{float(x)!r},{float(y)!r},{float(a)!r}\n"
            for t, (x, y), a in zip(rec.odom_times, rec.odom_xy, rec.odom_yaw)
        )
    )
    c = rec.camera
    q = matrix_quaternion(c.rotation)
    (folder / "calibration.yaml").write_text(
        f"camera_matrix: {{fx: {float(c.fx)!r}, fy: {float(c.fy)!r}, cx: {float(c.cx)!r}, cy: {float(c.cy)!r}}}\nwidth: {c.width}\nheight: {c.height}\n"
        f"camera_to_base: {{translation: {[float(v) for v in c.translation]}, rotation: {list(q)}}}\n"
    )
    return folder


def _files(root):
    return {
        p.relative_to(root): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "build_report.json" and p.name != "README.md"
    }


def test_a_plain_folder_builds_the_same_dataset_as_the_mcap(small_recording, tmp_path):
    ros = read_ros_recording(small_recording / "recording.mcap")
    folder = read_folder_recording(_as_folder(ros, tmp_path / "folder"))
    build_socialnav(ros, small_recording / "boxes.txt", tmp_path / "a", options=OPTS)
    build_socialnav(folder, small_recording / "boxes.txt", tmp_path / "b", options=OPTS)
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert a.keys() == b.keys() and len(a) > 20
    assert a == b


def _truth_points(rec_dir, robot_frame):
    """The truth's visible people as 3-D tracks (world, or each image's robot frame)."""
    robot = {r["frame"]: r for r in csv.DictReader((rec_dir / "truth" / "robot.csv").open())}
    rows = ["frame,id,x,y\n"]
    for r in csv.DictReader((rec_dir / "truth" / "people.csv").open()):
        if r["visible"] != "1":
            continue
        x, y = float(r["x"]), float(r["y"])
        if robot_frame:
            p = robot[r["frame"]]
            x, y = world_to_local(np.array([x, y]), Pose2D(float(p["x"]), float(p["y"]), float(p["yaw"])))
        rows.append(f"{r['frame']},{r['id']},{float(x)!r},{float(y)!r}\n")
    return "".join(rows)


def test_3d_tracks_in_the_world_frame_recover_the_truth(small_recording, tmp_path):
    tracks = tmp_path / "tracks.csv"
    tracks.write_text(_truth_points(small_recording, robot_frame=False))
    rec = read_ros_recording(small_recording / "recording.mcap")
    r = build_socialnav(
        rec,
        None,
        tmp_path / "d",
        tracks_path=tracks,
        tracks_frame="world",
        truth_dir=small_recording / "truth",
        options=OPTS,
    )
    assert r["ade_m"] < 0.05 and r["recovered_share"] == 1.0 and r["id_switches"] == 0


def test_3d_tracks_in_the_robot_frame_give_the_same_tracks(small_recording, tmp_path):
    rec = read_ros_recording(small_recording / "recording.mcap")
    built = {}
    for frame in ("world", "robot"):
        tracks = tmp_path / f"{frame}.csv"
        tracks.write_text(_truth_points(small_recording, robot_frame=frame == "robot"))
        build_socialnav(rec, None, tmp_path / frame, tracks_path=tracks, tracks_frame=frame, options=OPTS)
        built[frame] = {
            p.name: json.loads(p.read_text())
            for p in (tmp_path / frame / "prompts").rglob("*_localized_obj_coords.json")
        }
    assert built["world"].keys() == built["robot"].keys()
    for name, w in built["world"].items():
        r = built["robot"][name]["track_id_to_object_trajectory"]
        for tid, obs in w["track_id_to_object_trajectory"].items():
            assert np.allclose(
                [(o["center_x"], o["center_y"]) for o in obs],
                [(o["center_x"], o["center_y"]) for o in r[tid]],
                atol=2e-3,
            )


def test_a_non_finite_odometry_value_names_the_input_and_the_message(small_recording, tmp_path):
    import pytest

    from socialbench.errors import DataError

    folder = _as_folder(read_ros_recording(small_recording / "recording.mcap"), tmp_path / "folder")
    lines = (folder / "odometry.csv").read_text().splitlines()
    t, _, y, a = lines[3].split(",")
    lines[3] = ",".join([t, "nan", y, a])
    (folder / "odometry.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError) as info:
        read_folder_recording(folder)
    text = str(info.value)
    assert "odometry message 3 has a non-finite x, y" in text and str(folder) in text and "/tmp/." not in text


def test_a_frame_that_is_no_image_names_its_file(small_recording, tmp_path):
    import pytest

    from socialbench.errors import DataError

    folder = _as_folder(read_ros_recording(small_recording / "recording.mcap"), tmp_path / "folder")
    (folder / "00002.png").write_bytes(b"not an image")
    rec = read_folder_recording(folder)
    with pytest.raises(DataError, match=r"00002\.png: cannot be decoded as an image"):
        list(rec.load_frames([2]))
