"""Recordings written by rosbags' own writers (never hand-made bytes)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from socialbench.navigation.projection import PinholeCamera
from socialbench.recording.camera import CameraModel
from socialbench.recording.ros_io import RosRecordingWriter

CAMERA = CameraModel.level(PinholeCamera(fx=80.0, fy=80.0, cx=32.0, cy=18.0, width=64, height=36, camera_height=0.5))
NAMES = {"ros1": "rec.bag", "ros2-sqlite3": "rec_sqlite", "ros2-mcap": "rec_mcap", "mcap": "rec.mcap"}


def write_small(
    path: Path,
    fmt: str,
    *,
    n: int = 25,
    rate: float = 10.0,
    stamps: list[float] | None = None,
    info: bool = True,
    intrinsics: bool = True,
    tf: bool = True,
    odom: bool = True,
    compressed: bool = False,
    restart_at: int | None = None,
) -> Path:
    """``n`` frames at ``rate`` Hz (logged at those times; ``stamps`` replaces the header stamps) (frame k is grey level 8k), odometry at twice the rate
    moving 1 m/s forward while turning 0.2 rad/s, the camera info and static TF."""
    times = stamps if stamps is not None else [100.0 + k / rate for k in range(n)]
    with RosRecordingWriter(path, fmt) as w:
        if tf:
            w.static_transform(100.0, "base_link", "camera_optical", CAMERA.rotation, CAMERA.translation)
        if info:
            w.camera_info("/cam/info", 100.0, CAMERA, intrinsics=intrinsics)
        for k, t in enumerate(times):
            if k == restart_at:  # the camera and odometry nodes restart: new connections
                w.restart_publisher("/cam/image")
                w.restart_publisher("/odom")
            if odom:
                for dt in (0.0, 0.5 / rate):
                    w.odometry(
                        "/odom",
                        t + dt,
                        t + dt - 100.0,
                        0.0,
                        0.2 * (t + dt - 100.0),
                        log_t=100.0 + (k + dt * rate) / rate,
                    )
            img = np.full((36, 64, 3), 8 * k % 256, np.uint8)
            if compressed:
                import io

                from PIL import Image

                buf = io.BytesIO()
                Image.fromarray(img).save(buf, format="PNG")
                w.compressed_image("/cam/image", t, buf.getvalue(), log_t=100.0 + k / rate)
            else:
                w.image("/cam/image", t, img, log_t=100.0 + k / rate)
    return path
