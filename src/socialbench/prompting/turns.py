"""The user turn of a request: its prompt text and its images, in one order. Every backend and
``export sft`` lay it out with :func:`user_content`, so a model fine-tuned on the export sees
what ``eval`` sends: the text, then one part per image (the official GPT-4o order), or the
images first with ``images_first``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict, TypeVar

__all__ = ["ChatMessage", "user_content", "user_turn"]

Part = TypeVar("Part")


class ChatMessage(TypedDict):
    """A processor-style chat message: ``role`` and its typed parts (``{"type": "text",
    "text": ...}``, ``{"type": "image"}``)."""

    role: str
    content: list[dict[str, str]]


def user_content(text: Part, images: Sequence[Part], images_first: bool = False) -> list[Part]:
    """The content parts of the user turn in their order: ``[text, *images]``, or
    ``[*images, text]`` when ``images_first``. The parts are the caller's own (an OpenAI
    ``image_url`` part, an Anthropic image block, a processor's ``{"type": "image"}``)."""
    return [*images, text] if images_first else [text, *images]


def user_turn(prompt: str, n_images: int, images_first: bool = False) -> ChatMessage:
    """The processor-style user message (the form chat templates and TRL's ``SFTTrainer``
    take): ``{"role": "user", "content": [{"type": "text", "text": prompt}, {"type":
    "image"}, ...]}`` with ``n_images`` image parts placed by :func:`user_content`."""
    if n_images < 0:
        raise ValueError(f"n_images must be >= 0 (got {n_images})")
    images = [{"type": "image"} for _ in range(n_images)]
    return {"role": "user", "content": user_content({"type": "text", "text": prompt}, images, images_first)}
