"""The scripted Anthropic server's error bodies, in the API's shape, and the served models
that refuse sampling settings with the real API's 400s (see
:mod:`socialbench.testing.anthropic_server`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypedDict

from socialbench.testing.openai_server import Rejection, ServedModel


class ErrorDetail(TypedDict):
    """``error`` of an Anthropic error body: its kind (``rate_limit_error``, ...) and message."""

    type: str
    message: str


class ErrorBody(TypedDict):
    """An Anthropic error body: ``{"type": "error", "error": {...}, "request_id": ...}``."""

    type: str
    error: ErrorDetail
    request_id: str


_ERROR_TYPES = {
    400: ("invalid_request_error", "invalid request"),
    401: ("authentication_error", "invalid x-api-key"),
    403: ("permission_error", "your API key does not have permission to use the specified resource"),
    404: ("not_found_error", "model not found"),
    413: ("request_too_large", "request exceeds the maximum allowed number of bytes"),
    429: ("rate_limit_error", "rate limit exceeded, please retry later"),
    500: ("api_error", "internal server error"),
    529: ("overloaded_error", "Overloaded"),
}


def error_body(code: int, message: str | None = None) -> ErrorBody:
    """An Anthropic-style error object for HTTP ``code``."""
    kind, default = _ERROR_TYPES.get(code, ("api_error", f"scripted error {code}"))
    return {
        "type": "error",
        "error": {"type": kind, "message": message or default},
        "request_id": f"req_scripted_{code}",
    }


def _invalid_request(message: str) -> Rejection:
    return Rejection(400, error_body(400, message))


def _temperature_deprecated_check(body: Mapping[str, object]) -> Rejection | None:
    # the API keeps taking temperature 1 (the default) for backward compatibility
    if "temperature" in body and body["temperature"] != 1:
        return _invalid_request("`temperature` is deprecated for this model.")
    return None


def claude_temperature_deprecated() -> ServedModel:
    """A model like Claude Opus 4.7 and later: a ``temperature`` other than 1 is refused
    with the API's 400, ``{"type": "error", "error": {"type": "invalid_request_error",
    "message": "`temperature` is deprecated for this model."}, "request_id": ...}``."""
    return ServedModel("claude-temperature-deprecated", _temperature_deprecated_check)


def _sampling_exclusive_check(body: Mapping[str, object]) -> Rejection | None:
    if "temperature" in body and "top_p" in body:
        return _invalid_request(
            "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
        )
    return None


def claude_sampling_exclusive() -> ServedModel:
    """A model like Claude Sonnet 4.5 and later: ``temperature`` and ``top_p`` together are
    refused with the API's 400 ("`temperature` and `top_p` cannot both be specified for this
    model. Please use only one."); either alone is taken."""
    return ServedModel("claude-sampling-exclusive", _sampling_exclusive_check)


#: ``--served`` choices of the subprocess server: name -> the served model (None: takes every setting).
SERVED_MODELS: dict[str, Callable[[], ServedModel | None]] = {
    "plain": lambda: None,
    "claude-temperature-deprecated": claude_temperature_deprecated,
    "claude-sampling-exclusive": claude_sampling_exclusive,
}
