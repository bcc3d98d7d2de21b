"""Front view, BEV and composite rendering: content, sizes, determinism, golden hashes."""

import hashlib
import json
import pickle

import matplotlib
import numpy as np
import PIL
import pytest
from PIL import Image, features

from socialbench.errors import DataError, UsageError
from socialbench.navigation.frames import Scene, load_scene
from socialbench.navigation.render import (
    BevLimits,
    BevPerson,
    BevStyle,
    FrontStyle,
    bev_limits,
    bev_people,
    compose,
    label_colors,
    render_bev,
    render_front_view,
    render_sample,
    render_scene,
    to_png_bytes,
)
from socialbench.navigation.tracks import RobotPath, make_track


def _golden_front() -> Image.Image:
    frame = Image.new("RGB", (160, 90), (60, 70, 80))
    return render_front_view(frame, {1: (40.0, 45.0), 12: (110.0, 40.0)}, n_labels=12,
                             style=FrontStyle(circle_radius=15, font_size=20))


def _golden_bev() -> Image.Image:
    people = {1: BevPerson(3.0, 1.0, 0.5), 2: BevPerson(6.0, -2.0, None)}
    return render_bev(people, (0.5, 0.0, 0.1), (9.0, 1.5), BevLimits(), n_labels=2, style=BevStyle(dpi=30))


def _sha(img: Image.Image) -> str:
    return hashlib.sha256(img.tobytes()).hexdigest()


# Pixel hashes (sha256 of Image.tobytes()) of _golden_front() and _golden_bev(), valid for
# the library versions below (glyph rasterisation and Agg output change across versions).
# To regenerate after an intended change or an upgrade, run in the repo root:
#   .venv/bin/python -c "import sys; sys.path.insert(0, 'tests/navigation'); import test_render as t; \
#       print(t._sha(t._golden_front()), t._sha(t._golden_bev()))"
# and update the hashes and GOLDEN_VERSIONS.
GOLDEN_VERSIONS = ("3.11.2", "13.0.0", "2.14.3")  # matplotlib, Pillow, FreeType (Pillow's)
GOLDEN_FRONT = "a684ca68e81747aefbf4f5cd018c048f2ff4c2807540ee6324890d25c1517d35"
GOLDEN_BEV = "8cfefc53c90b7d68b13400eff77dde490c6b3d93f4efe6d939e8cfa7a1a8e6b8"

_versions = (matplotlib.__version__, PIL.__version__, features.version("freetype2"))
golden = pytest.mark.skipif(_versions != GOLDEN_VERSIONS,
                            reason=f"golden hashes recorded for {GOLDEN_VERSIONS}, running {_versions}")


@golden
def test_golden_front_view_hash():
    assert _sha(_golden_front()) == GOLDEN_FRONT


@golden
def test_golden_bev_hash():
    assert _sha(_golden_bev()) == GOLDEN_BEV


def test_rendering_twice_gives_identical_png_bytes():
    assert to_png_bytes(_golden_bev()) == to_png_bytes(_golden_bev())
    assert to_png_bytes(_golden_front()) == to_png_bytes(_golden_front())


def test_label_colours_are_brg_over_labels():
    colors = label_colors(3)
    assert colors[0] == (0, 0, 255)  # brg(0) is blue
    r, g, b = colors[1]  # brg(0.5) is red
    assert r >= 250 and g <= 2 and b <= 2
    assert colors[2] == (0, 255, 0)  # brg(1) is green


def test_front_view_draws_filled_circle_in_label_colour():
    frame = Image.new("RGB", (200, 100), (0, 0, 0))
    out = render_front_view(frame, {1: (50.0, 50.0), 2: (150.0, 50.0)}, n_labels=2)
    assert out.getpixel((50, 50 + 26)) == (0, 0, 255)  # inside circle 1, below the digit
    assert out.getpixel((150, 50 + 26)) == (0, 255, 0)
    assert out.getpixel((100, 50)) == (0, 0, 0)  # between the circles
    white = np.asarray(out)[35:65, 35:65].min(axis=2) > 200
    assert white.any()  # the number is drawn in white
    assert frame.getpixel((50, 50)) == (0, 0, 0)  # input untouched


def test_bev_orientation_forward_up_left_on_left():
    people = {1: BevPerson(9.0, 4.0)}  # far ahead, to the left
    img = np.asarray(render_bev(people, None, None, BevLimits(), 1, BevStyle(dpi=40)))
    blue = (img[:, :, 2] > 200) & (img[:, :, 0] < 60) & (img[:, :, 1] < 60)
    rows, cols = np.nonzero(blue)
    assert rows.mean() < img.shape[0] / 2  # upper half
    assert cols.mean() < img.shape[1] / 2  # left half


def test_bev_limits_grow_to_tracks_robot_and_goal():
    people = {1: make_track("a", [[12.0, -6.0], [13.0, -6.5]])}
    robot = RobotPath(np.array([-1.0, 0.0]), np.zeros(2), np.zeros(2))
    lim = bev_limits(people, robot, (4.0, 7.0))
    assert (lim.x_min, lim.x_max, lim.y_min, lim.y_max) == (-1.5, 13.5, -7.0, 7.5)
    assert bev_limits({}, None, None) == BevLimits()


