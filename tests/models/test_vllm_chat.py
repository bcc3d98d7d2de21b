"""Chat conversations for vLLM's ``LLM.chat`` (``socialbench.models.vllm_chat``), with fake
tokenizers standing in for a model's chat template."""

from __future__ import annotations

import base64
import sys

import pytest

from socialbench.models.base import ModelError
from socialbench.models.vllm_chat import (
    check_images,
    image_part,
    openai_messages,
    processor_chat_template,
    template_has_system_role,
)
from socialbench.types import EncodedImage, Request
from vllm_fakes import BrokenTemplateTokenizer, FakeTokenizer, FakeVLLM, NoSystemRoleTokenizer, png


def test_system_text_is_a_system_turn_before_the_user_turn():
    messages = openai_messages(Request(prompt="which way?", system="be brief"))
    assert messages == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "which way?"}]},
    ]


def test_images_follow_the_prompt_text_in_their_order():
    first, second = png(1, 1), png(3, 2)
    (user,) = openai_messages(Request(prompt="p", images=(first, second)))
    assert user["content"][1:] == [image_part(first), image_part(second)]


def test_images_first_puts_the_images_before_the_prompt_text():
    (user,) = openai_messages(Request(prompt="p", images=(png(1, 1),)), images_first=True)
    assert [p["type"] for p in user["content"]] == ["image_url", "text"]


def test_without_a_system_role_the_system_text_leads_the_prompt():
    (user,) = openai_messages(Request(prompt="which way?", system="be brief"), system_role=False)
    assert user["content"] == [{"type": "text", "text": "be brief\n\nwhich way?"}]


def test_an_image_part_is_a_data_url_of_the_images_own_bytes():
    image = png(2, 2)
    url = image_part(image)["image_url"]["url"]
    assert url.startswith("data:image/png;base64,") and base64.b64decode(url.split(",", 1)[1]) == image.data


def test_an_unreadable_image_is_a_bad_request_naming_it():
    with pytest.raises(ModelError, match=r"bad_request: image 1 \(image/jpeg\) cannot be decoded"):
        check_images((png(1, 1), EncodedImage(b"junk", "image/jpeg", 1, 1)))


def test_a_template_with_a_system_role_keeps_it():
    assert template_has_system_role(FakeTokenizer(), None) is True


def test_a_template_that_raises_on_a_system_turn_has_no_system_role():
    assert template_has_system_role(NoSystemRoleTokenizer(), None) is False


def test_a_template_that_renders_nothing_is_not_blamed_on_the_system_role():
    assert template_has_system_role(BrokenTemplateTokenizer(), None) is True


def test_processor_chat_template_is_read_from_the_checkpoint(monkeypatch):
    fake = FakeVLLM()
    fake.processor_template = "{{ t }}"
    monkeypatch.setitem(sys.modules, "transformers", fake.transformers)
    assert processor_chat_template("org/m", "v1", True) == "{{ t }}"
    assert fake.processor_calls == [("org/m", {"revision": "v1", "trust_remote_code": True})]


def test_checkpoint_without_a_processor_has_no_processor_template(monkeypatch):
    fake = FakeVLLM()
    monkeypatch.setitem(sys.modules, "transformers", fake.transformers)
    assert processor_chat_template("org/text-only") is None
