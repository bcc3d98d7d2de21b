"""Tests for reading official SocialNav-SUB experiment folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from socialbench.benchmarks.socialnav_sub.official_run import (
    answer_from_probabilities,
    parse_choice_key,
    read_official_experiment,
)
from socialbench.errors import DataError

MS_PROBS = {
    "('moving ahead',)": 0.0,
    "('turning left',)": 0.0,
    "('turning right',)": 0.0,
    "('moving ahead', 'turning left')": 1.0,
    "('moving ahead', 'turning right')": 0.0,
    "('turning left', 'turning right')": 0.0,
    "('moving ahead', 'turning left', 'turning right')": 0.0,
}


def _write(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=4))


@pytest.fixture()
def exp(tmp_path) -> Path:
    root = tmp_path / "experiment_1_gpt-4o_cot"
    _write(
        root / "101_Spot_1_155" / "question_answers.json",
        {
            "q_robot_moving_direction": ["turning left", "moving ahead"],
            "q_person_spatial_position_begin_p1": "ahead of",
            "q_person_spatial_position_end_p1": "INVALID",
        },
    )
    _write(
        root / "101_Spot_1_155" / "evaluation.json",
        {
            "q_robot_moving_direction": {"latency_sec": 3.5, "vlm_probabilities": MS_PROBS},
            "q_person_spatial_position_begin_p1": {"latency_sec": 1.25},
        },
    )
    _write(
        root / "33_Spot_45_228" / "evaluation.json",
        {
            "q_robot_moving_direction": {"latency_sec": 2.0, "vlm_probabilities": MS_PROBS},
            "q_goal_position_begin": {
                "latency_sec": 1.0,
                "vlm_probabilities": {"ahead": 0.0, "to the left": 1.0, "to the right": 0.0},
            },
            "q_goal_position_end": {
                "latency_sec": 1.0,
                "vlm_probabilities": {"ahead": 0.0, "to the left": 0.0, "to the right": 0.0},
            },
        },
    )
    (root / "config.yaml").write_text("model: gpt-4o\n")
    return root


def _by_key(records):
    return {(r.item_id, r.question_key): r for r in records}


def test_reads_answers_in_file_order_with_latency(exp):
    records = read_official_experiment(exp)
    assert [(r.item_id, r.question_key) for r in records][:3] == [
        ("101_Spot_1_155", "q_robot_moving_direction"),
        ("101_Spot_1_155", "q_person_spatial_position_begin_p1"),
        ("101_Spot_1_155", "q_person_spatial_position_end_p1"),
    ]
    r = _by_key(records)[("101_Spot_1_155", "q_person_spatial_position_begin_p1")]
    assert (r.parsed, r.latency_s, r.parse_method, r.raw) == ("ahead of", 1.25, "official", None)


def test_invalid_answer_becomes_none(exp):
    r = _by_key(read_official_experiment(exp))[("101_Spot_1_155", "q_person_spatial_position_end_p1")]
    assert r.parsed is None and r.error is None and r.latency_s == 0.0


def test_multi_select_answer_keeps_given_order(exp):
    r = _by_key(read_official_experiment(exp))[("101_Spot_1_155", "q_robot_moving_direction")]
    assert r.parsed == ["turning left", "moving ahead"]


def test_evaluation_only_sample_uses_argmax(exp):
    records = _by_key(read_official_experiment(exp))
    assert records[("33_Spot_45_228", "q_robot_moving_direction")].parsed == ["moving ahead", "turning left"]
    assert records[("33_Spot_45_228", "q_goal_position_begin")].parsed == "to the left"
    assert records[("33_Spot_45_228", "q_goal_position_begin")].latency_s == 1.0


def test_all_zero_probabilities_mean_invalid(exp):
    records = _by_key(read_official_experiment(exp))
    assert records[("33_Spot_45_228", "q_goal_position_end")].parsed is None


def test_malformed_json_is_a_data_error_with_line(exp):
    path = exp / "101_Spot_1_155" / "question_answers.json"
    path.write_text('{\n "q_robot_moving_direction": [\n')
    with pytest.raises(DataError) as err:
        read_official_experiment(exp)
    assert err.value.problems[0].file == str(path)
    assert err.value.problems[0].line == 3


def test_folder_without_samples_is_a_data_error(tmp_path):
    with pytest.raises(DataError):
        read_official_experiment(tmp_path)


def test_missing_folder_is_a_data_error(tmp_path):
    with pytest.raises(DataError):
        read_official_experiment(tmp_path / "absent")


def test_parse_choice_key():
    assert parse_choice_key("('moving ahead',)") == ["moving ahead"]
    assert parse_choice_key("ahead of") == "ahead of"
    assert parse_choice_key("(broken") == "(broken"


def test_first_maximum_wins_ties():
    assert answer_from_probabilities({"yes": 0.5, "no": 0.5}) == "yes"
