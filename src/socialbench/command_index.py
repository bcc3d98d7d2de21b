"""The top-level commands of ``socialbench``: their names, listing order, help lines and the
modules of those loaded only when invoked. :mod:`socialbench.cli` builds its app from
:data:`COMMANDS`; ``socialbench --help`` prints them without the command line, so this
module imports nothing.
"""

from __future__ import annotations

#: What ``socialbench --help`` says the program is.
DESCRIPTION = "Measure the social intelligence of embodied agents."


class Command:
    """One top-level command: its ``name``, the ``help`` line ``socialbench --help`` lists, and
    ``module``, the module whose ``register(app)`` adds the real command when it is loaded
    only on use (None: the command is defined in :mod:`socialbench.cli`)."""

    __slots__ = ("help", "module", "name")

    def __init__(self, name: str, help: str, module: str | None = None) -> None:
        self.name = name
        self.help = help
        self.module = module

    def __repr__(self) -> str:
        return f"Command({self.name!r}, {self.help!r}, {self.module!r})"


#: Every top-level command, in the order ``socialbench --help`` lists them.
COMMANDS: tuple[Command, ...] = (
    Command("eval", "Evaluate a model on a benchmark; writes run.json, samples.jsonl and metrics.json."),
    Command(
        "score",
        "Score predictions made elsewhere (needs labels only, no images). A metamorphic run "
        "(SocialNav-SUB --perturb mirror|shuffle-options) is scored as its eval scored it.",
    ),
    Command("models", "List model backends and baselines."),
    Command(
        "report",
        "Tables (md/csv/tex), figures (PNG/SVG) and a static HTML report of run directories.",
        "socialbench.report.commands",
    ),
    Command("compare", "Paired significance tests between runs on the same questions.", "socialbench.report.commands"),
    Command(
        "sweep",
        "Run a plan of models x benchmarks x option axes, one run directory per cell.",
        "socialbench.sweep.commands",
    ),
    Command("data", "Check and transform datasets."),
    Command("sim", "Generate procedural datasets."),
    Command(
        "build",
        "Build a RobotEQ-style dataset: one resumable command per stage.",
        "socialbench.construction.commands",
    ),
    Command(
        "export",
        "Export benchmark data for training (SFT files) and runs as Inspect AI logs.",
        "socialbench.export.commands",
    ),
)


def help_of(name: str) -> str:
    """The help line of the top-level command ``name`` (KeyError for an unknown one)."""
    for command in COMMANDS:
        if command.name == name:
            return command.help
    raise KeyError(name)
