"""The ``socialbench`` command line.

Exit codes: 0 ok; 1 usage or data error, including a command-line usage error from typer
(unknown or missing option) and a disk that cannot be written (a message, no traceback);
2 the run finished but some questions failed (they are recorded; the message names the
kinds and says whether to run the same command again or to fix the data first);
130 interrupted with Ctrl-C, at any point (everything answered so far is saved).

The commands live in this package's modules: ``eval`` (:mod:`socialbench.cli.evaluate`),
``score`` (:mod:`socialbench.cli.score`), the ``data`` and ``sim`` groups
(:mod:`socialbench.cli.datasets`); the heavy ones with their code (:data:`LAZY_COMMANDS`).
"""

from __future__ import annotations

import signal
import sys
from typing import Any, NoReturn, Protocol, runtime_checkable

import typer
from rich.table import Table

from socialbench.cli.datasets import data_app, sim_app
from socialbench.cli.evaluate import eval_command
from socialbench.cli.printing import out
from socialbench.cli.score import score_cmd
from socialbench.command_index import COMMANDS, DESCRIPTION, help_of
from socialbench.errors import DataError, SocialbenchError, StorageError, UsageError
from socialbench.messages import EXIT_INTERRUPTED, EXIT_USAGE, install_inert_stderr, say
from socialbench.messages import line as _line

#: Commands that live with their (heavy) code: name -> (module with ``register(app)``, help
#: shown in ``socialbench --help``, which must equal the real command's first help line), from
#: :data:`socialbench.command_index.COMMANDS`. The module is imported only when the command
#: runs (``socialbench report ...``), so ``socialbench --help`` and the other commands do not
#: pay for numpy and friends.
LAZY_COMMANDS: dict[str, tuple[str, str]] = {c.name: (c.module, c.help) for c in COMMANDS if c.module is not None}


class _LazyGroup(typer.core.TyperGroup):
    """The top-level command group: lists placeholders for :data:`LAZY_COMMANDS` (help text
    only) and swaps in the real command when one of them is invoked."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] in LAZY_COMMANDS:
            load_lazy_command(self, args[0])
        if args and args[0] == "eval":  # with the options of the benchmarks registered now
            self.commands["eval"] = eval_command()
        return super().resolve_command(ctx, args)


def load_lazy_command(group: Any, name: str) -> Any:
    """Import ``name``'s module and put its real command(s) into ``group``; returns it."""
    import importlib

    module = importlib.import_module(LAZY_COMMANDS[name][0])
    real = typer.Typer()
    module.register(real)
    for n, cmd in typer.main.get_group(real).commands.items():
        if n in group.commands:
            group.commands[n] = cmd
    return group.commands[name]


app = typer.Typer(
    cls=_LazyGroup,
    add_completion=False,
    no_args_is_help=True,
    help=DESCRIPTION,
)
app.add_typer(data_app, name="data")
app.add_typer(sim_app, name="sim")


def _lazy_placeholder() -> None:  # never runs: _LazyGroup replaces it before invoking
    raise UsageError("internal error: a lazily loaded command was not loaded")


# A placeholder in the listing: :class:`_LazyGroup` builds the real command when it runs.
app.command("eval", help=help_of("eval"))(_lazy_placeholder)


app.command("score", help=help_of("score"))(score_cmd)


@app.command("models", help=help_of("models"))
def models_cmd() -> None:
    """``socialbench models`` (its help line: :mod:`socialbench.command_index`)."""
    from socialbench.benchmarks.base import load_benchmark_code
    from socialbench.models.registry import backends

    load_benchmark_code()  # the benchmarks' code registers their own baselines
    table = Table(title="model backends")
    table.add_column("spec")
    table.add_column("what it is")
    table.add_column("example")
    for b in backends():
        table.add_row(b.prefix if ":" in b.prefix else f"{b.prefix}:...", b.summary, b.example)
    out.print(table)
    for b in backends():  # the --model-opt keys each backend declares (any other is refused)
        if b.options:
            _line("")
            _line(f"--model-opt keys of {b.prefix}:")
            for o in b.options:
                _line(f"  {o.name} ({o.kind}): {o.help}")


def _register_subcommands() -> None:
    """Placeholders for the command groups that live with their code (`report`/`compare`,
    `build ...`): same names, places and help in the listing; the real commands are loaded
    by :class:`_LazyGroup` when invoked."""
    for name, (_, help_text) in LAZY_COMMANDS.items():
        if name in ("build", "export"):
            app.add_typer(typer.Typer(help=help_text), name=name)
        else:
            app.command(name, help=help_text)(_lazy_placeholder)


_register_subcommands()


@runtime_checkable
class _ShowsItself(Protocol):
    """What a click-style usage error offers: ``show()`` prints the usage line and the error."""

    def show(self) -> None: ...


def _click_exception_type() -> type[Exception]:
    """The class of typer's usage errors: click's ``ClickException`` up to typer 0.28, and
    typer's vendored copy of it from 0.29 on (which no longer installs click). Found through
    ``typer.BadParameter``, which derives from it in both, so no undeclared import is needed."""
    for cls in typer.BadParameter.__mro__:
        if cls.__name__ == "ClickException":
            return cls
    return typer.BadParameter  # pragma: no cover - every typer release has the base class


def _exit_interrupted(message: str = "interrupted") -> NoReturn:
    """Exit 130 after Ctrl-C; a further Ctrl-C while Python shuts down is ignored (it would
    print a KeyboardInterrupt traceback and end the process by the signal instead)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if message:
        say(message)
    sys.exit(EXIT_INTERRUPTED)


def main(argv: list[str] | None = None) -> None:
    install_inert_stderr()  # log records and library warnings quote files and servers
    try:
        rv = app(args=argv, standalone_mode=False)
    except typer.Exit as exc:
        rv = exc.exit_code
    except DataError as exc:
        for p in exc.problems:
            say(str(p))
        sys.exit(EXIT_USAGE)
    except SocialbenchError as exc:
        say(f"error: {exc}")
        sys.exit(EXIT_USAGE)
    except KeyboardInterrupt:
        _exit_interrupted()
    except OSError as exc:  # a disk fault outside the run store's own checks
        say(f"error: {StorageError.from_os_error(exc)}")
        sys.exit(EXIT_USAGE)
    except typer.Abort as exc:  # typer <0.29 (click) turns Ctrl-C and end-of-input into Abort
        if isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt):
            _exit_interrupted()
        say("aborted")
        sys.exit(EXIT_USAGE)
    except _click_exception_type() as exc:  # unknown or missing option, bad value
        assert isinstance(exc, _ShowsItself)  # ClickException.show, in click and typer's copy
        exc.show()
        sys.exit(EXIT_USAGE)
    if rv == EXIT_INTERRUPTED:  # typer >=0.29 returns 130 for Ctrl-C inside a command
        _exit_interrupted("")
    if isinstance(rv, int) and rv:
        sys.exit(rv)


if __name__ == "__main__":
    main()
