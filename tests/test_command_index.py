"""The index of top-level commands: unique names, help by name, and no imports (the fast
``socialbench --help`` reads it without loading anything else)."""

import ast
from pathlib import Path

import pytest

from socialbench import command_index
from socialbench.command_index import COMMANDS, help_of


def test_command_names_are_unique():
    names = [c.name for c in COMMANDS]
    assert len(names) == len(set(names))


def test_help_of_gives_the_listed_help():
    assert help_of(COMMANDS[1].name) == COMMANDS[1].help


def test_help_of_an_unknown_command_raises_key_error():
    with pytest.raises(KeyError):
        help_of("no-such-command")


def test_the_index_imports_only_from_future():
    tree = ast.parse(Path(command_index.__file__).read_text(encoding="utf-8"))
    imported = {
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert imported == {"__future__"}
