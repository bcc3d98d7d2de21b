"""Image jobs at idle CPU priority: calls run in a SCHED_IDLE thread (Linux) until one
starves, then in the caller's thread."""

import os
import threading
import time

import pytest

from socialbench.vision.idle_priority import IdleRunner, idle_policy_available, starved


def _policy() -> int | None:
    """The scheduling policy of the calling thread, where the platform has one."""
    return os.sched_getscheduler(0) if hasattr(os, "sched_getscheduler") else None


def test_a_call_that_ran_most_of_its_time_is_not_starved() -> None:
    assert not starved(wall_s=2.0, cpu_s=1.5)


def test_a_call_that_mostly_waited_for_a_core_starved() -> None:
    assert starved(wall_s=3.0, cpu_s=0.1)


def test_a_short_call_is_not_judged_starved() -> None:
    assert not starved(wall_s=0.3, cpu_s=0.0)


def test_calls_run_at_idle_policy_where_there_is_one() -> None:
    runner = IdleRunner()
    expected = os.SCHED_IDLE if idle_policy_available() else _policy()
    assert runner.run(_policy) == expected


def test_the_callers_thread_keeps_its_policy() -> None:
    before = _policy()
    IdleRunner().run(_policy)
    assert _policy() == before


def test_after_a_starved_call_calls_run_in_the_callers_thread() -> None:
    runner = IdleRunner()
    runner.run(time.sleep, 0.6)  # 0.6 s of wall, no CPU: starved by the rule above
    assert runner.run(threading.get_ident) == threading.get_ident()


def test_an_exception_comes_back_to_the_caller() -> None:
    def fail() -> None:
        raise ValueError("broken frame")

    with pytest.raises(ValueError, match="broken frame"):
        IdleRunner().run(fail)
