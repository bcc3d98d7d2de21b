"""Scripted annotators of a SocialNav-SUB survey (``socialbench build socialnav-survey``), for
tests and dry runs: a small simulated dataset with composites, the answers K annotators give
(planned per task, independently of the import code), those answers as Label Studio results
(to post through Label Studio's API) and as a Label Studio JSON export, and the answer
distributions the plan implies."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from socialbench.benchmarks.socialnav_sub.bank_file import load_bank

__all__ = ["simulated_dataset", "plan", "ls_result", "fake_export", "expected_distributions", "distribution_of"]

BANK = load_bank()
SCENE = ("q_goal_position_begin", "q_goal_position_end", "q_robot_moving_direction")
PERSON = (
    "q_person_spatial_position_begin",
    "q_person_spatial_position_end",
    "q_obstructing_end_position",
    "q_person_distance_change",
    "q_obstructing_path",
    "q_robot_affected",
    "q_robot_action",
    "q_person_affected",
    "q_person_action",
    "q_robot_suggested_affected",
    "q_robot_suggested_action",
    "q_human_future_action_prediction",
)


def simulated_dataset(out: Path, scenes: int = 3, seed: int = 11) -> Path:
    """``scenes`` simulated scenes (1-3 people) with the release's composites."""
    from socialbench.benchmarks.socialnav_sub.simulated import simulate_dataset

    return simulate_dataset(out, scenes=scenes, seed=seed, people=(1, 3), frame_size=(160, 90), write_composites=True)


#: An annotator's answers to one task: control name -> the choices selected.
Answers = dict[str, list[str]]


def plan(tasks: Sequence[Mapping[str, Any]], annotators: int, seed: int = 0) -> dict[str, list[Answers]]:
    """Per sample id, the answers of ``annotators`` people, drawn at random (the first two
    options weighted up, so answers agree more than chance) from the bank's options."""
    rng = random.Random(seed)
    out: dict[str, list[Answers]] = {}
    for task in tasks:
        data = task["data"]
        people = len(data["people"])
        controls = list(SCENE) + [f"{b}__r{i}" for i in range(people) for b in PERSON]
        panel = []
        for _ in range(annotators):
            answers: Answers = {}
            for c in controls:
                base = c.split("__r")[0]
                options = list(BANK.questions[base].options)
                if base == "q_robot_moving_direction":
                    k = rng.choice([1, 1, 2])
                    answers[c] = rng.sample(options, k)  # any order: Label Studio keeps click order
                else:
                    weights = [4, 2] + [1] * (len(options) - 2)
                    answers[c] = [rng.choices(options, weights=weights)[0]]
            panel.append(answers)
        out[data["sample_id"]] = panel
    return out


def ls_result(answers: Answers) -> list[dict[str, Any]]:
    """An annotator's answers as the ``result`` of a Label Studio annotation."""
    out = []
    for control, choices in answers.items():
        base, _, row = control.partition("__r")
        to = f"{base}__text__r{row}" if row else f"{base}__text"
        out.append({"from_name": control, "to_name": to, "type": "choices", "value": {"choices": list(choices)}})
    return out


def fake_export(tasks: Sequence[Mapping[str, Any]], answers: Mapping[str, list[Answers]]) -> list[dict[str, Any]]:
    """What Label Studio's JSON export holds after annotators 101, 102, ... submitted
    ``answers`` for ``tasks`` (field names and shapes of Label Studio 1.x)."""
    export = []
    ann_id = 1000
    for t_id, task in enumerate(tasks, 1):
        sid = task["data"]["sample_id"]
        anns = []
        for j, a in enumerate(answers.get(sid, [])):
            ann_id += 1
            anns.append(
                {
                    "id": ann_id,
                    "completed_by": 101 + j,
                    "result": ls_result(a),
                    "was_cancelled": False,
                    "ground_truth": False,
                    "created_at": f"2026-01-0{1 + j % 9}T10:00:00.123456Z",
                    "updated_at": f"2026-01-0{1 + j % 9}T10:00:00.123456Z",
                    "lead_time": 30.5 + j,
                    "task": t_id,
                    "project": 1,
                }
            )
        export.append({"id": t_id, "annotations": anns, "predictions": [], "data": task["data"], "meta": {}})
    return export


def expected_distributions(
    tasks: Sequence[Mapping[str, Any]], answers: Mapping[str, list[Answers]]
) -> dict[str, dict[str, Counter[Any]]]:
    """Per sample id and full question key, the counts of each answer the plan holds (a
    multiple-select answer as the tuple of its options in option order)."""
    out: dict[str, dict[str, Counter[Any]]] = {}
    for task in tasks:
        data = task["data"]
        sid = data["sample_id"]
        labels = [p["label"] for p in data["people"]]
        per: dict[str, Counter[Any]] = {}
        for a in answers[sid]:
            for control, choices in a.items():
                base, _, row = control.partition("__r")
                key = base if not row else f"{base}_p{labels[int(row)]}"
                options = BANK.questions[base].options
                value: Any = (
                    tuple(o for o in options if o in choices) if base == "q_robot_moving_direction" else choices[0]
                )
                per.setdefault(key, Counter())[value] += 1
        out[sid] = per
    return out


def distribution_of(common: Mapping[str, Any], key: str) -> tuple[dict[Any, float], int]:
    """{answer: probability} and n of ``key`` in a common_answers.json object."""
    answers = [tuple(a) if isinstance(a, list) else a for a in common[key]]
    return dict(zip(answers, common[f"{key}_probabilities"])), common[f"{key}_n_answers"]
