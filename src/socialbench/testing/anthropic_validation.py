"""Checks of a Messages API request as the real API makes them: the key headers, and a body
whose every field is well formed (``None``, or the message of a 400 naming the field)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping

IMAGE_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")


def _text_blocks_ok(value: object, where: str) -> str | None:
    if isinstance(value, str):
        return None
    if not isinstance(value, list):
        return f"{where}: expected a string or a list of content blocks"
    for i, block in enumerate(value):
        if not isinstance(block, Mapping) or block.get("type") != "text" or not isinstance(block.get("text"), str):
            return f"{where}.{i}: expected a text block"
    return None


def _check_block(block: object, where: str) -> str | None:
    if not isinstance(block, Mapping):
        return f"{where}: expected an object"
    kind = block.get("type")
    if kind == "text":
        return None if isinstance(block.get("text"), str) else f"{where}.text: expected a string"
    if kind != "image":
        return f"{where}.type: unsupported block type {kind!r}"
    source = block.get("source")
    if not isinstance(source, Mapping) or source.get("type") != "base64":
        return f"{where}.source.type: expected 'base64'"
    if source.get("media_type") not in IMAGE_MEDIA_TYPES:
        return f"{where}.source.media_type: must be one of {', '.join(IMAGE_MEDIA_TYPES)}"
    data = source.get("data")
    try:
        if not isinstance(data, str) or not data:
            raise ValueError("empty")
        base64.b64decode(data, validate=True)
    except (ValueError, binascii.Error):
        return f"{where}.source.data: not valid base64"
    return None


def validate_messages_request(body: object) -> str | None:
    """``None`` for a well-formed Messages request, else the message of a 400 naming the field."""
    if not isinstance(body, Mapping):
        return "request body must be a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: field required"
    max_tokens = body.get("max_tokens")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        return "max_tokens: must be an integer >= 1"
    if "system" in body:
        problem = _text_blocks_ok(body["system"], "system")
        if problem:
            return problem
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    for i, message in enumerate(messages):
        where = f"messages.{i}"
        if not isinstance(message, Mapping) or message.get("role") not in ("user", "assistant"):
            return f"{where}.role: must be 'user' or 'assistant'"
        content = message.get("content")
        if isinstance(content, str):
            continue
        if not isinstance(content, list) or not content:
            return f"{where}.content: expected a string or a non-empty list of blocks"
        for j, block in enumerate(content):
            problem = _check_block(block, f"{where}.content.{j}")
            if problem:
                return problem
    if messages[0].get("role") != "user":
        return "messages.0.role: the first message must use the 'user' role"
    return _thinking_problem(body)


def _thinking_problem(body: Mapping[str, object]) -> str | None:
    """The rules of extended thinking (``thinking: {"type": "enabled", "budget_tokens"}``),
    in the API's words: a budget of at least 1024, below ``max_tokens``; temperature only
    1; ``top_p`` only from 0.95."""
    thinking = body.get("thinking")
    if thinking is None:
        return None
    if not isinstance(thinking, Mapping) or thinking.get("type") not in ("enabled", "disabled"):
        return "thinking.type: Input should be 'enabled' or 'disabled'"
    if thinking["type"] == "disabled":
        return None
    budget = thinking.get("budget_tokens")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1024:
        return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    max_tokens = body["max_tokens"]
    if isinstance(max_tokens, int) and max_tokens <= budget:  # an int: checked before this
        return "`max_tokens` must be greater than `thinking.budget_tokens`."
    if "temperature" in body and body["temperature"] != 1:
        return "`temperature` may only be set to 1 when thinking is enabled."
    if "top_p" in body and not (isinstance(body["top_p"], (int, float)) and body["top_p"] >= 0.95):
        return "`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled."
    return None


def request_api_key(headers: Mapping[str, str]) -> str | None:
    """The key of a request: ``x-api-key``, else an ``Authorization: Bearer`` token
    (newer SDKs send the key that way). ``headers`` has lower-case names."""
    key = headers.get("x-api-key")
    if key:
        return key
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer ") and auth[7:].strip():
        return auth[7:].strip()
    return None
