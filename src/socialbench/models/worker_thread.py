"""One background thread that owns an in-process model (``hf:``, ``vllm:``).

Requests from any event loop queue up as :class:`ThreadJob`\\ s; the thread loads the model
on first use, then serves jobs until it reads :data:`STOP`, and settles each caller's future
through the caller's own loop. A load failure is kept and raised, the same clear error, for
every request after it.
"""

from __future__ import annotations

import asyncio
import collections
import enum
import logging
import queue
import threading
from dataclasses import dataclass
from typing import Final

from socialbench.models.base import FatalModelError, ModelError
from socialbench.types import Generation, Request

log = logging.getLogger(__name__)


class _Signal(enum.Enum):
    STOP = "stop"


#: Put on the queue to end the worker thread.
STOP: Final = _Signal.STOP


@dataclass
class ThreadJob:
    """One waiting request and the caller's future (settled from the worker thread)."""

    request: Request
    future: asyncio.Future[Generation]
    loop: asyncio.AbstractEventLoop

    def live(self) -> bool:
        """False once the caller stopped waiting (cancelled or timed out)."""
        return not self.future.done()

    def resolve(self, result: Generation | BaseException) -> None:
        """Settle the caller's future from the worker thread (no-op if it gave up)."""

        def settle() -> None:
            if self.future.done():
                return
            if isinstance(result, BaseException):
                self.future.set_exception(result)
            else:
                self.future.set_result(result)

        try:
            self.loop.call_soon_threadsafe(settle)
        except RuntimeError:  # the caller's loop is closed: nobody is waiting
            pass


class WorkerThreadModel:
    """Base of a backend whose model lives in one background thread.

    A subclass calls :meth:`_init_worker` in its constructor and provides ``spec``,
    ``source``, ``load()`` (build the model; runs in the thread) and ``_serve()`` (take jobs
    from ``self._queue`` until :data:`STOP`; answer each with :meth:`ThreadJob.resolve`,
    or with ``self._load_error`` when it is set)."""

    spec: str
    source: str
    #: The worker thread's name is ``f"{thread_prefix}:{source}"``.
    thread_prefix = "model-worker"

    def _init_worker(self) -> None:
        self._queue: queue.SimpleQueue[ThreadJob | _Signal] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._load_error: ModelError | None = None

    def load(self) -> None:
        raise NotImplementedError

    def _serve(self) -> None:
        raise NotImplementedError

    def _ensure_worker(self) -> None:
        with self._start_lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._work, name=f"{self.thread_prefix}:{self.source}", daemon=True
                )
                self._thread.start()

    async def generate(self, request: Request) -> Generation:
        if self._load_error is not None:
            raise self._load_error
        loop = asyncio.get_running_loop()
        job = ThreadJob(request, loop.create_future(), loop)
        self._ensure_worker()
        self._queue.put(job)
        return await job.future

    def _work(self) -> None:
        try:
            self.load()
        except BaseException as exc:  # noqa: BLE001 - every request gets the same clear error
            self._load_error = FatalModelError("load_error", f"{self.spec}: {type(exc).__name__}: {exc}"[:1000])
            log.error("%s", self._load_error)
        self._serve()

    def _gather(self, pending: collections.deque[ThreadJob], wanted: int, wait_s: float) -> bool:
        """Move the waiting jobs to ``pending``; while fewer than ``wanted`` are pending, wait
        up to ``wait_s`` for each further one. True when the stop signal was read."""
        while True:
            try:
                while True:
                    item = self._queue.get_nowait()
                    if item is STOP:
                        return True
                    pending.append(item)
            except queue.Empty:
                pass
            if len(pending) >= wanted or wait_s <= 0:
                return False
            try:
                item = self._queue.get(timeout=wait_s)
            except queue.Empty:
                return False
            if item is STOP:
                return True
            pending.append(item)

    def _take_live(
        self, pending: collections.deque[ThreadJob], stopping: bool, wanted: int, wait_s: float
    ) -> tuple[list[ThreadJob], bool] | None:
        """One turn of a ``_serve`` loop: with nothing ``pending``, block for the next job
        (None once :data:`STOP` was read, or read before: ``stopping``); then gather up to
        ``wanted`` (:meth:`_gather`). The pending jobs whose callers still wait, and whether
        the stop signal was read (serve them, then return at the next empty turn)."""
        if not pending:
            if stopping:
                return None
            item = self._queue.get()
            if item is STOP:
                return None
            pending.append(item)
        stopping = self._gather(pending, wanted, wait_s) or stopping
        return [job for job in pending if job.live()], stopping

    async def _stop_worker(self) -> None:
        """Let the thread finish what it holds, then end it."""
        thread = self._thread
        if thread is not None and thread.is_alive():
            self._queue.put(STOP)
            await asyncio.to_thread(thread.join)
        self._thread = None
