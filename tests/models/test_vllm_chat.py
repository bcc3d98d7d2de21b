"""Chat prompts for vLLM's engine (``socialbench.models.vllm_chat``), with fake tokenizers
standing in for a model's chat template."""

from __future__ import annotations

import sys

import pytest

from socialbench.models.base import ModelError
from socialbench.models.vllm_chat import ChatPrompter, ChatTemplateError, processor_chat_template
from socialbench.types import EncodedImage, Request
from vllm_fakes import (
    FakeTokenizer,
    FakeVLLM,
    ImageDroppingTokenizer,
    NoSystemRoleTokenizer,
    NoTemplateTokenizer,
    PlainTextTokenizer,
    png,
    prompt_text,
)


def checked(tokenizer: FakeTokenizer, images_first: bool = False) -> ChatPrompter:
    prompter = ChatPrompter(tokenizer, None, images_first)
    prompter.check()
    return prompter


def test_prompt_is_the_rendered_conversation_encoded_without_extra_special_tokens():
    tokenizer = FakeTokenizer()
    prompt = checked(tokenizer).prompt(Request(prompt="which way?", system="be brief"))
    assert prompt_text(prompt) == "<|system|>be brief<|user|>which way?<|assistant|>"
    assert tokenizer.special_tokens[-1] is False and "multi_modal_data" not in prompt


def test_images_follow_the_prompt_text_in_their_order():
    prompt = checked(FakeTokenizer()).prompt(Request(prompt="p", images=(png(1, 1), png(3, 2))))
    assert prompt_text(prompt) == "<|user|>p<image><image><|assistant|>"
    assert [im.size for im in prompt["multi_modal_data"]["image"]] == [(1, 1), (3, 2)]


def test_images_first_puts_the_images_before_the_prompt_text():
    prompt = checked(FakeTokenizer(), images_first=True).prompt(Request(prompt="p", images=(png(1, 1),)))
    assert prompt_text(prompt) == "<|user|><image>p<|assistant|>"


def test_one_image_is_passed_alone_not_in_a_list():
    prompt = checked(FakeTokenizer()).prompt(Request(prompt="p", images=(png(2, 2),)))
    assert prompt["multi_modal_data"]["image"].size == (2, 2)


def test_images_are_decoded_to_rgb():
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("L", (2, 2), 128).save(buf, format="PNG")
    prompt = checked(FakeTokenizer()).prompt(
        Request(prompt="p", images=(EncodedImage(buf.getvalue(), "image/png", 2, 2),))
    )
    assert prompt["multi_modal_data"]["image"].mode == "RGB"


def test_undecodable_image_is_a_bad_request_naming_it():
    request = Request(prompt="p", images=(png(1, 1), EncodedImage(b"junk", "image/jpeg", 1, 1)))
    with pytest.raises(ModelError, match=r"bad_request: image 1 \(image/jpeg\) cannot be decoded"):
        checked(FakeTokenizer()).prompt(request)


def test_template_without_a_system_role_gets_the_system_text_in_the_prompt():
    prompt = checked(NoSystemRoleTokenizer()).prompt(Request(prompt="which way?", system="be brief"))
    assert prompt_text(prompt) == "<|user|>be brief\n\nwhich way?<|assistant|>"


def test_processor_template_is_passed_to_the_tokenizer():
    tokenizer = FakeTokenizer()
    ChatPrompter(tokenizer, "{{ processor template }}").prompt(Request(prompt="p"))
    assert tokenizer.templates == ["{{ processor template }}"]


def test_plain_text_only_template_is_refused():
    with pytest.raises(ChatTemplateError, match="takes only plain-text content; serve the model with `vllm serve`"):
        checked(PlainTextTokenizer())


def test_template_that_drops_images_is_refused():
    with pytest.raises(ChatTemplateError, match="drops image parts"):
        checked(ImageDroppingTokenizer())


def test_tokenizer_without_a_chat_template_is_refused_with_its_reason():
    with pytest.raises(ChatTemplateError, match="cannot render a prompt: ValueError: .*chat_template is not set"):
        checked(NoTemplateTokenizer())


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
