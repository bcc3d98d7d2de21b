"""The labeling config: the ten composites, then each question as a required choice with the
bank's options, person questions inside a Repeater over the task's people."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from socialbench.construction.socialnav_survey.config import survey_config
from survey_fixtures import BANK, PERSON, SCENE


def _root() -> ET.Element:
    return ET.fromstring(survey_config(BANK))


def test_config_shows_the_ten_composites_in_time_order() -> None:
    images = _root().findall(".//Image")
    assert [(i.get("name"), i.get("value")) for i in images] == [(f"frame_{t}", f"$image_{t}") for t in range(10)]


def test_scene_questions_are_outside_the_repeater_in_survey_order() -> None:
    root = _root()
    repeater = root.find(".//Repeater")
    inside = {c.get("name") for c in repeater.iter("Choices")}
    outside = [c.get("name") for c in root.iter("Choices") if c.get("name") not in inside]
    assert outside == list(SCENE)


def test_person_questions_repeat_over_people_in_survey_order() -> None:
    repeater = _root().find(".//Repeater")
    assert repeater.get("on") == "$people" and repeater.get("indexFlag") == "{{idx}}"
    assert [c.get("name") for c in repeater.iter("Choices")] == [f"{b}__r{{{{idx}}}}" for b in PERSON]


def test_every_question_is_required_with_the_bank_options_in_order() -> None:
    for c in _root().iter("Choices"):
        base = c.get("name").split("__r")[0]
        assert c.get("required") == "true"
        assert tuple(x.get("value") for x in c.findall("Choice")) == BANK.questions[base].options


def test_only_the_robot_direction_allows_several_choices() -> None:
    multiple = [c.get("name") for c in _root().iter("Choices") if c.get("choice") == "multiple"]
    assert multiple == ["q_robot_moving_direction"]


def test_each_question_text_comes_from_the_task_data() -> None:
    root = _root()
    texts = {t.get("name"): t.get("value") for t in root.iter("Text")}
    for c in root.iter("Choices"):
        name = c.get("name")
        base = name.split("__r")[0]
        want = f"$people[{{{{idx}}}}].{base}" if "__r" in name else f"${base}"
        assert texts[c.get("toName")] == want
