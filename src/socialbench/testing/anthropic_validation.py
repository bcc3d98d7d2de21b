"""Checks of a Messages API request as the real API makes them: the key headers, and a body
whose every field is well formed (``None``, or the message of a 400 naming the field), with
the current rules of ``thinking`` (``enabled`` with a budget, ``adaptive``, ``disabled``),
``output_config`` (``effort``, ``format``) and ``stream``. What differs by model (thinking
types it refuses, its output limit) is in :mod:`socialbench.testing.anthropic_served`."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping

IMAGE_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
#: ``output_config.effort`` values (the SDK's OutputConfigParam).
EFFORT_VALUES = ("low", "medium", "high", "xhigh", "max")
THINKING_TYPES = ("enabled", "disabled", "adaptive")


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
    if "stream" in body and not isinstance(body["stream"], bool):
        return "stream: Input should be a valid boolean"
    return _output_config_problem(body) or _thinking_problem(body)


def _output_config_problem(body: Mapping[str, object]) -> str | None:
    """``output_config``: an object whose ``effort`` is one of :data:`EFFORT_VALUES` and whose
    ``format`` is ``{"type": "json_schema", "schema": {...}}``."""
    if "output_config" not in body:
        return None
    config = body["output_config"]
    if not isinstance(config, Mapping):
        return "output_config: Input should be an object"
    unknown = sorted(set(config) - {"effort", "format"})
    if unknown:
        return f"output_config.{unknown[0]}: Extra inputs are not permitted"
    if "effort" in config and config["effort"] is not None and config["effort"] not in EFFORT_VALUES:
        return "output_config.effort: Input should be " + ", ".join(repr(v) for v in EFFORT_VALUES)
    fmt = config.get("format")
    if fmt is not None:
        if not isinstance(fmt, Mapping) or fmt.get("type") != "json_schema":
            return "output_config.format.type: Input should be 'json_schema'"
        if not isinstance(fmt.get("schema"), Mapping):
            return "output_config.format.schema: Field required"
    return None


def _thinking_problem(body: Mapping[str, object]) -> str | None:
    """The rules of thinking, in the API's words: ``enabled`` needs a budget of at least
    1024, below ``max_tokens``; ``adaptive`` and ``disabled`` take no budget; with thinking
    on (``enabled`` or ``adaptive``) temperature only 1 and ``top_p`` only from 0.95."""
    thinking = body.get("thinking")
    if thinking is None:
        return None
    if not isinstance(thinking, Mapping) or thinking.get("type") not in THINKING_TYPES:
        return "thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'"
    kind = thinking["type"]
    if kind in ("disabled", "adaptive"):
        extra = sorted(set(thinking) - {"type", "display"} if kind == "adaptive" else set(thinking) - {"type"})
        return f"thinking.{kind}.{extra[0]}: Extra inputs are not permitted" if extra else _sampling_problem(body, kind)
    budget = thinking.get("budget_tokens")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1024:
        return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    max_tokens = body["max_tokens"]
    if isinstance(max_tokens, int) and max_tokens <= budget:  # an int: checked before this
        return "`max_tokens` must be greater than `thinking.budget_tokens`."
    return _sampling_problem(body, kind)


def _sampling_problem(body: Mapping[str, object], kind: object) -> str | None:
    """Thinking on (``enabled``, ``adaptive``): temperature only 1, ``top_p`` from 0.95."""
    if kind == "disabled":
        return None
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
