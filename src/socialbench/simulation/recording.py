"""``socialbench sim recording``: a simulated robot recording, as a lab's robot would log it.

Scenes of the procedural simulator (:mod:`.scenes`) are played back to back at ``rate`` Hz
(the 4 Hz trajectories interpolated linearly), one world odometry across them. Written:

* ``recording.mcap``: ROS 2 message types through rosbags' writer: ``/camera/image``
  (``sensor_msgs/CompressedImage`` JPEG, or ``sensor_msgs/Image`` rgb8 with ``raw_images``)
  rendered by :class:`~socialbench.navigation.scene3d.FrontViewRenderer`, ``/odom``
  (``nav_msgs/Odometry`` at twice the frame rate), ``/camera/camera_info``
  (``sensor_msgs/CameraInfo``) and ``/tf_static`` (``base_link -> camera_optical``);
* ``boxes.txt``: MOTChallenge boxes of the people the tracker's rule sees
  (:mod:`.visibility`), with :class:`BoxNoise` (pixel jitter, missed detections, false
  positives, identity switches);
* ``truth/people.csv`` and ``truth/robot.csv`` (:mod:`socialbench.recording.truth_files`).

Deterministic: the same arguments give the same boxes and truth (scene i from
``SeedSequence([seed, i])``, the noise from ``SeedSequence([seed, 2**20])``)."""

from __future__ import annotations

import math
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from socialbench.files.atomic_write import refuse_link
from socialbench.navigation.frames import Pose2D, local_to_world, wrap_angle
from socialbench.navigation.projection import PinholeCamera
from socialbench.navigation.scene3d import FrontViewRenderer
from socialbench.navigation.scene3d_geometry import scaled_camera
from socialbench.navigation.scene3d_types import PersonView
from socialbench.navigation.tracks import FRAME_DT
from socialbench.recording.camera import CameraModel
from socialbench.recording.mot import Box, format_boxes
from socialbench.recording.truth_files import PEOPLE_HEADER, ROBOT_HEADER
from socialbench.simulation.scene_config import SCENE_TYPES, sample_config, scene_rng
from socialbench.simulation.scene_layout import build_scene
from socialbench.simulation.scenes import simulate
from socialbench.simulation.visibility import seen

__all__ = ["BoxNoise", "simulate_recording", "STRIDE_M"]

STRIDE_M = 1.4
#: A person unseen for more than this many frames gets a new tracker id when seen again
#: (a tracker that lost someone does not re-identify them); below ``MAX_TRACK_GAP``.
REID_FRAMES = 20
START_TIME_S = 1_700_000_000.0


@dataclass(frozen=True)
class BoxNoise:
    """The simulated tracker's errors. Defaults: ``jitter_px`` 1.0 (standard deviation of each
    box edge, pixels of the published image), ``miss_rate`` 0.1 (share of detections dropped),
    ``false_positives`` 0.05 (mean spurious boxes per frame), ``id_switch_rate`` 0.005 (chance
    per seen person per frame that its id changes). :meth:`scaled` multiplies all four."""

    jitter_px: float = 1.0
    miss_rate: float = 0.1
    false_positives: float = 0.05
    id_switch_rate: float = 0.005

    def scaled(self, k: float) -> BoxNoise:
        return BoxNoise(
            self.jitter_px * k,
            min(self.miss_rate * k, 0.95),
            self.false_positives * k,
            min(self.id_switch_rate * k, 1.0),
        )


