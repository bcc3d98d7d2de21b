"""Concurrency slots by priority (runner/slots.py)."""

from __future__ import annotations

import asyncio

from socialbench.runner.slots import PrioritySlots


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_waiters_get_slots_lowest_priority_first_then_in_arrival_order() -> None:
    order: list[str] = []

    async def scenario() -> None:
        slots = PrioritySlots(1)
        await slots.acquire()  # the only slot is busy

        async def wait(name: str, priority: int) -> None:
            await slots.acquire(priority)
            order.append(name)
            slots.release()

        tasks = [
            asyncio.ensure_future(wait(n, p)) for n, p in [("late-1", 5), ("early-1", 1), ("late-2", 5), ("early-2", 1)]
        ]
        await _settle()
        assert slots.waiting == 4
        slots.release()
        await asyncio.gather(*tasks)
        assert slots.waiting == 0

    asyncio.run(scenario())
    assert order == ["early-1", "early-2", "late-1", "late-2"]


def test_no_more_than_n_hold_a_slot() -> None:
    held = most = 0

    async def scenario() -> None:
        slots = PrioritySlots(3)

        async def work(i: int) -> None:
            nonlocal held, most
            await slots.acquire(i % 4)
            held += 1
            most = max(most, held)
            await asyncio.sleep(0.001)
            held -= 1
            slots.release()

        await asyncio.gather(*(work(i) for i in range(20)))

    asyncio.run(scenario())
    assert most == 3


def test_a_cancelled_waiter_leaves_the_queue() -> None:
    async def scenario() -> tuple[int, bool]:
        slots = PrioritySlots(1)
        await slots.acquire()
        waiter = asyncio.ensure_future(slots.acquire())
        await _settle()
        waiter.cancel()
        await _settle()
        waiting = slots.waiting
        slots.release()
        # the slot went back to the pool, not to the cancelled waiter
        await asyncio.wait_for(slots.acquire(), timeout=1)
        return waiting, waiter.cancelled()

    assert asyncio.run(scenario()) == (0, True)


def test_a_waiter_cancelled_after_being_handed_a_slot_passes_it_on() -> None:
    async def scenario() -> bool:
        slots = PrioritySlots(1)
        await slots.acquire()
        first = asyncio.ensure_future(slots.acquire())
        second = asyncio.ensure_future(slots.acquire())
        await _settle()
        slots.release()  # handed to `first` ...
        first.cancel()  # ... which is cancelled before it runs
        await asyncio.wait_for(second, timeout=1)
        return first.cancelled()

    assert asyncio.run(scenario())


def test_a_lower_limit_takes_effect_as_holders_release():
    async def scenario() -> list[int]:
        slots = PrioritySlots(4)
        for _ in range(4):
            await slots.acquire()
        slots.set_limit(2)
        waiter = asyncio.ensure_future(slots.acquire())
        held_after = []
        for _ in range(3):  # 4 held -> 1 held: only then is there room under 2
            slots.release()
            await _settle()
            held_after.append(int(waiter.done()))
        await waiter
        return held_after

    assert asyncio.run(scenario()) == [0, 0, 1]


def test_a_higher_limit_hands_slots_to_waiters_at_once():
    async def scenario() -> int:
        slots = PrioritySlots(1)
        await slots.acquire()
        waiters = [asyncio.ensure_future(slots.acquire()) for _ in range(3)]
        await _settle()
        slots.set_limit(3)
        await _settle()
        return sum(w.done() for w in waiters)

    assert asyncio.run(scenario()) == 2
