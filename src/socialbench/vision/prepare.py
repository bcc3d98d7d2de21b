"""Prompt-image preparation on every core, behind the render cache.

Drawing, resizing and encoding hold the GIL, so a run prepares images in worker *processes*
(:class:`ImagePreparer`) while its event loop keeps the model busy. Jobs are small picklable
objects (paths and parameters, never arrays) following the :class:`ImageJob` protocol
(:class:`EncodeFiles`, or a benchmark's own such as
:class:`socialbench.navigation.render_job.RenderSample`); each returns one item's encoded
images, the same bytes in a worker as in-process (:func:`run_job`).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import tempfile
import threading
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Protocol

from socialbench.errors import DataError, Problem
from socialbench.types import EncodedImage
from socialbench.vision.idle_priority import IdleRunner
from socialbench.vision.images import ImageEncoder, ImagePolicy, Transform
from socialbench.vision.render_cache import RenderCache, render_key


@dataclass(frozen=True)
class PerturbSpec:
    """A perturbation by name (picklable; the transform is built where it runs)."""

    name: str
    strength: float = 1.0
    seed: int = 0

    def transform(self) -> Transform:
        from socialbench.vision.perturb import make_perturbation

        return make_perturbation(self.name, self.strength, self.seed)

    def describe(self) -> dict[str, str | float]:
        return {"name": self.name, "strength": self.strength, "seed": self.seed}


class ImageJob(Protocol):
    """One item's images to prepare. Must pickle (paths and parameters only)."""

    def cache_key(self) -> str | None:
        """Content key over the inputs' bytes and every parameter, or None: do not cache."""

    def run(self) -> tuple[EncodedImage, ...]:
        """Prepare the images (no cache involved)."""


@dataclass(frozen=True)
class EncodeFiles:
    """Resize and encode image files under ``policy`` (after ``perturb``, if any)."""

    paths: tuple[str, ...]
    policy: ImagePolicy
    perturb: PerturbSpec | None = None

    def cache_key(self) -> str | None:
        params = {"policy": self.policy.describe(), "perturb": self.perturb and self.perturb.describe()}
        return render_key("encode-files", params, self.paths)

    def run(self) -> tuple[EncodedImage, ...]:
        transform = self.perturb.transform() if self.perturb is not None else None
        return ImageEncoder(self.policy, transform, capacity=0).encode_many(self.paths)


def job_key(job: ImageJob) -> str | None:
    """``job``'s cache key, or None when it has none or an input cannot be read (then
    :meth:`ImageJob.run` reports the unreadable input with its usual message)."""
    try:
        return job.cache_key()
    except OSError:
        return None


def run_job(job: ImageJob, cache: RenderCache | None = None, key: str | None = None) -> tuple[EncodedImage, ...]:
    """Prepare one job in this process, reading and filling ``cache`` if given (under
    ``key`` when the caller already computed it)."""
    if cache is not None:
        key = key if key is not None else job_key(job)
        if key is not None:
            hit = cache.get(key)
            if hit is not None:
                return hit
    images = job.run()
    if key is not None and cache is not None:
        cache.put(key, images)
    return images


def cached_images(job: ImageJob, cache_dir: str) -> tuple[str | None, tuple[EncodedImage, ...] | None]:
    """(``job``'s key, its images if the render cache at ``cache_dir`` holds them)."""
    key = job_key(job)
    return key, (RenderCache(cache_dir).get(key) if key is not None else None)


#: How much lower than the run's own the image workers' scheduling priority is (Unix
#: ``nice`` increment): when cores are short, the run's event loop (sending requests,
#: reading answers) goes first and images are prepared with the time left. On Linux the
#: jobs themselves run at idle priority on top of this (:data:`_IDLE`).
WORKER_NICENESS = 5


def _worker_init(run_alive: Connection) -> None:
    # Ctrl-C goes to the whole process group: the run (not its workers) handles it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(os, "nice"):  # not on Windows
        try:
            os.nice(WORKER_NICENESS)
        except OSError:  # not permitted here: run at the run's priority
            pass
    threading.Thread(target=_exit_when_run_ends, args=(run_alive,), name="socialbench-run-watch", daemon=True).start()


def _exit_when_run_ends(run_alive: Connection) -> None:
    """End this worker as soon as the run is gone (``run_alive`` reaches end-of-file however
    the run ends, SIGKILL included); else a killed run's workers would wait forever, holding
    its stdout/stderr open, and whoever reads the run's output would never see end-of-file."""
    try:
        run_alive.recv()
    except (EOFError, OSError):
        pass
    os._exit(0)


#: Where a worker process prepares its jobs: in a thread at idle CPU priority (see
#: :mod:`socialbench.vision.idle_priority`). Each worker has its own (the thread starts at
#: its first job).
_IDLE = IdleRunner()


def _run_in_worker(
    job: ImageJob, cache_dir: str | None, key: str | None = None
) -> tuple[tuple[EncodedImage, ...] | None, list[Problem] | None]:
    """Worker entry point: the job runs at idle CPU priority (:data:`_IDLE`). A
    :class:`DataError` comes back as its problems (the exception itself does not survive
    pickling); anything else is raised as usual."""
    try:
        return _IDLE.run(run_job, job, RenderCache(cache_dir) if cache_dir else None, key), None
    except DataError as exc:
        return None, exc.problems


