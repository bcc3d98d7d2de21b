"""runner.heap: frozen_heap makes the collector skip the objects alive when a run starts, for
the run only, and leaves a caller's own frozen objects alone; collector_paused stops the
collector for a block and restores the caller's setting; frozen_after_loading keeps it paused
from a load until the loaded objects are frozen."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from socialbench.runner.heap import collector_paused, frozen_after_loading, frozen_heap


@pytest.fixture(autouse=True)
def _nothing_frozen():
    gc.unfreeze()
    yield
    gc.unfreeze()
    gc.enable()


def test_objects_alive_at_entry_are_frozen_inside_the_block() -> None:
    alive = [{"k": i} for i in range(100)]
    with frozen_heap():
        assert gc.get_freeze_count() >= len(alive)


def test_the_block_leaves_nothing_frozen() -> None:
    with frozen_heap():
        pass
    assert gc.get_freeze_count() == 0


def test_an_exception_still_unfreezes() -> None:
    with pytest.raises(RuntimeError), frozen_heap():
        raise RuntimeError("boom")
    assert gc.get_freeze_count() == 0


def is_frozen(obj: object) -> bool:
    """Whether ``obj`` (an object the collector tracks) is in the permanent generation:
    :func:`gc.get_objects` lists the other generations only. (Counting frozen objects would
    race with other threads freeing theirs.)"""
    assert gc.is_tracked(obj)
    return not any(o is obj for o in gc.get_objects())


def test_a_callers_freeze_is_left_as_it_was() -> None:
    callers = [object()]
    gc.freeze()
    with frozen_heap():
        made_inside = [object()]
        assert is_frozen(callers) and not is_frozen(made_inside)
    assert is_frozen(callers) and not is_frozen(made_inside)


def test_cycles_made_inside_the_block_are_still_collected() -> None:
    class Node:
        pass

    with frozen_heap():
        a, b = Node(), Node()
        a.other, b.other = b, a  # type: ignore[attr-defined]
        del a, b
        assert gc.collect() >= 2


def test_the_collector_is_off_inside_a_paused_block() -> None:
    with collector_paused():
        assert not gc.isenabled()


def test_the_collector_is_on_again_after_a_paused_block() -> None:
    with collector_paused():
        pass
    assert gc.isenabled()


def test_a_paused_block_leaves_a_callers_disabled_collector_off() -> None:
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_an_exception_in_a_paused_block_still_enables_the_collector() -> None:
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


@contextmanager
def loading(seen: list[str]) -> Iterator[list[dict[str, int]]]:
    """A stand-in for loaded_dataset: notes the collector's state while it loads and when
    it is exited (then also whether anything is still frozen)."""
    seen.append(f"load: collector {'on' if gc.isenabled() else 'off'}")
    yield [{"k": i} for i in range(100)]
    seen.append(f"exit: frozen {gc.get_freeze_count()}")


def test_the_collector_is_off_while_loading() -> None:
    seen: list[str] = []
    with frozen_after_loading(loading(seen)):
        pass
    assert seen[0] == "load: collector off"


def test_the_loaded_objects_are_frozen_and_the_collector_on_in_the_body() -> None:
    with frozen_after_loading(loading([])) as loaded:
        assert gc.isenabled() and gc.get_freeze_count() >= len(loaded)


def test_the_heap_is_unfrozen_before_the_loading_context_exits() -> None:
    seen: list[str] = []
    with frozen_after_loading(loading(seen)):
        pass
    assert seen[-1] == "exit: frozen 0" and gc.get_freeze_count() == 0


def test_a_failed_load_enables_the_collector_and_freezes_nothing() -> None:
    @contextmanager
    def failing() -> Iterator[None]:
        raise RuntimeError("bad data")
        yield

    with pytest.raises(RuntimeError, match="bad data"), frozen_after_loading(failing()):
        pass
    assert gc.isenabled() and gc.get_freeze_count() == 0
