"""Camera calibration YAML (the folder input's ``calibration.yaml``, or ``--calibration`` to
replace a recording's CameraInfo and static TF)::

    camera_matrix: {fx: 311.7, fy: 312.5, cx: 320, cy: 180}   # or a 3x3 list
    width: 640
    height: 360
    camera_to_base:            # the camera's optical frame in base_link (a static TF)
      translation: [0.0, 0.0, 0.6]
      rotation: [-0.5, 0.5, -0.5, 0.5]   # quaternion x, y, z, w; default: level, forward
    # or, instead of camera_to_base: camera_height, camera_x_offset (m), pitch_deg (down)
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.errors import DataError
from socialbench.files.safe_read import file_kind, read_regular_bytes
from socialbench.navigation.projection import PinholeCamera, _intrinsics
from socialbench.recording.camera import LEVEL_OPTICAL, CameraModel, quaternion_matrix

__all__ = ["read_calibration"]

#: The keys a calibration YAML may have (any other is a typo that would silently fall back to
#: a default, e.g. ``pitch_degs``): top level, and inside ``camera_to_base``.
_KEYS = ("camera_matrix", "width", "height", "camera_to_base", "camera_height", "camera_x_offset", "pitch_deg")
_TRANSFORM_KEYS = ("translation", "rotation")


def _refuse_unknown(cfg: dict[str, Any], valid: tuple[str, ...], src: str, where: str = "") -> None:
    from socialbench.files.config_keys import unknown_key_problems

    problems = unknown_key_problems(cfg, valid, src, "a calibration", where=where)
    if problems:
        raise DataError(problems[0])


def _num(cfg: dict[str, Any], key: str, src: str, default: float | None = None) -> float:
    v = cfg.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)):
        raise DataError.single(src, key, f"missing or not a number: {v!r}", f"give {key} as a number")
    return float(v)


def read_calibration(path: Path) -> CameraModel:
    """Read a calibration YAML (module docstring)."""
    import yaml

    from socialbench.files.yaml_read import load_yaml

    src = str(path)
    if file_kind(path) == "missing":
        raise DataError.single(src, "", "calibration file not found", "give the camera calibration YAML")
    try:
        cfg = load_yaml(read_regular_bytes(path).decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise DataError.single(src, "", f"not valid YAML ({str(exc).splitlines()[0]})", "fix the YAML") from None
    if not isinstance(cfg, dict):
        raise DataError.single(src, "", "expected a mapping", "see docs/recording.md for the calibration format")
    _refuse_unknown(cfg, _KEYS, src)
    if cfg.get("camera_matrix") is None:
        raise DataError.single(
            src, "camera_matrix", "calibration without intrinsics", "add camera_matrix: {fx, fy, cx, cy} (pixels)"
        )
    k = _intrinsics(cfg["camera_matrix"], src)
    w, h = int(_num(cfg, "width", src)), int(_num(cfg, "height", src))
    ext = cfg.get("camera_to_base")
    if ext is not None:
        if not isinstance(ext, dict) or "translation" not in ext:
            raise DataError.single(
                src, "camera_to_base", "needs translation [x, y, z]", "give translation (and rotation)"
            )
        _refuse_unknown(ext, _TRANSFORM_KEYS, src, "camera_to_base.")
        try:
            t = np.asarray(ext["translation"], dtype=float).reshape(3)
            rot = (
                quaternion_matrix(*(float(v) for v in ext["rotation"]))
                if ext.get("rotation") is not None
                else np.array(LEVEL_OPTICAL)
            )
        except (TypeError, ValueError) as exc:
            raise DataError.single(
                src, "camera_to_base", f"bad transform ({exc})", "translation [x,y,z], rotation [x,y,z,w]"
            ) from None
        return CameraModel(k["fx"], k["fy"], k["cx"], k["cy"], w, h, rot, t)
    pin = PinholeCamera(
        fx=k["fx"],
        fy=k["fy"],
        cx=k["cx"],
        cy=k["cy"],
        width=w,
        height=h,
        camera_height=_num(cfg, "camera_height", src),
        x_offset=_num(cfg, "camera_x_offset", src, 0.0),
        pitch=math.radians(_num(cfg, "pitch_deg", src, 0.0)),
    )
    return CameraModel.level(pin)
