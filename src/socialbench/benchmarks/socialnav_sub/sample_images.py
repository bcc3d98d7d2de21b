"""The images of one SocialNav-SUB sample, checked as far as the ``--images`` mode needs
them: the release's composites, the raw frames, and the tracks and odometry a render
draws from (see :func:`~socialbench.benchmarks.socialnav_sub.scan.scan_socialnav`)."""

from __future__ import annotations

from pathlib import Path

from socialbench.benchmarks.socialnav_sub.file_checks import Containment, check_image_file
from socialbench.benchmarks.socialnav_sub.layout import N_FRAMES
from socialbench.benchmarks.socialnav_sub.validation_report import ValidationReport
from socialbench.files.safe_read import file_kind

__all__ = ["check_sample_images"]


def check_sample_images(
    root: Path, sid: str, f0: int, report: ValidationReport, inside: Containment, verify: bool, image_mode: str | None
) -> bool:
    """The frames and composites of one sample, as far as ``image_mode`` needs them (see
    :func:`scan_socialnav`). True if raw frames are missing where composites stand in."""
    composites = [root / "prompts" / sid / f"sample_with_bev_{i}.png" for i in range(N_FRAMES)]
    present = [c for c in composites if file_kind(c) != "missing"]
    composites_ok = all([check_image_file(c, report, inside, verify) for c in present])
    complete = len(present) == N_FRAMES and composites_ok
    render = not (image_mode in (None, "img-with-bev") and complete)
    frames_needed = render and image_mode != "bev"
    missing: list[Path] = []
    for t in range(N_FRAMES):
        frame = root / "front_view" / sid / f"{f0 + t}.jpg"
        if file_kind(frame) == "missing":
            missing.append(frame)
        else:
            check_image_file(frame, report, inside, verify)
    if frames_needed:
        for frame in missing:
            report.error(frame, "", "missing frame", "add the raw camera frame")
    tracks = root / "prompts" / sid / f"{sid}_localized_obj_coords.json"
    odo = root / "front_view" / sid / "traj_data.pkl"
    why = (
        "the composites are incomplete, so they are rendered"
        if image_mode in (None, "img-with-bev")
        else f"--images {image_mode} renders them"
    )
    if file_kind(tracks) == "missing":
        if render:
            report.error(
                tracks,
                "",
                f"no pedestrian tracks: {why} from tracks",
                "add the tracks file, or the 10 pre-rendered composites",
            )
        elif image_mode is None:
            report.warn(
                tracks,
                "",
                "no pedestrian tracks: only `--images img-with-bev` (with the release's composites) can be evaluated",
                "add the tracks file to evaluate --images img or bev",
            )
    if file_kind(odo) == "missing":
        if render and image_mode != "img":
            report.error(
                odo,
                "",
                f"no odometry: {why} from the robot's poses",
                "add traj_data.pkl, or the 10 pre-rendered composites",
            )
        elif image_mode is None:
            report.warn(
                odo,
                "",
                "no odometry; robot poses cannot be drawn (`--images bev` cannot be evaluated)",
                "add traj_data.pkl",
            )
    return bool(missing) and not frames_needed
