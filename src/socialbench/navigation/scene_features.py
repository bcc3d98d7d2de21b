"""Scene features for the failure analysis (SocialNav-SUB Table 4 and the paper's sample
selection criteria), computed from an item's metadata and, where present, its tracks.

* ``crowd size``: the sample's number of people (``n_people``) in bins
  ``1 person`` / ``2-3 people`` / ``4-5 people`` / ``6+ people``;
* ``person within 1.5 m``: some person comes within :data:`CLOSE_M` metres of the robot at
  a timestep where both are known (the paper's "people within close proximity");
* ``robot moves laterally``: the rule-based robot direction (:mod:`socialbench.navigation.rules`)
  includes turning left or right (the paper's "lateral robot movement").

Track features are ``None`` (unknown) without tracks or odometry.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from socialbench.navigation.tracks import PersonTrack, RobotPath

__all__ = ["CLOSE_M", "FEATURES", "crowd_bin", "scene_features", "track_features"]

CLOSE_M = 1.5
FEATURES = ("crowd size", "person within 1.5 m", "robot moves laterally")


def crowd_bin(n_people: object) -> str | None:
    """The crowd-size bin of a number of people (``None`` when unknown)."""
    if isinstance(n_people, bool) or not isinstance(n_people, int) or n_people < 1:
        return None
    if n_people == 1:
        return "1 person"
    if n_people <= 3:
        return "2-3 people"
    if n_people <= 5:
        return "4-5 people"
    return "6+ people"


def scene_features(metadata: Mapping[str, object]) -> dict[str, str | bool | None]:
    """The :data:`FEATURES` of one sample (see the module docstring)."""
    out: dict[str, str | bool | None] = {
        "crowd size": crowd_bin(metadata.get("n_people")),
        "person within 1.5 m": None,
        "robot moves laterally": None,
    }
    if not metadata.get("tracks_path") or not metadata.get("odometry_path"):
        return out
    from socialbench.errors import SocialbenchError
    from socialbench.navigation.frames import load_scene

    try:
        scene = load_scene(metadata)
    except (SocialbenchError, OSError, ValueError):
        return out
    out.update(track_features(scene.people, scene.robot))
    return out


def track_features(people: Mapping[int, PersonTrack], robot: RobotPath) -> dict[str, bool]:
    """``person within 1.5 m`` and ``robot moves laterally`` from labelled tracks and the
    robot path (both in the initial robot frame)."""
    from socialbench.navigation.rules import robot_moving_direction

    last = len(robot) - 1
    closest = math.inf
    for track in people.values():
        for ob in track.observations:
            t = min(ob.timestep, last)
            closest = min(closest, math.hypot(ob.x - float(robot.x[t]), ob.y - float(robot.y[t])))
    direction = robot_moving_direction(robot)
    return {
        "person within 1.5 m": closest <= CLOSE_M,
        "robot moves laterally": any(d in ("turning left", "turning right") for d in direction),
    }
