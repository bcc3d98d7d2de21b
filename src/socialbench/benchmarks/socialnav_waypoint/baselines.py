"""The waypoint task's people-blind baselines ``baseline:waypoint-nearest``, ``-straightest``,
``-constant-velocity``, ``-toward-goal`` and ``-closest-to-goal`` (:mod:`~.rules`), registered
with the model registry when this package's benchmark code loads.

They answer from the item's ``waypoints`` metadata (candidates, the robot's recent motion, the
goal), not from images or people, as ``{"answer": ...}`` JSON text scored like any model's
(Baseline rows of Table 3). ``nearest`` scores chance by construction, ``straightest`` and
``constant-velocity`` near it (``scripts/waypoint_floor.py`` measures them); the two goal rules
may beat it, since progress to the goal is part of the task (a model shows social reasoning
only by beating them), and record an item without a goal as an error (``missing_input``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import cast

from socialbench.benchmarks.socialnav_waypoint.candidates import WaypointsJson
from socialbench.benchmarks.socialnav_waypoint.rules import (
    closest_to_goal,
    constant_velocity,
    nearest,
    straightest,
    toward_goal,
)
from socialbench.errors import UsageError
from socialbench.models.base import FatalModelError
from socialbench.models.registry import ModelOptions, register
from socialbench.types import Generation, Request

__all__ = ["WaypointRuleModel"]


class WaypointRuleModel:
    """Answers every waypoint item with one rule over its candidates."""

    cacheable = False
    needs_prompt = False

    def __init__(self, spec: str, rule: Callable[[WaypointsJson], str | None]):
        self.spec = spec
        self._rule = rule

    def identity(self) -> str:
        return self.spec

    async def generate(self, request: Request) -> Generation:
        item = request.item
        if item is None or request.question is None:
            raise FatalModelError("bad_request", f"{self.spec} needs the item and question in the request")
        waypoints = item.metadata.get("waypoints")
        if not isinstance(waypoints, Mapping):
            raise FatalModelError(
                "unsupported_question", f"{self.spec} answers only socialnav-waypoint items ({item.item_id} has none)"
            )
        choice = self._rule(cast(WaypointsJson, waypoints))  # a mapping, checked just above
        if choice is None:
            raise FatalModelError("missing_input", f"{item.item_id}: no goal to head for (goal_info.json has none)")
        return Generation(text=json.dumps({"answer": choice}))

    async def aclose(self) -> None:
        return None


def _factory(
    spec: str, rule: Callable[[WaypointsJson], str | None]
) -> Callable[[str, ModelOptions], WaypointRuleModel]:
    def make(rest: str, _: ModelOptions) -> WaypointRuleModel:
        if rest:
            raise UsageError(f"{spec} takes no argument after the name, got {rest!r}")
        return WaypointRuleModel(spec, rule)

    return make


#: The rule baselines: spec, rule, what it picks (their `socialbench models` lines).
_RULE_BASELINES = (
    ("baseline:waypoint-nearest", nearest, "the candidate nearest the robot (people-blind floor)"),
    ("baseline:waypoint-straightest", straightest, "the candidate with the smallest bearing (people-blind floor)"),
    ("baseline:waypoint-toward-goal", toward_goal, "the candidate closest in bearing to the goal (uses the goal only)"),
    (
        "baseline:waypoint-constant-velocity",
        constant_velocity,
        "the candidate nearest where the robot's recent velocity leads (people-blind floor)",
    ),
    ("baseline:waypoint-closest-to-goal", closest_to_goal, "the candidate nearest the goal point (uses the goal only)"),
)
for _spec, _rule, _what in _RULE_BASELINES:
    register(_spec, summary=f"waypoint task: {_what}", example=_spec)(_factory(_spec, _rule))
