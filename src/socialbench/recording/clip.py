"""What a recording reader returns (:class:`Recording`) and its resampling to the release's
4 Hz (:func:`resample`): the frame nearest each 4 Hz tick, the odometry interpolated to that
frame's own time."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from socialbench.errors import DataError
from socialbench.recording.camera import CameraModel

#: The release's frame period (s): 4 Hz.
RELEASE_DT = 0.25

__all__ = ["Recording", "Resampled", "RELEASE_DT", "FrameLoader", "check_increasing", "resample", "yaw_of"]

#: ``loader(indices)`` yields ``(index, PIL image)`` for the given source frame indices, in order.
FrameLoader = Callable[[Sequence[int]], Iterator[tuple[int, object]]]


def yaw_of(qx: float, qy: float, qz: float, qw: float) -> float:
    """Heading (rotation about z) of a quaternion."""
    return math.atan2(2.0 * (qw * qz + qx * qy), 1.0 - 2.0 * (qy * qy + qz * qz))


def check_increasing(times: np.ndarray, source: str, field: str, what: str) -> None:
    """One-line error when ``times`` (seconds) ever go backwards (or repeat)."""
    if len(times) < 2:
        return
    steps = np.diff(times)
    bad = np.flatnonzero(~(steps > 0))
    if len(bad):
        i = int(bad[0]) + 1
        raise DataError.single(
            source,
            field,
            f"{what} timestamps go backwards at message {i + 1} ({times[i]:.6f} s after {times[i - 1]:.6f} s)",
            "fix the recording's header stamps (socialbench orders by them) or drop the out-of-order messages",
        )


@dataclass(frozen=True, eq=False)
class Recording:
    """A robot recording: frame times, odometry and the calibrated camera.

    ``frame_times`` (s, increasing) index the frames 0..F-1 (a MOTChallenge frame number is
    this index + 1); ``odom_*`` the world poses with their own times; ``load_frames`` decodes
    only the frames asked for."""

    source: str
    frame_times: np.ndarray
    odom_times: np.ndarray
    odom_xy: np.ndarray  # (M, 2)
    odom_yaw: np.ndarray  # (M,)
    camera: CameraModel
    load_frames: FrameLoader
    topics: dict[str, str]  # role -> topic/file the data came from

    def __post_init__(self) -> None:
        """Every time and pose finite: a NaN would surface much later, in a temporary file."""
        where = self.topics.get("odometry", "odometry")
        for name, values in (("time", self.odom_times), ("x, y", self.odom_xy), ("yaw", self.odom_yaw)):
            arr = np.asarray(values, dtype=float)
            bad = np.flatnonzero(~np.isfinite(arr.reshape(len(arr), -1)).all(axis=1)) if arr.size else np.zeros(0, int)
            if len(bad):
                raise DataError.single(
                    self.source,
                    f"{where} {name}",
                    f"odometry message {int(bad[0]) + 1} has a non-finite {name}",
                    "fix or drop that odometry message",
                )
        bad_frames = np.flatnonzero(~np.isfinite(np.asarray(self.frame_times, dtype=float)))
        if len(bad_frames):
            raise DataError.single(
                self.source,
                self.topics.get("image", "frames"),
                f"frame {int(bad_frames[0]) + 1} has a non-finite time",
                "fix or drop that frame",
            )

    @property
    def n_frames(self) -> int:
        return int(len(self.frame_times))

    @property
    def duration_s(self) -> float:
        return float(self.frame_times[-1] - self.frame_times[0]) if self.n_frames else 0.0


@dataclass(frozen=True, eq=False)
class Resampled:
    """The 4 Hz sequence: per tick the source frame index (-1: no frame near the tick, or no
    odometry around it), the frame's time, and the interpolated world pose (x, y, yaw)."""

    source_index: np.ndarray  # (K,) int
    times: np.ndarray  # (K,)
    pose: np.ndarray  # (K, 3)

    def __len__(self) -> int:
        return int(len(self.source_index))


def resample(rec: Recording, dt: float = RELEASE_DT, tolerance: float | None = None) -> Resampled:
    """Frames at ``dt`` steps from the first frame: the nearest frame within ``tolerance``
    (default dt/2) of each tick; the odometry (x, y and unwrapped yaw, linearly) at that frame's
    time. A tick without a frame, or outside the odometry's time span, is a gap (-1)."""
    tol = dt / 2 if tolerance is None else tolerance
    ft = rec.frame_times
    if len(ft) == 0:
        return Resampled(np.zeros(0, dtype=int), np.zeros(0), np.zeros((0, 3)))
    n = int(math.floor((ft[-1] - ft[0]) / dt + 1e-9)) + 1
    ticks = ft[0] + dt * np.arange(n)
    j = np.clip(np.searchsorted(ft, ticks), 1, max(len(ft) - 1, 1))
    if len(ft) == 1:
        nearest = np.zeros(n, dtype=int)
    else:
        left = j - 1
        nearest = np.where(np.abs(ft[left] - ticks) <= np.abs(ft[j] - ticks), left, j)
    times = ft[nearest]
    ok = np.abs(times - ticks) <= tol + 1e-9
    ot = rec.odom_times
    ok &= (times >= ot[0] - 1e-9) & (times <= ot[-1] + 1e-9) if len(ot) else False
    yaw_u = np.unwrap(rec.odom_yaw) if len(ot) else np.zeros(0)
    pose = np.full((n, 3), np.nan)
    if len(ot):
        pose[:, 0] = np.interp(times, ot, rec.odom_xy[:, 0])
        pose[:, 1] = np.interp(times, ot, rec.odom_xy[:, 1])
        pose[:, 2] = (np.interp(times, ot, yaw_u) + math.pi) % (2 * math.pi) - math.pi
    idx = np.where(ok, nearest, -1).astype(int)
    # one source frame serves one tick only (a slower camera leaves gaps, never repeats)
    seen: set[int] = set()
    for k, i in enumerate(idx):
        if i >= 0:
            if int(i) in seen:
                idx[k] = -1
            seen.add(int(i))
    return Resampled(idx, times, pose)
