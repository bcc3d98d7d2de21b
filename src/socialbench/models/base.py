"""The model interface and the typed errors a model may raise.

A model turns a :class:`~socialbench.types.Request` into a
:class:`~socialbench.types.Generation`. It never retries by itself and never returns an
error as text: it raises :class:`RetryableModelError` (the engine backs off and tries
again) or :class:`FatalModelError` (the engine records the error kind and moves on).
"""

from __future__ import annotations

from typing import ClassVar, Protocol, runtime_checkable

from socialbench.types import Generation, Request


class ModelError(Exception):
    """A failed model call. ``kind`` is a short stable label recorded in samples.jsonl."""

    retryable: ClassVar[bool] = False

    def __init__(self, kind: str, message: str = "", retry_after: float | None = None):
        super().__init__(f"{kind}: {message}" if message else kind)
        self.kind = kind
        self.message = message
        self.retry_after = retry_after


class RetryableModelError(ModelError):
    """Transient: rate limits, overload, 5xx, timeouts, dropped connections."""

    retryable = True


class FatalModelError(ModelError):
    """Permanent for this request: bad request, auth, refusal, content filter."""

    retryable = False


@runtime_checkable
class Model(Protocol):
    """What every backend and baseline implements."""

    #: Spec string that identifies the model in run records, e.g. "openai:gpt-4o@http://...".
    spec: str
    #: Whether responses may be stored in the response cache.
    cacheable: bool
    #: Whether the model needs rendered images and prompt text (False for baselines that
    #: answer from the item itself).
    needs_prompt: bool

    async def generate(self, request: Request) -> Generation:
        """Answer one request or raise a :class:`ModelError`."""
        ...

    def identity(self) -> str:
        """Stable text used in the cache key (model name, endpoint; never secrets)."""
        ...

    async def aclose(self) -> None:
        """Release connections, weights, processes."""
        ...
