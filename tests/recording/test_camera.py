"""The calibrated camera: a person's feet projected into the image lift back to where they stand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from socialbench.errors import DataError
from socialbench.navigation.projection import PinholeCamera
from socialbench.recording.calibration import read_calibration
from socialbench.recording.camera import CameraModel, matrix_quaternion, quaternion_matrix


@pytest.mark.parametrize("pitch", [0.0, math.radians(8)])
def test_lifting_inverts_the_projection(pitch):
    pin = PinholeCamera(camera_height=0.9, x_offset=0.3, pitch=pitch)
    feet = np.array([[3.0, 1.0, 0.0], [7.5, -2.0, 0.0], [12.0, 0.5, 0.0]])
    uv, _ = pin.project(feet)
    assert np.allclose(CameraModel.level(pin).lift(uv), feet[:, :2], atol=1e-6)


def test_a_pixel_above_the_horizon_does_not_lift():
    cam = CameraModel.level(PinholeCamera())
    assert np.isnan(cam.lift([[640.0, 100.0]])).all()


def test_quaternions_round_trip():
    r = quaternion_matrix(*matrix_quaternion(CameraModel.level(PinholeCamera(pitch=0.2)).rotation))
    assert np.allclose(r, CameraModel.level(PinholeCamera(pitch=0.2)).rotation)


def test_calibration_yaml_with_a_static_transform(tmp_path):
    p = tmp_path / "cal.yaml"
    p.write_text(
        "camera_matrix: {fx: 300, fy: 300, cx: 320, cy: 180}\nwidth: 640\nheight: 360\n"
        "camera_to_base: {translation: [0.2, 0, 0.7], rotation: [-0.5, 0.5, -0.5, 0.5]}\n"
    )
    cam = read_calibration(p)
    assert np.allclose(cam.rotation, CameraModel.level(PinholeCamera()).rotation)
    assert cam.pinhole().camera_height == pytest.approx(0.7) and cam.pinhole().x_offset == pytest.approx(0.2)


def test_calibration_without_intrinsics_is_refused(tmp_path):
    p = tmp_path / "cal.yaml"
    p.write_text("width: 640\nheight: 360\ncamera_height: 0.6\n")
    with pytest.raises(DataError) as e:
        read_calibration(p)
    assert str(e.value) == (
        f"{p} [camera_matrix]: calibration without intrinsics (fix: add camera_matrix: {{fx, fy, cx, cy}} (pixels))"
    )


def test_a_mistyped_calibration_key_is_refused_with_the_nearest_key(tmp_path):
    p = tmp_path / "cal.yaml"  # pitch_degs would silently leave the camera level
    p.write_text("camera_matrix: {fx: 300, fy: 300, cx: 320, cy: 180}\nwidth: 640\nheight: 360\n"
                 "camera_height: 0.6\npitch_degs: 10\n")  # fmt: skip
    with pytest.raises(DataError, match=r"\[pitch_degs\]: unknown key .*did you mean pitch_deg\?"):
        read_calibration(p)


def test_a_mistyped_transform_key_is_refused(tmp_path):
    p = tmp_path / "cal.yaml"
    p.write_text("camera_matrix: {fx: 300, fy: 300, cx: 320, cy: 180}\nwidth: 640\nheight: 360\n"
                 "camera_to_base: {translation: [0.2, 0, 0.7], rotaton: [0, 0, 0, 1]}\n")  # fmt: skip
    with pytest.raises(DataError, match=r"\[camera_to_base.rotaton\]: unknown key .*did you mean rotation\?"):
        read_calibration(p)
