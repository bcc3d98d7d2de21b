"""RobotEQ prompts, per-behavior reply parsing and token estimates."""

from __future__ import annotations

import json

import pytest

from socialbench.benchmarks.roboteq.grounding_replies import parse_grounding, parse_grounding_letters
from socialbench.benchmarks.roboteq.judgment_replies import parse_judgments
from socialbench.benchmarks.roboteq.prompts import behavior_prompt, grounding_prompt, rag_block, scene_prompt
from socialbench.benchmarks.roboteq.tokens import approx_tokens, image_tokens

ROLE = "You are a cafe service robot. In the following scenario, what is your most appropriate next action?"
BEHAVIORS = [(1, "Recommend desserts."), (2, "Ask the customer to move."), (3, "Step back.")]


def test_scene_prompt_lists_every_behavior_with_its_number() -> None:
    p = scene_prompt(ROLE, BEHAVIORS, "standard")
    assert p.startswith(ROLE)
    assert "[1] Recommend desserts.\n[2] Ask the customer to move.\n[3] Step back." in p
    assert '"answer": {"1": "<proper|improper>", "2": "<proper|improper>"}' in p


def test_no_image_prompt_does_not_point_at_an_image() -> None:
    with_img = scene_prompt(ROLE, BEHAVIORS, "standard")
    without = scene_prompt(ROLE, BEHAVIORS, "no-image")
    assert "image from your camera" in with_img
    assert "image from your camera" not in without and "No image is available" in without


def test_cot_prompt_asks_for_reasoning_inside_the_json() -> None:
    p = behavior_prompt(ROLE, "Step back.", "cot")
    assert '"reasoning"' in p and "step by step" in p
    assert 'Possible answers: "proper", "improper"' in p


def test_rag_text_comes_before_the_role() -> None:
    block = rag_block([("Privacy", "Do not read screens.")])
    p = grounding_prompt("Where do you wait?", {}, "rag", block)
    assert p.startswith("Reference social norms") and p.index("Do not read screens.") < p.index("Where do you wait?")


def test_grounding_prompt_lists_region_descriptions() -> None:
    p = grounding_prompt("Which path?", {"A": "left", "C": "middle"}, "standard")
    assert "A: left\nC: middle" in p
    assert 'Possible answers: "A", "B", "C", "D"' in p


def test_rag_block_is_empty_without_documents() -> None:
    assert rag_block([]) == ""


KS = [1, 2, 3]


def test_json_object_gives_one_label_per_behavior() -> None:
    r = parse_judgments('{"answer": {"1": "proper", "2": "Improper", "3": "proper"}}', KS)
    assert r.values == {1: "proper", 2: "improper", 3: "proper"} and r.method == "json"


def test_missing_judgment_is_invalid_for_that_behavior_only() -> None:
    r = parse_judgments('{"answer": {"1": "proper", "3": "improper"}}', KS)
    assert r.values == {1: "proper", 2: None, 3: "improper"}


def test_conflicting_duplicate_judgment_is_invalid_for_that_behavior_only() -> None:
    r = parse_judgments('{"answer": {"1": "proper", "2": "proper", "2": "improper", "3": "proper"}}', KS)
    assert r.values == {1: "proper", 2: None, 3: "proper"}


def test_repeated_json_judgment_is_an_extra_judgment() -> None:
    r = parse_judgments('{"answer": {"1": "proper", "2": "proper", "[2]": "proper", "3": "proper"}}', KS)
    assert r.values == {1: "proper", 2: None, 3: "proper"}


def test_repeated_plain_line_with_the_same_label_is_accepted() -> None:
    r = parse_judgments("[1] proper\n[2] improper\n[3] proper\nSummary:\n[2] improper", KS)
    assert r.values == {1: "proper", 2: "improper", 3: "proper"}


def test_judgment_for_an_unknown_behavior_is_ignored() -> None:
    r = parse_judgments('{"answer": {"1": "proper", "2": "proper", "3": "proper", "4": "improper"}}', KS)
    assert r.values == {1: "proper", 2: "proper", 3: "proper"} and r.extra == ("4",)


