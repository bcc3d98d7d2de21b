"""Tests for the SocialNav-SUB prompt bank and question expansion."""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources

import pytest

from socialbench.benchmarks.socialnav_sub.bank import (
    BASE_KEYS,
    BLOCK_KEYS,
    CATEGORY_OF,
    INSTRUCTION_BLOCK_OF,
    base_key_of,
    expand_questions,
    person_of,
)
from socialbench.benchmarks.socialnav_sub.bank_file import load_bank
from socialbench.benchmarks.socialnav_sub.synthetic import fixture_people_counts
from socialbench.errors import DataError


@pytest.fixture(scope="module")
def bank():
    return load_bank()


def test_builtin_bank_has_all_questions_and_blocks(bank):
    assert set(bank.questions) == set(BASE_KEYS)
    assert set(BLOCK_KEYS) <= set(bank.blocks)
    assert all(bank.blocks[b] for b in BLOCK_KEYS)


def test_builtin_texts_and_options_match_reference(bank):
    q = bank.questions
    assert q["q_robot_moving_direction"].text == "The robot is _____. (Select all that apply)"
    assert q["q_robot_moving_direction"].kind == "multi"
    assert q["q_robot_moving_direction"].options == ("moving ahead", "turning left", "turning right")
    assert q["q_person_action"].text == "{PERSON} is most likely ___ the robot."
    assert q["q_robot_action"].text == "The robot is most likely ____ {PERSON}."
    assert q["q_goal_position_begin"].text == ("In the beginning frame, the goal is ___ of the robot.")
    assert q["q_person_spatial_position_begin"].options == ("ahead of", "to the left of", "to the right of", "behind")
    assert q["q_robot_action"].options == ("avoiding", "overtaking", "not considering", "following", "yielding to")
    assert q["q_robot_suggested_action"].options == ("avoid", "overtake", "not consider", "follow", "yield to")
    assert all(q[k].kind == "single" for k in BASE_KEYS if k != "q_robot_moving_direction")


def test_builtin_answer_formats_are_official(bank):
    assert bank.answers_format_mc == (
        "\nPlease provide the answer to the single question in JSON format (NOT a list) as "
        'follows:\n{"answer": "<one of the possible answers>"}\n\nEnsure the response is in '
        'JSON format and includes only one key, "answer"'
    )
    assert bank.answers_format_ms.startswith(
        "\nPlease provide the answer in JSON format as follows where you may select one or "
        'two possible answers:\n{"answer": ["<answer1>", "<answer2>"]}'
    )


def test_instruction_blocks_define_every_navigation_action(bank):
    past = " ".join(bank.blocks["navigation_action_instructions"])
    future = " ".join(bank.blocks["suggested_future_navigation_action_instructions"])
    for word in ("avoiding:", "not considering:", "following:", "overtaking:", "yielding to:"):
        assert word in past
    for word in ("avoid:", "not consider:", "follow:", "overtake:", "yield to:"):
        assert word in future


@pytest.mark.parametrize("n", [0, 1, 2, 7, 13])
def test_expansion_count_is_3_plus_12n(bank, n):
    assert len(expand_questions(bank, n)) == 3 + 12 * n


def test_expansion_of_fixture_counts_gives_4968_items_per_category(bank):
    questions = [q for n in fixture_people_counts() for q in expand_questions(bank, n)]
    assert len(questions) == 4968
    cats = Counter(q.category for q in questions)
    assert cats == {"Spatial reasoning": 1317, "Spatiotemporal reasoning": 858, "Social reasoning": 2793}


