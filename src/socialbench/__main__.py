"""``python -m socialbench`` and the ``socialbench`` command.

The command line is imported inside :func:`main`, so Ctrl-C while it is still loading (rich,
typer, numpy take a moment on a slow disk) exits 130 without a traceback, as Ctrl-C does at
any later point.
"""

import signal
import sys


def main() -> None:
    try:
        from socialbench.cli import main as cli_main
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("interrupted", file=sys.stderr, flush=True)
        sys.exit(130)
    cli_main()


if __name__ == "__main__":
    main()
