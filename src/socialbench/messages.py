"""Plain one-line messages for the command line.

Errors, warnings and notes go to stderr exactly as written: never wrapped at a terminal
width, never styled, whether stderr is a terminal, a pipe, a file or a CI log. A long path
therefore stays whole, and what a test or a script reads is what the code wrote.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

#: Exit statuses of the commands: ok; usage or data error; the run finished but some
#: questions failed; interrupted with Ctrl-C.
EXIT_OK, EXIT_USAGE, EXIT_MODEL_ERRORS, EXIT_INTERRUPTED = 0, 1, 2, 130

#: Characters a terminal acts on instead of showing: C0/C1 controls (ESC starts colour,
#: cursor and title sequences) except new line and tab, DEL, and bidirectional overrides.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on written as an escape
    (``\\x1b``, ``\\u202e``): text from files or models (model names, notes, annotator
    names) is shown, never run as terminal sequences."""
    return _CONTROL.sub(lambda m: ascii(m.group())[1:-1], text)


def say(text: str) -> None:
    """Write ``text`` and a newline to stderr, unwrapped and unstyled, control characters
    escaped (:func:`terminal_safe`)."""
    print(terminal_safe(text), file=sys.stderr, flush=True)


def install_inert_stderr() -> None:
    """Make the two ways library code prints to stderr inert (:func:`terminal_safe`): the
    log records no handler takes (``logging.lastResort``: socialbench's warnings, which quote
    servers and files) and Python warnings (a library's ``UserWarning`` may quote a label, e.g.
    matplotlib's missing-glyph warning). Called once by the command line."""
    import logging
    import warnings

    class _InertLastResort(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            try:
                print(terminal_safe(self.format(record)), file=sys.stderr, flush=True)
            except Exception:  # as logging's own handlers do: report, never raise
                self.handleError(record)

    logging.lastResort = _InertLastResort(logging.WARNING)

    def _show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        text = warnings.formatwarning(message, category, filename, lineno, line)
        try:
            (file or sys.stderr).write(terminal_safe(text))
        except OSError:  # stderr closed: as warnings' own printer, drop it
            pass

    warnings.showwarning = _show


@cache
def stdout_console() -> Console:
    """The commands' rich console on stdout (tables, results): a terminal's width, or 110
    columns on a pipe or CI log (wide enough for the results table)."""
    from rich.console import Console

    out = Console()
    return out if out.is_terminal else Console(width=110)


def line(text: str) -> None:
    """One plain line on stdout: never wrapped (a pipe reads the path whole), no markup,
    control characters escaped (:func:`terminal_safe`)."""
    stdout_console().print(terminal_safe(text), soft_wrap=True, markup=False, highlight=False)


def table_text(value: object) -> Text:
    """``value`` as a rich table cell or title that shows exactly its text: control
    characters escaped (:func:`terminal_safe`) and square brackets never read as rich markup
    (a model name ``[red]x`` or ``[/]`` from a plan or a run folder stays as written)."""
    from rich.text import Text

    return Text(terminal_safe(str(value)))
