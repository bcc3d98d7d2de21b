"""Front-view renderer of simulated scenes: geometry, depth order, occlusion, determinism."""

import numpy as np
import pytest

from socialbench.navigation.projection import PinholeCamera
from socialbench.navigation.scene3d import FrontViewRenderer
from socialbench.navigation.scene3d_geometry import clip_to_rect, person_boxes, scaled_camera
from socialbench.navigation.scene3d_types import PALETTES, Appearance, PersonView

RED = Appearance(shirt=(220, 30, 30), trousers=(20, 20, 20))
BLUE = Appearance(shirt=(30, 30, 220), trousers=(20, 20, 20))
ORIGIN = (0.0, 0.0, 0.0)


def _torso(box):
    x1, y1, x2, y2 = box
    return ((x1 + x2) / 2.0, y1 + 0.3 * (y2 - y1))


def _near(pixel, colour, tol=30):
    return all(abs(int(a) - b) <= tol for a, b in zip(pixel, colour))


def _golden() -> bytes:
    r = FrontViewRenderer(size=(160, 90), scene_type="corridor", walls=(2.0, -2.0), goal_xy=(8.0, 0.5))
    people = [PersonView(4.0, 0.5, RED, phase=1.0), PersonView(6.0, -1.0, BLUE, walking=False)]
    return r.render((0.3, 0.1, 0.05), people).tobytes()


def test_vectorised_boxes_match_the_camera_person_bbox():
    cam = PinholeCamera()
    rel = np.array([[4.0, 0.5], [7.5, -2.0], [2.0, 1.0]])
    boxes = person_boxes(cam, rel, [1.7, 1.6, 1.9], [0.5, 0.45, 0.55])
    for (x, y), h, w, box in zip(rel, [1.7, 1.6, 1.9], [0.5, 0.45, 0.55], boxes):
        assert np.allclose(box, cam.person_bbox(x, y, h, w))


def test_boxes_of_people_behind_the_camera_are_nan():
    assert np.isnan(person_boxes(PinholeCamera(), np.array([[-2.0, 0.0]]), [1.7], [0.5])).all()


def test_scaled_camera_keeps_the_field_of_view():
    cam = PinholeCamera()
    half = scaled_camera(cam, (640, 360))
    uv_full, _ = cam.project([[5.0, 1.0, 1.0]])
    uv_half, _ = half.project([[5.0, 1.0, 1.0]])
    assert np.allclose(uv_half, uv_full / 2.0)


def test_frame_has_the_requested_size_and_ground_below_the_horizon():
    img = FrontViewRenderer(size=(320, 180), scene_type="plaza").render(ORIGIN, [])
    assert img.size == (320, 180)
    sky, ground = img.getpixel((5, 5)), img.getpixel((5, 175))
    assert _near(sky, PALETTES["plaza"].sky_top, 10) and _near(ground, PALETTES["plaza"].ground, 25)


def test_a_person_ahead_is_drawn_inside_their_box():
    r = FrontViewRenderer(size=(640, 360))
    img = r.render(ORIGIN, [PersonView(4.0, 0.0, RED)])
    box = person_boxes(r.camera, np.array([[4.0, 0.0]]), [RED.height], [RED.width])[0]
    assert _near(img.getpixel(tuple(int(v) for v in _torso(box))), RED.shirt)


def test_nearer_person_hides_a_farther_one_on_the_same_bearing():
    r = FrontViewRenderer(size=(640, 360))
    people = [PersonView(8.0, 0.0, BLUE), PersonView(3.0, 0.0, RED)]
    for order in (people, people[::-1]):  # drawing does not depend on list order
        img = r.render(ORIGIN, order)
        far_box = person_boxes(r.camera, np.array([[8.0, 0.0]]), [BLUE.height], [BLUE.width])[0]
        assert _near(img.getpixel(tuple(int(v) for v in _torso(far_box))), RED.shirt)