#: The most worker processes a preparer starts by default. 600 composites are ~12 s of one
#: core's work, so more workers than this only add memory.
MAX_DEFAULT_WORKERS = 16


def default_image_workers(cores: int | None) -> int:
    """How many image workers a run starts by default on ``cores`` cores: one per core but
    one, which the run's event loop keeps (the model must never wait for the loop), at least
    one and at most :data:`MAX_DEFAULT_WORKERS`. On 2 cores, one worker prepares the 600
    release composites faster than 64 requests in flight at 200 ms use them, with one
    renderer's memory less (``perf/throughput.py``: peak PSS 298 -> 246 MiB)."""
    return min(max(1, (cores or 1) - 1), MAX_DEFAULT_WORKERS)


#: Longest path of an AF_UNIX socket, NUL excluded: ``sun_path`` holds 104 bytes on macOS
#: and the BSDs (108 on Linux).
SOCKET_PATH_MAX = 103
#: What multiprocessing appends to the temporary folder for the fork server's socket:
#: ``/pymp-XXXXXXXX/listener-XXXXXXXX``.
_FORKSERVER_SOCKET_SUFFIX = len("/pymp-XXXXXXXX/listener-XXXXXXXX")


def worker_start_method(methods: Sequence[str], temp_dir: str) -> str:
    """How image workers start: ``forkserver`` (one process imports the renderer once and
    forks every worker) where it exists and its socket path under ``temp_dir`` fits
    :data:`SOCKET_PATH_MAX`; else ``spawn`` (each worker imports the renderer itself: a
    slower start, but a long ``TMPDIR``, as on macOS, cannot break it)."""
    fits = len(os.fsencode(temp_dir)) + _FORKSERVER_SOCKET_SUFFIX <= SOCKET_PATH_MAX
    return "forkserver" if "forkserver" in methods and fits else "spawn"


def _warm() -> int:
    return os.getpid()


class ImagePreparer:
    """Runs :class:`ImageJob`\\ s for a run: in ``workers`` processes (default:
    :func:`default_image_workers`; ~70 MB each), or in one thread with ``workers=0``;
    ``preload`` names modules the workers import first. With a render cache (``cache_dir``)
    a job is looked up from a thread of this process first: a hit never reaches a worker.
    The workers start at :meth:`warm`, or at the first job that needs one."""

    def __init__(self, workers: int | None = None, cache_dir: Path | None = None, preload: Sequence[str] = ()):
        self.workers = default_image_workers(os.cpu_count()) if workers is None else max(0, workers)
        self.cache_dir = str(cache_dir) if cache_dir is not None else None
        self._lookup = ThreadPoolExecutor(max_workers=1, thread_name_prefix="socialbench-render-cache")
        self._warmed = False
        self._executor: Executor
        if self.workers == 0:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="socialbench-prepare")
        else:
            method = worker_start_method(multiprocessing.get_all_start_methods(), tempfile.gettempdir())
            ctx = multiprocessing.get_context(method)
            if method == "forkserver":
                ctx.set_forkserver_preload(["socialbench.vision.prepare", *preload])
            # The workers get the read end only (forkserver and spawn pass just what is
            # pickled), so it reaches end-of-file when this process ends, however it ends.
            self._run_alive, self._run_alive_w = ctx.Pipe(duplex=False)
            self._executor = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=ctx, initializer=_worker_init, initargs=(self._run_alive,)
            )

    def warm(self) -> None:
        """Start the workers now (once), from a background thread: starting the fork
        server blocks until it has imported ``preload``."""
        if self.workers and not self._warmed:
            self._warmed = True
            threading.Thread(target=self._warm, name="socialbench-prepare-warm", daemon=True).start()

    def _warm(self) -> None:
        try:
            for _ in range(self.workers):
                self._executor.submit(_warm)
        except RuntimeError:  # shut down before the workers were up
            pass

    async def prepare(self, job: ImageJob) -> tuple[EncodedImage, ...]:
        """The job's images: from the render cache, else prepared off the event loop."""
        import asyncio  # here, not at the top: the workers import this module, and need no event loop

        loop = asyncio.get_running_loop()
        key = None
        if self.cache_dir is not None:
            key, hit = await loop.run_in_executor(self._lookup, cached_images, job, self.cache_dir)
            if hit is not None:
                return hit
        if self.workers == 0:
            cache = RenderCache(self.cache_dir) if self.cache_dir else None
            return await loop.run_in_executor(self._executor, run_job, job, cache, key)
        self.warm()
        images, problems = await loop.run_in_executor(self._executor, _run_in_worker, job, self.cache_dir, key)
        if problems is not None:
            raise DataError(problems)
        assert images is not None
        return images

    def shutdown(self) -> None:
        """Stop the workers; jobs not started are cancelled."""
        self._lookup.shutdown(wait=True, cancel_futures=True)
        self._executor.shutdown(wait=True, cancel_futures=True)
        if self.workers:
            self._run_alive_w.close()
            self._run_alive.close()
