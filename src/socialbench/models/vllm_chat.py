"""Chat prompts for vLLM's engine: a :class:`~socialbench.types.Request` -> the prompt that
``LLMEngine.add_request`` takes (token ids plus the decoded images).

``LLM.chat`` renders a whole list of conversations and then runs them to completion, so it
cannot take a request while others are running; the ``vllm:`` backend therefore feeds the
engine itself, one request at a time, and renders each request the way ``LLM.chat`` does for
a model whose chat template takes typed content parts:

* the conversation (:func:`~socialbench.models.hf_local.build_chat`): an optional system
  turn, then one user turn with the prompt text and one ``{"type": "image"}`` part per image
  (after the text, or before it with ``images_first``);
* the template: the model's processor chat template when it has one (vLLM's first choice for
  multimodal models), else the tokenizer's own; applied by the engine's tokenizer with the
  generation prompt added;
* the rendered text is encoded without adding special tokens (the template holds them) and
  sent as ``{"prompt_token_ids": [...], "multi_modal_data": {"image": ...}}`` with the images
  decoded to RGB in the prompt's order (one image alone, several as a list: the form every
  vLLM of the supported range accepts); vLLM's multimodal processor expands each image
  placeholder into the model's image tokens.

:meth:`ChatPrompter.check` renders probe conversations when the engine loads and refuses a
template that cannot place images (one that takes only plain-text content, or that drops
image parts), so such a model fails at load with one clear error instead of sending prompts
without their images. A template that rejects a system turn gets the system text in front
of the prompt instead (as ``hf:`` does).
"""

from __future__ import annotations

import io
import logging
from collections.abc import Sequence
from typing import Any, Protocol

from socialbench.models.base import FatalModelError
from socialbench.models.hf_local import build_chat
from socialbench.types import EncodedImage, Request

log = logging.getLogger(__name__)

_PROBE_TEXT = "socialbench-probe-text"
SERVE_INSTEAD = "serve the model with `vllm serve` and use openai:MODEL@URL (its chat parser inserts the model's image placeholders)"


class ChatTemplateError(ValueError):
    """The model's chat template cannot place the images of a prompt."""


class ChatTokenizer(Protocol):
    """What :class:`ChatPrompter` needs of the engine's (Hugging Face) tokenizer."""

    def apply_chat_template(self, conversation: Any, **kwargs: Any) -> Any: ...

    def encode(self, text: str, **kwargs: Any) -> list[int]: ...


def processor_chat_template(source: str, revision: str | None = None, trust_remote_code: bool = False) -> str | None:
    """The chat template of the checkpoint's processor, or None when it has no processor or
    its processor has no template (the tokenizer's own template is used then)."""
    try:
        from transformers import AutoProcessor

        processor = AutoProcessor.from_pretrained(source, revision=revision, trust_remote_code=trust_remote_code)
    except Exception as exc:  # noqa: BLE001 - a text-only checkpoint has no processor
        log.info("%s: no processor chat template (%s: %s); using the tokenizer's", source, type(exc).__name__, exc)
        return None
    template = getattr(processor, "chat_template", None)
    return template if isinstance(template, str) and template else None


def decode_images(images: Sequence[EncodedImage]) -> list[Any]:
    """Each encoded image as an RGB PIL image; an undecodable one is that request's
    ``bad_request``."""
    from PIL import Image

    decoded = []
    for index, encoded in enumerate(images):
        try:
            with Image.open(io.BytesIO(encoded.data)) as raw:
                decoded.append(raw.convert("RGB"))
        except Exception as exc:  # noqa: BLE001 - any decoder failure
            raise FatalModelError(
                "bad_request", f"image {index} ({encoded.mime}) cannot be decoded: {type(exc).__name__}"
            ) from None
    return decoded


class ChatPrompter:
    """Renders requests with one model's chat template into engine prompts (see the module
    docstring)."""

    def __init__(self, tokenizer: ChatTokenizer, template: str | None = None, images_first: bool = False) -> None:
        self.tokenizer = tokenizer
        self.template = template
        self.images_first = images_first
        self.system_role = True

    def render(self, conversation: list[dict[str, Any]]) -> str:
        """The template applied to ``conversation``, generation prompt added, as text."""
        text = self.tokenizer.apply_chat_template(
            conversation, chat_template=self.template, tokenize=False, add_generation_prompt=True
        )
        if not isinstance(text, str):
            raise ChatTemplateError(f"the chat template rendered {type(text).__name__}, not text")
        return text

    def check(self) -> None:
        """Refuse a template that cannot place images; fall back to system text in the
        prompt when it rejects a system turn. Raises :class:`ChatTemplateError`."""
        text = {"type": "text", "text": _PROBE_TEXT}
        try:
            plain = self.render([{"role": "user", "content": [text]}])
            with_image = self.render([{"role": "user", "content": [text, {"type": "image"}]}])
        except ChatTemplateError:
            raise
        except Exception as exc:  # noqa: BLE001 - a missing template, a template error
            raise ChatTemplateError(f"the chat template cannot render a prompt: {type(exc).__name__}: {exc}") from None
        if _PROBE_TEXT not in plain or "'type'" in plain or '"type"' in plain:
            raise ChatTemplateError(f"the chat template takes only plain-text content; {SERVE_INSTEAD}")
        if with_image == plain:
            raise ChatTemplateError(f"the chat template drops image parts; {SERVE_INSTEAD}")
        try:
            self.render(
                [{"role": "system", "content": [{"type": "text", "text": "s"}]}, {"role": "user", "content": [text]}]
            )
        except Exception:  # noqa: BLE001 - templates without a system role raise
            log.info("chat template has no system role; system text goes into the prompt")
            self.system_role = False

    def prompt(self, request: Request) -> dict[str, Any]:
        """The engine prompt for ``request``: its token ids and, if it has images, the decoded
        images. Raises ``bad_request`` for an undecodable image."""
        images = decode_images(request.images)
        text = self.render(build_chat(request, self.images_first, system_role=self.system_role))
        prompt: dict[str, Any] = {"prompt_token_ids": list(self.tokenizer.encode(text, add_special_tokens=False))}
        if images:
            prompt["multi_modal_data"] = {"image": images[0] if len(images) == 1 else images}
        return prompt
