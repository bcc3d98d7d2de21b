"""Metamorphic variants: the left/right mapping of ``mirror`` and the option order of
``shuffle-options``, on hand-made questions and human distributions."""

from __future__ import annotations

import pytest

from socialbench.prompting.metamorphic import (
    make_variant,
    mirror_text,
    split_variant,
    transform_votes,
    variant_key,
    with_variants,
)
from socialbench.types import HumanVotes, Item, Question

POSITION = Question(
    "q_person_spatial_position_end_p1",
    "q_person_spatial_position_end",
    "Spatial reasoning",
    "single",
    "At the end, person 1 is _____ the robot.",
    ("ahead of", "to the left of", "to the right of", "behind"),
    person=1,
)
GOAL = Question(
    "q_goal_position_begin",
    "q_goal_position_begin",
    "Spatial reasoning",
    "single",
    "In the beginning frame, the goal is ___ of the robot.",
    ("ahead", "to the left", "to the right"),
)
DIRECTION = Question(
    "q_robot_moving_direction",
    "q_robot_moving_direction",
    "Spatiotemporal reasoning",
    "multi",
    "The robot is _____. (Select all that apply)",
    ("moving ahead", "turning left", "turning right"),
)
AFFECTED = Question(
    "q_robot_affected_p1",
    "q_robot_affected",
    "Social reasoning",
    "single",
    "Is the robot's movement affected by person 1?",
    ("yes", "no"),
    person=1,
)


def test_mirror_text_swaps_whole_words_and_keeps_case():
    assert mirror_text("Left of the left lane, right?") == "Right of the right lane, left?"
    assert mirror_text("a bright leftover") == "a bright leftover"


def test_mirror_maps_left_to_right_for_a_person_position():
    v = make_variant(POSITION, "mirror")
    assert v.to_variant("to the left of") == "to the right of"
    assert v.to_variant("to the right of") == "to the left of"
    assert v.to_variant("ahead of") == "ahead of" and v.to_variant("behind") == "behind"


def test_mirror_keeps_the_prompt_option_order():
    v = make_variant(POSITION, "mirror")
    assert v.question.options == POSITION.options
    assert v.question.key == "q_person_spatial_position_end_p1@mirror"


def test_mirror_maps_goal_options_without_of():
    v = make_variant(GOAL, "mirror")
    assert v.to_variant("to the left") == "to the right" and v.to_original("to the right") == "to the left"


def test_mirror_maps_a_multiple_select_answer_canonically():
    v = make_variant(DIRECTION, "mirror")
    assert v.to_variant(["turning left", "moving ahead"]) == ("moving ahead", "turning right")
    assert v.to_original(("moving ahead", "turning right")) == ("moving ahead", "turning left")


def test_mirror_leaves_a_question_without_sides_alone():
    v = make_variant(AFFECTED, "mirror")
    assert dict(v.forward) == {"yes": "yes", "no": "no"}


def test_an_invalid_answer_maps_to_none():
    v = make_variant(POSITION, "mirror")
    assert v.to_original("sideways") is None and v.to_original(None) is None


def test_mirror_moves_the_human_distribution_with_the_answers():
    votes = HumanVotes(answers=("to the left of", "ahead of"), probabilities=(0.75, 0.25), n=4)
    out = transform_votes(votes, make_variant(POSITION, "mirror"))
    assert out.probability("to the right of") == 0.75 and out.probability("to the left of") == 0.0
    assert out.probability("ahead of") == 0.25 and out.n == 4


def test_mirror_moves_multiple_select_human_answers():
    votes = HumanVotes(answers=(("moving ahead", "turning left"), ("turning right",)), probabilities=(0.5, 0.5), n=2)
    out = transform_votes(votes, make_variant(DIRECTION, "mirror"))
    assert out.probability(("moving ahead", "turning right")) == 0.5
    assert out.probability(("turning left",)) == 0.5


def test_shuffle_lists_the_options_in_another_order():
    v = make_variant(POSITION, "shuffle-options", seed=3, item_id="s1")
    assert v.question.options != POSITION.options
    assert sorted(v.question.options) == sorted(POSITION.options)


def test_shuffle_of_two_options_swaps_them():
    assert make_variant(AFFECTED, "shuffle-options", seed=0, item_id="s").question.options == ("no", "yes")


def test_shuffle_is_the_same_for_the_same_seed_and_item():
    a = make_variant(POSITION, "shuffle-options", seed=5, item_id="s1").question.options
    b = make_variant(POSITION, "shuffle-options", seed=5, item_id="s1").question.options
    assert a == b


def test_shuffle_maps_every_answer_to_itself():
    v = make_variant(DIRECTION, "shuffle-options", seed=1, item_id="s1")
    assert v.to_original(("turning right", "moving ahead")) == ("moving ahead", "turning right")
    assert all(v.to_variant(o) == (o,) for o in DIRECTION.options)


def test_unknown_transformation_is_rejected():
    with pytest.raises(ValueError, match="unknown transformation"):
        make_variant(POSITION, "upside-down")


def test_variant_keys_round_trip():
    assert split_variant(variant_key("q_robot_action_p2", "mirror")) == ("q_robot_action_p2", "mirror")
    assert split_variant("q_robot_action_p2") == ("q_robot_action_p2", None)


def test_with_variants_appends_each_question_and_its_votes():
    votes = {POSITION.key: HumanVotes(("to the left of",), (1.0,), 3)}
    item = with_variants(Item("s1", (POSITION,), votes), "mirror")
    assert [q.key for q in item.questions] == [POSITION.key, POSITION.key + "@mirror"]
    assert item.votes[POSITION.key + "@mirror"].answers == ("to the right of",)
