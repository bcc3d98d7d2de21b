"""What a ``vllm:`` ``LLM.chat`` call gives back, as the backend contract has it: a
finished request's output as a :class:`~socialbench.types.Generation` or its error, and an
exception of the call as the model error of its kind.
"""

from __future__ import annotations

from typing import Any

from socialbench.models.base import FatalModelError, ModelError, RetryableModelError
from socialbench.models.reasoning import reply_generation
from socialbench.types import Generation

_MAX_MESSAGE_CHARS = 300

#: Finish reasons of a request the engine ended without an answer.
_FAILED_FINISH = {"abort", "error"}


def to_generation(output: Any, think_end: int | None = None) -> Generation | ModelError:
    """A finished vLLM ``RequestOutput`` (vLLM is optional and untyped: Any) -> a :class:`Generation` (the answer, its reasoning
    section apart, token usage), or the error it is (``backend_error`` for an aborted or
    failed request, ``empty_response`` for no answer)."""
    completion = output.outputs[0] if output.outputs else None
    reason = getattr(completion, "finish_reason", None)
    if reason in _FAILED_FINISH:
        return FatalModelError("backend_error", f"the engine ended the request: finish_reason={reason}")
    text = completion.text if completion is not None else ""
    if completion is None or not text.strip():
        return FatalModelError("empty_response", f"finish_reason={reason}")
    token_ids = list(completion.token_ids or ())
    return reply_generation(text, token_ids, len(output.prompt_token_ids or ()), think_end, reason)


def map_error(exc: BaseException) -> ModelError:
    """An exception from ``LLM.chat`` -> the backend contract's error kinds: out of GPU memory
    ``out_of_memory`` (retryable), a rejected prompt (``ValueError``, ``TypeError``,
    ``KeyError``) ``bad_request``, anything else ``backend_error``."""
    if isinstance(exc, ModelError):
        return exc
    text = f"{type(exc).__name__}: {exc}"[:_MAX_MESSAGE_CHARS]
    if type(exc).__name__ == "OutOfMemoryError" or "out of memory" in str(exc).lower():
        return RetryableModelError("out_of_memory", text)
    if isinstance(exc, (ValueError, TypeError, KeyError)):
        return FatalModelError("bad_request", text)
    return FatalModelError("backend_error", text)
