"""Concurrency slots handed out by priority: the lowest priority number first, first come
first served among equals.

The engine's requests wait here for one of ``n`` slots. A run gives each request its
item's place in the dataset order (:mod:`socialbench.runner.feeding`), so the questions of
an earlier sample go out before those of a later one even when both are queued: samples
do not interleave, and a sample's images are needed only while its questions are sent.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools


class PrioritySlots:
    """``n`` slots; :meth:`acquire` waits for one, :meth:`release` hands it to the waiter
    with the lowest ``(priority, arrival)``."""

    def __init__(self, n: int) -> None:
        self._free = max(1, n)
        self._queue: list[tuple[int, int, asyncio.Future[None]]] = []
        self._arrivals = itertools.count()
        self._waiting = 0

    @property
    def waiting(self) -> int:
        """Callers waiting for a slot now."""
        return self._waiting

    async def acquire(self, priority: int = 0) -> None:
        """Take a slot, waiting behind every earlier caller of lower or equal priority."""
        if self._free > 0 and self._waiting == 0:
            self._free -= 1
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._queue, (priority, next(self._arrivals), fut))
        self._waiting += 1
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():  # handed a slot, then cancelled: pass it on
                self.release()
            else:
                self._waiting -= 1
            raise

    def release(self) -> None:
        """Give a slot back: to the first waiter in priority order, else to the pool."""
        while self._queue:
            _, _, fut = heapq.heappop(self._queue)
            if not fut.done():
                self._waiting -= 1
                fut.set_result(None)
                return
        self._free += 1
