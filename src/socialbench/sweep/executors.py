"""Executors of a sweep: ``local`` (:func:`run_local`) and ``ray`` (each cell a Ray task
asking for its model's ``num_gpus``/``num_cpus``, writing under the shared ``--out``)."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

from socialbench.errors import UsageError
from socialbench.sweep.cells import CellOutcome, run_cell
from socialbench.sweep.grid import Cell

log = logging.getLogger(__name__)

RAY_MISSING = "the ray executor needs Ray: pip install 'socialbench[ray]' (or use --executor local)"
#: The start of every local Ray cluster's folder name (see :func:`local_ray_temp_dir`).
RAY_TEMP_PREFIX = "sbray-"


def run_local(
    cells: Sequence[Cell],
    *,
    jobs: int = 1,
    progress: bool = False,
    on_done: Callable[[Cell, CellOutcome], None] | None = None,
) -> list[CellOutcome]:
    """Run ``cells``: with ``jobs`` 1 in order in this process, else up to ``jobs`` at once in
    worker processes (:mod:`.parallel`). An interrupted cell (Ctrl-C) stops the sweep and the
    cells not started are ``not run``."""
    if jobs > 1:
        from socialbench.sweep.parallel import run_parallel

        return run_parallel(cells, jobs, on_done=on_done)
    outcomes: list[CellOutcome] = []
    for i, cell in enumerate(cells):
        outcome = run_cell(cell.values, progress=progress)
        outcomes.append(outcome)
        if on_done is not None:
            on_done(cell, outcome)
        if outcome.status == "interrupted":
            outcomes += [
                CellOutcome(str(c.run_dir), "not run", message="the sweep was interrupted") for c in cells[i + 1 :]
            ]
            break
    return outcomes


def _ray_cell(values: dict[str, Any]) -> dict[str, object]:
    """The Ray task: one cell, run in a worker; returns its outcome as plain data."""
    return run_cell(values, progress=False).as_dict()


def import_ray() -> Any:  # ray is optional (the ray extra): its module stays untyped here
    """The ``ray`` module, or a :class:`UsageError` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise UsageError(RAY_MISSING) from None
    return ray


def ray_temp_parent() -> str:
    """Where :func:`local_ray_temp_dir` makes its folders: ``/tmp`` where it exists, else
    the system's temporary folder."""
    return "/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir()


def local_ray_temp_dir() -> str:
    """A new short folder for a local Ray cluster's session files: Ray's socket paths under a
    long ``TMPDIR`` (macOS's ``/var/folders/…/T/``) pass the 107-byte limit of a socket address."""
    return tempfile.mkdtemp(prefix=RAY_TEMP_PREFIX, dir=ray_temp_parent())


def run_ray(
    cells: Sequence[Cell], *, address: str | None = None, on_done: Callable[[Cell, CellOutcome], None] | None = None
) -> list[CellOutcome]:
    """Run every cell as a Ray task on the cluster at ``address`` (None: the one this process
    already joined, else a new local one). A task that dies is that cell's ``failed``. A
    local cluster started here is shut down at the end and its folder removed, unless a task
    died: then the folder, with the workers' logs, is kept and its path logged."""
    ray = import_ray()
    if ray.is_initialized():
        return _run_tasks(ray, cells, on_done)
    if address is not None:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
        return _run_tasks(ray, cells, on_done)
    temp_dir = local_ray_temp_dir()  # a new local cluster: its sockets must fit AF_UNIX's ~107 bytes
    crashed: list[int] = []
    try:
        ray.init(include_dashboard=False, log_to_driver=False, _temp_dir=temp_dir)
        return _run_tasks(ray, cells, on_done, crashed=crashed)
    finally:
        ray.shutdown()
        if crashed:
            log.warning("%d Ray task(s) died; the local cluster's logs are kept in %s", len(crashed), temp_dir)
        else:
            remove_ray_temp_dir(temp_dir)


def remove_ray_temp_dir(temp_dir: str) -> None:
    """Remove a local cluster's session folder; a failure is logged, not raised (the
    sweep's results are already written)."""
    try:
        shutil.rmtree(temp_dir)
    except OSError as exc:
        log.warning("could not remove the local Ray folder %s: %s", temp_dir, exc)


def _run_tasks(
    ray: Any,
    cells: Sequence[Cell],
    on_done: Callable[[Cell, CellOutcome], None] | None,
    *,
    crashed: list[int] | None = None,
) -> list[CellOutcome]:
    """Each cell as a Ray task on the cluster ``ray`` has joined; the index of every cell
    whose task died is appended to ``crashed``."""
    task = ray.remote(max_retries=1)(_ray_cell)
    have = ray.cluster_resources()
    outcomes: list[CellOutcome | None] = [None] * len(cells)
    refs, index = [], {}
    for i, cell in enumerate(cells):
        short = [
            f"{n} {need:g} (the cluster has {have.get(k, 0):g})"
            for n, k, need in (("num_gpus", "GPU", cell.model.num_gpus), ("num_cpus", "CPU", cell.model.num_cpus))
            if need > have.get(k, 0)
        ]
        if short:  # Ray would wait forever for a node that is not there
            refused = CellOutcome(str(cell.run_dir), "failed", message=f"no node can run it: {', '.join(short)}")
            outcomes[i] = refused
            if on_done is not None:
                on_done(cell, refused)
            continue
        ref = task.options(
            num_cpus=cell.model.num_cpus, num_gpus=cell.model.num_gpus, name=f"socialbench-sweep:{cell.name}"
        ).remote(cell.values)
        refs.append(ref)
        index[ref] = i
    pending = list(refs)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        i = index[ready[0]]
        try:
            outcome = CellOutcome(**ray.get(ready[0]))
        except Exception as exc:  # noqa: BLE001 - a worker crash fails that cell only
            if crashed is not None:
                crashed.append(i)
            outcome = CellOutcome(
                str(cells[i].run_dir), "failed", message=f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
            )
        outcomes[i] = outcome
        if on_done is not None:
            on_done(cells[i], outcome)
    return [o for o in outcomes if o is not None]
