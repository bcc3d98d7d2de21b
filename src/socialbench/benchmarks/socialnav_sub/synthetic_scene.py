"""The invented scenes of the synthetic SocialNav-SUB fixture
(:mod:`~socialbench.benchmarks.socialnav_sub.synthetic`): the robot's path and odometry, the
people's positions and bounding boxes in the SCAND camera, the goal, and the latent answer
of every question that the fixture's votes are drawn around."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from socialbench.navigation.projection import PinholeCamera
from socialbench.types import Answer

__all__ = ["FPS", "DT", "N_FRAMES", "NATIVE_W", "NATIVE_H", "Person", "Scene", "make_scene", "sample_ids"]

FPS = 4.0
DT = 1.0 / FPS
N_FRAMES = 10
_CAMERA = PinholeCamera()
NATIVE_W, NATIVE_H = _CAMERA.width, _CAMERA.height
FX, FY, CX, CY = _CAMERA.fx, _CAMERA.fy, _CAMERA.cx, _CAMERA.cy
CAMERA_HEIGHT = _CAMERA.camera_height  # metres, only for drawing synthetic bounding boxes
PERSON_HEIGHT, PERSON_WIDTH = 1.7, 0.5

_TO_IMPERATIVE = {
    "avoiding": "avoid",
    "overtaking": "overtake",
    "not considering": "not consider",
    "following": "follow",
    "yielding to": "yield to",
}


@dataclass(frozen=True)
class Person:
    label: int
    positions: tuple[tuple[float, float], ...]  # initial robot frame, t = 0..9
    bboxes: tuple[tuple[float, float, float, float] | None, ...]  # native pixels or None


@dataclass(frozen=True)
class Scene:
    sample_id: str
    first_frame: int
    robot: tuple[tuple[float, float, float], ...]  # (x, y, yaw) in the initial frame, t=0..9
    odometry: tuple[tuple[float, float, float], ...]  # world (x, y, yaw), whole sequence
    goal_mm: tuple[int, int]
    people: tuple[Person, ...]
    latent: dict[str, Answer]


def _to_robot(pose: tuple[float, float, float], p: tuple[float, float]) -> tuple[float, float]:
    x, y, th = pose
    dx, dy = p[0] - x, p[1] - y
    c, s = math.cos(th), math.sin(th)
    return (c * dx + s * dy, -s * dx + c * dy)


def _side(rel: tuple[float, float], ahead: str, left: str, right: str, behind: str | None, wide: float = 0.45) -> str:
    x, y = rel
    if behind is not None and x < 0 and abs(y) < abs(x):
        return behind
    ang = math.atan2(y, x)
    if ang > wide:
        return left
    if ang < -wide:
        return right
    return ahead


def _seg_dist(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    ax, ay = a
    vx, vy = b[0] - ax, b[1] - ay
    L2 = vx * vx + vy * vy
    t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((p[0] - ax) * vx + (p[1] - ay) * vy) / L2))
    return math.hypot(p[0] - ax - t * vx, p[1] - ay - t * vy)


def _bbox(rel: tuple[float, float]) -> tuple[float, float, float, float] | None:
    """Pixel box of a person at ``rel`` (robot frame), clamped to the image; None if the
    person is not in front of the camera."""
    x, y = rel
    if x < 0.3:
        return None
    u = CX - FX * y / x
    half = FX * PERSON_WIDTH / 2 / x
    top = CY - FY * (PERSON_HEIGHT - CAMERA_HEIGHT) / x
    bottom = CY + FY * CAMERA_HEIGHT / x
    x1 = min(NATIVE_W - 1.0, max(0.0, u - half))
    x2 = min(float(NATIVE_W), max(x1 + 1.0, u + half))
    return (round(x1, 1), round(max(0.0, top), 1), round(x2, 1), round(min(NATIVE_H, bottom), 1))


def sample_ids(n: int, rng: random.Random) -> list[str]:
    ids = ["101_Spot_1_155"]
    seen = set(ids)
    while len(ids) < n:
        sid = f"{rng.choice([101, 114, 123, 129, 33, 45, 52, 61])}_Spot_{rng.randint(0, 9)}_{rng.randint(20, 900)}"
        if sid not in seen:
            seen.add(sid)
            ids.append(sid)
    return ids[:n]


def make_scene(sid: str, n_people: int, rng: random.Random) -> Scene:
    f0 = int(sid.rsplit("_", 1)[1])
    speed = rng.uniform(0.6, 1.3)
    turn = rng.choice([0.0, 0.0, rng.uniform(0.15, 0.35), -rng.uniform(0.15, 0.35)])
    n_odo = f0 + N_FRAMES + 1 + rng.randint(0, 8)
    th = rng.uniform(-math.pi, math.pi)
    x = y = 0.0
    odometry = []
    for _ in range(n_odo):
        odometry.append((round(x, 4), round(y, 4), round(th, 4)))
        x += speed * DT * math.cos(th)
        y += speed * DT * math.sin(th)
        th += turn * DT
    origin = odometry[f0]
    robot = []
    for t in range(N_FRAMES):
        wx, wy, wth = odometry[f0 + t]
        rx, ry = _to_robot(origin, (wx, wy))
        robot.append((rx, ry, wth - origin[2]))
    goal = (rng.uniform(4.0, 12.0), rng.uniform(-4.0, 4.0))
    goal_mm = (int(round(goal[0] * 1000)), int(round(goal[1] * 1000)))
    goal = (goal_mm[0] / 1000.0, goal_mm[1] / 1000.0)

    raw_people = []
    for _ in range(n_people):
        # in front of the robot for at least the first 3 frames and within the official
        # track filter (0 <= x <= 10, |y| <= 5) for the whole clip
        x0, y0 = rng.uniform(2.0, 9.0), rng.uniform(-4.0, 4.0)
        vx, vy = rng.uniform(-1.2, 1.2), rng.uniform(-0.6, 0.6)
        span = (N_FRAMES - 1) * DT
        vx = max(vx, (0.5 - x0) / span)
        vy = min(max(vy, (-4.5 - y0) / span), (4.5 - y0) / span)
        pos = tuple((round(x0 + vx * t * DT, 4), round(y0 + vy * t * DT, 4)) for t in range(N_FRAMES))
        boxes = tuple(_bbox(_to_robot(robot[t], pos[t])) for t in range(N_FRAMES))
        raw_people.append((pos, boxes, vx))
    # official labelling: left to right by the x1 of the first bounding box
    raw_people.sort(key=lambda p: next((b[0] for b in p[1] if b is not None), 1e9))
    people = tuple(Person(i + 1, pos, boxes) for i, (pos, boxes, _) in enumerate(raw_people))

    latent: dict[str, Answer] = {}
    dyaw = robot[-1][2]
    if abs(dyaw) < 0.15:
        latent["q_robot_moving_direction"] = ("moving ahead",)
    else:
        latent["q_robot_moving_direction"] = ("moving ahead", "turning left" if dyaw > 0 else "turning right")
    latent["q_goal_position_begin"] = _side(goal, "ahead", "to the left", "to the right", None)
    latent["q_goal_position_end"] = _side(_to_robot(robot[-1], goal), "ahead", "to the left", "to the right", None)
    for person, (_, _, vx) in zip(people, raw_people):
        i = person.label
        rel0 = _to_robot(robot[0], person.positions[0])
        rel9 = _to_robot(robot[-1], person.positions[-1])
        pos_opts = ("ahead of", "to the left of", "to the right of", "behind")
        latent[f"q_person_spatial_position_begin_p{i}"] = _side(rel0, *pos_opts)
        latent[f"q_person_spatial_position_end_p{i}"] = _side(rel9, *pos_opts)
        d0, d9 = math.hypot(*rel0), math.hypot(*rel9)
        latent[f"q_person_distance_change_p{i}"] = (
            "closer to" if d9 - d0 < -0.3 else "further away from" if d9 - d0 > 0.3 else "about the same distance to"
        )
        path_d = min(_seg_dist(p, (0.0, 0.0), goal) for p in person.positions)
        end_d = _seg_dist(person.positions[-1], robot[-1][:2], goal)
        closest = min(math.hypot(*_to_robot(robot[t], person.positions[t])) for t in range(N_FRAMES))
        obstructing = path_d < 1.0
        latent[f"q_obstructing_path_p{i}"] = "yes" if obstructing else "no"
        latent[f"q_obstructing_end_position_p{i}"] = "yes" if end_d < 1.0 else "no"
        robot_aff = obstructing and closest < 3.0
        person_aff = closest < 2.0
        latent[f"q_robot_affected_p{i}"] = "yes" if robot_aff else "no"
        latent[f"q_person_affected_p{i}"] = "yes" if person_aff else "no"
        same_way = vx > 0.3 and rel0[0] > 0
        if not robot_aff:
            r_act = "not considering"
        elif same_way:
            r_act = "following" if vx >= speed else "overtaking"
        else:
            r_act = rng.choice(["avoiding", "avoiding", "yielding to"])
        p_act = "not considering" if not person_aff else rng.choice(["avoiding", "yielding to", "avoiding"])
        latent[f"q_robot_action_p{i}"] = r_act
        latent[f"q_person_action_p{i}"] = p_act
        future_aff = end_d < 1.5
        latent[f"q_robot_suggested_affected_p{i}"] = "yes" if future_aff else "no"
        latent[f"q_robot_suggested_action_p{i}"] = (
            _TO_IMPERATIVE[r_act]
            if future_aff and r_act != "not considering"
            else ("avoid" if future_aff else "not consider")
        )
        latent[f"q_human_future_action_prediction_p{i}"] = _TO_IMPERATIVE[p_act]
    return Scene(sid, f0, tuple(robot), tuple(odometry), goal_mm, people, latent)
