"""Pinhole projection between the robot frame and the front view."""

import math

import numpy as np
import pytest
import yaml

from socialbench.errors import DataError
from socialbench.navigation.projection import PinholeCamera


def _points(n=40, seed=0):
    rng = np.random.default_rng(seed)
    return np.stack([rng.uniform(1, 20, n), rng.uniform(-5, 5, n), rng.uniform(0, 2, n)], axis=1)


def test_pitched_offset_camera_sees_its_optical_axis_at_the_principal_point():
    cam = PinholeCamera(camera_height=1.1, x_offset=0.3, pitch=math.radians(12))
    d = 7.0
    uv, depth = cam.project([[0.3 + d * math.cos(math.radians(12)), 0.0, 1.1 - d * math.sin(math.radians(12))]])
    assert uv[0] == pytest.approx([640.0, 360.0])
    assert depth[0] == pytest.approx(d)


def test_point_on_optical_axis_hits_principal_point():
    cam = PinholeCamera(camera_height=0.6)
    uv, depth = cam.project([[5.0, 0.0, 0.6]])
    assert uv[0] == pytest.approx([640.0, 360.0])
    assert depth[0] == pytest.approx(5.0)


def test_axis_conventions_left_is_left_and_up_is_up():
    cam = PinholeCamera()
    uv, _ = cam.project([[5.0, 1.0, cam.camera_height], [5.0, 0.0, cam.camera_height + 1.0]])
    assert uv[0, 0] < cam.cx  # a point to the robot's left appears left of centre
    assert uv[1, 1] < cam.cy  # a point above the camera appears above centre
    assert uv[0, 0] == pytest.approx(cam.cx - cam.fx * 1.0 / 5.0)


def test_visibility():
    cam = PinholeCamera()
    pts = [[5.0, 0.0, 0.5], [-2.0, 0.0, 0.5], [1.0, 5.0, 0.5], [0.05, 0.0, 0.6]]
    assert cam.visible(pts).tolist() == [True, False, False, False]


def test_person_bbox_contains_projected_centre_and_shrinks_with_distance():
    cam = PinholeCamera()
    near, far = cam.person_bbox(3.0, 0.5), cam.person_bbox(9.0, 0.5)
    assert near is not None and far is not None
    uv, _ = cam.project([[3.0, 0.5, 0.85]])
    u, v = uv[0]
    assert near[0] < u < near[2] and near[1] < v < near[3]
    assert (far[3] - far[1]) < (near[3] - near[1])
    assert cam.person_bbox(-1.0, 0.0) is None


def test_from_dataset_cfg_accepts_mapping_and_matrix_forms(tmp_path):
    cfg = tmp_path / "dataset_cfg.yaml"
    cfg.write_text(
        "dataset_name: scand_spot\ncamera_matrix:\n  fx: 500\n  fy: 510\n  cx: 320\n  cy: 240\n"
        "native_resolution_x: 640\nnative_resolution_y: 480\ncamera_height: 0.9\n"
    )
    cam = PinholeCamera.from_dataset_cfg(cfg)
    assert (cam.fx, cam.fy, cam.cx, cam.cy, cam.width, cam.height, cam.camera_height) == (
        500,
        510,
        320,
        240,
        640,
        480,
        0.9,
    )
    m = PinholeCamera.from_dataset_cfg({"camera_matrix": [[600, 0, 100], [0, 601, 50], [0, 0, 1]]})
    assert (m.fx, m.fy, m.cx, m.cy) == (600, 601, 100, 50)
    with pytest.raises(DataError, match="camera_matrix"):
        PinholeCamera.from_dataset_cfg({"camera_matrix": "wide"})


def test_release_dataset_cfg_gives_the_default_camera():
    from socialbench.navigation.projection import SCAND_DATASET_CFG

    assert PinholeCamera.from_dataset_cfg(yaml.safe_load(SCAND_DATASET_CFG)) == PinholeCamera()
