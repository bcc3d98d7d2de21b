"""Checks of the files a SocialNav-SUB sample points to: that a path stays inside the dataset
folder, and that images, odometry pickles and track files are usable. Each check records what
is wrong in a :class:`~socialbench.benchmarks.socialnav_sub.validation_report.ValidationReport`
and returns whether the file passed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from socialbench.benchmarks.socialnav_sub.layout import N_FRAMES
from socialbench.benchmarks.socialnav_sub.validation_report import ValidationReport
from socialbench.errors import DataError
from socialbench.files.safe_pickle import load_pickle_safely
from socialbench.files.safe_read import file_kind, read_json

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "MAX_IMAGE_PIXELS",
    "Containment",
    "inside_or_error",
    "read_json_reporting",
    "check_image_file",
    "check_odometry_file",
    "check_tracks_file",
]

#: Most pixels an image may decode to (release composites are 1280x2000 = 2.56 MP).
MAX_IMAGE_PIXELS = 40_000_000


class Containment:
    """Answers "does this path resolve inside the dataset folder?" (symlinks followed).

    A path that is not itself a link resolves to its resolved folder plus its name, so each
    folder is resolved once per scan instead of once per file (a release has ~1,200 images).
    """

    def __init__(self, root: Path):
        self.root = root.resolve()
        self._dirs: dict[Path, Path] = {}

    def _resolved(self, path: Path) -> Path:
        if path.is_symlink():
            return path.resolve()
        folder = self._dirs.get(path.parent)
        if folder is None:
            folder = self._dirs[path.parent] = path.parent.resolve()
        return folder / path.name

    def __call__(self, path: Path) -> bool:
        try:
            self._resolved(path).relative_to(self.root)
            return True
        except (ValueError, OSError, RuntimeError):
            return False


def inside_or_error(path: Path, inside: Containment, report: ValidationReport) -> bool:
    """True if ``path`` resolves inside the dataset; else record the error."""
    if inside(path):
        return True
    report.error(path, "", "resolves outside the dataset folder (symlink?)", "replace the link with the file itself")
    return False


def read_json_reporting(path: Path, report: ValidationReport, what: str) -> Any:
    """Parse a JSON file; record a problem (with line) and return None on failure.

    Only regular files are read (see :mod:`~socialbench.files.safe_read`)."""
    if file_kind(path) == "missing":
        report.error(path, "", f"missing {what}", f"add {path.name}")
        return None
    try:
        return read_json(path)
    except DataError as exc:
        report.errors.extend(exc.problems)
        return None


def check_image_file(path: Path, report: ValidationReport, inside: Containment, verify: bool = True) -> bool:
    """An image inside the dataset that opens, holds at most :data:`MAX_IMAGE_PIXELS` and,
    with ``verify`` (``data validate``), decodes completely (a truncated file fails here,
    not in the middle of a run); without it only the header is read (loading for an
    evaluation, where each image is decoded once anyway and a broken one fails only its own
    sample)."""
    import warnings

    from PIL import Image  # local import: only needed when images are checked

    if not inside_or_error(path, inside, report):
        return False
    if file_kind(path) != "file":
        report.error(path, "", "not a regular file (a folder, FIFO or device)", "replace it with the image file")
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as img:
                w, h = img.size
                if w * h > MAX_IMAGE_PIXELS:
                    report.error(
                        path,
                        "",
                        f"image claims {w}x{h} pixels, more than the "
                        f"{MAX_IMAGE_PIXELS} an image of this dataset may have",
                        "replace the image with the release's file",
                    )
                    return False
                if verify:
                    img.load()  # decodes every pixel: truncation and corrupt data fail here
            if verify and path.suffix.lower() == ".png":
                with Image.open(path) as img:
                    img.verify()  # chunk checksums
    except FileNotFoundError:
        report.error(path, "", "image not found", "add the image")
        return False
    except Exception as exc:  # PIL raises many kinds of error on bad files
        report.error(path, "", f"unreadable image: {exc}", "replace the image")
        return False
    return True


def _numeric_array(value: object) -> NDArray[np.float64] | None:
    """``value`` as a float array if it holds only real numbers, else None."""
    import numpy as np

    try:
        arr = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if arr.dtype.kind not in "iuf" or arr.size > 10**8:
        return None
    return arr.astype(float)


def check_odometry_file(path: Path, first_frame: int, report: ValidationReport) -> bool:
    """True if ``traj_data.pkl`` is a dict of finite ``position`` (N, 2) and ``yaw`` (N)
    covering the sample's frames; else records why."""
    import numpy as np

    try:
        obj = load_pickle_safely(path)
    except DataError as exc:
        report.errors.extend(exc.problems)
        return False
    if not isinstance(obj, Mapping) or "position" not in obj or "yaw" not in obj:
        report.error(path, "", "odometry must be a dict with 'position' and 'yaw'", "regenerate traj_data.pkl")
        return False
    pos, yaw = _numeric_array(obj["position"]), _numeric_array(obj["yaw"])
    if pos is None or yaw is None:
        report.error(path, "position" if pos is None else "yaw", "not an array of real numbers", "store numeric arrays")
        return False
    yaw = yaw.reshape(-1)
    if pos.ndim != 2 or pos.shape[1] < 2:
        report.error(path, "position", f"shape {pos.shape} is not (N, 2)", "store one [x, y] row per frame")
        return False
    ok = True
    if len(yaw) != len(pos):
        report.error(path, "yaw", f"{len(yaw)} yaw values for {len(pos)} positions", "store one yaw per frame")
        ok = False
    if len(pos) < first_frame + N_FRAMES:
        report.error(
            path,
            "position",
            f"{len(pos)} poses; frames {first_frame}..{first_frame + N_FRAMES - 1} "
            f"need at least {first_frame + N_FRAMES}",
            "use the odometry of the whole source sequence",
        )
        return False
    for name, arr in (("position", pos), ("yaw", yaw)):
        bad = ~np.isfinite(arr[first_frame : first_frame + N_FRAMES + 1])
        if bad.any():
            row = first_frame + int(np.argwhere(bad)[0][0])
            report.error(
                path, name, f"NaN or infinite value at pose {row}", "regenerate traj_data.pkl with finite poses"
            )
            ok = False
    return ok


def check_tracks_file(path: Path, report: ValidationReport) -> bool:
    """True if the tracks file parses (:func:`socialbench.navigation.tracks_json.parse_tracks`)
    with timesteps 0..9; else records every problem."""
    from socialbench.navigation.tracks_json import parse_tracks

    data = read_json_reporting(path, report, "tracks file")
    if data is None:
        return False
    try:
        tracks = parse_tracks(data, str(path))
    except DataError as exc:
        report.errors.extend(exc.problems)
        return False
    ok = True
    for tid, tr in tracks.items():
        late = [t for t in tr.timesteps if t >= N_FRAMES]
        if late:
            report.error(
                path,
                f"track_id_to_object_trajectory.{tid}",
                f"timestep {late[0]} is outside 0..{N_FRAMES - 1}",
                "number the timesteps of the sample's 10 frames 0..9",
            )
            ok = False
    return ok
