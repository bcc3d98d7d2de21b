"""The ``socialbench sweep`` command: check a plan, show its cells and their cost
(``--dry-run``), run them with an executor, and end with a table of cells and statuses.

Exit status: 0 every cell complete; 2 some cell failed or has failed questions (run the same
command again: complete cells are skipped, partial ones resume); 130 interrupted.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.table import Table

from socialbench.errors import UsageError
from socialbench.messages import EXIT_INTERRUPTED, EXIT_MODEL_ERRORS, line, stdout_console, table_text
from socialbench.sweep.cells import CellOutcome, previous_status
from socialbench.sweep.grid import Cell, expand
from socialbench.sweep.plan import load_plan

EXECUTORS = ("local", "ray")
_LOCAL_MODELS = ("baseline:", "human:", "mock:", "replay:")
#: Models that read no prompt: each question is answered on its own (``mock:`` reads it).
_PROMPTLESS_MODELS = ("baseline:", "human:", "replay:")


def estimate_requests(benchmark: Any, dataset: Any, values: dict[str, Any]) -> tuple[int, int]:
    """(questions, model requests) of one cell from its dataset, as the benchmark counts its
    requests for the cell's options. Cached answers cost nothing; retries add."""
    from socialbench.runner.eval_options import eval_options

    options = benchmark.check_options(eval_options(values))
    reads_prompt = not values["model"].startswith(_PROMPTLESS_MODELS)
    return len(benchmark.question_order(dataset)), benchmark.estimate_requests(
        dataset, options, model_reads_prompt=reads_prompt
    )


def dry_run_table(cells: Sequence[Cell]) -> Table:
    """Every cell with its run directory, state on disk, questions and requests."""
    from socialbench.runner.prepare import resolve_data

    table = Table(title=f"sweep plan: {len(cells)} cells", box=box.SIMPLE)
    for col in ("cell", "on disk", "questions", "requests"):
        table.add_column(col, justify="right" if col in ("questions", "requests") else "left", overflow="fold")
    sizes: dict[tuple[str, Any, Any], Any] = {}
    total = 0
    for cell in cells:
        v = cell.values
        key = (cell.benchmark, str(v["data"]), v["limit"])
        if key not in sizes:
            bench, path = resolve_data(cell.benchmark, v["data"])
            sizes[key] = (bench, bench.load(path, require_images=False, limit=v["limit"]))
        bench, dataset = sizes[key]
        questions, requests = estimate_requests(bench, dataset, v)
        local = cell.model.spec.startswith(_LOCAL_MODELS)
        total += 0 if local else requests
        state = previous_status(cell.run_dir) or "new"
        table.add_row(
            table_text(cell.name),
            table_text(state),
            str(questions),
            f"{requests} (in-process)" if local else str(requests),
        )
    table.caption = f"{total} model requests in all (at most: cached answers and complete cells cost none)"
    return table


def status_table(cells: Sequence[Cell], outcomes: Sequence[CellOutcome]) -> Table:
    """The sweep's final table: one row per cell."""
    table = Table(title="sweep", box=box.SIMPLE)
    for col in ("cell", "status", "answered", "requests", "note"):
        table.add_column(col, overflow="fold")
    for cell, o in zip(cells, outcomes):
        answered = "" if o.answered is None else f"{o.answered}/{o.questions}"
        table.add_row(
            table_text(cell.name),
            o.status,
            answered,
            "" if o.requests is None else str(o.requests),
            table_text(o.message),
        )
    return table


def local_jobs(jobs: int | None, progress: bool) -> int:
    """How many cells the local executor runs at once: ``--jobs``, checked, or the default."""
    from socialbench.sweep.parallel import default_jobs

    if jobs is None:
        return 1 if progress else default_jobs()
    if jobs > 1 and progress:
        raise UsageError("--progress shows one cell's bars at a time: use it with --jobs 1")
    return jobs


def refuse_out_that_is_no_folder(out: Path) -> None:
    """:class:`UsageError` when ``--out`` or a folder above it is a file (or anything but a
    folder): every cell would fail writing its run directory, and the closing
    ``socialbench report OUT`` would fail too."""
    for p in (out, *out.parents):
        if p.exists() or p.is_symlink():
            if not p.is_dir():
                what = "is not a folder" if p == out else f"lies below {p}, which is not a folder"
                raise UsageError(f"--out {out} {what}; choose another --out folder (e.g. a new one)")
            return


def register(app: typer.Typer) -> None:
    """Add the ``sweep`` command to ``app``."""

    @app.command("sweep")
    def sweep_cmd(
        plan_path: Path = typer.Argument(..., metavar="PLAN.yaml", help="the sweep plan (see docs/scale.md)"),
        executor: str = typer.Option("local", help="local (cells in this process) | ray (cells as Ray tasks)"),
        address: str | None = typer.Option(None, help="Ray cluster address [default: a new local Ray]"),
        out: Path = typer.Option(
            Path("runs") / "sweep", "--out", "-o", help="sweep folder; one run directory per cell below it"
        ),
        dry_run: bool = typer.Option(False, "--dry-run", help="list the cells and their requests; run nothing"),
        progress: bool = typer.Option(False, "--progress/--no-progress", help="progress bars of local cells"),
        jobs: int | None = typer.Option(
            None,
            "--jobs",
            "-j",
            min=1,
            help="local: cells run at once, each in a worker process; 1 runs them one after another "
            "in this process (default 2; 1 on a one-core machine or with --progress)",
        ),
    ) -> None:
        """Run a plan of models x benchmarks x option axes, one run directory per cell."""
        console = stdout_console()

        if executor not in EXECUTORS:
            raise UsageError(f"--executor must be one of {', '.join(EXECUTORS)} (got {executor!r})")
        if address is not None and executor != "ray":
            raise UsageError("--address is for --executor ray")
        if jobs is not None and executor != "local":
            raise UsageError("--jobs is for --executor local (Ray schedules cells by their resources)")
        cells = expand(load_plan(plan_path), out)
        refuse_out_that_is_no_folder(out)
        jobs = local_jobs(jobs, progress)
        if dry_run:
            console.print(dry_run_table(cells))
            return

        def done(cell: Cell, o: CellOutcome) -> None:
            line(f"{o.status}: {cell.name}" + (f" ({o.message})" if o.message else ""))

        if executor == "ray":
            from socialbench.sweep.executors import run_ray

            outcomes = run_ray(cells, address=address, on_done=done)
        else:
            from socialbench.sweep.executors import run_local

            outcomes = run_local(cells, jobs=jobs, progress=progress, on_done=done)
        console.print(status_table(cells, outcomes))
        line(f"report: socialbench report {out}")
        statuses = {o.status for o in outcomes}
        if "interrupted" in statuses:
            raise typer.Exit(EXIT_INTERRUPTED)
        if statuses & {"failed", "errors"}:
            raise typer.Exit(EXIT_MODEL_ERRORS)
