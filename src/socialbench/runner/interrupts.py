"""What Ctrl-C does while a run is going (README.md, "Command line"): the first cancels the
run's main task (answers are on disk; the run is compacted, scored and marked interrupted),
a second only says saving is under way, a third calls ``quit_now``. None raises
``KeyboardInterrupt`` into running code, so none prints a traceback.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from types import FrameType
from typing import Any

from socialbench.messages import say


class CtrlC:
    """Context manager holding SIGINT for the life of a run (main thread only)."""

    def __init__(self, quit_now: Callable[[], None]):
        self.count = 0
        self._quit_now = quit_now
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self._previous: Any = None
        self._installed = False

    @property
    def interrupted(self) -> bool:
        return self.count > 0

    def __enter__(self) -> CtrlC:
        try:
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        except ValueError:  # not the main thread: leave Ctrl-C to its owner
            pass
        return self

    def __exit__(self, *exc: object) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False

    def attach(self) -> None:
        """Call from the run's main task: the first Ctrl-C will cancel it."""
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        if self.count and self._task is not None:  # Ctrl-C came before the loop started
            self._task.cancel()

    def detach(self) -> None:
        self._loop = self._task = None

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.count += 1
        if self.count == 1:
            say("stopping: saving what is answered")
            loop, task = self._loop, self._task
            if loop is not None and task is not None and not loop.is_closed():
                loop.call_soon_threadsafe(task.cancel)
            return
        if self.count == 2:
            say("still saving answers; Ctrl-C once more to quit at once")
            return
        self._quit_now()
