"""``python -m socialbench`` and the ``socialbench`` command.

``socialbench --help`` is printed from :mod:`socialbench.command_index` alone, as plain text,
without loading the command line (typer, rich and the commands take ten times longer to import
than the listing takes to print). Every other command line goes to :mod:`socialbench.cli`.

The command line is imported inside :func:`main`, so Ctrl-C while it is still loading (rich,
typer, numpy take a moment on a slow disk) exits 130 without a traceback, as Ctrl-C does at
any later point.
"""

from __future__ import annotations

import gc
import os
import signal
import sys

#: Container allocations between two young-generation collections in a command's process
#: (CPython 3.11's default is 700; mypy's command line sets 200,000 for the same reason).
#: Loading the command line and a release-sized dataset allocates a few hundred thousand
#: containers that live to the end; at 700, collecting them cost ~0.13 s of a 16 s
#: SocialNav-SUB eval, at 10,000 ~0.05 s (measured with ``gc.callbacks``); on a loaded
#: machine 2.4 s against 0.38 s of a ~45 s run (docs/architecture.md, "Performance mechanisms").
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
        # The process ends here; its run store, caches and reports are closed. Python's
        # shutdown would first run a full collection over everything the command loaded
        # (~0.07 s after a release-sized eval, ~0.9 s on a loaded machine) that frees
        # nothing an exit does not; frozen objects are skipped (and still freed by
        # reference counting as modules unload).
        gc.freeze()


if __name__ == "__main__":
    main()
