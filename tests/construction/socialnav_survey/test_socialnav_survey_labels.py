"""The answer files and agreement statistics made from a panel's answers."""

from __future__ import annotations

from socialbench.construction.socialnav_survey.answers import AnnotatorAnswers
from socialbench.construction.socialnav_survey.labels import agreement, common_answers, raw_answers
from survey_fixtures import BANK


def _panel(per_annotator: list[dict[str, object]]) -> dict[str, AnnotatorAnswers]:
    base = {
        "q_robot_moving_direction": ("moving ahead",),
        "q_goal_position_begin": "ahead",
        "q_goal_position_end": "ahead",
    }
    return {
        f"a{i}": AnnotatorAnswers("s_1", f"a{i}", {**base, **answers}, i, 100 + i, 3.0, None)  # type: ignore[arg-type]
        for i, answers in enumerate(per_annotator)
    }


def _person(action: str) -> dict[str, object]:
    keys = {q: BANK.questions[q].options[0] for q in BANK.questions if q not in ("q_robot_moving_direction",)}
    out: dict[str, object] = {f"{k}_p1": v for k, v in keys.items() if not k.startswith("q_goal")}
    out["q_robot_action_p1"] = action
    return out


def test_answers_by_decreasing_count_ties_in_option_order() -> None:
    panel = _panel([_person(a) for a in ("yielding to", "avoiding", "yielding to", "following", "avoiding")])
    common = common_answers(BANK, 1, panel)
    assert common["q_robot_action_p1"] == ["avoiding", "yielding to", "following"]
    assert common["q_robot_action_p1_probabilities"] == [0.4, 0.4, 0.2]
    assert common["q_robot_action_p1_n_answers"] == 5


def test_multiple_select_answer_is_a_list_of_options() -> None:
    common = common_answers(BANK, 1, _panel([_person("avoiding")] * 2))
    assert common["q_robot_moving_direction"] == [["moving ahead"]]


def test_raw_answers_list_annotators_sorted_with_their_answers() -> None:
    raw = raw_answers("s_1", "abc", _panel([_person("avoiding"), _person("following")]))
    assert [a["annotator"] for a in raw["annotators"]] == ["a0", "a1"]
    assert raw["annotators"][1]["answers"]["q_robot_action_p1"] == "following"
    assert raw["annotators"][0]["answers"]["q_robot_moving_direction"] == ["moving ahead"]


def test_majority_share_of_a_question_is_the_mean_top_share() -> None:
    stats = agreement(BANK, [("s_1", 1)], {"s_1": _panel([_person(a) for a in ("avoiding", "avoiding", "following")])})
    assert stats["questions"]["q_robot_action"]["majority_share"] == round(2 / 3, 6)


def test_a_statistic_that_cannot_be_computed_is_null() -> None:
    stats = agreement(BANK, [("s_1", 1)], {"s_1": _panel([_person("avoiding")] * 3)})
    q = stats["questions"]["q_robot_action"]
    assert q["majority_share"] == 1.0 and q["krippendorff_alpha"] is None
