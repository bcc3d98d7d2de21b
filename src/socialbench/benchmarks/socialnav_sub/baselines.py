"""SocialNav-SUB's own baselines, registered with the model registry when this package loads.

``baseline:rule-based`` (:class:`RuleBasedModel`) answers with the paper's hand-written rules
(:mod:`socialbench.navigation.rules`) from the item's tracks, odometry and goal, as
``{"answer": ...}`` JSON text parsed and scored like any model's; its options are in
docs/benchmarks.md, "Rule-based baseline options". ``replay:DIR`` also reads an official
SocialNav-SUB experiment folder
(:func:`~socialbench.benchmarks.socialnav_sub.official_run.read_official_experiment`).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from socialbench.benchmarks.socialnav_sub.official_run import read_official_experiment
from socialbench.errors import DataError, UsageError
from socialbench.models.base import FatalModelError
from socialbench.models.baselines import register_replay_folder
from socialbench.models.registry import ModelOption, ModelOptions, register
from socialbench.prompting.metamorphic import split_variant
from socialbench.types import Generation, Item, Request

SPEC = "baseline:rule-based"
#: Width in pixels of the images the tracks' bounding boxes refer to (SCAND's 1280x720).
NATIVE_WIDTH = 1280

register_replay_folder(read_official_experiment)


def item_rng(seed: int, item_id: str) -> np.random.Generator:
    """A generator seeded from (run seed, item id), independent of call order."""
    digest = hashlib.sha256(f"{seed}\0{item_id}\0rule-based-noise".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big"))


def add_track_noise(people: Mapping[int, Any], ade_m: float, rng: np.random.Generator) -> dict[int, Any]:
    """Copies of the tracks with iid Gaussian position noise of expected length ``ade_m``;
    tracks are processed in label order so the draw is reproducible."""
    sigma = ade_m / math.sqrt(math.pi / 2.0)
    out = {}
    for label in sorted(people):
        tr = people[label]
        xy = tr.positions() + rng.normal(0.0, sigma, size=(len(tr.observations), 2))
        out[label] = tr.with_positions(xy)
    return out


class RuleBasedModel:
    """Rule answers for every question of an item, computed once per item."""

    cacheable = False
    needs_prompt = False

    def __init__(self, seed: int = 0, noise_m: float = 0.0, smooth: bool = False, official_offset: bool = False):
        if not math.isfinite(noise_m) or noise_m < 0:
            raise UsageError(f"{SPEC}: noise_m must be a non-negative number of metres, got {noise_m}")
        if smooth:  # fail at start-up, not on the first question, when pykalman is missing
            from socialbench.navigation.smoothing import _kalman_filter_class

            _kalman_filter_class()
        self.seed = seed
        self.noise_m = noise_m
        self.smooth = smooth
        self.official_offset = official_offset
        self.spec = SPEC
        self._answers: dict[tuple[str, bool], dict[str, Any]] = {}

    def identity(self) -> str:
        return f"{SPEC}|noise_m={self.noise_m}|smooth={int(self.smooth)}|official_offset={int(self.official_offset)}"

    def scene_for(self, item: Item, mirrored: bool = False) -> Any:
        """The item's :class:`~socialbench.navigation.frames.Scene` with the tracks the rules
        see (after the noise and smoothing options); ``mirrored``: that scene's mirror image
        (:func:`~socialbench.navigation.mirror.mirror_scene`, the scene of ``@mirror``)."""
        from dataclasses import replace

        from socialbench.navigation.frames import load_scene
        from socialbench.navigation.mirror import mirror_scene

        scene = load_scene(item.metadata, official_offset=self.official_offset)
        people = scene.people
        if self.noise_m > 0:
            people = add_track_noise(people, self.noise_m, item_rng(self.seed, item.item_id))
        if self.smooth:
            from socialbench.navigation.smoothing import smooth_tracks

            people = smooth_tracks(people)
        scene = replace(scene, people=people)
        # the rules read no bounding boxes; 1280 is the native width they refer to
        return mirror_scene(scene, NATIVE_WIDTH) if mirrored else scene

    def answers_for(self, item: Item, mirrored: bool = False) -> dict[str, Any]:
        """All rule answers of ``item``, or of its mirror image (memoised by item id)."""
        key = (item.item_id, mirrored)
        cached = self._answers.get(key)
        if cached is not None:
            return cached
        from socialbench.navigation.rules import rule_based_answers

        scene = self.scene_for(item, mirrored)
        n = scene.n_people if scene.n_people is not None else len(scene.people)
        answers = rule_based_answers(scene.people, scene.robot, scene.goal_xy, n)
        self._answers[key] = answers
        return answers

    async def generate(self, request: Request) -> Generation:
        item, q = request.item, request.question
        if item is None or q is None:
            raise FatalModelError("bad_request", f"{SPEC} needs the item and question in the request")
        key, variant = split_variant(q.key)
        if variant not in (None, "mirror", "shuffle-options"):
            raise FatalModelError("unsupported_question", f"{SPEC} has no rule for {q.key!r} in {item.item_id}")
        try:
            answers = self.answers_for(item, mirrored=variant == "mirror")
        except DataError as e:
            raise FatalModelError("missing_input", f"{item.item_id}: {e}") from None
        if key not in answers:
            raise FatalModelError("unsupported_question", f"{SPEC} has no rule for {q.key!r} in {item.item_id}")
        return Generation(text=json.dumps({"answer": answers[key]}))

    async def aclose(self) -> None:
        return None


@register(
    SPEC,
    summary="the paper's hand-written rules on pedestrian tracks (options: noise_m, smooth, official_offset)",
    example="baseline:rule-based",
    options=(
        ModelOption("noise_m", "number", "metres of Gaussian noise added to the pedestrian tracks (default 0)"),
        ModelOption("smooth", "flag", "true: smooth the tracks before the rules"),
        ModelOption("official_offset", "flag", "true: the official code's frame offset"),
    ),
)
def make_rule_based(rest: str, options: ModelOptions) -> RuleBasedModel:
    if rest:
        raise UsageError(f"{SPEC} takes no argument after the name, got {rest!r}; use --model-opt KEY=VALUE")
    raw = options.get("noise_m", "0") or "0"
    try:
        noise = float(raw)
    except ValueError:
        raise UsageError(f"{SPEC}: noise_m must be a number of metres, got {raw!r}") from None
    return RuleBasedModel(
        seed=options.seed,
        noise_m=noise,
        smooth=options.get_flag("smooth"),
        official_offset=options.get_flag("official_offset"),
    )
