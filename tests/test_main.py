"""``socialbench`` / ``python -m socialbench``: ``--help`` printed from the command index without
typer or rich, listing what the typer app registers; every other command line goes to typer."""

import gc
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from socialbench import __main__ as entry
from socialbench import cli
from socialbench.command_index import COMMANDS


def listed_commands(text: str) -> list[tuple[str, str]]:
    """(name, help) of each command in the Commands section of the plain help, the help's
    wrapped lines joined again."""
    section = text.split("\nCommands:\n", 1)[1]
    listed: list[tuple[str, str]] = []
    for line in section.splitlines():
        if line.startswith("  ") and not line.startswith("   "):
            name, help_text = line.strip().split(None, 1)
            listed.append((name, help_text))
        else:
            name, help_text = listed[-1]
            listed[-1] = (name, f"{help_text} {line.strip()}")
    return listed


def test_help_lists_the_typer_apps_commands_in_order_with_their_help():
    group = typer.main.get_command(cli.app)
    registered = [(n, group.get_command(None, n).help) for n in group.list_commands(None)]
    assert listed_commands(entry.top_level_help("socialbench", 60)) == registered


def test_help_starts_with_the_usage_line_and_description_typer_shows():
    ours = entry.top_level_help("socialbench", 80).splitlines()
    typers = CliRunner().invoke(cli.app, ["--help"], prog_name="socialbench").output
    assert {ours[0], ours[2].strip()} <= {line.strip() for line in typers.splitlines()}


def test_help_lines_fit_the_width():
    assert max(len(line) for line in entry.top_level_help("socialbench", 50).splitlines()) <= 50


@pytest.mark.parametrize(("columns", "width"), [("10", entry.MIN_WIDTH), ("300", entry.MAX_WIDTH), ("70", 70)])
def test_help_width_follows_columns_within_bounds(monkeypatch, columns, width):
    monkeypatch.setenv("COLUMNS", columns)
    assert entry.help_width() == width


def test_program_name_of_python_dash_m(monkeypatch):
    main_module = type(sys)("__main__")
    main_module.__package__ = "socialbench"
    monkeypatch.setitem(sys.modules, "__main__", main_module)
    monkeypatch.setattr(sys, "argv", ["/x/socialbench/__main__.py", "--help"])
    assert entry.program_name() == "python -m socialbench"


def test_program_name_of_the_script(monkeypatch):
    main_module = type(sys)("__main__")
    main_module.__package__ = None
    monkeypatch.setitem(sys.modules, "__main__", main_module)
    monkeypatch.setattr(sys, "argv", ["/venv/bin/socialbench", "--help"])
    assert entry.program_name() == "socialbench"


def test_python_dash_m_help_exits_zero_and_lists_every_command():
    res = subprocess.run([sys.executable, "-m", "socialbench", "--help"], capture_output=True, text=True)
    assert res.returncode == 0
    assert [name for name, _ in listed_commands(res.stdout)] == [c.name for c in COMMANDS]


def test_help_imports_neither_typer_nor_rich_nor_the_command_line():
    code = (
        "import sys\nfrom socialbench.__main__ import main\nsys.argv = ['socialbench', '--help']\nmain()\n"
        "print(sorted(m for m in ('typer', 'rich', 'click', 'numpy', 'socialbench.cli') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


@pytest.fixture
def collector_restored():
    """The test process's collector settings as they were (the command's main tunes them)."""
    threshold = gc.get_threshold()
    yield
    gc.set_threshold(*threshold)
    gc.unfreeze()


def test_a_commands_help_goes_through_typer(monkeypatch, capsys, collector_restored):
    monkeypatch.setattr(sys, "argv", ["socialbench", "eval", "--help"])
    entry.main()
    assert "--benchmark" in capsys.readouterr().out


def test_a_command_runs_with_the_commands_collector_threshold_and_exits_frozen():
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('GC', gc.get_threshold()[0], gc.get_freeze_count() > 0))\n"
        "from socialbench.__main__ import main\nsys.argv = ['socialbench', 'models']\nmain()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == f"GC {entry.GC_THRESHOLD0} True"
