"""The mirrored scene (``--perturb mirror``): its geometry, and renders whose text reads
normally (a pixel flip of the render would mirror the numbers and the axis text)."""

import numpy as np
from PIL import Image

from socialbench.navigation.bev import BevRenderer, BevStyle, bev_limits
from socialbench.navigation.colors import label_color, label_colors
from socialbench.navigation.frames import Scene
from socialbench.navigation.mirror import mirror_bbox, mirror_scene
from socialbench.navigation.render import render_scene
from socialbench.navigation.tracks import RobotPath, make_track

LABEL = 7  # an asymmetric glyph: its mirror image differs from it
LEFT = (4.0, 2.5)  # metres forward, left of the robot
BBOX = (250.0, 300.0, 350.0, 500.0)  # left part of a 1280-px frame: centre u = 300
STYLE = BevStyle(dpi=100)
FRAME_SIZE, FRAME_COLOUR = (640, 360), (60, 70, 80)


def scene_with_one_person() -> Scene:
    """One person standing left of a robot that stands at the origin facing forward."""
    person = make_track("a", [LEFT] * 10, bboxes=[BBOX] * 10)
    return Scene({LABEL: person}, RobotPath.stationary(10), None, n_people=LABEL)


def turning_scene() -> Scene:
    person = make_track("a", [(3.0, 1.0), (3.5, 1.5)], bboxes=[(100.0, 50.0, 200.0, 300.0), None])
    robot = RobotPath(np.array([0.0, 0.5]), np.array([0.0, 0.2]), np.array([0.0, 0.3]), np.array([0.1, 0.4]))
    return Scene({2: person}, robot, (8.0, 1.5), n_people=2)


def bev(scene: Scene, mirror: bool) -> np.ndarray:
    return np.asarray(render_scene(scene, "bev", bev_style=STYLE, mirror=mirror)[0], dtype=int)


def front(scene: Scene, mirror: bool) -> np.ndarray:
    frames = [Image.new("RGB", FRAME_SIZE, FRAME_COLOUR) for _ in range(10)]
    return np.asarray(render_scene(scene, "img", frames=frames, mirror=mirror)[0], dtype=int)


def pixel_of(scene: Scene, x: float, y: float) -> tuple[float, float]:
    """(column, row) of the point (x forward, y left) in the scene's BEV."""
    limits = bev_limits(scene.people, scene.robot, scene.goal_xy)
    return BevRenderer(limits, None, LABEL, STYLE).to_pixel(x, y)


def disk(shape: tuple[int, ...], centre: tuple[float, float], radius: float) -> np.ndarray:
    rows, cols = np.mgrid[0 : shape[0], 0 : shape[1]]
    return np.hypot(cols - centre[0], rows - centre[1]) <= radius


def crop(img: np.ndarray, centre: tuple[float, float], half: int) -> np.ndarray:
    c, r = round(centre[0]), round(centre[1])
    return img[r - half : r + half + 1, c - half : c + half + 1]


def near(img: np.ndarray, colour: tuple[int, int, int], tol: int = 40) -> np.ndarray:
    return np.abs(img - np.array(colour)).max(axis=-1) <= tol


# --------------------------------------------------------------------------- geometry


def test_mirror_negates_every_lateral_coordinate():
    scene, m = turning_scene(), mirror_scene(turning_scene(), 1280)
    assert [o.y for o in m.people[2].observations] == [-1.0, -1.5]
    assert [o.x for o in m.people[2].observations] == [3.0, 3.5]
    assert m.robot.y.tolist() == [-0.0, -0.2] and m.robot.x.tolist() == scene.robot.x.tolist()
    assert m.robot.yaw.tolist() == [-0.0, -0.3] and m.robot.heading.tolist() == [-0.1, -0.4]
    assert m.goal_xy == (8.0, -1.5)