def test_bev_people_draw_arrow_only_when_moving():
    people = {1: make_track("m", [[3.0, 0.0], [3.5, 0.0]]), 2: make_track("s", [[4.0, 1.0], [4.05, 1.0]])}
    bp = bev_people(people, 1)
    assert bp[1].heading == pytest.approx(0.0)
    assert bp[2].heading is None  # pos_diff 0.05 <= 0.075


def test_compose_stacks_bev_resized_to_frame_width():
    out = compose(Image.new("RGB", (1280, 720), (1, 2, 3)), Image.new("RGB", (2100, 2100), (9, 9, 9)))
    assert out.size == (1280, 2000)
    assert out.getpixel((5, 5)) == (1, 2, 3)
    assert out.getpixel((5, 1500)) == (9, 9, 9)


# --------------------------------------------------------------------------- whole samples


def _write_sample(tmp_path, n_frames=10, w=320, h=180):
    sid = "1_Spot_1_20"
    fv = tmp_path / "front_view" / sid
    pr = tmp_path / "prompts" / sid
    fv.mkdir(parents=True)
    pr.mkdir(parents=True)
    frames = []
    for t in range(n_frames):
        p = fv / f"{20 + t}.jpg"
        Image.new("RGB", (w, h), (40 + t, 80, 120)).save(p, quality=90)
        frames.append(str(p))
    tracks = {"track_id_to_object_trajectory": {
        "4": [{"center_x": 5.0 - 0.2 * t, "center_y": 1.0, "yaw": 0, "timestep": t,
               "bbox": [240, 160, 400, 640], "pos_diff": 0.2} for t in range(n_frames)],
        "8": [{"center_x": 6.0, "center_y": -2.0, "yaw": 0, "timestep": t,
               "bbox": [1000, 200, 1120, 600], "pos_diff": 0.0} for t in range(n_frames)],
    }}
    tp = pr / f"{sid}_localized_obj_coords.json"
    tp.write_text(json.dumps(tracks))
    op = fv / "traj_data.pkl"
    with op.open("wb") as f:  # test fixture: plain pickle.dump of numpy arrays
        pickle.dump({"position": np.stack([np.arange(40) * 0.2, np.zeros(40)], axis=1), "yaw": np.zeros(40)}, f)
    return {"n_people": 2, "sample_dir": str(pr), "tracks_path": str(tp), "odometry_path": str(op),
            "frames": frames, "first_frame": 20, "composites": [], "goal_xy": [10.0, 0.5]}


def test_render_sample_modes_and_sizes(tmp_path):
    meta = _write_sample(tmp_path)
    comp = render_sample(meta, "img-with-bev")
    assert len(comp) == 10 and comp[0].size == (320, 180 + 320)
    img = render_sample(meta, "img")
    assert img[0].size == (320, 180)
    # bboxes are in 1280x720 pixels: centre (320, 400) -> (80, 100), radius 30 -> 8
    assert img[0].getpixel((80, 100 + 6)) == (0, 0, 255)  # person 1 (leftmost bbox) is blue
    assert img[0].getpixel((80, 100 + 11)) != (0, 0, 255)  # outside the scaled circle
    bev = render_sample(meta, "bev", bev_dpi=20)
    assert bev[0].size == (140, 140)


def test_render_sample_is_deterministic(tmp_path):
    meta = _write_sample(tmp_path)
    a = [to_png_bytes(i) for i in render_sample(meta, "img-with-bev")]
    b = [to_png_bytes(i) for i in render_sample(meta, "img-with-bev")]
    assert a == b
    assert len(set(a)) > 1  # the timesteps differ


def test_official_offset_moves_the_robot_in_the_bev(tmp_path):
    meta = _write_sample(tmp_path)
    ours = render_sample(meta, "bev", bev_dpi=20)
    official = render_sample(meta, "bev", official_offset=True, bev_dpi=20)
    assert ours[0].tobytes() != official[0].tobytes()
    assert load_scene(meta).robot.x[0] == 0.0
    assert load_scene(meta, official_offset=True).robot.x[0] == pytest.approx(0.2)  # one frame ahead


def test_render_scene_accepts_in_memory_frames():
    people = {1: make_track("a", [[4.0, 0.0]] * 3, bboxes=[(10, 10, 30, 50)] * 3)}
    scene = Scene(people, RobotPath(np.zeros(3), np.zeros(3), np.zeros(3)), None)
    frames = [Image.new("RGB", (140, 80))] * 3
    out = render_scene(scene, "img-with-bev", frames=frames)
    assert [im.size for im in out] == [(140, 220)] * 3


def test_unknown_mode_and_missing_frames_are_reported(tmp_path):
    meta = _write_sample(tmp_path)
    with pytest.raises(UsageError, match="img-with-bev"):
        render_sample(meta, "grid")
    meta["frames"] = []
    with pytest.raises(DataError, match="frames"):
        render_sample(meta, "img")
