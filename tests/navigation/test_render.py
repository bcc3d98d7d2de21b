"""Front view, BEV and composite rendering: content at the right places, sizes, determinism."""

import json
import pickle
from collections.abc import Callable

import numpy as np
import pytest
from PIL import Image

from socialbench.errors import DataError, UsageError
from socialbench.navigation.bev import BevLimits, BevPerson, BevRenderer, BevStyle, bev_limits, bev_people
from socialbench.navigation.colors import label_colors
from socialbench.navigation.frames import Scene, load_scene
from socialbench.navigation.render import (
    FrontStyle,
    compose,
    render_front_view,
    render_sample,
    render_scene,
    to_png_bytes,
)
from socialbench.navigation.tracks import RobotPath, make_track

FRONT_MARKERS = {1: (40.0, 45.0), 12: (110.0, 40.0)}  # label 1 is blue, label 12 (of 12) green
FRONT_STYLE = FrontStyle(circle_radius=15, font_size=20)
FRONT_BACKGROUND = (60, 70, 80)
BEV_PEOPLE = {1: BevPerson(3.0, 1.0, 0.5), 2: BevPerson(6.0, -2.0, None)}  # 1 walks (arrow), 2 stands
BEV_ROBOT = (0.5, 0.0, 0.1)
BEV_GOAL = (9.0, 1.5)
BEV_STYLE = BevStyle(dpi=100)
BLUE, GREEN, BLACK, WHITE = (0, 0, 255), (0, 255, 0), (0, 0, 0), (255, 255, 255)


def _example_front() -> Image.Image:
    frame = Image.new("RGB", (160, 90), FRONT_BACKGROUND)
    return render_front_view(frame, FRONT_MARKERS, n_labels=12, style=FRONT_STYLE)


def _example_bev() -> Image.Image:
    return BevRenderer(BevLimits(), BEV_GOAL, 2, BevStyle(dpi=30)).render(BEV_PEOPLE, BEV_ROBOT)


def _near(pixels: np.ndarray, colour: tuple[int, int, int], tol: int = 60) -> np.ndarray:
    """Mask of the pixels within ``tol`` of ``colour`` in every channel."""
    return np.abs(pixels.astype(int) - np.array(colour)).max(axis=-1) <= tol


def _disk(shape: tuple[int, ...], centre: tuple[float, float], r0: float, r1: float | None = None) -> np.ndarray:
    """Mask of the pixels within ``r0`` of ``centre`` (col, row), or between ``r0`` and ``r1``."""
    rows, cols = np.mgrid[0 : shape[0], 0 : shape[1]]
    d = np.hypot(cols - centre[0], rows - centre[1])
    return d <= r0 if r1 is None else (d >= r0) & (d <= r1)


# The pixels themselves change with matplotlib / Pillow / FreeType versions (glyph
# rasterisation, anti-aliasing), so these tests check what the prompt images must show: each
# marker at its projected position in its label's colour, a white number on it, arrows only
# for moving people, the robot and the goal; not a hash of the pixels.


def test_front_view_keeps_the_frame_size_and_background():
    out = _example_front()
    assert out.size == (160, 90)
    assert out.getpixel((5, 5)) == FRONT_BACKGROUND
    assert out.getpixel((75, 85)) == FRONT_BACKGROUND  # between and below the markers


def test_front_view_fills_a_circle_in_the_label_colour_at_each_position():
    px = np.asarray(_example_front())
    r = FRONT_STYLE.circle_radius
    for label, colour in ((1, BLUE), (12, GREEN)):
        u, v = FRONT_MARKERS[label]
        assert tuple(px[round(v - r + 2), round(u)]) == colour  # above the number
        assert tuple(px[round(v + r - 2), round(u)]) == colour  # below it
        assert (px[_disk(px.shape, (u, v), r - 4, r - 1)] == colour).all(axis=-1).mean() > 0.8, label
        for du, dv in ((0, -(r + 2)), (0, r + 2), (-(r + 2), 0), (r + 2, 0)):
            assert tuple(px[round(v + dv), round(u + du)]) == FRONT_BACKGROUND, (label, du, dv)


def test_front_view_writes_each_number_in_white_centred_on_its_circle():
    px = np.asarray(_example_front())
    widths = {}
    for label in FRONT_MARKERS:
        u, v = FRONT_MARKERS[label]
        white = _near(px, WHITE, 40) & _disk(px.shape, (u, v), FRONT_STYLE.circle_radius)
        rows, cols = np.nonzero(white)
        assert len(rows) > 10, label
        assert abs(cols.mean() - u) <= 3 and abs(rows.mean() - v) <= 3, label
        widths[label] = cols.max() - cols.min()
    assert widths[12] > 1.5 * widths[1]  # two digits are wider than one
    r = FRONT_STYLE.circle_radius + 1
    assert not _near(px, WHITE, 40)[
        ~_disk(px.shape, FRONT_MARKERS[1], r) & ~_disk(px.shape, FRONT_MARKERS[12], r)
    ].any()


def _bev_and_projection() -> tuple[np.ndarray, Callable[[float, float], tuple[float, float]]]:
    """The example BEV at 100 dpi and its projection of (x forward, y left) metres to
    (col, row) pixels, read from the renderer's own axes (``BevRenderer.to_pixel``)."""
    renderer = BevRenderer(BevLimits(), BEV_GOAL, 2, BEV_STYLE)
    return np.asarray(renderer.render(BEV_PEOPLE, BEV_ROBOT)), renderer.to_pixel


