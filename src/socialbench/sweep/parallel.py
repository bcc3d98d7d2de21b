"""The local executor's concurrent cells: up to ``jobs`` cells at once, each in a worker process.

A cell run owns its process (its own event loop, SIGINT handler, image workers and run
folder lock), so each worker is a fresh ``spawn``ed interpreter that runs one cell at a time
in its main thread from the cell's option values. Workers sit in their own process group:
the sweep forwards each Ctrl-C to every running cell and starts no new one. A worker exits
when its pipe from the sweep closes, so a killed sweep leaves no cell running; a worker that
dies fails its cell only.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.context import SpawnContext
from multiprocessing.process import BaseProcess
from types import FrameType

from socialbench.messages import say
from socialbench.sweep.cells import CellOutcome, previous_status, run_cell
from socialbench.sweep.grid import Cell


def default_jobs() -> int:
    """Cells run at once when ``--jobs`` is not given: one. Each cell already sends its
    requests concurrently and prepares images in its own processes, and on the 2-core machine
    where this was measured (docs/scale.md) two cells of in-process baselines at once were
    slower than one after another."""
    return 1


@dataclass
class _Worker:
    """A worker process, its end of the task pipe, and the index of the cell it runs."""

    proc: BaseProcess
    conn: Connection
    cell: int | None = None


@dataclass
class _Stop:
    """Ctrl-C presses seen by the sweep, and the workers to forward them to."""

    presses: int = 0
    workers: list[_Worker] = field(default_factory=list)

    def press(self, signum: int, frame: FrameType | None) -> None:
        self.presses += 1
        if self.presses == 1:
            say("stopping: running cells save their answers; no new cell starts")
        for w in self.workers:
            if w.cell is not None and w.proc.pid is not None:
                try:
                    os.kill(w.proc.pid, signal.SIGINT)
                except ProcessLookupError:
                    pass


@contextmanager
def _ctrl_c(stop: _Stop) -> Iterator[None]:
    """Hold SIGINT for the sweep (main thread only; elsewhere Ctrl-C is its owner's)."""
    try:
        previous = signal.signal(signal.SIGINT, stop.press)
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run_parallel(
    cells: Sequence[Cell], jobs: int, *, on_done: Callable[[Cell, CellOutcome], None] | None = None
) -> list[CellOutcome]:
    """Run ``cells`` with up to ``jobs`` at once, in plan order as workers free up; a cell
    whose model asks for ``num_gpus`` waits while another such cell runs. Returns outcomes
    in plan order; after Ctrl-C the cells never started are ``not run``."""
    ctx = multiprocessing.get_context("spawn")
    alive_r, alive_w = ctx.Pipe(duplex=False)
    outcomes: list[CellOutcome | None] = [None] * len(cells)
    pending = list(range(len(cells)))
    stop = _Stop()

    def finish(i: int, outcome: CellOutcome) -> None:
        outcomes[i] = outcome
        if outcome.status == "interrupted":
            stop.presses = max(stop.presses, 1)
        if on_done is not None:
            on_done(cells[i], outcome)

    def take() -> int | None:
        gpu_busy = any(w.cell is not None and cells[w.cell].model.num_gpus > 0 for w in stop.workers)
        for k, i in enumerate(pending):
            if not (gpu_busy and cells[i].model.num_gpus > 0):
                return pending.pop(k)
        return None

    with _ctrl_c(stop):
        try:
            while True:
                while not stop.presses and pending:
                    idle = next((w for w in stop.workers if w.cell is None), None)
                    if idle is None and len(stop.workers) >= jobs:
                        break
                    i = take()
                    if i is None:
                        break
                    if previous_status(cells[i].run_dir) == "complete":
                        finish(i, CellOutcome(str(cells[i].run_dir), "skipped", message="complete before this sweep"))
                        continue
                    if idle is None:
                        idle = _start_worker(ctx, alive_r)
                        stop.workers.append(idle)
                    idle.cell = i
                    try:
                        idle.conn.send(cells[i].values)
                    except OSError:  # the worker died idle: its sentinel fails the cell below
                        pass
                busy = [w for w in stop.workers if w.cell is not None]
                if not busy:
                    break
                ready = set(wait([w.conn for w in busy] + [w.proc.sentinel for w in busy]))
                for w in busy:
                    if w.conn in ready or w.proc.sentinel in ready:
                        _collect(w, cells, stop, finish)
        finally:
            _shut_down(stop.workers)
            alive_w.close()
            alive_r.close()
    for i in pending:
        outcomes[i] = CellOutcome(str(cells[i].run_dir), "not run", message="the sweep was interrupted")
    return [o for o in outcomes if o is not None]


def _start_worker(ctx: SpawnContext, alive: Connection) -> _Worker:
    ours, theirs = ctx.Pipe(duplex=True)
    proc = ctx.Process(target=worker_main, args=(theirs, alive), name="socialbench-sweep-cell", daemon=False)
    proc.start()
    theirs.close()
    return _Worker(proc, ours)


def _collect(w: _Worker, cells: Sequence[Cell], stop: _Stop, finish: Callable[[int, CellOutcome], None]) -> None:
    """Take ``w``'s outcome, or fail its cell if the worker died (and drop the worker)."""
    assert w.cell is not None
    i, w.cell = w.cell, None
    try:
        finish(i, CellOutcome(**w.conn.recv()))
        return
    except (EOFError, OSError):
        pass
    w.proc.join()
    stop.workers.remove(w)
    w.conn.close()
    code = w.proc.exitcode
    run_dir = str(cells[i].run_dir)
    if stop.presses:
        finish(i, CellOutcome(run_dir, "interrupted", message=f"its worker quit (exit code {code})"))
    else:
        finish(i, CellOutcome(run_dir, "failed", message=f"its worker process died (exit code {code})"))


def _shut_down(workers: list[_Worker]) -> None:
    """Tell idle workers to end and wait for them; a worker still running a cell (this
    process is failing) is terminated."""
    for w in workers:
        if w.cell is not None:
            w.proc.terminate()
        else:
            try:
                w.conn.send(None)
            except OSError:
                pass
    for w in workers:
        w.proc.join()
        w.conn.close()


# The worker process ----------------------------------------------------------------------


class _WorkerState:
    """Whether the worker runs a cell now, and whether Ctrl-C reached it."""

    in_cell = False
    interrupted = False


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    """SIGINT outside ``run_eval``'s own handler: stop the cell being set up, or remember it."""
    _WorkerState.interrupted = True
    if _WorkerState.in_cell:
        raise KeyboardInterrupt


def _die_with_sweep(alive: Connection) -> None:
    """Block until the sweep's end of ``alive`` closes (the sweep ended, however), then exit."""
    try:
        alive.recv()
    except (EOFError, OSError):
        pass
    os._exit(1)


def worker_main(conn: Connection, alive: Connection) -> None:
    """A worker: run each cell sent on ``conn`` (its option values) and send back its
    outcome, until ``None`` arrives."""
    if hasattr(os, "setpgrp"):
        os.setpgrp()  # the terminal's Ctrl-C reaches the sweep, which forwards it
    signal.signal(signal.SIGINT, _on_sigint)
    threading.Thread(target=_die_with_sweep, args=(alive,), name="socialbench-sweep-watch", daemon=True).start()
    while True:
        values = conn.recv()
        if values is None:
            return
        run_dir = str(values["out_dir"])
        outcome: CellOutcome | None = None
        try:
            if _WorkerState.interrupted:
                outcome = CellOutcome(run_dir, "not run", message="the sweep was interrupted")
            else:
                _WorkerState.in_cell = True
                outcome = run_cell(values, progress=False)
                _WorkerState.in_cell = False
        except KeyboardInterrupt:
            _WorkerState.in_cell = False
            if outcome is None:
                outcome = CellOutcome(run_dir, "interrupted", message="stopped before its run began")
        conn.send(outcome.as_dict())