def test_value_that_is_not_a_label_is_invalid() -> None:
    r = parse_judgments('{"answer": {"1": "maybe", "2": "proper", "3": true}}', KS)
    assert r.values == {1: None, 2: "proper", 3: None}


def test_last_json_object_wins_after_reasoning() -> None:
    text = 'Example: {"answer": {"1": "improper"}}\nFinal:\n```json\n{"answer": {"[1]": "proper", "b2": "improper", "behavior 3": "proper"}}\n```'
    assert parse_judgments(text, KS).values == {1: "proper", 2: "improper", 3: "proper"}


def test_cot_reasoning_field_is_ignored() -> None:
    text = json.dumps({"reasoning": "The guest is busy.", "answer": {"1": "improper", "2": "improper", "3": "proper"}})
    assert parse_judgments(text, KS).values == {1: "improper", 2: "improper", 3: "proper"}


def test_list_of_labels_is_read_in_order_when_complete() -> None:
    assert parse_judgments('{"answer": ["proper", "improper", "proper"]}', KS).values == {
        1: "proper",
        2: "improper",
        3: "proper",
    }
    assert parse_judgments('{"answer": ["proper", "improper"]}', KS).values == {1: None, 2: None, 3: None}


def test_list_of_objects_is_matched_by_number() -> None:
    text = '{"answer": [{"k": 3, "label": "improper"}, {"id": 1, "judgment": "proper"}]}'
    assert parse_judgments(text, KS).values == {1: "proper", 2: None, 3: "improper"}


def test_plain_lines_are_read_leniently() -> None:
    r = parse_judgments("[1] proper\n2: improper\nBehavior 3 - step back: proper", KS)
    assert r.values == {1: "proper", 2: "improper", 3: "proper"} and r.method == "lenient"


def test_a_single_label_answers_a_one_behavior_scene_only() -> None:
    assert parse_judgments('{"answer": "proper"}', [4]).values == {4: "proper"}
    assert parse_judgments('{"answer": "proper"}', KS).values == {1: None, 2: None, 3: None}


def test_empty_reply_is_invalid() -> None:
    r = parse_judgments("", KS)
    assert r.values == {1: None, 2: None, 3: None} and r.method is None


def test_grounding_letters_from_an_answer_phrase() -> None:
    assert parse_grounding_letters("Region B is busy.\nAnswer: C and A") == ["A", "C"]


def test_grounding_letters_ignore_words_starting_with_a() -> None:
    assert parse_grounding_letters("A robot should wait. The answer is all of them.") is None


# --- regressions: an explicit answer decides, nothing is guessed


@pytest.mark.parametrize(
    "reply",
    [
        '{"reasoning": "The answer is B since the door is there.", "answer": []}',
        '{"reasoning": "answer: B", "answer": ["E"]}',
        '{"reasoning": "Answer: C", "answer": "none"}',
    ],
)
def test_grounding_json_answer_without_valid_letters_is_invalid_not_read_from_reasoning(reply: str) -> None:
    assert parse_grounding(reply) == (None, None)


@pytest.mark.parametrize(
    "reply",
    [
        "Regions A and C are correct, region B is not.",
        "Option B looks free; I choose C maybe.",
    ],
)
def test_grounding_region_and_option_words_are_never_answers(reply: str) -> None:
    assert parse_grounding(reply) == (None, None)


def test_grounding_answer_phrase_is_not_overridden_by_later_option_words() -> None:
    assert parse_grounding("The answer is A and C. Option B is wrong.") == (["A", "C"], "strict")


def test_grounding_answer_phrase_must_end_at_its_letter_list() -> None:
    assert parse_grounding("Answer: A person near region C") == (None, None)


@pytest.mark.parametrize(
    "reply, letters",
    [('{"answer": "A, C"}', ["A", "C"]), ('{"answer": "AC"}', ["A", "C"]), ('{"answer": ["b", "D."]}', ["B", "D"])],
)
def test_grounding_json_answer_strings_go_through_parse_letters(reply: str, letters: list[str]) -> None:
    assert parse_grounding(reply) == (letters, "json")