def test_observe_reports_occlusion_from_nearer_people():
    r = FrontViewRenderer()
    far, near = r.observe(ORIGIN, [PersonView(8.0, 0.0, BLUE), PersonView(3.0, 0.0, RED)])
    assert near.visible_fraction == 1.0 and far.visible_fraction < 0.1


def test_observe_gives_native_boxes_clipped_to_the_image():
    r = FrontViewRenderer(size=(320, 180))
    inside, edge, behind = r.observe(ORIGIN, [PersonView(5.0, 0.0), PersonView(3.0, 3.0), PersonView(-2.0, 0.0)])
    assert inside.bbox == pytest.approx(PinholeCamera().person_bbox(5.0, 0.0), abs=0.05)
    assert inside.in_view == 1.0 and inside.depth == pytest.approx(5.0)
    assert edge.bbox is not None and edge.bbox[0] == 0.0 and 0.0 < edge.in_view < 1.0
    assert behind.bbox is None


def test_goal_marker_is_drawn_at_the_goal():
    r = FrontViewRenderer(size=(640, 360), goal_xy=(5.0, 0.0))
    img = r.render(ORIGIN, [])
    uv, _ = r.camera.project([[5.0, 0.0, 0.8]])
    u, v = uv[0]
    assert _near(img.getpixel((int(u), int(v))), (200, 40, 30))


def test_corridor_walls_fill_the_sides():
    r = FrontViewRenderer(size=(640, 360), scene_type="corridor", walls=(1.5, -1.5))
    img = r.render(ORIGIN, [])
    assert _near(img.getpixel((10, 150)), PALETTES["corridor"].wall, 15)
    assert _near(img.getpixel((630, 150)), PALETTES["corridor"].wall, 15)


def test_view_follows_the_robot_turning():
    r = FrontViewRenderer(size=(640, 360))
    person = [PersonView(4.0, 0.0, RED)]
    straight = r.observe(ORIGIN, person)[0].bbox
    turned = r.observe((0.0, 0.0, 0.3), person)[0].bbox  # robot turned left: person moves right
    assert turned[0] > straight[0]


def test_rendering_is_deterministic():
    assert _golden() == _golden()


def test_scene_from_a_moved_robot_shows_each_person_in_their_observed_box():
    # What a pixel hash used to pin, without depending on Pillow's polygon rasterisation:
    # from a moved, turned robot, each person is drawn inside the box a detector reports.
    r = FrontViewRenderer(size=(640, 360), scene_type="corridor", walls=(2.0, -2.0), goal_xy=(8.0, 0.5))
    people = [PersonView(4.0, 0.5, RED, phase=1.0), PersonView(6.0, -1.0, BLUE, walking=False)]
    pose = (0.3, 0.1, 0.05)
    img = r.render(pose, people)
    scale = img.width / r.native.width
    for person, seen in zip(people, r.observe(pose, people)):
        assert seen.bbox is not None and seen.visible_fraction == 1.0
        u, v = _torso(tuple(c * scale for c in seen.bbox))
        assert _near(img.getpixel((int(u), int(v))), person.appearance.shirt)


def test_clip_to_rect_keeps_the_inside_part_of_segments():
    pa = np.array([[-10.0, 5.0], [2.0, 2.0], [20.0, 20.0]])
    pb = np.array([[10.0, 5.0], [3.0, 3.0], [30.0, 30.0]])
    a, b, ok = clip_to_rect(pa, pb, 0.0, 0.0, 8.0, 8.0)
    assert list(ok) == [True, True, False]
    assert np.allclose(a[0], [0.0, 5.0]) and np.allclose(b[0], [8.0, 5.0])
    assert np.allclose(a[1], [2.0, 2.0]) and np.allclose(b[1], [3.0, 3.0])


def test_unknown_scene_type_is_rejected():
    with pytest.raises(ValueError, match="scene_type"):
        FrontViewRenderer(scene_type="mall")
