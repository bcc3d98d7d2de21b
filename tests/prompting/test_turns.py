"""The user turn every backend and ``export sft`` lay out (socialbench.prompting.turns)."""

from __future__ import annotations

import pytest

from socialbench.prompting.turns import user_content, user_turn


def test_user_content_puts_the_text_first_by_default():
    assert user_content("T", ["I1", "I2"]) == ["T", "I1", "I2"]


def test_user_content_puts_the_images_first_when_asked():
    assert user_content("T", ["I1", "I2"], images_first=True) == ["I1", "I2", "T"]


def test_user_turn_is_a_processor_style_user_message():
    assert user_turn("hello", 1) == {"role": "user", "content": [{"type": "text", "text": "hello"}, {"type": "image"}]}


def test_user_turn_without_images_holds_the_text_alone():
    assert user_turn("hello", 0)["content"] == [{"type": "text", "text": "hello"}]


def test_user_turn_refuses_a_negative_image_count():
    with pytest.raises(ValueError, match="n_images"):
        user_turn("hello", -1)
