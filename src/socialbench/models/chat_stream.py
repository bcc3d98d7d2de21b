"""A streamed chat completion put back together: the ``data:`` events of a
``stream: true`` reply -> the body a non-streamed reply would have had, for
:func:`socialbench.models.openai_compat.parse_completion`.

The deltas' ``content``, ``refusal`` and shown reasoning are concatenated, the last
non-null ``finish_reason`` wins, ``usage`` comes from the chunk carrying it (OpenAI's last,
with ``stream_options.include_usage``). An error chunk (``{"error": ...}``) is a
``server_error``, a chunk that is not JSON a ``malformed_response``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from socialbench.models.base import RetryableModelError

_TEXT_FIELDS = ("content", "refusal", "reasoning_content", "reasoning")
_MAX_MESSAGE_CHARS = 300


def _snippet(data: bytes) -> str:
    return data[:120].decode("utf-8", "replace").replace("\n", " ")


def assemble_stream(events: Sequence[bytes]) -> dict[str, Any]:
    """The ``chat.completion`` object the streamed ``events`` add up to (see the module
    docstring); raises :class:`RetryableModelError` ``server_error`` for an error event,
    ``malformed_response`` for an event that is not a JSON object or a stream without any
    choice."""
    parts: dict[str, list[str]] = {name: [] for name in _TEXT_FIELDS}
    finish_reason: Any = None
    usage: Any = None
    seen_choice = False
    for data in events:
        try:
            chunk = json.loads(data)
        except ValueError:
            raise RetryableModelError("malformed_response", f"undecodable stream event: {_snippet(data)!r}") from None
        if not isinstance(chunk, Mapping):
            raise RetryableModelError("malformed_response", f"stream event is not an object: {_snippet(data)!r}")
        error = chunk.get("error")
        if error is not None:
            said = error.get("message") if isinstance(error, Mapping) else error
            raise RetryableModelError("server_error", f"the server failed while streaming: {said}"[:_MAX_MESSAGE_CHARS])
        if isinstance(chunk.get("usage"), Mapping):
            usage = chunk["usage"]
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            continue
        seen_choice = True
        choice = choices[0]
        delta = choice.get("delta")
        if isinstance(delta, Mapping):
            for name in _TEXT_FIELDS:
                piece = delta.get(name)
                if isinstance(piece, str):
                    parts[name].append(piece)
        if choice.get("finish_reason") is not None:
            finish_reason = choice["finish_reason"]
    if not seen_choice:
        raise RetryableModelError("malformed_response", f"the streamed reply had no choices ({len(events)} events)")
    message: dict[str, Any] = {"role": "assistant"}
    for name in _TEXT_FIELDS:
        if parts[name] or name == "content":
            message[name] = "".join(parts[name]) if parts[name] else None
    completion: dict[str, Any] = {
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
    }
    if usage is not None:
        completion["usage"] = usage
    return completion
