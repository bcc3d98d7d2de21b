"""Synthetic annotator panel (:func:`annotator_votes`): ``n`` annotators each re-answer with
every threshold scaled by an independent factor in [1 - jitter, 1 + jitter] and the people
and the goal displaced (a constant offset per person with standard deviation
``position_noise_m`` plus 3 cm per frame); and a question's vote distribution. It exercises
the agreement metrics on multi-vote distributions; it is not a model of human judgement.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import fields, replace

import numpy as np

from socialbench.simulation.questions import answer_scene
from socialbench.simulation.truth import DEFAULT_THRESHOLDS, AnswerThresholds, PersonTruth, SceneTruth
from socialbench.types import Answer, Question

__all__ = ["jitter_thresholds", "perturb_truth", "annotator_votes", "vote_distribution"]


def jitter_thresholds(th: AnswerThresholds, rng: np.random.Generator, jitter: float) -> AnswerThresholds:
    """``th`` with every value scaled by an independent factor in [1 - jitter, 1 + jitter]."""
    return replace(th, **{f.name: getattr(th, f.name) * float(rng.uniform(1 - jitter, 1 + jitter)) for f in fields(th)})


def perturb_truth(
    truth: SceneTruth, rng: np.random.Generator, position_noise_m: float, frame_noise_m: float = 0.03
) -> SceneTruth:
    """People and goal displaced as one synthetic annotator perceives them."""
    people = {}
    for label in sorted(truth.people):
        pt = truth.people[label]
        offset = rng.normal(0.0, position_noise_m, size=2)
        xy = pt.xy + offset + rng.normal(0.0, frame_noise_m, size=pt.xy.shape)
        people[label] = PersonTruth(xy, pt.seen)
    g = np.asarray(truth.goal_xy) + rng.normal(0.0, position_noise_m, size=2)
    return replace(truth, people=people, goal_xy=(float(g[0]), float(g[1])))


def annotator_votes(
    truth: SceneTruth,
    n: int,
    rng: np.random.Generator,
    *,
    position_noise_m: float = 0.25,
    jitter: float = 0.25,
    th: AnswerThresholds = DEFAULT_THRESHOLDS,
) -> dict[str, list[Answer]]:
    """Answers of ``n`` synthetic annotators per question key (see the module docstring)."""
    if n < 1:
        raise ValueError(f"annotator_votes: n must be >= 1, got {n}")
    out: dict[str, list[Answer]] = {}
    for _ in range(n):
        answers = answer_scene(perturb_truth(truth, rng, position_noise_m), jitter_thresholds(th, rng, jitter))
        for k, a in answers.items():
            out.setdefault(k, []).append(a)
    return out


def vote_distribution(question: Question, votes: Sequence[Answer]) -> tuple[list[Answer], list[float], int]:
    """(answers by decreasing count then option order, count/n each, n) of ``votes``."""
    counts = Counter(votes)
    choices = list(question.choices)
    unknown = [a for a in counts if a not in choices]
    if unknown:
        raise ValueError(f"{question.key}: answers {unknown} are not choices of the question")
    order = sorted(counts, key=lambda a: (-counts[a], choices.index(a)))
    n = len(votes)
    return order, [counts[a] / n for a in order], n