def _interp(track: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Sim frames (4 Hz, ``(K, ...)``) at times ``t`` (s from the scene's frame 0)."""
    k = np.arange(track.shape[0]) * FRAME_DT
    flat = track.reshape(track.shape[0], -1)
    out = np.stack([np.interp(t, k, flat[:, j]) for j in range(flat.shape[1])], axis=1)
    return out.reshape((len(t),) + track.shape[1:])


def simulate_recording(
    out: Path,
    *,
    scenes: int = 4,
    seed: int = 0,
    people: tuple[int, int] = (3, 8),
    rate: float = 10.0,
    frame_size: tuple[int, int] = (640, 360),
    noise: BoxNoise = BoxNoise(),
    raw_images: bool = False,
    fmt: str = "mcap",
    render: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Write ``out/recording.mcap`` (or ``.bag`` / a bag folder for other ``fmt``),
    ``out/boxes.txt`` and ``out/truth/``; returns ``out``. ``out`` must be empty or absent.
    Everything is written in a temporary folder beside ``out`` and renamed at the end."""
    from socialbench.recording.ros_io import RosRecordingWriter

    if scenes < 1:
        raise ValueError(f"scenes must be at least 1, got {scenes}")
    if not (0 < rate <= 60):
        raise ValueError(f"rate must be in (0, 60] Hz, got {rate}")
    lo, hi = int(people[0]), int(people[1])
    if lo < 0 or hi < lo or hi > 20:
        raise ValueError(f"people must be (min, max) with 0 <= min <= max <= 20, got {people!r}")
    out = Path(out)
    refuse_link(out, "--out")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"{out} is not an empty folder; choose a new one")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        _write(
            tmp, scenes, seed, (lo, hi), rate, frame_size, noise, raw_images, fmt, render, progress, RosRecordingWriter
        )
        os.chmod(tmp, 0o755)
        if out.exists():
            out.rmdir()
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


#: File or folder name of the recording per format.
RECORDING_NAMES = {
    "mcap": "recording.mcap",
    "ros1": "recording.bag",
    "ros2-sqlite3": "recording",
    "ros2-mcap": "recording",
}


def _jpeg(img: object) -> bytes:
    import io

    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=85)  # type: ignore[attr-defined]
    return buf.getvalue()


def _noisy_box(
    bbox: tuple[float, float, float, float], size: tuple[int, int], jitter: float, rng: np.random.Generator
) -> tuple[float, float, float, float] | None:
    x1, y1, x2, y2 = (float(v) for v in bbox)
    if jitter > 0:
        x1, y1, x2, y2 = (v + float(e) for v, e in zip((x1, y1, x2, y2), rng.normal(0.0, jitter, 4)))
    x1, x2 = max(0.0, x1), min(float(size[0]), x2)
    y1, y2 = max(0.0, y1), min(float(size[1]), y2)
    if x2 - x1 < 1.0 or y2 - y1 < 1.0:
        return None
    return (x1, y1, x2 - x1, y2 - y1)


def _write(
    root: Path,
    scenes: int,
    seed: int,
    people: tuple[int, int],
    rate: float,
    frame_size: tuple[int, int],
    noise: BoxNoise,
    raw_images: bool,
    fmt: str,
    render: bool,
    progress: Callable[[int, int], None] | None,
    writer_cls: type,
) -> None:
    from PIL import Image

    size = (int(frame_size[0]), int(frame_size[1]))
    pin = scaled_camera(PinholeCamera(), size)
    cam = CameraModel.level(pin)
    nrng = np.random.default_rng(np.random.SeedSequence([int(seed), 2**20]))
    boxes: list[Box] = []
    people_rows: list[str] = []
    robot_rows: list[str] = []
    world = Pose2D(0.0, 0.0, 0.0)
    t_offset = START_TIME_S
    frame = 0
    next_pid = next_tid = 1
    blank = Image.new("RGB", size, (128, 128, 128))
    with writer_cls(root / RECORDING_NAMES[fmt], fmt) as w:
        w.static_transform(t_offset, "base_link", "camera_optical", cam.rotation, cam.translation)
        w.camera_info("/camera/camera_info", t_offset, cam)
        for si in range(scenes):
            rng = scene_rng(seed, si)
            scene_type = SCENE_TYPES[int(rng.integers(len(SCENE_TYPES)))]
            cfg = sample_config(rng, int(rng.integers(people[0], people[1] + 1)), scene_type=scene_type)
            setup = build_scene(cfg, rng)
            sim = simulate(setup)
            dur = (sim.n_frames - 1) * FRAME_DT
            ts = np.arange(0.0, dur + 1e-9, 1.0 / rate)
            rob = _interp(np.column_stack([sim.robot[:, :2], np.unwrap(sim.robot[:, 2])]), ts)
            ppl = _interp(sim.people, ts)
            n = ppl.shape[1]
            cum = (
                np.concatenate([np.zeros((1, n)), np.cumsum(np.linalg.norm(np.diff(ppl, axis=0), axis=-1), axis=0)])
                if len(ts) > 1
                else np.zeros((1, n))
            )
            oyaw = world.yaw - float(rob[0, 2])
            c, s_ = math.cos(oyaw), math.sin(oyaw)
            origin = Pose2D(
                world.x - (c * rob[0, 0] - s_ * rob[0, 1]), world.y - (s_ * rob[0, 0] + c * rob[0, 1]), oyaw
            )
            renderer = FrontViewRenderer(pin, size, cfg.scene_type, setup.walls, None)
            agents = setup.agents
            pids = [str(next_pid + i) for i in range(n)]
            next_pid += n
            tid: list[str | None] = [None] * n
            last_seen = [-(10**9)] * n
            odo_t = np.arange(0.0, dur + 1e-9, 0.5 / rate)
            odo = _interp(np.column_stack([sim.robot[:, :2], np.unwrap(sim.robot[:, 2])]), odo_t)
            odo_xy = local_to_world(odo[:, :2], origin)
            odo_yaw = np.asarray(wrap_angle(odo[:, 2] + oyaw))
            oi = 0
            for k, t in enumerate(ts):
                tt = t_offset + float(t)
                while oi < len(odo_t) and odo_t[oi] <= t + 1e-9:
                    w.odometry("/odom", t_offset + float(odo_t[oi]), odo_xy[oi, 0], odo_xy[oi, 1], float(odo_yaw[oi]))
                    oi += 1
                pose = (float(rob[k, 0]), float(rob[k, 1]), float(rob[k, 2]))
                views = [
                    PersonView(
                        float(ppl[k, i, 0]),
                        float(ppl[k, i, 1]),
                        a.appearance,
                        phase=float(2 * math.pi * cum[k, i] / STRIDE_M),
                        walking=a.role != "standing",
                    )
                    for i, a in enumerate(agents)
                ]
                img = renderer.render(pose, views) if render else blank
                if raw_images:
                    w.image("/camera/image", tt, np.asarray(img.convert("RGB")))
                else:
                    w.compressed_image("/camera/image", tt, _jpeg(img))
                wxy = local_to_world(ppl[k], origin)
                rxy = local_to_world(rob[k : k + 1, :2], origin)[0]
                robot_rows.append(
                    f"{frame + 1},{tt:.6f},{rxy[0]:.4f},{rxy[1]:.4f},{float(wrap_angle(rob[k, 2] + oyaw)):.5f}\n"
                )
                for i, det in enumerate(renderer.observe(pose, views)):
                    vis = seen(det)
                    people_rows.append(f"{frame + 1},{tt:.6f},{pids[i]},{wxy[i, 0]:.4f},{wxy[i, 1]:.4f},{int(vis)}\n")
                    if not vis or det.bbox is None:
                        continue
                    if tid[i] is None or frame - last_seen[i] > REID_FRAMES or nrng.random() < noise.id_switch_rate:
                        tid[i] = str(next_tid)
                        next_tid += 1
                    last_seen[i] = frame
                    if nrng.random() < noise.miss_rate:
                        continue
                    box = _noisy_box(det.bbox, size, noise.jitter_px, nrng)
                    if box is not None:
                        boxes.append(Box(frame, str(tid[i]), *box, 1.0))
                for _ in range(int(nrng.poisson(noise.false_positives))):
                    bh = float(nrng.uniform(0.1, 0.5)) * size[1]
                    bx = float(nrng.uniform(0, size[0] - 0.35 * bh))
                    by = float(nrng.uniform(pin.cy, size[1])) - bh
                    boxes.append(Box(frame, str(next_tid), bx, max(by, 0.0), 0.35 * bh, bh, 0.5))
                    next_tid += 1
                frame += 1
            end = rob[-1]
            exy = local_to_world(end[None, :2], origin)[0]
            world = Pose2D(float(exy[0]), float(exy[1]), float(wrap_angle(end[2] + oyaw)))
            t_offset += dur + 1.0 / rate
            if progress is not None:
                progress(si + 1, scenes)
    boxes.sort(key=lambda b: (b.frame, int(b.track_id)))
    (root / "boxes.txt").write_text(format_boxes(boxes), encoding="utf-8")
    truth = root / "truth"
    truth.mkdir()
    (truth / "people.csv").write_text(",".join(PEOPLE_HEADER) + "\n" + "".join(people_rows), encoding="utf-8")
    (truth / "robot.csv").write_text(",".join(ROBOT_HEADER) + "\n" + "".join(robot_rows), encoding="utf-8")
    (truth / "README.md").write_text(
        "# True tracks of a simulated recording\n\n"
        "`people.csv`: frame (1-based image index), time (s, the image's header stamp), person id, "
        "world x, y (m, the odometry's frame), visible (1: the simulated tracker's rule sees the person). "
        "`robot.csv`: frame, time, world x, y, yaw of the robot at each image.\n",
        encoding="utf-8",
    )
