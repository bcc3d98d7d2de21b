"""A Messages API answer read: the reply body as a :class:`~socialbench.types.Generation`
(text, thinking as reasoning, usage) or the model error of its kind, and the message of an
error body.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from socialbench.models.base import FatalModelError, RetryableModelError
from socialbench.models.error_body import error_info
from socialbench.models.openai_compat import usage_count
from socialbench.types import Generation, Usage

_MAX_MESSAGE_CHARS = 300


def error_message(body: object, fallback: str) -> str:
    """``error.message`` of an Anthropic error body (``{"type": "error", "error": {...}}``),
    or the message of any other shape a proxy answers with
    (:func:`~socialbench.models.error_body.error_info`)."""
    return error_info(body, fallback).message


def parse_message(body_text: str) -> Generation:
    """Turn a Messages API response body into a :class:`Generation` or raise."""
    try:
        data = json.loads(body_text)
        if not isinstance(data, Mapping) or not isinstance(data.get("content"), list):
            raise TypeError("no content list")
    except (ValueError, TypeError) as exc:
        snippet = body_text[:120].replace("\n", " ")
        raise RetryableModelError(
            "malformed_response", f"undecodable message ({type(exc).__name__}): {snippet!r}"
        ) from None
    stop_reason = data.get("stop_reason")
    blocks = [block for block in data["content"] if isinstance(block, Mapping)]
    text = "".join(str(block.get("text", "")) for block in blocks if block.get("type") == "text")
    # extended thinking: kept in the record, never parsed (redacted thinking has no text)
    thoughts = [str(block.get("thinking", "")) for block in blocks if block.get("type") == "thinking"]
    reasoning = "\n\n".join(t for t in thoughts if t.strip()) or None
    usage = data.get("usage")
    usage = usage if isinstance(usage, Mapping) else {}
    prompt_tokens = sum(
        usage_count(usage.get(name))
        for name in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    )
    spent = Usage(prompt_tokens=prompt_tokens, completion_tokens=usage_count(usage.get("output_tokens")))
    ended = stop_reason if isinstance(stop_reason, str) else None
    if stop_reason == "refusal":
        raise FatalModelError(
            "refusal", f"stop_reason=refusal {text}".strip()[:_MAX_MESSAGE_CHARS], usage=spent, finish_reason=ended
        )
    if not text.strip():  # billed all the same: the usage and why it ended stay on the record
        if reasoning is not None and stop_reason == "max_tokens":
            raise FatalModelError(
                "empty_response",
                "the reply ended inside its thinking (stop_reason=max_tokens): give --max-tokens more room",
                usage=spent,
                finish_reason=ended,
            )
        raise FatalModelError(
            "empty_response", f"no text content (stop_reason={stop_reason})", usage=spent, finish_reason=ended
        )
    return Generation(text=text, usage=spent, reasoning=reasoning, finish_reason=ended)
