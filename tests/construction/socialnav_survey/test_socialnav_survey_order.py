"""What the survey asks and in which order (paper App. 7.4), and the control names."""

from __future__ import annotations

from dataclasses import replace

from socialbench.benchmarks.socialnav_sub.bank import CATEGORY_OF, SOCIAL, SPATIAL, SPATIOTEMPORAL
from socialbench.construction.socialnav_survey.order import (
    PERSON_KEYS,
    SCENE_KEYS,
    parse_control,
    person_control,
    survey_id,
)
from survey_fixtures import BANK, PERSON, SCENE

RANK = {SPATIAL: 0, SPATIOTEMPORAL: 1, SOCIAL: 2}


def test_scene_questions_come_spatial_first_then_spatiotemporal() -> None:
    assert SCENE_KEYS == SCENE
    assert [RANK[CATEGORY_OF[k]] for k in SCENE_KEYS] == [0, 0, 1]


def test_each_persons_questions_run_spatial_spatiotemporal_social() -> None:
    assert PERSON_KEYS == PERSON
    ranks = [RANK[CATEGORY_OF[k]] for k in PERSON_KEYS]
    assert ranks == sorted(ranks) and set(ranks) == {0, 1, 2}


def test_every_question_of_the_bank_is_asked_once() -> None:
    assert sorted(SCENE_KEYS + PERSON_KEYS) == sorted(BANK.questions)


def test_person_control_names_parse_back_to_base_and_row() -> None:
    assert parse_control(person_control("q_robot_action", 12)) == ("q_robot_action", 12)
    assert parse_control("q_goal_position_end") == ("q_goal_position_end", None)


def test_names_of_other_projects_are_not_survey_controls() -> None:
    for name in ("label", "facets", "q_robot_action", "q_unknown__r1", "q_goal_position_end__r0"):
        assert parse_control(name) is None, name


def test_survey_id_changes_with_the_scenarios_and_the_questions() -> None:
    base = survey_id([("a_1", 2), ("b_2", 3)], BANK)
    assert survey_id([("a_1", 2), ("b_2", 3)], BANK) == base
    assert survey_id([("a_1", 2), ("b_2", 4)], BANK) != base
    assert survey_id([("a_1", 2)], BANK) != base
    q = BANK.questions["q_robot_action"]
    other = replace(BANK, questions={**BANK.questions, "q_robot_action": replace(q, text=q.text + "?")})
    assert survey_id([("a_1", 2), ("b_2", 3)], other) != base
