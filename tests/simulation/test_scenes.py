"""Crowd model, robot planner and scene generation of the procedural simulator."""

import math

import numpy as np
import pytest

from socialbench.navigation.tracks import N_FRAMES
from socialbench.simulation.planner import LocalPlanner
from socialbench.simulation.scene_config import (
    PERSON_RADIUS,
    ROBOT_RADIUS,
    SCENE_TYPES,
    TAIL_FRAMES,
    AgentSpec,
    SceneConfig,
    SceneSetup,
    sample_config,
    scene_rng,
)
from socialbench.simulation.scene_layout import build_scene
from socialbench.simulation.scenes import simulate


def _setup(agents=(), goal=(10.0, 0.0), walls=(), **cfg) -> SceneSetup:
    cfg = {"n_people": len(agents), "first_frame": 4, "robot_speed": 1.0, **cfg}
    return SceneSetup(SceneConfig(**cfg), tuple(agents), goal, walls)


def _clip(sim) -> slice:
    return slice(sim.first_frame, sim.first_frame + N_FRAMES)


def test_scene_config_rejects_knobs_outside_their_range():
    with pytest.raises(ValueError, match="proximity"):
        SceneConfig(proximity=1.5)
    with pytest.raises(ValueError, match="scene_type"):
        SceneConfig(scene_type="mall")


def test_sample_config_is_determined_by_the_generator():
    a = sample_config(np.random.default_rng(5), 6)
    b = sample_config(np.random.default_rng(5), 6)
    assert a == b and a.n_people == 6


def test_build_scene_places_the_requested_number_of_people():
    setup = build_scene(SceneConfig(scene_type="plaza", n_people=9, group_share=0.5), np.random.default_rng(2))
    assert len(setup.agents) == 9


def test_corridor_people_and_goal_lie_between_the_walls():
    cfg = SceneConfig(scene_type="corridor", n_people=10, corridor_width=3.0, lateral=1.0)
    setup = build_scene(cfg, np.random.default_rng(4))
    assert setup.walls == (1.5, -1.5)
    assert all(abs(a.position[1]) < 1.5 for a in setup.agents)
    assert abs(setup.goal[1]) <= 1.5 - 0.6


def test_full_proximity_puts_everyone_near_the_robot_path():
    cfg = SceneConfig(scene_type="plaza", n_people=12, proximity=1.0, group_share=0.0)
    setup = build_scene(cfg, np.random.default_rng(8))
    walkers = [a for a in setup.agents if a.role != "cross"]
    assert walkers and all(1.5 <= a.position[0] <= 5.0 and abs(a.position[1]) <= 1.6 for a in walkers)


def test_lateral_knob_moves_the_goal_sideways():
    rng = np.random.default_rng(0)
    straight = [build_scene(SceneConfig(n_people=0, lateral=0.0), rng).goal for _ in range(5)]
    sideways = [build_scene(SceneConfig(n_people=0, lateral=1.0), rng).goal for _ in range(5)]
    assert all(g[1] == 0.0 for g in straight)
    assert all(abs(math.degrees(math.atan2(g[1], g[0]))) >= 14.9 for g in sideways)


def test_simulation_is_deterministic():
    cfg = sample_config(np.random.default_rng(1), 7, scene_type="crossing")
    a = simulate(build_scene(cfg, np.random.default_rng(11)))
    b = simulate(build_scene(cfg, np.random.default_rng(11)))
    assert np.array_equal(a.people, b.people) and np.array_equal(a.robot, b.robot)


def test_robot_is_at_the_origin_facing_forward_at_the_first_frame():
    sim = simulate(_setup(first_frame=6))
    assert sim.n_frames == 6 + N_FRAMES + TAIL_FRAMES
    assert tuple(sim.robot[6]) == (0.0, 0.0, 0.0)
    assert sim.robot[0, 0] == pytest.approx(-1.5)  # approached at cruise speed for 1.5 s


def test_robot_alone_turns_towards_an_offset_goal():
    sim = simulate(_setup(goal=(6.0, 3.0)))
    end = sim.robot[_clip(sim)][-1]
    bearing = math.atan2(3.0 - end[1], 6.0 - end[0])
    assert end[2] > 0.3 and abs(bearing - end[2]) < abs(math.atan2(3.0, 6.0))


