"""Many OpenAI-compatible endpoints serving one model: routing, limits and health.

``openai:MODEL@URL1,URL2,...`` (or ``--model-opt endpoints_file=PATH``) spreads requests over
several servers of the same model, the usual way to scale vLLM or SGLang past one GPU node:

* **least outstanding requests**: each request goes to the healthy endpoint with the fewest
  requests in flight (ties go round-robin);
* **per-endpoint concurrency** (``--model-opt per_endpoint_concurrency=N``): at most ``N``
  requests in flight per endpoint; further requests wait for a free slot;
* **health**: an endpoint that fails with a connection error, a 5xx, a timeout or a
  malformed answer is taken out of rotation for a cool-down (``cooldown_s``, default 5 s,
  doubling on each consecutive failure up to ``max_cooldown_s``, default 60 s). Afterwards
  it gets one probe request at a time until a success puts it back in full rotation. A 429
  pauses the endpoint for its ``Retry-After`` without counting as a failure. When every
  endpoint is cooling down, requests go to the one that comes back first.

The failed request itself is raised to the engine as a retryable error, and the engine's
next attempt is routed to a healthy endpoint; only a connection that could not be opened at
all (the request never reached a server) is re-routed at once inside the same attempt.

The cache identity is ``openai|MODEL|pool`` whatever the URLs, their order or their number,
so a run can be resumed, and its cache reused, with more or fewer servers.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from socialbench.errors import UsageError
from socialbench.models.base import FatalModelError, RetryableModelError
from socialbench.models.openai_compat import EndpointUnreachable, OpenAICompatModel
from socialbench.models.redact import redact, redact_url
from socialbench.models.registry import ModelOptions
from socialbench.types import Generation, Request

log = logging.getLogger(__name__)

DEFAULT_COOLDOWN_S = 5.0
DEFAULT_MAX_COOLDOWN_S = 60.0
#: Error kinds that say the endpoint, not the request, is in trouble.
UNHEALTHY_KINDS = frozenset({"connection", "timeout", "server_error", "overloaded", "malformed_response"})
_POLL_S = 0.25


def _settle(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


# --------------------------------------------------------------------------- parsing


def split_urls(text: str) -> list[str]:
    """Comma-separated URLs -> list, trailing ``/`` removed, duplicates dropped (order kept)."""
    urls: list[str] = []
    for part in text.split(","):
        url = part.strip().rstrip("/")
        if url and url not in urls:
            urls.append(url)
    return urls


def read_endpoints_file(path: str | Path) -> list[str]:
    """URLs from a text file: one per line (or comma-separated); ``#`` starts a comment."""
    p = Path(path).expanduser()
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(
            f"endpoints_file {str(p)!r} cannot be read ({exc.strerror or exc}); "
            "give a text file with one base URL per line, e.g. http://node1:8000/v1"
        ) from None
    urls: list[str] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        for url in split_urls(line):
            if not url.startswith(("http://", "https://")):
                raise UsageError(
                    f"{p}:{lineno}: {redact_url(url)!r} is not a base URL; write one URL per line, "
                    "e.g. http://node1:8000/v1"
                )
            if url not in urls:
                urls.append(url)
    if not urls:
        raise UsageError(f"endpoints_file {str(p)!r} lists no URL; write one base URL per line")
    return urls


# --------------------------------------------------------------------------- routing


@dataclass
class EndpointState:
    """What the pool knows about one endpoint."""

    url: str
    index: int
    outstanding: int = 0  # requests in flight
    failures: int = 0  # consecutive failures
    down_until: float = 0.0  # monotonic time before which it gets no requests
    succeeded: int = 0
    failed: int = 0

    def cooling(self, now: float) -> bool:
        return now < self.down_until

    def probing(self, now: float) -> bool:
        """Back from a cool-down but not yet proven healthy: one request at a time."""
        return self.failures > 0 and not self.cooling(now)


