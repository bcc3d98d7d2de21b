"""The order in which a run starts its items: in dataset order, as the model has room.

:class:`ItemFeeder` starts item *k+1* only while fewer than ``prefetch`` started items are
still getting ready (enough to keep every image worker busy) and fewer than ``lookahead``
requests wait for a slot, so only a few samples' images are in memory at once. Each request
carries its item's place as its priority at the engine's slots
(:class:`~socialbench.runner.slots.PrioritySlots`): a sample's questions go out together.
See README.md, "Render cache".
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Iterable
from typing import Generic, TypeVar

T = TypeVar("T")


class ItemFeeder(Generic[T]):
    """Starts ``solve(item)`` for each item in order under the two bounds of the module
    docstring. ``backlog`` returns the number of requests waiting for a slot now; call
    :meth:`room_changed` whenever it drops, and :meth:`sending` as an item sends a request
    (its :meth:`priority` is the item's place in the order)."""

    def __init__(self, backlog: Callable[[], int], *, lookahead: int, prefetch: int, key: Callable[[T], str]) -> None:
        self._backlog = backlog
        self.lookahead = max(1, lookahead)
        self.prefetch = max(1, prefetch)
        self._key = key
        self._starting: set[str] = set()
        self._place: dict[str, int] = {}
        self._changed = asyncio.Event()
        self._failure: BaseException | None = None

    def priority(self, item_id: str) -> int:
        """The item's place in the order (0 first); items not fed by this feeder go last."""
        return self._place.get(item_id, len(self._place))

    def room_changed(self) -> None:
        """Wake the feeder: the backlog dropped."""
        self._changed.set()

    def sending(self, item_id: str) -> None:
        """``item_id`` sends a request: it is no longer getting ready."""
        if item_id in self._starting:
            self._starting.discard(item_id)
            self._changed.set()

    def _has_room(self) -> bool:
        return len(self._starting) < self.prefetch and self._backlog() < self.lookahead

    async def _wait_for_room(self) -> None:
        while not self._has_room() and self._failure is None:
            self._changed.clear()
            await self._changed.wait()

    async def run(self, items: Iterable[T], solve: Callable[[T], Awaitable[None]]) -> None:
        """Solve every item; returns when all are done. An exception from ``solve`` stops
        the feeding, cancels the other items and is raised; so is a cancellation of the
        caller (Ctrl-C), after the started items are cancelled."""
        tasks: list[asyncio.Task[None]] = []

        def finished(task: asyncio.Task[None], item_id: str) -> None:
            self._starting.discard(item_id)
            if not task.cancelled() and task.exception() is not None and self._failure is None:
                self._failure = task.exception()
            self._changed.set()

        try:
            for item in items:
                await self._wait_for_room()
                if self._failure is not None:
                    break
                item_id = self._key(item)
                self._place.setdefault(item_id, len(self._place))
                self._starting.add(item_id)
                task = asyncio.ensure_future(solve(item))
                task.add_done_callback(functools.partial(finished, item_id=item_id))
                tasks.append(task)
            if self._failure is None:
                await asyncio.gather(*tasks)
        except BaseException:
            await _cancel(tasks)
            raise
        if self._failure is not None:
            await _cancel(tasks)
            raise self._failure


async def _cancel(tasks: list[asyncio.Task[None]]) -> None:
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