def test_robot_does_not_touch_a_person_standing_in_its_path():
    standing = AgentSpec("standing", (2.5, 0.0), (1.0, 0.0), 0.0)
    sim = simulate(_setup([standing]))
    d = np.linalg.norm(sim.people[:, 0] - sim.robot[:, :2], axis=1)
    assert d.min() > PERSON_RADIUS + ROBOT_RADIUS


def test_robot_steers_or_slows_for_a_person_in_its_path():
    standing = AgentSpec("standing", (2.5, 0.0), (1.0, 0.0), 0.0)
    clip = simulate(_setup([standing]))
    free = simulate(_setup([]))
    sl = _clip(clip)
    deviated = np.abs(clip.robot[sl, 1]).max() > 0.3
    slowed = clip.robot_speed[sl].min() < 0.7 * free.robot_speed[sl].min()
    assert deviated or slowed


def test_oncoming_walker_and_robot_pass_without_contact():
    walker = AgentSpec("oncoming", (4.0, 0.1), (-1.0, 0.0), 1.3)
    sim = simulate(_setup([walker], first_frame=2))
    d = np.linalg.norm(sim.people[:, 0] - sim.robot[:, :2], axis=1)
    assert d.min() > PERSON_RADIUS + ROBOT_RADIUS


def _closest_from_the_first_frame(sim) -> float:
    """Smallest robot-person centre distance from the sample's first frame to the end."""
    window = slice(sim.first_frame, sim.n_frames)
    return float(np.linalg.norm(sim.people[window] - sim.robot[window, None, :2], axis=-1).min())


@pytest.mark.parametrize("walls", [(), (1.5, -1.5)])
@pytest.mark.parametrize("lateral", [0.0, 0.3, -0.5])
def test_robot_passes_an_oncoming_walker_with_a_comfortable_margin(lateral, walls):
    walker = AgentSpec("oncoming", (5.0, lateral), (-1.0, 0.0), 1.2)
    sim = simulate(_setup([walker], walls=walls, scene_type="corridor" if walls else "plaza"))
    assert _closest_from_the_first_frame(sim) >= 1.2  # proxemics: passing margin


def test_robot_keeps_a_social_distance_in_seeded_scenes():
    closest = []
    for index in range(12):  # drawn as perf/sim_proxemics.py draws them
        rng = scene_rng(0, index)
        scene_type = SCENE_TYPES[int(rng.integers(len(SCENE_TYPES)))]
        n_people = int(rng.integers(2, 7))
        sim = simulate(build_scene(sample_config(rng, n_people, scene_type=scene_type), rng))
        closest.append(_closest_from_the_first_frame(sim))
    assert min(closest) >= 1.0 and float(np.median(closest)) >= 1.2


def test_standing_person_stays_near_their_spot_when_alone():
    standing = AgentSpec("standing", (6.0, 4.0), (1.0, 0.0), 0.0)
    sim = simulate(_setup([standing]))
    assert np.linalg.norm(sim.people[:, 0] - np.array([6.0, 4.0]), axis=1).max() < 0.05


def test_group_members_walk_together():
    a = AgentSpec("same", (6.0, 2.0), (0.0, 1.0), 1.0, group=0)
    b = AgentSpec("same", (6.7, 2.0), (0.0, 1.0), 1.2, group=0)
    sim = simulate(_setup([a, b]))
    gap = np.linalg.norm(sim.people[:, 0] - sim.people[:, 1], axis=1)
    assert gap.max() < 1.3


def test_corridor_walls_keep_people_inside():
    pushers = [AgentSpec("oncoming", (3.0 + k, 1.0), (-0.6, 0.8), 1.4) for k in range(3)]
    sim = simulate(_setup(pushers, walls=(1.5, -1.5), scene_type="corridor"))
    assert np.abs(sim.people[..., 1]).max() < 1.5


def test_planner_refuses_to_drive_into_a_wall():
    planner = LocalPlanner((10.0, 5.0), 1.0, walls=(1.0, -1.0))
    v, w = planner.command(np.array([0.0, 0.2, 0.8]), 0.0, np.zeros((0, 2)), np.zeros((0, 2)))
    assert w < 0.0 or v < 0.5  # heading for the wall at 46°: turn away or slow down


def test_planner_stops_at_the_goal():
    planner = LocalPlanner((1.0, 0.0), 1.0)
    assert planner.command(np.array([0.9, 0.0, 0.0]), 0.0, np.zeros((0, 2)), np.zeros((0, 2))) == (0.0, 0.0)
