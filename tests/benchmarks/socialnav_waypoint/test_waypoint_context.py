"""Scene context for the waypoint prompt: random, model run and human oracle."""

from __future__ import annotations

import json

import pytest

from socialbench.benchmarks.socialnav_waypoint.context import (
    check_context,
    context_answers,
    context_block,
    load_model_answers,
)
from socialbench.errors import UsageError
from socialbench.types import HumanVotes, Item, Question

OBST = Question(
    "q_obstructing_end_position_p1",
    "q_obstructing_end_position",
    "Spatial reasoning",
    "single",
    "At the end frame, is person 1's position in the way of the robot's path to the goal?",
    ("yes", "no"),
    person=1,
)
ACT = Question(
    "q_robot_suggested_action_p1",
    "q_robot_suggested_action",
    "Social reasoning",
    "single",
    "In the future (after the end of the video), the robot should ____ person 1 as it makes progress towards the goal.",
    ("avoid", "overtake", "not consider", "follow", "yield to"),
    person=1,
)
OTHER = Question("q_robot_affected_p1", "q_robot_affected", "Social reasoning", "single", "?", ("yes", "no"), person=1)
ITEM = Item(
    "s1",
    (OBST, ACT, OTHER),
    {
        OBST.key: HumanVotes(("no", "yes"), (0.25, 0.75), 4),
        ACT.key: HumanVotes(("avoid",), (1.0,), 4),
        OTHER.key: HumanVotes(("no",), (1.0,), 4),
    },
)


def test_human_oracle_gives_the_modes_of_the_two_questions():
    assert [(q.key, a) for q, a in context_answers(ITEM, "human-oracle")] == [(OBST.key, "yes"), (ACT.key, "avoid")]


def test_random_answers_are_valid_and_seeded():
    a = context_answers(ITEM, "random", seed=3)
    assert all(ans in q.options for q, ans in a) and a == context_answers(ITEM, "random", seed=3)


def test_a_model_run_supplies_its_answers(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    rec = {
        "item_id": "s1",
        "question_key": OBST.key,
        "raw": '{"answer": "no"}',
        "parsed": "no",
        "parse_method": "json",
        "error": None,
        "latency_s": 0.0,
        "usage": {},
    }
    (run / "samples.jsonl").write_text(json.dumps(rec) + "\n")
    answers = load_model_answers(f"model:{run}")
    assert [a for _, a in context_answers(ITEM, f"model:{run}", model_answers=answers)] == ["no", None]


def test_the_block_reads_as_sentences():
    block = context_block(context_answers(ITEM, "human-oracle"))
    assert block.splitlines()[1:] == [
        "- At the end frame, is person 1's position in the way of the robot's path to the goal? yes",
        "- In the future (after the end of the video), the robot should avoid person 1 as it makes progress towards the goal.",
    ]


@pytest.mark.parametrize("bad", ["oracle", "model:/no/such/run"])
def test_unknown_sources_are_refused(bad):
    with pytest.raises(UsageError, match="--context"):
        check_context(bad)
