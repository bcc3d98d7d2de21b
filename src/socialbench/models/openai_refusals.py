"""What an OpenAI-compatible server's error answer refuses, read from its words.

A 400 (or FastAPI's 422) names the field in ``param`` (OpenAI) or only in the message
(Gemini, Azure): :func:`rejected_field` finds a generation field, :func:`refuses_json_mode`
a refusal of ``response_format``, :func:`stream_refusal` one of ``stream`` /
``stream_options``; :mod:`socialbench.models.openai_compat` then sends without it.
"""

from __future__ import annotations

import re

from socialbench.models.error_body import ErrorInfo

__all__ = ["ADAPTABLE_FIELDS", "REFUSAL_CODES", "refuses_json_mode", "rejected_field", "stream_refusal"]

#: Error codes that say a field is not supported (OpenAI's), as opposed to a bad value.
REFUSAL_CODES = frozenset({"unsupported_parameter", "unsupported_value"})
#: Generation fields the backend adapts when a server refuses them (see :meth:`socialbench.models.openai_compat.OpenAICompatModel.generate`).
ADAPTABLE_FIELDS = frozenset(
    {"max_tokens", "max_completion_tokens", "temperature", "top_p", "reasoning_effort", "seed"}
)


#: How servers name a request field they refuse, when the error has no ``param``:
#: OpenAI's messages, Gemini's "Unknown name" (its OpenAI-compatible endpoint), Azure's
#: older "Unrecognized request argument".
_NAMED_FIELD = (
    re.compile(r"Unsupported (?:parameter|value): '(\w+)'"),
    re.compile(r'Unknown name \\?"(\w+)\\?"'),
    re.compile(r"Unrecognized request arguments? supplied: (\w+)"),
)


def rejected_field(info: ErrorInfo) -> str:
    """The request field a 400 answer refuses: its ``param``, else the one its message
    names (:data:`_NAMED_FIELD`); '' when it names none.

    >>> rejected_field(ErrorInfo("Invalid JSON payload received. Unknown name \\"seed\\": Cannot find field."))
    'seed'
    """
    if info.param:
        return info.param
    for pattern in _NAMED_FIELD:
        found = pattern.search(info.message)
        if found:
            return found.group(1)
    return ""


#: What a refusal of JSON mode names: OpenAI's and vLLM's ``response_format``, TGI's
#: ``json_object`` variant, structured-output words (json_schema, guided decoding, grammar).
_JSON_MODE_WORDS = re.compile(r"response.?format|json.?object|json.?schema|guided|structured output|grammar", re.I)


def refuses_json_mode(status: int, info: ErrorInfo) -> bool:
    """Whether an error answer refuses JSON mode (``response_format``): a 400 or 422
    (FastAPI's and TGI's validation status) whose param is ``response_format`` or whose
    message names it or structured output (any body shape, :func:`error_info`).

    >>> refuses_json_mode(422, ErrorInfo("Failed to deserialize the JSON body into the target type: "
    ...     "response_format: unknown variant `json_object`, expected `json` or `regex`"))
    True
    >>> refuses_json_mode(400, ErrorInfo("max_tokens is too large"))
    False
    """
    if status not in (400, 422):
        return False
    return info.param == "response_format" or bool(_JSON_MODE_WORDS.search(info.message))


_STREAM_OPTIONS_WORDS = re.compile(r"stream.?options|include.?usage", re.I)
_STREAM_WORDS = re.compile(r"\bstream(?:ing)?\b", re.I)


def stream_refusal(status: int, info: ErrorInfo) -> str:
    """The streaming field an error answer to a streamed request refuses: ``stream_options``
    (its param, or its message names it or ``include_usage``), ``stream`` (its param, or its
    message names streaming), or '' (not a refusal of streaming: a 400 or 422 only).

    >>> stream_refusal(400, ErrorInfo("Unrecognized request argument supplied: stream_options"))
    'stream_options'
    >>> stream_refusal(422, ErrorInfo("Streaming is not supported by this server"))
    'stream'
    >>> stream_refusal(400, ErrorInfo("max_tokens is too large"))
    ''
    """
    if status not in (400, 422):
        return ""
    if info.param in ("stream", "stream_options"):
        return info.param
    if _STREAM_OPTIONS_WORDS.search(info.message):
        return "stream_options"
    if _STREAM_WORDS.search(info.message):
        return "stream"
    return ""
