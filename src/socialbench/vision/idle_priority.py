"""Image work at idle CPU priority, with a way back when it starves (README.md, "Render cache").

On Linux an image worker prepares images in a ``SCHED_IDLE`` thread (:class:`IdleRunner`): it
gets a core only when no normal thread wants one, so drawing never delays the run's event
loop or a model server (``nice`` alone lets a thread finish its time slice). An unprivileged
thread cannot leave ``SCHED_IDLE``, so the policy is set on a helper thread only: when a call
shows it waited mostly for a core (:func:`starved`), later calls run in the caller's own
(niced) thread. Where ``SCHED_IDLE`` does not exist, calls run in the caller's thread.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

#: A call starved when its wall time exceeded this many times the CPU time it used ...
STARVED_RATIO = 4.0
#: ... plus this many seconds (short calls are not judged on scheduling noise).
STARVED_GRACE_S = 0.5


def starved(wall_s: float, cpu_s: float) -> bool:
    """Whether a call that took ``wall_s`` seconds, of which its thread ran ``cpu_s``, spent
    most of its time waiting for a core: ``wall_s > STARVED_RATIO * cpu_s + STARVED_GRACE_S``."""
    return wall_s > STARVED_RATIO * cpu_s + STARVED_GRACE_S


def idle_policy_available() -> bool:
    """Whether this platform has the ``SCHED_IDLE`` scheduling policy (Linux)."""
    return hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_IDLE")


def _enter_idle_policy() -> None:
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except OSError:  # refused here (e.g. a sandbox): the thread keeps the normal policy
        pass


def _timed(fn: Callable[..., T], *args: object) -> tuple[T, float]:
    t0 = time.thread_time()
    result = fn(*args)
    return result, time.thread_time() - t0


class IdleRunner:
    """Runs calls in one ``SCHED_IDLE`` thread (started at the first call) until a call
    starves, then in the caller's thread. One per process; not for concurrent callers."""

    def __init__(self) -> None:
        self.idle = idle_policy_available()
        self._thread: ThreadPoolExecutor | None = None

    def run(self, fn: Callable[..., T], *args: object) -> T:
        """``fn(*args)``, at idle priority while that has not starved; its exception, if any."""
        if not self.idle:
            return fn(*args)
        if self._thread is None:
            self._thread = ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="socialbench-idle", initializer=_enter_idle_policy
            )
        t0 = time.perf_counter()
        result, cpu_s = self._thread.submit(_timed, fn, *args).result()
        if starved(time.perf_counter() - t0, cpu_s):
            self.idle = False
            self._thread.shutdown(wait=False)
        return result
