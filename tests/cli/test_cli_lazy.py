"""Lazy command registration: `socialbench --help` lists every command without importing the
heavy command modules; invoking one loads the real command."""

import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from socialbench import cli


def _group():
    return typer.main.get_command(cli.app)


def test_listing_has_every_lazy_command():
    group = _group()
    assert set(cli.LAZY_COMMANDS) <= set(group.list_commands(None))


@pytest.mark.parametrize("name", sorted(cli.LAZY_COMMANDS))
def test_placeholder_help_is_the_real_commands_help(name):
    group = _group()
    listed = group.get_command(None, name).help
    real = cli.load_lazy_command(group, name)
    assert listed == (real.help or "").strip().split("\n\n")[0]


@pytest.mark.parametrize("name", sorted(cli.LAZY_COMMANDS))
def test_invoking_a_lazy_command_runs_the_real_one(name):
    result = CliRunner().invoke(cli.app, [name, "--help"])
    assert result.exit_code == 0 and "--" in result.output and "internal error" not in result.output


def test_real_build_group_keeps_its_subcommands():
    build = cli.load_lazy_command(_group(), "build")
    assert {"taxonomy", "scenarios", "annotate"} <= set(build.list_commands(None))


def test_help_imports_no_report_or_build_code():
    code = (
        "import sys\nfrom socialbench.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('numpy', 'socialbench.report.commands', 'socialbench.construction.commands', 'openai')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"
