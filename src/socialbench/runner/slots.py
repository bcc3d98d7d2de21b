"""Concurrency slots handed out by priority: the lowest priority number first, first come
first served among equals (a run's priority is the item's place in the dataset order, so
samples do not interleave). A lower limit (:meth:`PrioritySlots.set_limit`) takes effect as
holders release; a higher one hands the new slots to waiters at once.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools


class PrioritySlots:
    """``n`` slots; :meth:`acquire` waits for one, :meth:`release` hands it to the waiter
    with the lowest ``(priority, arrival)``."""

    def __init__(self, n: int) -> None:
        self._limit = max(1, n)
        self._held = 0
        self._queue: list[tuple[int, int, asyncio.Future[None]]] = []
        self._arrivals = itertools.count()
        self._waiting = 0

    @property
    def waiting(self) -> int:
        """Callers waiting for a slot now."""
        return self._waiting

    def set_limit(self, n: int) -> None:
        """Allow ``n`` (at least 1) slots from now on: waiters get the new ones at once; when
        ``n`` is lower than the slots held, releases are kept until the count is below it."""
        self._limit = max(1, n)
        self._hand_out()

    async def acquire(self, priority: int = 0) -> None:
        """Take a slot, waiting behind every earlier caller of lower or equal priority."""
        if self._held < self._limit and self._waiting == 0:
            self._held += 1
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
        self._held -= 1
        self._hand_out()

    def _hand_out(self) -> None:
        """Give free slots (held below the limit) to waiters in priority order."""
        while self._queue and self._held < self._limit:
            _, _, fut = heapq.heappop(self._queue)
            if not fut.done():
                self._waiting -= 1
                self._held += 1
                fut.set_result(None)
