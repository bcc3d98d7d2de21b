"""Running one ``socialbench build`` stage from its command: the link check on ``--work``,
the timing, the printed summary and the exit code (0 done, 1 input rejected, 2 records
failed; see :mod:`socialbench.construction.commands`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

if TYPE_CHECKING:
    from socialbench.construction.stages.common import StageRun

__all__ = ["run_stage", "out"]

# soft_wrap: a line is never broken at the terminal width, so paths reach pipes and logs whole
err = Console(stderr=True, soft_wrap=True)
out = Console(soft_wrap=True)


def run_stage(work: Path, stage: Callable[[], StageRun]) -> None:
    """Run one stage (timed) and finish it with :func:`_finish`. A work folder that holds a
    symbolic link anywhere is refused first: the stage would write through it, out of the
    folder (socialbench never makes links there)."""
    from socialbench.files.atomic_write import refuse_links_in

    refuse_links_in(work, "--work folder")
    t0 = time.perf_counter()
    _finish(work, stage(), t0)


def _finish(work: Path, run: StageRun, t0: float) -> None:
    """Write the stage summary, print what was done (and rejected), exit 2 on open
    failures (retried by the next run) and 1 when the stage rejected some input."""
    from socialbench.construction.stages.common import close_stage
    from socialbench.messages import terminal_safe  # messages and notes quote files' text

    for line in run.messages:
        out.print(terminal_safe(line), markup=False, highlight=False)
    for line in run.problems:
        err.print(terminal_safe(line), markup=False, highlight=False)
    failures = close_stage(work, run, t0)
    summary = run.summary
    removed = ", ".join(f"{k} {v}" for k, v in summary.removed.items())
    out.print(
        f"{summary.stage}: {summary.n_out} records in {summary.output} ({summary.n_new} new, {summary.n_skipped} resumed"
        + (f", removed: {removed}" if removed else "")
        + ")",
        markup=False,
        highlight=False,
    )
    for note in summary.notes:
        out.print(f"  note: {terminal_safe(note)}", markup=False, highlight=False)
    if failures:
        kinds = summary.failure_kinds
        err.print(
            f"{summary.stage}: {len(failures)} record(s) failed ({', '.join(f'{k} {v}' for k, v in kinds.items())}); "
            f"see {', '.join(str(o.failures) for o in run.outputs)}; run the same command again to retry them",
            markup=False,
            highlight=False,
        )
        raise typer.Exit(2)
    if run.rejected:
        raise typer.Exit(1)
