"""Tests for SocialNav-SUB prompt text."""

from __future__ import annotations

import json

import pytest

from socialbench.benchmarks.socialnav_sub.bank import expand_questions
from socialbench.benchmarks.socialnav_sub.bank_file import load_bank
from socialbench.benchmarks.socialnav_sub.prompts import (
    build_prompt,
    cot_line,
    possible_answers_line,
)


@pytest.fixture(scope="module")
def bank():
    return load_bank()


@pytest.fixture(scope="module")
def questions(bank):
    return {q.key: q for q in expand_questions(bank, 2)}


def test_independent_prompt_layout(bank, questions):
    q = questions["q_person_action_p2"]
    expected = (
        "\n".join(bank.blocks["survey_instructions"])
        + "\n"
        + "\n"
        + "\n".join(bank.blocks["navigation_action_instructions"])
        + "\n"
        + "\nPerson 2 is most likely ___ the robot.\n"
        + 'Possible answers: "avoiding", "overtaking", "not considering", "following", '
        '"yielding to"' + bank.answers_format_mc
    )
    assert build_prompt(bank, q, None) == expected


def test_multi_select_prompt_uses_ms_format(bank, questions):
    prompt = build_prompt(bank, questions["q_robot_moving_direction"])
    assert prompt.endswith(
        "\nThe robot is _____. (Select all that apply)\n"
        'Possible answers: "moving ahead", "turning left", "turning right"' + bank.answers_format_ms
    )


def test_independent_prompt_omits_earlier_answers(bank, questions):
    prompt = build_prompt(bank, questions["q_robot_action_p1"], None)
    assert '{"answer":' not in prompt.split("\n\n")[0]
    assert "Is the robot's movement affected by person 1?" not in prompt


def test_cot_prompt_injects_valid_json_in_dependency_order(bank, questions):
    q = questions["q_obstructing_path_p1"]
    earlier = {
        "q_person_spatial_position_begin_p1": "ahead of",
        "q_person_spatial_position_end_p1": "to the left of",
        "q_goal_position_begin": "ahead",
        "q_goal_position_end": "to the right",
    }
    prompt = build_prompt(bank, q, earlier)
    head = "\n".join(bank.blocks["survey_instructions"]) + "\n"
    body = prompt[len(head) :].split("\n\n")[0].split("\n")
    assert body[0::2] == [
        "In the beginning, person 1 is _____ the robot.",
        "At the end, person 1 is _____ the robot.",
        "In the beginning frame, the goal is ___ of the robot.",
        "At the end frame, the goal is ___ of the robot.",
    ]
    assert [json.loads(line)["answer"] for line in body[1::2]] == [
        "ahead of",
        "to the left of",
        "ahead",
        "to the right",
    ]


def test_cot_dependency_text_is_not_capitalised(bank, questions):
    earlier = {"q_person_affected_p2": "yes", "q_person_action_p2": "avoiding"}
    prompt = build_prompt(bank, questions["q_human_future_action_prediction_p2"], earlier)
    assert "\nperson 2 is most likely ___ the robot.\n" in prompt
    assert '\n{"answer": "avoiding"}\n' in prompt


def test_cot_missing_or_invalid_answer_injects_null(bank, questions):
    q = questions["q_person_spatial_position_end_p1"]
    prompt = build_prompt(bank, q, {"q_person_spatial_position_begin_p1": None})
    assert 'In the beginning, person 1 is _____ the robot.\n{"answer": null}\n' in prompt
    assert build_prompt(bank, q, {}) == prompt


def test_cot_multi_select_answer_is_a_json_list(bank, questions):
    q = questions["q_goal_position_end"]
    prompt = build_prompt(bank, q, {"q_robot_moving_direction": ("moving ahead", "turning left")})
    assert '\n{"answer": ["moving ahead", "turning left"]}\n' in prompt


def test_cot_with_no_dependencies_equals_independent(bank, questions):
    q = questions["q_person_spatial_position_begin_p1"]
    assert build_prompt(bank, q, {"q_robot_moving_direction": ["moving ahead"]}) == (build_prompt(bank, q, None))


def test_cot_line_is_valid_json():
    assert json.loads(cot_line("ahead of")) == {"answer": "ahead of"}
    assert json.loads(cot_line(["a", "b"])) == {"answer": ["a", "b"]}
    assert json.loads(cot_line(None)) == {"answer": None}


def test_possible_answers_line():
    assert possible_answers_line(("yes", "no")) == 'Possible answers: "yes", "no"'
