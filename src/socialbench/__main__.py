"""``python -m socialbench`` and the ``socialbench`` command.

``socialbench --help`` is printed from :mod:`socialbench.command_index` alone, without
loading the command line (typer, rich and the commands take ten times longer to import).
Every other command goes to :mod:`socialbench.cli`, imported inside :func:`main` so that
Ctrl-C while it loads exits 130 without a traceback.
"""

from __future__ import annotations

import gc
import os
import signal
import sys

#: Container allocations between two young-generation collections (CPython's default 700):
#: a command keeps a few hundred thousand containers to the end, which 700 collects again and
#: again (measured: docs/architecture.md, "Performance mechanisms").
GC_THRESHOLD0 = 10_000

#: The narrowest and widest text the plain help wraps to, whatever the terminal's width.
MIN_WIDTH, MAX_WIDTH = 50, 100


def program_name() -> str:
    """The program as typer's usage line names it: ``python -m socialbench`` when run as a
    module, else the script's file name (``socialbench``)."""
    main_module = sys.modules.get("__main__")
    package = getattr(main_module, "__package__", None)
    path = sys.argv[0] if sys.argv else ""
    if not package:
        return os.path.basename(path) or "socialbench"
    name = os.path.splitext(os.path.basename(path))[0]
    module = package if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"


def top_level_help(prog: str, width: int) -> str:
    """``socialbench --help`` as plain text: usage, description, options and every command of
    :data:`~socialbench.command_index.COMMANDS` in order, help wrapped to ``width`` columns."""
    import textwrap

    from socialbench.command_index import COMMANDS, DESCRIPTION

    name_width = max(len(c.name) for c in COMMANDS)
    indent = " " * (2 + name_width + 2)
    lines = [f"Usage: {prog} [OPTIONS] COMMAND [ARGS]...", ""]
    lines += textwrap.wrap(DESCRIPTION, width, initial_indent="  ", subsequent_indent="  ")
    lines += ["", "Options:", "  --help  Show this message and exit.", "", "Commands:"]
    for command in COMMANDS:
        first = f"  {command.name.ljust(name_width)}  "
        lines += textwrap.wrap(
            command.help,
            width,
            initial_indent=first,
            subsequent_indent=indent,
            break_long_words=False,
            break_on_hyphens=False,
        )
    return "\n".join(lines) + "\n"


def help_width() -> int:
    """The width the plain help wraps to: the terminal's (or ``COLUMNS``), within
    :data:`MIN_WIDTH` .. :data:`MAX_WIDTH`."""
    import shutil

    return max(MIN_WIDTH, min(shutil.get_terminal_size().columns, MAX_WIDTH))


def main() -> None:
    if sys.argv[1:] == ["--help"]:
        sys.stdout.write(top_level_help(program_name(), help_width()))
        sys.stdout.flush()
        return
    gc.set_threshold(GC_THRESHOLD0, *gc.get_threshold()[1:])
    try:
        from socialbench.cli import main as cli_main
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("interrupted", file=sys.stderr, flush=True)
        sys.exit(130)
    try:
        cli_main()
    finally:
        # The process ends here: spare Python's shutdown a full collection over everything the
        # command loaded, which frees nothing an exit does not (docs/architecture.md).
        gc.freeze()


if __name__ == "__main__":
    main()
