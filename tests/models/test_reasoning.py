"""Reasoning switch and reasoning sections of in-process models (``socialbench.models.reasoning``)."""

from __future__ import annotations

import pytest

from socialbench.models.reasoning import (
    SplitReply,
    reasoning_token_count,
    split_reasoning,
    takes_thinking_switch,
    template_kwargs,
    thinking_switch,
)

QWEN3_LIKE = "{%- if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>{%- endif %}"


@pytest.mark.parametrize(
    "effort, switch", [("none", False), ("minimal", True), ("low", True), ("medium", True), ("high", True)]
)
def test_reasoning_effort_is_the_thinking_switch(effort, switch):
    assert thinking_switch(effort) is switch


def test_unset_reasoning_effort_is_no_switch():
    assert thinking_switch(None) is None


def test_a_template_reading_enable_thinking_takes_the_switch():
    assert takes_thinking_switch(QWEN3_LIKE) and not takes_thinking_switch("{{ messages }}")


def test_a_missing_template_takes_no_switch():
    assert not takes_thinking_switch(None)


def test_template_kwargs_pass_the_switch_to_a_template_that_takes_it():
    assert template_kwargs(QWEN3_LIKE, "none") == {"enable_thinking": False}


def test_template_kwargs_are_empty_for_a_template_without_the_switch():
    assert template_kwargs("{{ messages }}", "high") == {}


def test_template_kwargs_are_empty_when_no_effort_is_set():
    assert template_kwargs(QWEN3_LIKE, None) == {}


def test_a_closed_reasoning_section_is_taken_out_of_the_answer():
    assert split_reasoning('<think>\nleft is blocked\n</think>\n\n{"answer": "right"}') == SplitReply(
        '{"answer": "right"}', "left is blocked"
    )


def test_a_section_opened_by_the_template_is_taken_out_too():
    assert split_reasoning('weighing it</think>{"answer": "A"}') == SplitReply('{"answer": "A"}', "weighing it")


def test_a_reply_cut_off_inside_its_reasoning_has_no_answer():
    assert split_reasoning("<think>first the robot") == SplitReply("", "first the robot", open_ended=True)


def test_a_reply_without_a_reasoning_section_is_all_answer():
    assert split_reasoning(' {"answer": "A"} ') == SplitReply(' {"answer": "A"} ')


def test_an_empty_reasoning_section_of_thinking_switched_off_is_kept_empty():
    assert split_reasoning('<think>\n\n</think>\n\n{"answer": "A"}') == SplitReply('{"answer": "A"}', "")


def test_reasoning_tokens_run_up_to_the_end_token():
    assert reasoning_token_count([5, 6, 7, 99, 8], 99) == 4


def test_reasoning_tokens_are_zero_without_a_single_end_token():
    assert (reasoning_token_count([5, 6], 99), reasoning_token_count([5, 99], None)) == (0, 0)
