"""Least-outstanding-requests routing over the endpoints of one model, with per-endpoint
limits and cool-downs (the rules are in :mod:`socialbench.models.endpoints`' docstring).
:meth:`EndpointPool.pick` and :meth:`EndpointPool.release` are synchronous and take their
clock as an argument, so the routing is tested without servers.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from socialbench.errors import UsageError
from socialbench.models.redact import redact_url

log = logging.getLogger(__name__)

DEFAULT_COOLDOWN_S = 5.0
DEFAULT_MAX_COOLDOWN_S = 60.0
_POLL_S = 0.25


def _settle(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


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