def test_mirror_flips_boxes_within_the_image_width_and_keeps_numbers_and_distances():
    scene, m = turning_scene(), mirror_scene(turning_scene(), 1280)
    assert mirror_bbox((100.0, 50.0, 200.0, 300.0), 1280) == (1080.0, 50.0, 1180.0, 300.0)
    assert m.people[2].observations[0].bbox == (1080.0, 50.0, 1180.0, 300.0)
    assert m.people[2].observations[1].bbox is None
    assert list(m.people) == [2]
    assert [o.pos_diff for o in m.people[2].observations] == [o.pos_diff for o in scene.people[2].observations]


def test_mirroring_twice_gives_the_scene_back():
    scene = turning_scene()
    twice = mirror_scene(mirror_scene(scene, 1280), 1280)
    assert twice.people[2].observations == scene.people[2].observations
    assert twice.robot.y.tolist() == scene.robot.y.tolist() and twice.goal_xy == scene.goal_xy


def test_a_person_left_of_the_robot_is_drawn_right_of_it_in_the_mirrored_bev():
    scene = scene_with_one_person()
    colour = label_color(label_colors(LABEL), LABEL)
    robot_col = pixel_of(scene, 0.0, 0.0)[0]
    plain, mirrored = (near(bev(scene, m), colour) for m in (False, True))
    assert np.nonzero(plain)[1].mean() < robot_col < np.nonzero(mirrored)[1].mean()


def test_a_person_on_the_left_of_the_frame_is_drawn_on_the_right_of_the_mirrored_frame():
    scene = scene_with_one_person()
    colour = label_color(label_colors(LABEL), LABEL)
    plain, mirrored = (near(front(scene, m), colour) for m in (False, True))
    middle = FRAME_SIZE[0] / 2
    assert np.nonzero(plain)[1].mean() < middle < np.nonzero(mirrored)[1].mean()


# --------------------------------------------------------------------------- text reads normally


def test_the_mirrored_bev_keeps_its_axis_captions_and_tick_numbers_unflipped():
    """Everything but the person's marker (axes, captions, tick numbers, the robot's "R")
    is pixel for pixel the unmirrored render's: a flipped render fails here."""
    scene = scene_with_one_person()
    plain, mirrored = bev(scene, False), bev(scene, True)
    markers = disk(plain.shape, pixel_of(scene, *LEFT), 20) | disk(plain.shape, pixel_of(scene, LEFT[0], -LEFT[1]), 20)
    assert np.array_equal(mirrored[~markers], plain[~markers])
    assert not np.array_equal(mirrored[~markers], plain[:, ::-1][~markers])


def test_the_mirrored_bev_draws_the_person_number_unflipped():
    scene = scene_with_one_person()
    plain = crop(bev(scene, False), pixel_of(scene, *LEFT), 10)
    mirrored = crop(bev(scene, True), pixel_of(scene, LEFT[0], -LEFT[1]), 10)
    as_drawn, flipped = np.abs(mirrored - plain).mean(), np.abs(mirrored - plain[:, ::-1]).mean()
    assert as_drawn < flipped / 3  # sub-pixel placement differs; the glyph's orientation must not


def test_the_mirrored_front_view_draws_the_person_number_unflipped():
    scene = scene_with_one_person()
    u = (BBOX[0] + BBOX[2]) / 2 * FRAME_SIZE[0] / 1280
    v = (BBOX[1] + BBOX[3]) / 2 * FRAME_SIZE[1] / 720
    plain = crop(front(scene, False), (u, v), 12)
    mirrored = crop(front(scene, True), (FRAME_SIZE[0] - u, v), 12)
    assert np.array_equal(mirrored, plain) and not np.array_equal(mirrored, plain[:, ::-1])


def test_the_mirrored_front_view_flips_the_camera_frame():
    scene = scene_with_one_person()
    frame = Image.new("RGB", FRAME_SIZE, FRAME_COLOUR)
    frame.paste((255, 255, 0), (0, 0, 40, 40))  # a yellow patch in the top-left corner
    mirrored = np.asarray(render_scene(scene, "img", frames=[frame] * 10, mirror=True)[0], dtype=int)
    assert near(mirrored[:40, -40:], (255, 255, 0), 0).all() and not near(mirrored[:40, :40], (255, 255, 0)).any()