def test_expansion_order_is_official(bank):
    keys = [q.key for q in expand_questions(bank, 2)]
    assert keys == [
        "q_robot_moving_direction",
        "q_person_spatial_position_begin_p1",
        "q_person_spatial_position_end_p1",
        "q_person_distance_change_p1",
        "q_person_spatial_position_begin_p2",
        "q_person_spatial_position_end_p2",
        "q_person_distance_change_p2",
        "q_goal_position_begin",
        "q_goal_position_end",
        "q_obstructing_path_p1",
        "q_obstructing_end_position_p1",
        "q_obstructing_path_p2",
        "q_obstructing_end_position_p2",
        "q_robot_affected_p1",
        "q_robot_action_p1",
        "q_person_affected_p1",
        "q_person_action_p1",
        "q_robot_affected_p2",
        "q_robot_action_p2",
        "q_person_affected_p2",
        "q_person_action_p2",
        "q_robot_suggested_affected_p1",
        "q_robot_suggested_action_p1",
        "q_human_future_action_prediction_p1",
        "q_robot_suggested_affected_p2",
        "q_robot_suggested_action_p2",
        "q_human_future_action_prediction_p2",
    ]


def test_person_placeholder_is_capitalised_only_at_start(bank):
    qs = {q.key: q for q in expand_questions(bank, 3)}
    assert qs["q_person_action_p3"].text == "Person 3 is most likely ___ the robot."
    assert qs["q_robot_action_p3"].text == "The robot is most likely ____ person 3."
    assert qs["q_obstructing_path_p2"].text == ("Is person 2's path in the way of the robot's path to the goal?")


def test_question_fields(bank):
    qs = {q.key: q for q in expand_questions(bank, 2)}
    q = qs["q_person_action_p2"]
    assert (q.base_key, q.person, q.kind, q.category) == ("q_person_action", 2, "single", "Social reasoning")
    assert q.instruction_block == "navigation_action_instructions"
    g = qs["q_goal_position_end"]
    assert g.person is None and g.instruction_block == "goal_location_instructions"


def test_depends_on_uses_full_keys(bank):
    qs = {q.key: q for q in expand_questions(bank, 2)}
    assert qs["q_goal_position_end"].depends_on == ("q_robot_moving_direction", "q_goal_position_begin")
    assert qs["q_robot_suggested_action_p2"].depends_on == (
        "q_robot_moving_direction",
        "q_person_spatial_position_begin_p2",
        "q_person_spatial_position_end_p2",
        "q_goal_position_begin",
        "q_goal_position_end",
        "q_obstructing_path_p2",
        "q_robot_affected_p2",
        "q_robot_action_p2",
        "q_robot_suggested_affected_p2",
    )
    assert qs["q_person_spatial_position_begin_p1"].depends_on == ()


def test_every_dependency_is_asked_earlier(bank):
    seen: set[str] = set()
    for q in expand_questions(bank, 4):
        assert set(q.depends_on) <= seen, q.key
        seen.add(q.key)


def test_category_and_block_tables_cover_all_base_keys():
    assert set(CATEGORY_OF) == set(BASE_KEYS) == set(INSTRUCTION_BLOCK_OF)
    assert set(INSTRUCTION_BLOCK_OF.values()) == set(BLOCK_KEYS) - {"survey_instructions"}


@pytest.mark.parametrize(
    "key,base,person",
    [
        ("q_person_action_p12", "q_person_action", 12),
        ("q_robot_moving_direction", "q_robot_moving_direction", None),
        ("q_goal_position_begin", "q_goal_position_begin", None),
        ("q_person_spatial_position_begin_p1", "q_person_spatial_position_begin", 1),
    ],
)
def test_base_key_and_person(key, base, person):
    assert base_key_of(key) == base
    assert person_of(key) == person


def _builtin(name: str) -> dict:
    """The parsed built-in data file ``name`` (to edit into a custom one)."""
    return json.loads((resources.files("socialbench.benchmarks.socialnav_sub") / "data" / name).read_text())


def test_custom_bank_missing_question_names_file_and_field(tmp_path):
    data = _builtin("survey_prompt.json")
    del data["q_person_action"]
    path = tmp_path / "survey_prompt.json"
    path.write_text(json.dumps(data))
    with pytest.raises(DataError) as err:
        load_bank(path)
    assert [(p.file, p.field) for p in err.value.problems] == [(str(path), "q_person_action")]


def test_custom_bank_bad_json_reports_line(tmp_path):
    path = tmp_path / "survey_prompt.json"
    path.write_text('{\n  "a": 1,\n  "b": \n}\n')
    with pytest.raises(DataError) as err:
        load_bank(path)
    assert err.value.problems[0].line == 4


