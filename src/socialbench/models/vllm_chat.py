"""Chat messages for vLLM's ``LLM.chat``: a :class:`~socialbench.types.Request` -> one
conversation in the OpenAI message format, rendered by vLLM with the model's own template.

An optional system turn, then one user turn with a ``text`` part and one ``image_url``
part (a ``data:`` URL of the request's bytes) per image, in the layout of every backend
(:func:`socialbench.prompting.turns.user_content`). A template without a system role
(:func:`template_has_system_role`) gets the system text in front of the prompt, as ``hf:``
does. :func:`processor_chat_template` reads the template vLLM will use.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Mapping, Sequence
from typing import Protocol

from socialbench.models.base import FatalModelError
from socialbench.prompting.turns import user_content
from socialbench.types import EncodedImage, Request

log = logging.getLogger(__name__)


class ChatTokenizer(Protocol):
    """What :func:`template_has_system_role` needs of the engine's (Hugging Face) tokenizer."""

    def apply_chat_template(self, conversation: Sequence[Mapping[str, object]], **kwargs: object) -> object: ...


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


def check_images(images: Sequence[EncodedImage]) -> None:
    """Refuse a request whose image cannot be read (its header is checked, the pixels are
    decoded by vLLM): ``bad_request`` naming the image, for that request only."""
    from PIL import Image

    for index, encoded in enumerate(images):
        try:
            with Image.open(io.BytesIO(encoded.data)):
                pass
        except Exception as exc:  # noqa: BLE001 - any decoder failure
            raise FatalModelError(
                "bad_request", f"image {index} ({encoded.mime}) cannot be decoded: {type(exc).__name__}"
            ) from None


def image_part(image: EncodedImage) -> dict[str, object]:
    """An ``image_url`` content part holding the image's bytes as a ``data:`` URL."""
    return {"type": "image_url", "image_url": {"url": f"data:{image.mime};base64,{image.b64}"}}


def openai_messages(request: Request, images_first: bool = False, system_role: bool = True) -> list[dict[str, object]]:
    """The request as one conversation in the OpenAI message format (see the module
    docstring). With ``system_role=False`` the system text goes before the prompt."""
    prompt = request.prompt
    messages: list[dict[str, object]] = []
    if request.system:
        if system_role:
            messages.append({"role": "system", "content": request.system})
        else:
            prompt = f"{request.system}\n\n{prompt}"
    text = {"type": "text", "text": prompt}
    images = [image_part(image) for image in request.images]
    messages.append({"role": "user", "content": user_content(text, images, images_first)})
    return messages


def template_has_system_role(tokenizer: ChatTokenizer, template: str | None) -> bool:
    """Whether the chat template renders a system turn (some VLM templates raise on one).
    Probed with string and with typed-part content; a template that renders neither a
    system turn nor a user turn alone is not blamed on the system role (True)."""
    user_only = [{"role": "user", "content": "u"}]
    with_system = [{"role": "system", "content": "s"}, *user_only]
    parts = [{"role": m["role"], "content": [{"type": "text", "text": m["content"]}]} for m in with_system]
    for conversation in (with_system, parts):
        try:
            tokenizer.apply_chat_template(
                conversation, chat_template=template, tokenize=False, add_generation_prompt=True
            )
            return True
        except Exception:  # noqa: BLE001 - templates without a system role raise
            continue
    try:
        tokenizer.apply_chat_template(user_only, chat_template=template, tokenize=False, add_generation_prompt=True)
    except Exception:  # noqa: BLE001 - the template fails anyway: LLM.chat reports why, per request
        return True
    log.info("chat template has no system role; system text goes into the prompt")
    return False
