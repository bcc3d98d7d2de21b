"""``socialbench build socialnav``: the typer command (the work is in :mod:`.pipeline`)."""

from __future__ import annotations

from pathlib import Path

import typer

from socialbench.construction.stage_command import out

__all__ = ["socialnav_cmd"]


def socialnav_cmd(
    recording: Path = typer.Option(
        ..., "--recording", help="ROS 1 .bag, ROS 2 bag folder, .mcap/.db3 file, or a plain folder (frames.csv, ...)"
    ),
    boxes: Path | None = typer.Option(
        None, "--boxes", help="tracker output, MOTChallenge CSV (frame,id,x,y,w,h,score,...)"
    ),
    tracks: Path | None = typer.Option(None, "--tracks", help="instead of --boxes: 3-D tracks, CSV/JSON frame,id,x,y"),
    tracks_frame: str = typer.Option("robot", help="frame of --tracks: robot (of each image) | world (odometry)"),
    out_dir: Path = typer.Option(..., "--out", "-o", help="new folder for the dataset (official release layout)"),
    truth: Path | None = typer.Option(None, "--truth", help="true tracks (sim recording's truth/): ADE, recovery"),
    image_topic: str | None = typer.Option(None, help="image topic [default: the one Image/CompressedImage topic]"),
    odom_topic: str | None = typer.Option(None, help="odometry topic [default: the one nav_msgs/Odometry topic]"),
    info_topic: str | None = typer.Option(None, help="CameraInfo topic [default: the one CameraInfo topic]"),
    base_frame: str | None = typer.Option(None, help="robot frame of the TF [default: the odometry's child frame]"),
    calibration: Path | None = typer.Option(None, help="calibration YAML replacing CameraInfo and the static TF"),
    scenarios: int = typer.Option(60, min=1, help="most scenarios kept (top-scoring, non-overlapping)"),
    min_people: int = typer.Option(1, min=0, help="fewest labelled people a scenario needs"),
    w_crowd: float = typer.Option(1.0, help="score weight: labelled people (crowd size)"),
    w_close: float = typer.Option(1.5, help="score weight: people within --close-m of the robot"),
    w_lateral: float = typer.Option(2.0, help="score weight: robot's largest sideways offset (m)"),
    close_m: float = typer.Option(2.0, min=0.0, help="proximity radius (m)"),
    goal_frames: int = typer.Option(40, min=1, help="goal = robot position this many 4 Hz frames after the first"),
    max_range_m: float = typer.Option(20.0, min=0.0, help="drop lifted points farther than this (m)"),
    max_track_gap: int = typer.Option(30, min=1, help="largest gap (frames) inside one track id"),
    measurement_std: float = typer.Option(0.5, min=0.01, help="Kalman: position noise of a lifted box (m)"),
    accel_std: float = typer.Option(1.0, min=0.01, help="Kalman: walking acceleration noise (m/s^2)"),
    answers: str = typer.Option("auto", help="auto | exact | none: exact = answers from --truth (not human)"),
    composites: bool = typer.Option(True, "--composites/--no-composites", help="write sample_with_bev_<i>.png"),
    name: str = typer.Option("rec", help="sample id prefix: <name>_Spot_<i>_<F0>"),
) -> None:
    """Build a SocialNav-SUB dataset from a robot recording and tracker boxes (paper §3.2)."""
    from socialbench.construction.socialnav.mining import MiningOptions
    from socialbench.construction.socialnav.pipeline import SMOOTHING, BuildOptions, build_socialnav
    from socialbench.errors import UsageError
    from socialbench.navigation.smoothing import KalmanParams
    from socialbench.recording.calibration import read_calibration
    from socialbench.recording.folder_reader import is_folder_recording, read_folder_recording
    from socialbench.recording.ros_io import read_ros_recording

    if not name.replace("-", "").isalnum():
        raise UsageError(f"--name {name!r}: letters, digits and '-' only")
    cam = read_calibration(calibration) if calibration is not None else None
    if is_folder_recording(recording):
        rec = read_folder_recording(recording, cam)
    else:
        rec = read_ros_recording(
            recording,
            image_topic=image_topic,
            odom_topic=odom_topic,
            info_topic=info_topic,
            base_frame=base_frame,
            intrinsics=cam,
            extrinsics=None if cam is None else (cam.rotation, cam.translation),
        )
    opts = BuildOptions(
        mining=MiningOptions(
            weights={"crowd_size": w_crowd, "n_close": w_close, "lateral_motion_m": w_lateral},
            close_m=close_m,
            max_scenarios=scenarios,
            min_people=min_people,
        ),
        smoothing=KalmanParams(
            measurement_std=measurement_std, accel_std=accel_std, initial_velocity_std=SMOOTHING.initial_velocity_std
        ),
        goal_frames=goal_frames,
        max_range_m=max_range_m,
        max_track_gap=max_track_gap,
        answers=answers,
        composites=composites,
    )
    report = build_socialnav(
        rec, boxes, out_dir, tracks_path=tracks, tracks_frame=tracks_frame, truth_dir=truth, options=opts, name=name
    )
    ade = f", ADE {report['ade_m']:.3f} m" if report.get("ade_m") is not None else ""
    if report["answers"].startswith("none"):
        nxt = (
            "no answers written: `data validate` and `eval` need answers per question, so run the survey "
            "(socialbench build socialnav-survey, then socialbench build socialnav-answers)"
        )
    else:
        nxt = f"answers are exact ones from --truth, not human; check with: socialbench data validate -b socialnav-sub -d {out_dir}"
    out.print(f"wrote {report['scenarios']} scenarios to {out_dir}{ade}; {nxt}", markup=False, highlight=False)