def test_dependency_on_later_question_is_rejected(tmp_path):
    deps = _builtin("relevant_prev_questions.json")
    deps["q_person_spatial_position_begin"] = ["q_person_action"]
    path = tmp_path / "relevant_prev_questions.json"
    path.write_text(json.dumps(deps))
    with pytest.raises(DataError) as err:
        load_bank(None, path)
    assert err.value.problems[0].field == "q_person_spatial_position_begin"
    assert "asked later" in err.value.problems[0].message


def test_custom_bank_text_is_used(tmp_path):
    data = _builtin("survey_prompt.json")
    data["q_person_action"]["question"] = "{PERSON} is probably ____ the robot."
    path = tmp_path / "survey_prompt.json"
    path.write_text(json.dumps(data))
    custom = load_bank(path)
    q = {q.key: q for q in expand_questions(custom, 1)}["q_person_action_p1"]
    assert q.text == "Person 1 is probably ____ the robot."


def test_negative_people_is_rejected(bank):
    with pytest.raises(ValueError):
        expand_questions(bank, -1)


#: Reference §b, the official question set (hub bank): key -> (text, options in order).
REFERENCE_QUESTIONS = {
    "q_robot_moving_direction": (
        "The robot is _____. (Select all that apply)",
        ("moving ahead", "turning left", "turning right"),
    ),
    "q_person_spatial_position_begin": (
        "In the beginning, {PERSON} is _____ the robot.",
        ("ahead of", "to the left of", "to the right of", "behind"),
    ),
    "q_person_spatial_position_end": (
        "At the end, {PERSON} is _____ the robot.",
        ("ahead of", "to the left of", "to the right of", "behind"),
    ),
    "q_person_distance_change": (
        "At the end, {PERSON} ends up _____ the robot compared to the beginning.",
        ("closer to", "further away from", "about the same distance to"),
    ),
    "q_goal_position_begin": (
        "In the beginning frame, the goal is ___ of the robot.",
        ("ahead", "to the left", "to the right"),
    ),
    "q_goal_position_end": (
        "At the end frame, the goal is ___ of the robot.",
        ("ahead", "to the left", "to the right"),
    ),
    "q_obstructing_path": ("Is {PERSON}'s path in the way of the robot's path to the goal?", ("yes", "no")),
    "q_obstructing_end_position": (
        "At the end frame, is {PERSON}'s position in the way of the robot's path to the goal?",
        ("yes", "no"),
    ),
    "q_robot_affected": ("Is the robot's movement affected by {PERSON}?", ("yes", "no")),
    "q_robot_action": (
        "The robot is most likely ____ {PERSON}.",
        ("avoiding", "overtaking", "not considering", "following", "yielding to"),
    ),
    "q_person_affected": ("Is {PERSON}'s movement affected by the robot?", ("yes", "no")),
    "q_person_action": (
        "{PERSON} is most likely ___ the robot.",
        ("avoiding", "overtaking", "not considering", "following", "yielding to"),
    ),
    "q_robot_suggested_affected": (
        "In the future (after the end of the video), should the robot's movement towards the goal be affected by "
        "{PERSON}?",
        ("yes", "no"),
    ),
    "q_robot_suggested_action": (
        "In the future (after the end of the video), the robot should ____ {PERSON} as it makes progress towards "
        "the goal.",
        ("avoid", "overtake", "not consider", "follow", "yield to"),
    ),
    "q_human_future_action_prediction": (
        "In the future (after the end of the video), {PERSON} will most likely ____ the robot as the robot "
        "attempts to make progress towards the goal.",
        ("avoid", "overtake", "not consider", "follow", "yield to"),
    ),
}


def test_every_builtin_question_text_and_option_list_is_the_official_one(bank):
    # what README's prompt paragraph claims for the bundled bank (its instruction blocks are its own words)
    assert {k: (q.text, q.options) for k, q in bank.questions.items()} == REFERENCE_QUESTIONS
