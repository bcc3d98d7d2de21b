"""The facts block of the ``scene-context`` method."""

from __future__ import annotations

from socialbench.benchmarks.socialnav_sub.bank import expand_questions
from socialbench.benchmarks.socialnav_sub.bank_file import load_bank
from socialbench.benchmarks.socialnav_sub.prompts import build_prompt
from socialbench.benchmarks.socialnav_sub.scene_context import FACTS_HEADER, fact_line, facts_block

QUESTIONS = {q.key: q for q in expand_questions(load_bank(), 1)}


def test_an_answer_fills_the_blank():
    assert (
        fact_line(QUESTIONS["q_person_spatial_position_begin_p1"], "to the left of")
        == "In the beginning, person 1 is to the left of the robot."
    )


def test_a_yes_no_answer_follows_the_question():
    assert (
        fact_line(QUESTIONS["q_obstructing_path_p1"], "yes")
        == "Is person 1's path in the way of the robot's path to the goal? yes"
    )


def test_a_multiple_select_answer_is_joined_and_the_hint_dropped():
    assert (
        fact_line(QUESTIONS["q_robot_moving_direction"], ["moving ahead", "turning left"])
        == "The robot is moving ahead and turning left."
    )


def test_a_missing_answer_reads_unknown():
    assert fact_line(QUESTIONS["q_goal_position_end"], None) == "At the end frame, the goal is unknown of the robot."


def test_block_has_the_header_and_one_line_per_fact():
    block = facts_block([(QUESTIONS["q_obstructing_path_p1"], "no"), (QUESTIONS["q_goal_position_begin"], "ahead")])
    assert block.splitlines() == [
        FACTS_HEADER,
        "- Is person 1's path in the way of the robot's path to the goal? no",
        "- In the beginning frame, the goal is ahead of the robot.",
    ]


def test_preamble_comes_right_after_the_survey_instructions():
    bank = load_bank()
    q = QUESTIONS["q_robot_affected_p1"]
    plain = build_prompt(bank, q)
    survey = "\n".join(bank.blocks["survey_instructions"]) + "\n"
    assert build_prompt(bank, q, preamble="FACTS") == survey + "\nFACTS\n" + plain[len(survey) :]
