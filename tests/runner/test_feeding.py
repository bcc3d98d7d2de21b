"""The item feeder: items start in order, a few ahead, as the model has room
(runner/feeding.py)."""

from __future__ import annotations

import asyncio

import pytest

from socialbench.runner.feeding import ItemFeeder


def _feeder(backlog: list[int], *, lookahead: int = 4, prefetch: int = 2) -> ItemFeeder[str]:
    return ItemFeeder(lambda: backlog[0], lookahead=lookahead, prefetch=prefetch, key=lambda item: item)


def test_items_start_in_dataset_order_with_their_place_as_priority() -> None:
    started: list[tuple[str, int]] = []
    feeder = _feeder([0])

    async def solve(item: str) -> None:
        started.append((item, feeder.priority(item)))
        feeder.sending(item)

    asyncio.run(feeder.run(["a", "b", "c", "d"], solve))
    assert started == [("a", 0), ("b", 1), ("c", 2), ("d", 3)]


def test_no_item_starts_while_the_backlog_reaches_the_lookahead() -> None:
    backlog = [0]
    feeder = _feeder(backlog, lookahead=4, prefetch=1)
    started: list[str] = []

    async def scenario() -> None:
        release = asyncio.Event()

        async def solve(item: str) -> None:
            started.append(item)
            backlog[0] += 4  # each item queues a batch behind the busy slots
            feeder.sending(item)
            await release.wait()

        task = asyncio.ensure_future(feeder.run(["a", "b", "c"], solve))
        for _ in range(5):
            await asyncio.sleep(0)
        assert started == ["a"]
        backlog[0] = 3  # slots freed: the backlog drops below the lookahead
        feeder.room_changed()
        for _ in range(5):
            await asyncio.sleep(0)
        assert started == ["a", "b"]
        backlog[0] = 0
        feeder.room_changed()
        release.set()
        await task

    asyncio.run(scenario())
    assert started == ["a", "b", "c"]


def test_at_most_prefetch_items_get_ready_at_once() -> None:
    feeder = _feeder([0], prefetch=2)
    most = 0

    async def solve(item: str) -> None:
        nonlocal most
        most = max(most, len(feeder._starting))
        await asyncio.sleep(0.001)  # preparing images
        feeder.sending(item)

    asyncio.run(feeder.run([str(i) for i in range(8)], solve))
    assert most == 2


def test_an_item_that_finishes_without_sending_frees_its_place() -> None:
    feeder = _feeder([0], prefetch=1)
    done: list[str] = []

    async def solve(item: str) -> None:  # every answer already on disk: nothing sent
        done.append(item)

    asyncio.run(feeder.run(["a", "b", "c"], solve))
    assert done == ["a", "b", "c"] and not feeder._starting


def test_an_item_not_fed_by_the_feeder_comes_last() -> None:
    feeder = _feeder([0])

    async def solve(item: str) -> None:
        feeder.sending(item)

    asyncio.run(feeder.run(["a", "b"], solve))
    assert feeder.priority("other") == 2


def test_a_failing_item_stops_the_feeding_and_cancels_the_others() -> None:
    feeder = _feeder([0], prefetch=3)
    cancelled: list[str] = []
    started: list[str] = []

    async def solve(item: str) -> None:
        started.append(item)
        if item == "b":
            raise OSError("disk full")
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.append(item)
            raise

    with pytest.raises(OSError, match="disk full"):
        asyncio.run(feeder.run(["a", "b", "c", "d", "e"], solve))
    assert "e" not in started
    assert set(cancelled) == set(started) - {"b"}


def test_cancelling_the_run_cancels_the_started_items() -> None:
    feeder = _feeder([0], prefetch=2)
    cancelled: list[str] = []

    async def solve(item: str) -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.append(item)
            raise

    async def scenario() -> None:
        task = asyncio.ensure_future(feeder.run(["a", "b", "c"], solve))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert cancelled == ["a", "b"]