def test_grounding_cut_off_json_reply_reads_only_its_answer_key() -> None:
    assert parse_grounding('{"reasoning": "The answer is B since') == (None, None)
    assert parse_grounding('{"reasoning": "the answer is B", "answer": ["C", "D"') == (["C", "D"], "strict")


def test_grounding_reply_that_is_only_letters_is_read() -> None:
    assert parse_grounding("A, C") == (["A", "C"], "strict")


def test_flat_object_with_an_extra_key_keeps_its_numbered_judgments() -> None:
    r = parse_judgments('{"1": "proper", "2": "improper", "3": "proper", "note": "x"}', KS)
    assert r.values == {1: "proper", 2: "improper", 3: "proper"} and r.extra == ("note",) and r.method == "json"


def test_later_answer_object_without_judgments_does_not_override_an_earlier_one() -> None:
    text = '```json\n{"answer": {"1": "proper", "2": "improper", "3": "proper"}}\n```\n{"answer": "done"}'
    assert parse_judgments(text, KS).values == {1: "proper", 2: "improper", 3: "proper"}


def test_answer_without_judgments_decides_and_plain_lines_are_not_searched() -> None:
    r = parse_judgments('{"answer": "done"}\n[1] proper\n[2] proper\n[3] proper', KS)
    assert r.values == {1: None, 2: None, 3: None} and r.method is None


@pytest.mark.parametrize(
    "line",
    [
        "[1] Proper greeting would be improper",
        "1. Walking in is improper, while knocking is proper",
        "1) It is not proper to interrupt",
        "1: proper/improper",
    ],
)
def test_plain_line_that_names_a_label_ambiguously_is_invalid_for_that_behavior(line: str) -> None:
    r = parse_judgments(f"{line}\n[2] improper\n[3] proper", KS)
    assert r.values == {1: None, 2: "improper", 3: "proper"}


def test_plain_line_with_one_label_word_after_the_behavior_is_read() -> None:
    r = parse_judgments("1. Walking in unannounced is improper\n[2] improper: too loud\n3 - proper.", KS)
    assert r.values == {1: "improper", 2: "improper", 3: "proper"}


def test_approx_tokens_is_a_quarter_of_the_characters_rounded_up() -> None:
    assert approx_tokens("") == 0
    assert approx_tokens("abcd") == 1
    assert approx_tokens("abcde") == 2


@pytest.mark.parametrize(
    "size, scheme, tokens",
    [
        ((768, 432), "tiles", 85 + 170 * 2 * 1),  # fits; 2 x 1 tiles of 512
        ((1376, 768), "tiles", 85 + 170 * 3 * 2),  # short side already 768: 1376x768 -> 3 x 2 tiles
        ((4096, 2048), "tiles", 85 + 170 * 3 * 2),  # -> 2048x1024 -> 1536x768 -> 3 x 2 tiles
        ((768, 432), "patch28", 28 * 16),
    ],
)
def test_image_tokens_follow_the_documented_formula(size: tuple[int, int], scheme: str, tokens: int) -> None:
    assert image_tokens(*size, scheme=scheme) == tokens


def test_image_tokens_reject_an_unknown_scheme() -> None:
    with pytest.raises(ValueError, match="unknown image token scheme"):
        image_tokens(10, 10, scheme="magic")


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGALRM"), reason="POSIX signals")
def test_grounding_reply_with_a_long_run_of_spaces_is_read_without_backtracking() -> None:
    """An ambiguous separator pattern took minutes here; the bound is generous (it takes ms)."""
    import signal

    def expired(signum, frame):
        raise AssertionError("parse_grounding ran past 60 s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(60)
    try:
        assert parse_grounding("a" + " " * 200_000 + "x") == (None, None)
        assert parse_grounding("Answer: A" + " " * 200_000 + "C") == (["A", "C"], "strict")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
