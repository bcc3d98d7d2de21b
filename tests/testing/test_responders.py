"""Tests for the named responders of the scripted servers (socialbench.testing.responders)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from socialbench.benchmarks.roboteq.judgment_replies import parse_judgments
from socialbench.benchmarks.roboteq.prompts import grounding_prompt, scene_prompt
from socialbench.construction.behaviors import behavior_prompt, validate_behaviors
from socialbench.construction.filters import relevance_prompt, validate_relevance
from socialbench.construction.grounding_questions import question_prompt, validate_question
from socialbench.construction.image_prompts import validate_visual_prompt, visual_prompt_request
from socialbench.construction.review_criteria import KEYS, review_prompt, validate_review
from socialbench.construction.scenarios import beam_prompt, merge_prompt, validate_beam, validate_merge
from socialbench.construction.topics import topic_prompt, validate_topics
from socialbench.testing.responders import (
    first_option_responder,
    get_responder,
    parse_possible_answers,
    sampling_responder,
    valid_responder,
)

ROLE = "You are a hotel service robot. In the following scenario, what is your most appropriate next action?"
BEHAVIORS = [(1, "Knock and wait."), (2, "Open the door and enter."), (3, "Leave the tray outside.")]
SUB = {"category": "Retail", "subcategory": "Hotel", "role": "a hotel service robot", "description": "rooms"}
SCENARIO = {
    "title": "Late delivery",
    "description": "A guest waits at the door.",
    "decision_point": "knock or not",
    "subcategory": "Hotel",
    "category": "Retail",
    "role": "a hotel service robot",
}


def _ask(prompt: str) -> str:
    return valid_responder({"messages": [{"role": "user", "content": [{"type": "text", "text": prompt}]}]})


def test_scene_prompt_gets_a_label_for_every_behavior() -> None:
    parsed = parse_judgments(_ask(scene_prompt(ROLE, BEHAVIORS, "standard")), [1, 2, 3])
    assert all(parsed.values[k] in ("proper", "improper") for k in (1, 2, 3))


def test_scene_answers_are_deterministic() -> None:
    prompt = scene_prompt(ROLE, BEHAVIORS, "standard")
    assert _ask(prompt) == _ask(prompt)


def test_cot_scene_reply_carries_reasoning_and_a_valid_answer() -> None:
    reply = _ask(scene_prompt(ROLE, BEHAVIORS, "cot"))
    assert json.loads(reply)["reasoning"]
    assert None not in parse_judgments(reply, [1, 2, 3]).values.values()


def test_grounding_prompt_gets_a_letter_list() -> None:
    assert json.loads(_ask(grounding_prompt("Where should you wait?", {}, "standard"))) == {"answer": ["A"]}


@pytest.mark.parametrize(
    "stage", ["beam", "merge", "visual", "review", "behaviors", "relevance", "topics", "grounding-questions"]
)
def test_every_build_stage_reply_passes_its_validator(stage: str) -> None:
    cases: dict[str, tuple[str, Any]] = {
        "beam": (beam_prompt(SUB, 0, 2, 3), validate_beam(3)),
        "merge": (
            merge_prompt(SUB, [{**SCENARIO, "candidate": c, "spi_rationale": "r"} for c in ("b00-1", "b01-1")]),
            validate_merge(["b00-1", "b01-1"]),
        ),
        "visual": (visual_prompt_request(SCENARIO), validate_visual_prompt),
        "review": (review_prompt(SCENARIO, "a prompt"), validate_review),
        "behaviors": (behavior_prompt({"scenario": SCENARIO}, 2, 2), validate_behaviors(2, 2)),
        "relevance": (relevance_prompt(), validate_relevance),
        "topics": (topic_prompt(3), validate_topics(3)),
        "grounding-questions": (question_prompt("Where should you wait?"), validate_question),
    }
    prompt, validate = cases[stage]
    assert validate(json.loads(_ask(prompt)))


def test_review_reply_satisfies_every_criterion() -> None:
    assert json.loads(_ask(review_prompt(SCENARIO, "p")))["matrix"] == {k: True for k in KEYS}


def test_unknown_responder_name_lists_the_choices() -> None:
    with pytest.raises(ValueError, match="valid, first-option"):
        get_responder("smart")


SINGLE_PROMPT = (
    "Is the person moving toward the robot?\n"
    'Possible answers: "moving toward", "moving away", "not moving"\n'
    'Respond in JSON: {"answer": "<answer>"}'
)
MULTI_PROMPT = (
    "Where is person 2?\n"
    'Possible answers: "left", "ahead", "right"\n'
    'You may select one or two possible answers: {"answer": ["<answer1>", "<answer2>"]}'
)


def _chat(text: str) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": text}]}


def test_default_responder_picks_first_option() -> None:
    assert json.loads(first_option_responder(_chat(SINGLE_PROMPT))) == {"answer": "moving toward"}


def test_default_responder_answers_a_list_for_multi_select_format() -> None:
    assert json.loads(first_option_responder(_chat(MULTI_PROMPT))) == {"answer": ["left"]}


def test_default_responder_without_options_answers_ok() -> None:
    assert json.loads(first_option_responder(_chat("Describe the scene."))) == {"answer": "ok"}


def test_default_responder_reads_text_parts_of_the_last_user_message() -> None:
    body = {
        "messages": [
            {"role": "user", "content": 'Possible answers: "old"'},
            {"role": "assistant", "content": '{"answer": "old"}'},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": 'Q2\nPossible answers: "new one", "other"'},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                ],
            },
        ]
    }
    assert json.loads(first_option_responder(body)) == {"answer": "new one"}


def test_parse_possible_answers_keeps_commas_inside_quotes() -> None:
    assert parse_possible_answers('Possible answers: "a, b", "c"') == ["a, b", "c"]


# --------------------------------------------------------------------------- sampling

CHOICE_PROMPT = 'Where is person 1?\nPossible answers: "left", "ahead", "right", "behind"\nRespond as JSON.'


def _body(temperature: float | None = None, prompt: str = CHOICE_PROMPT) -> dict[str, Any]:
    body: dict[str, Any] = {"messages": [{"role": "user", "content": prompt}]}
    if temperature is not None:
        body["temperature"] = temperature
    return body


def test_sampling_at_temperature_0_answers_like_the_valid_responder() -> None:
    respond = sampling_responder(seed=1)
    assert {respond(_body(0.0)) for _ in range(5)} == {valid_responder(_body(0.0))}


def test_sampling_at_the_default_temperature_varies_between_asks() -> None:
    respond = sampling_responder(seed=1)
    answers = {json.loads(respond(_body()))["answer"] for _ in range(20)}
    assert len(answers) > 1 and answers <= {"left", "ahead", "right", "behind"}


def test_sampling_draws_depend_on_the_seed_not_on_the_responder_instance() -> None:
    first, again = sampling_responder(seed=4), sampling_responder(seed=4)
    assert [first(_body(1.0)) for _ in range(10)] == [again(_body(1.0)) for _ in range(10)]


def test_sampling_is_selectable_by_name() -> None:
    respond = get_responder("sampling")
    assert json.loads(respond(_body(1.0)))["answer"] in {"left", "ahead", "right", "behind"}