def _marker_radius_px() -> float:
    return BEV_STYLE.markersize / 2 * BEV_STYLE.dpi / 72


def test_bev_is_size_in_times_dpi_pixels_square():
    assert _example_bev().size == (210, 210)
    px, _ = _bev_and_projection()
    assert px.shape[:2] == (700, 700)


def test_bev_draws_each_person_at_their_position_in_their_label_colour():
    px, project = _bev_and_projection()
    for label, colour in ((1, BLUE), (2, GREEN)):
        p = BEV_PEOPLE[label]
        inside = _disk(px.shape, project(p.x, p.y), 0.8 * _marker_radius_px())
        assert _near(px, colour)[inside].mean() > 0.5, label
    # each colour is drawn at its own person only
    walker, stander = BEV_PEOPLE[1], BEV_PEOPLE[2]
    far_from_1 = ~_disk(px.shape, project(walker.x, walker.y), 3 * _marker_radius_px())  # beyond its arrow
    far_from_2 = ~_disk(px.shape, project(stander.x, stander.y), 2 * _marker_radius_px())
    assert not _near(px, BLUE, 30)[far_from_1].any()
    assert not _near(px, GREEN, 30)[far_from_2].any()


def test_bev_writes_each_number_in_white_on_its_marker():
    px, project = _bev_and_projection()
    masks = {}
    for label, p in BEV_PEOPLE.items():
        centre = project(p.x, p.y)
        white = _near(px, WHITE, 40) & _disk(px.shape, centre, 0.8 * _marker_radius_px())
        rows, cols = np.nonzero(white)
        assert white.sum() > 20, label
        assert abs(cols.mean() - centre[0]) <= 4 and abs(rows.mean() - centre[1]) <= 4, label
        masks[label] = (rows - round(centre[1]), cols - round(centre[0]))
    shape_1 = set(zip(*masks[1]))
    shape_2 = set(zip(*masks[2]))
    assert len(shape_1 ^ shape_2) > 0.3 * len(shape_1 | shape_2)  # "1" and "2" are different glyphs


def test_bev_draws_a_heading_arrow_only_for_a_moving_person():
    px, project = _bev_and_projection()
    r = _marker_radius_px()
    walker = BEV_PEOPLE[1]
    centre = project(walker.x, walker.y)
    length = BEV_STYLE.arrow_length
    tip = project(walker.x + length * np.cos(walker.heading), walker.y + length * np.sin(walker.heading))
    ring = _disk(px.shape, centre, r + 3, r + 30)
    rows, cols = np.nonzero(_near(px, BLUE) & ring)
    assert len(rows) > 10
    seen = np.arctan2(rows.mean() - centre[1], cols.mean() - centre[0])
    expected = np.arctan2(tip[1] - centre[1], tip[0] - centre[0])
    assert abs((seen - expected + np.pi) % (2 * np.pi) - np.pi) < np.radians(20)
    stander = BEV_PEOPLE[2]
    assert not _near(px, GREEN)[_disk(px.shape, project(stander.x, stander.y), r + 3, r + 30)].any()


def test_bev_draws_robot_and_goal_as_black_markers():
    px, project = _bev_and_projection()
    for x, y in (BEV_ROBOT[:2], BEV_GOAL):
        inside = _disk(px.shape, project(x, y), 0.8 * _marker_radius_px())
        assert _near(px, BLACK)[inside].mean() > 0.5, (x, y)
        assert _near(px, WHITE, 40)[inside].sum() > 20, (x, y)  # its letter


def test_rendering_twice_gives_identical_png_bytes():
    assert to_png_bytes(_example_bev()) == to_png_bytes(_example_bev())
    assert to_png_bytes(_example_front()) == to_png_bytes(_example_front())


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
    img = np.asarray(BevRenderer(BevLimits(), None, 1, BevStyle(dpi=40)).render(people, None))
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
    tracks = {
        "track_id_to_object_trajectory": {
            "4": [
                {
                    "center_x": 5.0 - 0.2 * t,
                    "center_y": 1.0,
                    "yaw": 0,
                    "timestep": t,
                    "bbox": [240, 160, 400, 640],
                    "pos_diff": 0.2,
                }
                for t in range(n_frames)
            ],
            "8": [
                {
                    "center_x": 6.0,
                    "center_y": -2.0,
                    "yaw": 0,
                    "timestep": t,
                    "bbox": [1000, 200, 1120, 600],
                    "pos_diff": 0.0,
                }
                for t in range(n_frames)
            ],
        }
    }
    tp = pr / f"{sid}_localized_obj_coords.json"
    tp.write_text(json.dumps(tracks))
    op = fv / "traj_data.pkl"
    with op.open("wb") as f:  # test fixture: plain pickle.dump of numpy arrays
        pickle.dump({"position": np.stack([np.arange(40) * 0.2, np.zeros(40)], axis=1), "yaw": np.zeros(40)}, f)
    return {
        "n_people": 2,
        "sample_dir": str(pr),
        "tracks_path": str(tp),
        "odometry_path": str(op),
        "frames": frames,
        "first_frame": 20,
        "composites": [],
        "goal_xy": [10.0, 0.5],
    }


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
