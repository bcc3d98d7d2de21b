"""Async request engine: bounded concurrency at the model call, retries, timeouts, cache.

``Engine.run(request)`` never raises for model problems: it returns an
:class:`~socialbench.types.Outcome` that carries either text or an error kind. A slot is held
only while a call is in flight, and a request is counted when it is sent, not queued.
Timeouts and rate limits (429, overload) halve the concurrency limit
(:mod:`socialbench.runner.aimd`); a backend that fails round after round makes the run give
up (:mod:`socialbench.runner.give_up`; docs/models.md).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field

from socialbench.errors import StorageError
from socialbench.models.base import FatalModelError, Model, ModelError, RetryableModelError
from socialbench.models.redact import redact
from socialbench.runner.aimd import AimdLimit
from socialbench.runner.cache import ResponseCache, cache_key
from socialbench.runner.give_up import GiveUp
from socialbench.runner.slots import PrioritySlots
from socialbench.types import TRUNCATED_FINISH_REASONS, Generation, Outcome, Request, Usage

log = logging.getLogger(__name__)

#: Retryable kinds that say the server is asked too much: like a timeout, each halves the
#: requests in flight (a 429 is a server saying so outright).
SLOW_DOWN_KINDS = frozenset({"timeout", "rate_limit", "overloaded"})


@dataclass(frozen=True)
class RetryPolicy:
    """Retry settings. Delay before retry k (1-based) is uniform in
    [0.5, 1] x min(max_delay_s, base_delay_s * 2**(k-1)); when the server sends Retry-After,
    that value is used instead (capped at max_delay_s)."""

    max_attempts: int = 6
    base_delay_s: float = 1.0
    max_delay_s: float = 60.0
    timeout_s: float = 120.0  # per attempt
    #: Per attempt, to the reply's first byte (``--first-byte-timeout``); the HTTP backends
    #: enforce it (``openai:``, ModelOptions.first_byte_timeout_s). None: only ``timeout_s``.
    first_byte_timeout_s: float | None = None
    #: Give up on the run after this many rounds of failed attempts of one retryable kind
    #: with no answer in between (``--give-up-after``; :mod:`socialbench.runner.give_up`);
    #: 0: never. The default is one question's whole retry budget.
    give_up_after: int = 6

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        backoff = min(self.max_delay_s, self.base_delay_s * 2.0 ** (attempt - 1))
        jittered = backoff * (0.5 + 0.5 * rng.random())
        if retry_after is not None and retry_after >= 0:
            # the server said when to come back: honour it, up to max_delay_s
            return min(retry_after, self.max_delay_s)
        return jittered


@dataclass
class EngineStats:
    requests: int = 0  # model calls sent (each attempt counts; queued-but-unsent ones do not)
    completed: int = 0  # requests that produced an outcome (success or final error)
    retries: int = 0  # sent attempts after the first
    errors: int = 0  # final errors
    cache_hits: int = 0
    cache_errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: The part of completion_tokens reasoning models spent thinking (Usage.reasoning_tokens).
    reasoning_tokens: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)
    #: Failed attempts that were retried, by error kind (why the retries happened).
    retry_causes: dict[str, int] = field(default_factory=dict)
    #: Replies cut off at the token limit (:attr:`SampleRecord.truncated`).
    truncated: int = 0
    #: The AIMD concurrency limit (:meth:`AimdLimit.as_dict`): asked, lowest, end, cuts.
    concurrency: dict[str, int] = field(default_factory=dict)
    #: Failed requests whose reply still counted tokens (an empty reply of a reasoning
    #: model that spent its budget thinking): their tokens are in the totals above.
    failed_with_usage: int = 0
    #: Why the run gave up on the backend (:class:`GiveUp`): the failing kind, the rounds
    #: and failed attempts, the last error; empty when it did not.
    gave_up: dict[str, object] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        """The fields in order (copies), the error counts sorted by kind."""
        out = asdict(self)
        out["error_kinds"] = dict(sorted(self.error_kinds.items()))
        out["retry_causes"] = dict(sorted(self.retry_causes.items()))
        return out


async def _within(call: Awaitable[Generation], timeout_s: float | None) -> Generation:
    """Await ``call``, raising :class:`asyncio.TimeoutError` after ``timeout_s`` seconds (in
    the current task with 3.11's ``asyncio.timeout``; ``wait_for`` makes a task per request)."""
    timeout = getattr(asyncio, "timeout", None)
    if timeout is None:  # Python 3.10
        return await asyncio.wait_for(call, timeout_s)
    async with timeout(timeout_s):
        return await call


def _valid_utf8(gen: Generation) -> Generation:
    """Replace lone surrogates and other unencodable code points (they would make the
    cache and samples.jsonl writes fail, every time the same reply comes back)."""
    try:
        gen.text.encode("utf-8")
        if gen.reasoning is not None:
            gen.reasoning.encode("utf-8")
        return gen
    except UnicodeEncodeError:
        reasoning = None if gen.reasoning is None else gen.reasoning.encode("utf-8", "replace").decode("utf-8")
        return Generation(
            text=gen.text.encode("utf-8", "replace").decode("utf-8"),
            usage=gen.usage,
            reasoning=reasoning,
            finish_reason=gen.finish_reason,
        )


class Engine:
    def __init__(
        self,
        model: Model,
        *,
        concurrency: int = 16,
        retry: RetryPolicy = RetryPolicy(),
        cache: ResponseCache | None = None,
        seed: int = 0,
        on_update: Callable[[EngineStats], None] | None = None,
        on_send: Callable[[int], None] | None = None,
        on_slot: Callable[[], None] | None = None,
    ):
        self.model = model
        self.retry = retry
        self.cache = cache if getattr(model, "cacheable", False) else None
        self.stats = EngineStats()
        self._slots = PrioritySlots(concurrency)
        self._limit = AimdLimit(concurrency)
        self.stats.concurrency = self._limit.as_dict()
        self._give_up = GiveUp(retry.give_up_after)
        self._rng = random.Random(seed)
        self._identity = model.identity()
        # A model that times its own calls (e.g. a pool whose requests may first wait for a
        # free endpoint) is not cut off by the engine; every other model gets timeout_s.
        self._attempt_timeout = None if getattr(model, "enforces_timeout", False) else retry.timeout_s
        self._on_update = on_update
        self._on_send = on_send
        self._on_slot = on_slot

    @property
    def backlog(self) -> int:
        """Requests waiting for a concurrency slot now (not counting those in flight or
        backing off before a retry)."""
        return self._slots.waiting

    def _sending(self, attempt: int) -> int:
        """Count a request as it is handed to the model (``attempt`` 1 is the first try);
        its number in send order (for :meth:`_timed_out`)."""
        number = self._limit.sent()
        self.stats.requests += 1
        if attempt > 1:
            self.stats.retries += 1
        if self._on_send is not None:
            self._on_send(attempt)
        return number

    def _slow_down(self, number: int, kind: str) -> None:
        """Attempt ``number`` timed out or was told to slow down (``rate_limit``,
        ``overloaded``): halve the concurrency limit (once per cluster)."""
        if self._limit.timed_out(number):
            self._slots.set_limit(self._limit.limit)
            self.stats.concurrency = self._limit.as_dict()
            log.warning(
                "requests are %s: sending at most %d at once (from %d asked); the limit grows back as answers come",
                "timing out" if kind == "timeout" else f"refused as too many ({kind})",
                self._limit.limit,
                self._limit.ceiling,
            )

    def _failed_attempt(self, number: int, exc: ModelError) -> None:
        """Attempt ``number`` failed with ``exc``: count it towards giving up on the run."""
        if not isinstance(exc, RetryableModelError):
            self._give_up.answered()  # the server answered, for reasons of this request
            return
        if self._give_up.failed(number, self._limit.sent_count, exc.kind, exc.message or str(exc)):
            self.stats.gave_up = dict(self._give_up.opened)
            log.warning(
                "giving up on %s: %d rounds of attempts in a row failed with %s and none was answered "
                "(%d failed attempts; last: %s); the questions not yet answered are recorded as gave_up "
                "and asked again when the same command runs again (--give-up-after sets the rounds)",
                self.model.spec,
                self._give_up.streak,
                exc.kind,
                self._give_up.failures,
                redact(exc.message or str(exc))[:200],
            )

    def _gave_up(self, attempts: int, elapsed: float, causes: list[str]) -> Outcome:
        """The outcome of a request not sent (again) because the run gave up."""
        seen = self._give_up.opened
        return self._fail(
            FatalModelError(
                "gave_up",
                f"not sent: the run gave up after {seen['rounds']} rounds of {seen['kind']} failures with no answer "
                f"(last: {seen['last_error']}); run the same command again once the server answers",
            ),
            attempts,
            elapsed,
            causes,
        )

    def _answered(self) -> None:
        """An attempt was answered: let the concurrency limit grow back."""
        before = self._limit.limit
        self._limit.answered()
        if self._limit.limit != before:
            self._slots.set_limit(self._limit.limit)
        self.stats.concurrency = self._limit.as_dict()

    def _notify(self) -> None:
        if self._on_update is not None:
            self._on_update(self.stats)

    async def run(self, request: Request, priority: int = 0) -> Outcome:
        """The outcome of ``request``. Requests waiting for a slot are sent lowest
        ``priority`` first (a run passes its item's place in the dataset order), first come
        first served among equals."""
        key = cache_key(self._identity, request) if self.cache is not None else None
        if key is not None:
            hit = self.cache.get(key)  # type: ignore[union-attr]  # never raises: a problem is a miss
            self.stats.cache_errors = self.cache.errors  # type: ignore[union-attr]
            if hit is not None:
                self.stats.cache_hits += 1
                self.stats.completed += 1
                self._notify()
                return Outcome(
                    text=hit.text, error=None, usage=hit.usage, attempts=0, cached=True, reasoning=hit.reasoning
                )
        started = time.perf_counter()
        attempt = 0
        causes: list[str] = []  # the error kind of each retried attempt
        while True:
            attempt += 1
            number = 0
            if self._give_up.is_open:
                return self._gave_up(attempt - 1, time.perf_counter() - started, causes)
            try:
                await self._slots.acquire(priority)
                if self._on_slot is not None:  # the backlog dropped
                    self._on_slot()
                if self._give_up.is_open:  # it opened while this request waited for a slot
                    self._slots.release()
                    return self._gave_up(attempt - 1, time.perf_counter() - started, causes)
                try:
                    number = self._sending(attempt)
                    t0 = time.perf_counter()
                    try:
                        gen = await _within(self.model.generate(request), self._attempt_timeout)
                    except asyncio.TimeoutError as exc:
                        self._slow_down(number, "timeout")
                        raise RetryableModelError("timeout", f"no answer within {self.retry.timeout_s:g} s") from exc
                    except RetryableModelError as exc:
                        if exc.kind in SLOW_DOWN_KINDS:
                            self._slow_down(number, exc.kind)
                        raise
                    latency = time.perf_counter() - t0
                    self._answered()
                    self._give_up.answered()
                finally:
                    self._slots.release()
            except ModelError as exc:
                self._count_usage(exc.usage, exc.finish_reason)
                if number:
                    self._failed_attempt(number, exc)
                if isinstance(exc, RetryableModelError) and attempt < self.retry.max_attempts:
                    causes.append(exc.kind)
                    self.stats.retry_causes[exc.kind] = self.stats.retry_causes.get(exc.kind, 0) + 1
                    self._notify()
                    await asyncio.sleep(self.retry.delay(attempt, exc.retry_after, self._rng))
                    continue
                return self._fail(exc, attempt, time.perf_counter() - started, causes)
            except (asyncio.CancelledError, StorageError):  # stopped; the disk failed
                raise
            except Exception as exc:  # a backend bug must not kill the run; record it
                return self._fail(
                    FatalModelError("backend_error", redact(f"{type(exc).__name__}: {exc}")),
                    attempt,
                    time.perf_counter() - started,
                    causes,
                )
            gen = _valid_utf8(gen)
            self.stats.completed += 1
            self._count_usage(gen.usage, gen.finish_reason)
            if key is not None:
                self.cache.put(key, self._identity, gen)  # type: ignore[union-attr]  # never raises
                self.stats.cache_errors = self.cache.errors  # type: ignore[union-attr]
            self._notify()
            return Outcome(
                text=gen.text,
                error=None,
                latency_s=latency,
                usage=gen.usage,
                attempts=attempt,
                reasoning=gen.reasoning,
                finish_reason=gen.finish_reason,
                retry_causes=tuple(causes),
            )

    def _count_usage(self, usage: Usage | None, finish_reason: str | None) -> None:
        """Add a reply's tokens and truncation to the totals (a failed reply's too: billed)."""
        if usage is not None:
            self.stats.prompt_tokens += usage.prompt_tokens
            self.stats.completion_tokens += usage.completion_tokens
            self.stats.reasoning_tokens += usage.reasoning_tokens
        self.stats.truncated += int(finish_reason in TRUNCATED_FINISH_REASONS)

    def _fail(self, exc: ModelError, attempts: int, elapsed: float, causes: list[str]) -> Outcome:
        self.stats.completed += 1
        if exc.usage is not None and (exc.usage.prompt_tokens or exc.usage.completion_tokens):
            self.stats.failed_with_usage += 1
        self.stats.errors += 1
        self.stats.error_kinds[exc.kind] = self.stats.error_kinds.get(exc.kind, 0) + 1
        self._notify()
        return Outcome(
            text=None,
            error=exc.kind,
            error_message=exc.message or str(exc),
            latency_s=elapsed,
            usage=exc.usage or Usage(),
            attempts=attempts,
            finish_reason=exc.finish_reason,
            retry_causes=tuple(causes),
        )
