"""``socialbench sim recording`` -> ``build socialnav`` -> ``data validate`` -> ``eval`` -> ``report``."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from socialbench.cli import main
from socialbench.construction.socialnav.pipeline import BuildOptions, build_socialnav
from socialbench.errors import DataError
from socialbench.recording.ros_io import read_ros_recording


def run_cli(*args):
    with pytest.raises(SystemExit) as e:
        main([str(a) for a in args])
        raise SystemExit(0)
    return e.value.code


def _build(rec, out, **kw):
    opts = BuildOptions(composites=False, **kw.pop("options", {}))
    return build_socialnav(read_ros_recording(rec / "recording.mcap"), rec / "boxes.txt", out, options=opts, **kw)


def test_walk_through_from_recording_to_report(tmp_path, capsys):
    rec, data, run = tmp_path / "rec", tmp_path / "data", tmp_path / "run"
    assert run_cli("sim", "recording", "--out", rec, "--scenes", "2", "--size", "320x180", "--no-progress") == 0
    assert (
        (rec / "recording.mcap").is_file()
        and (rec / "boxes.txt").is_file()
        and (rec / "truth" / "people.csv").is_file()
    )
    args = ("build", "socialnav", "--recording", rec / "recording.mcap", "--boxes", rec / "boxes.txt")
    assert run_cli(*args, "--truth", rec / "truth", "--out", data) == 0
    capsys.readouterr()
    assert run_cli("data", "validate", "-b", "socialnav-sub", "-d", data) == 0
    assert capsys.readouterr().out.startswith(f"OK: {data}")
    assert (
        run_cli("eval", "-b", "socialnav-sub", "-d", data, "-m", "baseline:rule-based", "--out", run, "--no-progress")
        == 0
    )
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["n_scored"] > 0 and metrics["n_missing"] == 0 and 0 <= metrics["scores"]["model"]["All"]["PA"] <= 1
    assert run_cli("report", run) == 0
    assert (run / "report" / "index.html").is_file()
    table = (run / "report" / "tables" / "socialnav_table1.md").read_text()
    assert "exact answers from true tracks, not human" in table


def test_build_report_holds_the_track_quality_and_each_scenarios_features(small_recording, tmp_path):
    report = _build(small_recording, tmp_path / "data", truth_dir=small_recording / "truth")
    on_disk = json.loads((tmp_path / "data" / "build_report.json").read_text())
    assert on_disk == json.loads(json.dumps(report))
    assert 0 < report["ade_m"] <= 0.67  # the paper's ADE on CODa (App. 7.3), default noise
    assert 0.9 <= report["recovered_share"] <= 1.0 and isinstance(report["id_switches"], int)
    info = json.loads((tmp_path / "data" / "sample_info.json").read_text())["samples"]
    assert report["scenarios"] == len(info) == len(report["scenario_list"]) >= 2
    for s in report["scenario_list"]:
        assert set(s["features"]) == {"crowd_size", "n_close", "lateral_motion_m"}
        w = report["mining"]["weights"]
        assert s["score"] == pytest.approx(sum(w[k] * v for k, v in s["features"].items()), abs=1e-3)


def test_chosen_windows_do_not_overlap(small_recording, tmp_path):
    report = _build(small_recording, tmp_path / "data")
    starts = sorted(s["first_frame"] for s in report["scenario_list"])
    assert all(b - a >= 18 for a, b in zip(starts, starts[1:]))


def test_the_goal_image_named_is_the_frame_the_goal_was_taken_from(small_recording, tmp_path):
    report = _build(small_recording, tmp_path / "data", options={"goal_frames": 1000})  # past the end
    goal = json.loads((tmp_path / "data" / "goal_info.json").read_text())
    for s in report["scenario_list"]:
        head = s["sample_id"].rsplit("_", 1)[0]
        assert s["goal_frame"] < s["first_frame"] + 1000
        assert goal[f"{head}/{s['first_frame']}.jpg"][0] == f"{head}/{s['goal_frame']}.jpg"


def test_a_new_out_folder_is_built_beside_its_parent_not_in_tmpdir(small_recording, tmp_path, monkeypatch):
    seen = []
    real = tempfile.mkdtemp
    monkeypatch.setattr(tempfile, "mkdtemp", lambda *a, **k: seen.append(k.get("dir")) or real(*a, **k))
    _build(small_recording, tmp_path / "new" / "parents" / "data")
    assert Path(seen[-1]) == tmp_path / "new" / "parents"


def test_the_goal_is_the_robot_position_ten_seconds_on(small_recording, tmp_path):
    report = _build(small_recording, tmp_path / "data", options={"goal_frames": 4})
    s = report["scenario_list"][0]
    assert s["goal_frame"] == s["first_frame"] + 4
    goal = json.loads((tmp_path / "data" / "goal_info.json").read_text())
    head = s["sample_id"].rsplit("_", 1)[0]
    assert (
        goal[f"{head}/{s['first_frame']}.jpg"][1]
        == f"[{round(s['goal_xy'][0] * 1000)}, {round(s['goal_xy'][1] * 1000)}]"
    )


def test_without_truth_no_answers_are_written(small_recording, tmp_path):
    report = _build(small_recording, tmp_path / "data")
    assert report["ade_m"] is None and report["answers"].startswith("none")
    assert not list((tmp_path / "data" / "human_labels").glob("*/common_answers.json"))


def test_more_weight_on_lateral_motion_picks_more_sideways_windows(small_recording, tmp_path):
    from socialbench.construction.socialnav.mining import MiningOptions

    def lateral(w):
        opts = {
            "mining": MiningOptions(weights={"crowd_size": 0.0, "n_close": 0.0, "lateral_motion_m": w}, max_scenarios=1)
        }
        return _build(small_recording, tmp_path / f"d{w}", options=opts)["scenario_list"][0]["features"][
            "lateral_motion_m"
        ]

    crowd = _build(
        small_recording,
        tmp_path / "crowd",
        options={
            "mining": MiningOptions(
                weights={"crowd_size": 1.0, "n_close": 0.0, "lateral_motion_m": 0.0}, max_scenarios=1
            )
        },
    )
    assert lateral(1.0) >= crowd["scenario_list"][0]["features"]["lateral_motion_m"]


def test_a_recording_shorter_than_one_window_is_refused(tmp_path):
    import numpy as np

    from socialbench.navigation.projection import PinholeCamera
    from socialbench.recording.camera import CameraModel
    from socialbench.recording.ros_io import RosRecordingWriter

    rec, cam = tmp_path / "short.mcap", CameraModel.level(PinholeCamera())
    with RosRecordingWriter(rec, "mcap") as w:  # 4 s at 10 Hz: a window needs 4.5 s
        w.static_transform(0.0, "base_link", "camera_optical", cam.rotation, cam.translation)
        w.camera_info("/cam/info", 0.0, cam)
        for k in range(41):
            w.odometry("/odom", k / 10, k / 10, 0.0, 0.0)
            w.image("/cam/image", k / 10, np.zeros((4, 4, 3), np.uint8))
    (tmp_path / "boxes.txt").write_text("")
    with pytest.raises(DataError) as e:
        build_socialnav(read_ros_recording(rec), tmp_path / "boxes.txt", tmp_path / "data")
    msg = str(e.value)
    assert msg.startswith(f"{rec} [/cam/image]: recording too short") and "needs 18" in msg and "fix:" in msg
    assert not (tmp_path / "data").exists()


def test_a_failure_while_writing_leaves_no_dataset_folder(small_recording, tmp_path, monkeypatch):
    import socialbench.construction.socialnav.pipeline as pipeline

    def broken(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(pipeline, "write_release_index", broken)
    with pytest.raises(OSError, match="disk full"):
        _build(small_recording, tmp_path / "data")
    assert list(tmp_path.iterdir()) == []  # neither the folder nor its temporary sibling


def test_bad_boxes_leave_no_dataset_folder(small_recording, tmp_path):
    boxes = tmp_path / "boxes.txt"
    boxes.write_text((small_recording / "boxes.txt").read_text() + "5,1,oops,1,1,1,1,-1,-1,-1\n")
    with pytest.raises(DataError, match=r"boxes.txt:\d+ \[bb_left\]: not a number: 'oops'"):
        build_socialnav(read_ros_recording(small_recording / "recording.mcap"), boxes, tmp_path / "data")
    assert not (tmp_path / "data").exists()


def test_more_box_noise_lifts_worse_tracks(tmp_path):
    from socialbench.simulation.recording import BoxNoise, simulate_recording

    ade = []
    for k in (1.0, 4.0):
        rec = simulate_recording(
            tmp_path / f"r{k}", scenes=2, seed=1, frame_size=(320, 180), noise=BoxNoise().scaled(k)
        )
        ade.append(_build(rec, tmp_path / f"d{k}", truth_dir=rec / "truth")["ade_m"])
    assert ade[0] < ade[1]


def test_an_output_that_is_a_link_is_refused(small_recording, tmp_path):
    from socialbench.files.atomic_write import LinkRefused

    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "data").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(LinkRefused, match="symbolic link"):
        _build(small_recording, tmp_path / "data")
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_the_waypoint_task_runs_on_a_built_dataset(tmp_path, capsys):
    from socialbench.simulation.recording import simulate_recording

    rec = simulate_recording(tmp_path / "rec", scenes=12, seed=0, frame_size=(160, 90), render=False)
    report = _build(rec, tmp_path / "data", truth_dir=rec / "truth")
    assert report["scenarios"] >= 5
    run = tmp_path / "run"
    code = run_cli(
        "eval",
        "-b",
        "socialnav-waypoint",
        "-d",
        tmp_path / "data",
        "-m",
        "baseline:waypoint-toward-goal",
        "--out",
        run,
        "--no-progress",
    )
    assert code == 0
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["n_scored"] >= 5 and metrics["n_errors"] == 0


def test_ros1_ros2_and_mcap_recordings_build_the_same_dataset(tmp_path):
    from socialbench.simulation.recording import RECORDING_NAMES, simulate_recording

    built = {}
    for fmt in ("mcap", "ros1", "ros2-sqlite3"):
        rec = simulate_recording(tmp_path / fmt, scenes=2, seed=4, frame_size=(160, 90), fmt=fmt)
        out = tmp_path / f"data-{fmt}"
        build_socialnav(
            read_ros_recording(rec / RECORDING_NAMES[fmt]),
            rec / "boxes.txt",
            out,
            options=BuildOptions(composites=False),
        )
        built[fmt] = {
            p.relative_to(out): p.read_bytes()
            for p in sorted(out.rglob("*"))
            if p.is_file() and p.suffix != ".md" and p.name != "build_report.json"
        }
    assert len(built["mcap"]) > 20
    assert built["ros1"] == built["mcap"] == built["ros2-sqlite3"]
