"""Scene features for the failure analysis: crowd-size bins and track-derived flags."""

from __future__ import annotations

import numpy as np
import pytest

from socialbench.navigation.scene_features import crowd_bin, scene_features, track_features
from socialbench.navigation.tracks import Observation, PersonTrack, RobotPath


@pytest.mark.parametrize(
    ("n", "label"), [(1, "1 person"), (3, "2-3 people"), (4, "4-5 people"), (9, "6+ people"), (0, None), (None, None)]
)
def test_crowd_bins(n, label):
    assert crowd_bin(n) == label


def straight(n: int = 10) -> RobotPath:
    return RobotPath(np.linspace(0.0, 4.5, n), np.zeros(n), np.zeros(n))


def person(*xy: tuple[float, float]) -> PersonTrack:
    return PersonTrack("1", tuple(Observation(t, x, y) for t, (x, y) in enumerate(xy)))


def test_a_person_passing_close_is_flagged():
    assert track_features({1: person((5.0, 3.0), (1.0, 0.5))}, straight())["person within 1.5 m"]


def test_a_distant_person_is_not_flagged():
    assert not track_features({1: person((5.0, 3.0), (5.0, 3.0))}, straight())["person within 1.5 m"]


def test_a_straight_robot_does_not_move_laterally():
    assert not track_features({}, straight())["robot moves laterally"]


def test_a_robot_drifting_sideways_moves_laterally():
    n = 10
    path = RobotPath(np.linspace(0.0, 4.0, n), np.linspace(0.0, 1.5, n), np.zeros(n))
    assert track_features({}, path)["robot moves laterally"]


def test_without_tracks_the_track_features_are_unknown():
    out = scene_features({"n_people": 2})
    assert out == {"crowd size": "2-3 people", "person within 1.5 m": None, "robot moves laterally": None}