class EndpointPool:
    """Least-outstanding-requests routing over endpoints, with limits and cool-downs.

    :meth:`pick` and :meth:`release` are synchronous and take the clock from ``clock`` so
    they can be tested without servers; :meth:`acquire` waits for a free slot.
    """

    def __init__(
        self,
        urls: Sequence[str],
        *,
        per_endpoint_concurrency: int | None = None,
        cooldown_s: float = DEFAULT_COOLDOWN_S,
        max_cooldown_s: float = DEFAULT_MAX_COOLDOWN_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not urls:
            raise UsageError("an endpoint pool needs at least one URL")
        self.endpoints = [EndpointState(url, i) for i, url in enumerate(urls)]
        self.limit = per_endpoint_concurrency
        self.cooldown_s = cooldown_s
        self.max_cooldown_s = max(max_cooldown_s, cooldown_s)
        self._clock = clock
        self._turn = itertools.count()
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()

    def _has_room(self, ep: EndpointState, now: float) -> bool:
        if ep.probing(now) and ep.outstanding > 0:
            return False
        return self.limit is None or ep.outstanding < self.limit

    def _choose(self, skip: frozenset[str] | set[str], turn: int) -> EndpointState | None:
        now = self._clock()
        usable = [ep for ep in self.endpoints if ep.url not in skip]
        if not usable:
            return None
        healthy = [ep for ep in usable if not ep.cooling(now)]
        if healthy:
            ready = [ep for ep in healthy if self._has_room(ep, now)]
            if not ready:
                return None
            n = len(self.endpoints)
            return min(ready, key=lambda ep: (ep.outstanding, (ep.index - turn) % n))
        soonest = min(usable, key=lambda ep: (ep.down_until, ep.outstanding))
        if self.limit is not None and soonest.outstanding >= self.limit:
            return None
        return soonest

    def pick(self, exclude: Iterable[str] = ()) -> EndpointState | None:
        """Reserve a slot on the best endpoint, or return ``None`` when all are full.

        Healthy endpoints with room come first (fewest outstanding, then round-robin). When
        every endpoint not excluded is cooling down, the one whose cool-down ends first is
        used (as a probe) rather than stalling the run.
        """
        best = self._choose(frozenset(exclude), next(self._turn))
        if best is not None:
            best.outstanding += 1
        return best

    def release(self, ep: EndpointState, ok: bool | None, pause_s: float | None = None) -> None:
        """Return a slot. ``ok``: True success, False endpoint failure, None neither
        (a client-side error such as a bad request). ``pause_s`` rests the endpoint (429)."""
        now = self._clock()
        ep.outstanding = max(0, ep.outstanding - 1)
        if ok is True:
            if ep.failures:
                log.info("endpoint %s is healthy again", redact_url(ep.url))
            ep.failures = 0
            ep.succeeded += 1
        elif ok is False:
            ep.failures += 1
            ep.failed += 1
            cooldown = min(self.max_cooldown_s, self.cooldown_s * 2 ** (ep.failures - 1))
            ep.down_until = max(ep.down_until, now + cooldown)
            log.warning(
                "endpoint %s failed (%d in a row); out of rotation for %.1f s",
                redact_url(ep.url),
                ep.failures,
                cooldown,
            )
        if pause_s is not None and pause_s > 0:
            ep.down_until = max(ep.down_until, now + min(pause_s, self.max_cooldown_s))
        self._notify()

    def _notify(self) -> None:
        """A slot may be free: wake the longest-waiting :meth:`acquire`."""
        while self._waiters:
            fut = self._waiters.popleft()
            if not fut.done():
                fut.set_result(None)
                return

    async def acquire(self, exclude: Iterable[str] = ()) -> EndpointState | None:
        """Reserve a slot, waiting first-come first-served while all are taken.

        Returns ``None`` only when every endpoint is excluded. A waiter is woken by a
        release, or after 0.25 s anyway (a cool-down may have ended meanwhile).
        """
        skip = frozenset(exclude)
        if all(ep.url in skip for ep in self.endpoints):
            return None
        if not self._waiters:
            ep = self.pick(skip)
            if ep is not None:
                return ep
        loop = asyncio.get_running_loop()
        front = False
        while True:
            fut: asyncio.Future[None] = loop.create_future()
            if front:
                self._waiters.appendleft(fut)
            else:
                self._waiters.append(fut)
            timer = loop.call_later(_POLL_S, _settle, fut)
            try:
                await fut
            except asyncio.CancelledError:
                if fut in self._waiters:
                    self._waiters.remove(fut)
                else:  # it was woken for a slot it will not take: pass the wake on
                    self._notify()
                raise
            finally:
                timer.cancel()
            if fut in self._waiters:  # woken by the timer
                self._waiters.remove(fut)
            ep = self.pick(skip)
            if ep is not None:
                if self._waiters and self._choose(frozenset(), 0) is not None:
                    self._notify()  # more room (several releases at once): wake the next one
                return ep
            front = True

    def snapshot(self) -> list[dict[str, object]]:
        """Per-endpoint counters, for logs and tests (URLs with credentials masked)."""
        now = self._clock()
        return [
            {
                "url": redact_url(ep.url),
                "outstanding": ep.outstanding,
                "succeeded": ep.succeeded,
                "failed": ep.failed,
                "cooling": ep.cooling(now),
            }
            for ep in self.endpoints
        ]


# --------------------------------------------------------------------------- the model


class MultiEndpointModel:
    """One model behind several OpenAI-compatible endpoints (see the module docstring)."""

    cacheable = True
    needs_prompt = True

    def __init__(
        self,
        model: str,
        urls: Sequence[str],
        options: ModelOptions | None = None,
    ) -> None:
        options = options or ModelOptions()
        if not urls:
            raise UsageError(f"openai:{model} has no endpoint URL; give openai:{model}@URL1,URL2")
        self.model = model
        self.urls = list(urls)
        self.spec = f"openai:{model}@pool"
        self.pool = EndpointPool(
            self.urls,
            per_endpoint_concurrency=options.get_count("per_endpoint_concurrency"),
            cooldown_s=options.get_nonnegative("cooldown_s", DEFAULT_COOLDOWN_S),
            max_cooldown_s=options.get_nonnegative("max_cooldown_s", DEFAULT_MAX_COOLDOWN_S),
        )
        self._members = {url: OpenAICompatModel(model, url, options) for url in self.urls}

    def __repr__(self) -> str:
        return f"MultiEndpointModel(model={self.model!r}, urls={redact(self.urls)!r})"

    #: Each HTTP call carries its own timeout (ModelOptions.timeout_s); waiting for a free
    #: endpoint slot is not part of an attempt, so the engine must not time the whole call.
    enforces_timeout = True

    def identity(self) -> str:
        """Independent of the URL list, its order and its length: the same model anywhere."""
        return f"openai|{self.model}|pool"

    def adaptations(self) -> dict[str, str]:
        """What the endpoints' servers made their models change in what they send
        (:meth:`OpenAICompatModel.adaptations`), merged: each field with the words of the
        first endpoint (in URL order) that adapted it."""
        merged: dict[str, str] = {}
        for member in self._members.values():
            for field, what in member.adaptations().items():
                merged.setdefault(field, what)
        return merged

    def json_mode_sent(self) -> dict[str, int]:
        """The endpoints' :meth:`OpenAICompatModel.json_mode_sent` counts, added up."""
        total: dict[str, int] = {}
        for member in self._members.values():
            for name, count in member.json_mode_sent().items():
                total[name] = total.get(name, 0) + count
        return total

    @property
    def members(self) -> dict[str, OpenAICompatModel]:
        """The single-endpoint model of each URL."""
        return dict(self._members)

    async def generate(self, request: Request) -> Generation:
        unreachable: list[str] = []
        while True:
            ep = await self.pool.acquire(exclude=unreachable)
            if ep is None:  # every endpoint refused the connection during this attempt
                raise RetryableModelError(
                    "connection",
                    f"none of the {len(self.urls)} endpoints accepted a connection ({redact_url(', '.join(self.urls))})",
                )
            try:
                generation = await self._members[ep.url].generate(request)
            except EndpointUnreachable:
                # Never reached a server: safe to send elsewhere at once.
                self.pool.release(ep, ok=False)
                unreachable.append(ep.url)
                continue
            except RetryableModelError as exc:
                if exc.kind == "rate_limit":
                    self.pool.release(ep, ok=None, pause_s=exc.retry_after)
                else:
                    self.pool.release(ep, ok=False if exc.kind in UNHEALTHY_KINDS else None)
                raise
            except FatalModelError:
                self.pool.release(ep, ok=None)
                raise
            except asyncio.CancelledError:
                # The engine gave up on this attempt (its timeout): count it against the endpoint.
                self.pool.release(ep, ok=False)
                raise
            except BaseException:
                self.pool.release(ep, ok=None)
                raise
            self.pool.release(ep, ok=True)
            return generation

    async def aclose(self) -> None:
        for member in self._members.values():
            await member.aclose()


def create_pool_model(model: str, urls: Sequence[str], options: ModelOptions) -> MultiEndpointModel:
    """Build the pool from spec URLs plus ``endpoints_file`` URLs (duplicates dropped)."""
    merged = list(urls)
    path = options.get("endpoints_file")
    if path:
        for url in read_endpoints_file(path):
            if url not in merged:
                merged.append(url)
    if not merged:
        raise UsageError(
            f"openai:{model} with several endpoints needs URLs: openai:{model}@URL1,URL2 "
            "or --model-opt endpoints_file=PATH"
        )
    return MultiEndpointModel(model, merged, options)
