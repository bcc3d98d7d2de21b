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


def _max_tokens_problem(body: Mapping[str, object], limit: int, model: str) -> Rejection | None:
    max_tokens = body.get("max_tokens")
    if isinstance(max_tokens, int) and max_tokens > limit:
        return _invalid_request(
            f"max_tokens: {max_tokens} > {limit}, which is the maximum allowed number of output tokens for {model}"
        )
    return None


def _effort(body: Mapping[str, object]) -> object:
    config = body.get("output_config")
    return config.get("effort") if isinstance(config, Mapping) else None


def _thinking_type(body: Mapping[str, object]) -> object:
    thinking = body.get("thinking")
    return thinking.get("type") if isinstance(thinking, Mapping) else None


ENABLED_REFUSED = (
    '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and '
    '"output_config.effort" to control thinking behavior.'
)
DISABLED_REFUSED = (
    '"thinking.type.disabled" is not supported for this model. Thinking defaults to adaptive mode when not specified.'
)


def claude_adaptive_only(max_output_tokens: int = 128_000, disables: bool = True) -> ServedModel:
    """A model like Claude Opus 4.7: ``thinking: {"type": "enabled"}`` is refused with the
    API's 400 (:data:`ENABLED_REFUSED`), ``adaptive`` is taken, effort any level; a
    ``max_tokens`` above ``max_output_tokens`` is refused ("max_tokens: N > M, which is the
    maximum allowed number of output tokens for MODEL"). ``disables=False``: like Claude
    Mythos Preview, ``{"type": "disabled"}`` is refused too (:data:`DISABLED_REFUSED`)."""

    def check(body: Mapping[str, object]) -> Rejection | None:
        kind = _thinking_type(body)
        if kind == "enabled":
            return _invalid_request(ENABLED_REFUSED)
        if kind == "disabled" and not disables:
            return _invalid_request(DISABLED_REFUSED)
        return _max_tokens_problem(body, max_output_tokens, "claude-adaptive-only")

    return ServedModel("claude-adaptive-only", check)


def claude_budget_thinking(max_output_tokens: int = 32_000) -> ServedModel:
    """A model like Claude Opus 4.1: thinking only with a budget (``adaptive`` is refused:
    "adaptive thinking is not supported on this model"), no effort setting (refused: "effort
    is not supported on this model"; a stand-in wording, the API's own is not documented),
    and an output limit of ``max_output_tokens`` (32,000: xhigh's 32,768-token budget plus
    an answer is over it)."""

    def check(body: Mapping[str, object]) -> Rejection | None:
        if _thinking_type(body) == "adaptive":
            return _invalid_request("adaptive thinking is not supported on this model")
        if _effort(body) is not None:
            return _invalid_request("output_config.effort: effort is not supported on this model")
        return _max_tokens_problem(body, max_output_tokens, "claude-budget-thinking")

    return ServedModel("claude-budget-thinking", check)


#: ``--served`` choices of the subprocess server: name -> the served model (None: takes every setting).
SERVED_MODELS: dict[str, Callable[[], ServedModel | None]] = {
    "plain": lambda: None,
    "claude-temperature-deprecated": claude_temperature_deprecated,
    "claude-sampling-exclusive": claude_sampling_exclusive,
    "claude-adaptive-only": claude_adaptive_only,
    "claude-budget-thinking": claude_budget_thinking,
}
