"""Keep Python's cyclic garbage collector off the objects a run loads before it starts.

A release-sized SocialNav-SUB run holds a few million long-lived objects once its dataset is
loaded (tracks, questions, votes, prepared image parts). CPython's collector re-examines
them in every full collection, which the run's own allocations trigger now and then: on
release-sized data one such pass took 40-60 ms in the middle of the request phase, a pause
of the event loop that every request in flight waits out (measured with ``gc.callbacks``;
``perf/throughput.py`` times whole runs).

:func:`frozen_heap` moves the objects alive when the request phase starts into the
collector's permanent generation (:func:`gc.freeze`) and back into the oldest generation
when the run ends (:func:`gc.unfreeze`), so the change is scoped to the run. Reference
counting still frees every object as usual; only garbage *cycles* among the frozen objects
wait until the run ends to be collected.

:func:`collector_paused` keeps the collector from running at all while a block builds a
large structure that holds no garbage, such as a dataset snapshot being unpickled: every
young-generation pass there re-examines objects that all survive. Unpickling the
release-sized SocialNav-SUB snapshot (~53,000 objects) took 40 ms with the collector and
17 ms without it, first load in a process with the command's threshold.

:func:`frozen_after_loading` joins the two for a run's dataset: the collector stays paused
from the start of the load until the loaded objects are frozen. Re-enabling it in between
let the next allocation start a full collection over the whole fresh heap (37-51 ms in a
cached release-sized eval, before its first request; ``gc.callbacks``). A release-sized
SocialNav-SUB load, from the data folder or the snapshot, leaves no cyclic garbage to be
frozen along (``gc.collect()`` afterwards finds none).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from typing import TypeVar

T = TypeVar("T")


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Within the block, the collector skips every object alive when it was entered.

    Where objects are already frozen (the caller's own :func:`gc.freeze`, e.g. before
    forking workers), the collector is left as it is: :func:`gc.unfreeze` would return the
    caller's objects too.
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Within the block, the cyclic collector does not run (reference counting still frees
    objects); afterwards it is enabled again if it was before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def frozen_after_loading(loading: AbstractContextManager[T]) -> Iterator[T]:
    """Enter ``loading`` (e.g. :func:`~socialbench.runner.load_snapshot.loaded_dataset`)
    with the collector paused, then freeze the heap (:func:`frozen_heap`) before the
    collector can run again; yields what ``loading`` yields. On exit the heap is unfrozen,
    then ``loading`` is exited."""
    with ExitStack() as stack:
        with collector_paused():
            value = stack.enter_context(loading)
            stack.enter_context(frozen_heap())
        yield value
