"""A rich progress bar: done/total, rate, ETA, retries, errors and cache hits, of an eval's
questions or, through :meth:`RunProgress.update`, of other long commands' steps."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from socialbench.runner.engine import EngineStats


class RunProgress:
    def __init__(self, total: int, done: int = 0, *, enabled: bool = True, label: str = "eval", unit: str = "q"):
        self.enabled = enabled
        self.unit = unit  # in the rate column: "q/s"
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self.total = total
        self.done = done
        self.label = label

    def __enter__(self) -> RunProgress:
        if self.enabled:
            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TaskProgressColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("eta"),
                TimeRemainingColumn(),
                TextColumn("{task.fields[stats]}"),
                console=Console(stderr=True),
                transient=False,
                refresh_per_second=4,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task(self.label, total=self.total, completed=self.done, rate="", stats="")
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._progress is not None:
            self._progress.__exit__(exc_type, exc, tb)
            self._progress = None

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self._progress is not None and self._task is not None:
            task = self._progress.tasks[0]
            speed = task.speed
            self._progress.update(self._task, advance=n, rate=f"{speed:.1f} {self.unit}/s" if speed else "")

    def update(self, done: int, total: int) -> None:
        """Show ``done`` of ``total`` steps: the callback of work that counts its steps
        itself (and may learn its total as it goes)."""
        self.total = total
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, total=total)
        self.advance(done - self.done)

    def update_stats(self, stats: EngineStats) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(
                self._task,
                stats=f"retries {stats.retries} · errors {stats.errors} · cache {stats.cache_hits}",
            )
