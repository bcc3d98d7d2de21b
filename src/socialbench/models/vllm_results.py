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

#: vLLM's own errors caused by the request (``vllm.exceptions``: ``VLLMValidationError`` for
#: "At most N image(s) may be provided in one prompt" and a prompt longer than the maximum
#: model length). In vLLM 0.34 they derive from ``VLLMClientError(VLLMError(Exception))``,
#: not from ``ValueError`` as in earlier releases; matched by class name along the MRO, so
#: that neither vLLM nor the module that defines them (0.34 aliases ``vllm.exceptions``) is
#: imported here.
_CLIENT_ERRORS = frozenset({"VLLMClientError", "VLLMValidationError", "VLLMNotFoundError"})


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
    ``out_of_memory`` (retryable), a rejected prompt (vLLM's client errors,
    :data:`_CLIENT_ERRORS`, and ``ValueError``, ``TypeError``, ``KeyError``) ``bad_request``,
    anything else (``VLLMServerError`` included) ``backend_error``."""
    if isinstance(exc, ModelError):
        return exc
    text = f"{type(exc).__name__}: {exc}"[:_MAX_MESSAGE_CHARS]
    if type(exc).__name__ == "OutOfMemoryError" or "out of memory" in str(exc).lower():
        return RetryableModelError("out_of_memory", text)
    if _CLIENT_ERRORS & {cls.__name__ for cls in type(exc).__mro__}:
        return FatalModelError("bad_request", text)
    if isinstance(exc, (ValueError, TypeError, KeyError)):
        return FatalModelError("bad_request", text)
    return FatalModelError("backend_error", text)
