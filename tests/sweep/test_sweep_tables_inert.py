"""The sweep's tables show cell names and messages from a plan as written: rich markup in
a model name is not applied and terminal controls are escaped (issue 29)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from socialbench.sweep.cells import CellOutcome
from socialbench.sweep.commands import status_table
from socialbench.sweep.grid import Cell
from socialbench.sweep.plan import ModelEntry

HOSTILE = "mock:[red]x[/]\x1b]0;pwned\x07"


def _shown(table: object) -> str:
    console = Console(width=300, force_terminal=True, color_system=None)
    with console.capture() as cap:
        console.print(table)
    return cap.get()


def test_the_status_table_shows_a_hostile_model_name_and_message_inert() -> None:
    cell = Cell("socialnav-sub", ModelEntry(HOSTILE), {}, Path("sweep") / "socialnav-sub" / HOSTILE / "independent")
    shown = _shown(status_table([cell], [CellOutcome(str(cell.run_dir), "failed", message="[/] \x1b[2J gone")]))
    assert "mock:[red]x[/]" in shown and "[/] \\x1b[2J gone" in shown
    assert "\x1b]0" not in shown and "\x1b[2J" not in shown
