"""The options of an eval, declared once (:data:`RUN_FLAGS` and every registered benchmark's,
:func:`eval_flags`): the command line builds its typer options from them and a sweep checks
its plan against them, and both make the run with
:func:`socialbench.runner.prepare.prepare_eval`, so a flag and a plan key mean the same thing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from socialbench.benchmarks.generation import FLAG_HELP
from socialbench.errors import UsageError
from socialbench.vision.image_size import IMAGE_SIZE_HELP

if TYPE_CHECKING:  # pragma: no cover
    from socialbench.benchmarks.options import EvalOptions


@dataclass(frozen=True)
class EvalFlag:
    """One option of ``socialbench eval``: parameter ``name``, its type (``annotation``),
    ``default`` (``...``: required; None for a benchmark option: not given), flag
    declarations (``decls``; none: ``--name`` with dashes), help, bounds and the default
    shown in ``--help``."""

    name: str
    annotation: Any
    default: Any
    decls: tuple[str, ...] = ()
    help: str | None = None
    min: float | None = None
    max: float | None = None
    show_default: bool | str = True


#: eval's own options, in the order ``--help`` lists them (benchmark options go after ``data``).
RUN_FLAGS: tuple[EvalFlag, ...] = (
    EvalFlag("benchmark", str, ..., ("--benchmark", "-b"), "socialnav-sub, socialnav-sim (bundled), ..."),
    EvalFlag("model", str, ..., ("--model", "-m"), "model spec, e.g. openai:MODEL[@URL], baseline:random"),
    EvalFlag("data", Optional[Path], None, ("--data", "-d"), "dataset folder (optional for bundled benchmarks)"),  # noqa: UP045
    EvalFlag(
        "perturb",
        Optional[str],  # noqa: UP045 (a run-time type)
        None,
        help="image perturbation, e.g. blur, fisheye, fisheye-water; SocialNav-SUB also mirror, shuffle-options (consistency)",
    ),
    EvalFlag("perturb_strength", float, 1.0, help="perturbation strength"),
    EvalFlag(
        "protocol",
        str,
        "paper",
        help="paper | official | official-gemini (metric protocol; official-gemini reads replies as the official Gemini path)",
    ),
    EvalFlag("concurrency", int, 16, help="requests in flight at once", min=1),
    EvalFlag("limit", Optional[int], None, help="only the first N items", min=1),  # noqa: UP045
    EvalFlag("out_dir", Optional[Path], None, ("--out", "-o"), "run directory (re-running into it resumes)"),  # noqa: UP045
    EvalFlag("seed", int, 0, help="seed for baselines, jitter and sampling"),
    EvalFlag(
        "cache",
        Optional[Path],  # noqa: UP045
        None,
        help="SQLite response cache file [default: ~/.cache/socialbench/responses.sqlite3]",
    ),
    EvalFlag("no_cache", bool, False, ("--no-cache",), "do not read or write the response cache"),
    EvalFlag(
        "render_cache",
        Optional[Path],  # noqa: UP045
        None,
        ("--render-cache",),
        "folder of prepared images and loaded-dataset snapshots shared by every run [default: ~/.cache/socialbench/renders]",
    ),
    EvalFlag(
        "no_render_cache",
        bool,
        False,
        ("--no-render-cache",),
        "render and encode every image and load the data anew; store nothing",
    ),
    EvalFlag("timeout", float, 120.0, help="seconds per attempt"),
    EvalFlag(
        "first_byte_timeout",
        Optional[float],  # noqa: UP045
        None,
        help="openai: seconds per attempt to the reply's first byte (connecting, the server's queue); default: only --timeout",
    ),
    EvalFlag("max_attempts", int, 6, help="attempts per request (retries + 1)", min=1),
    EvalFlag(
        "give_up_after",
        int,
        6,
        help="stop sending after N rounds of attempts in a row failed (retryable errors of any kind) and none "
        "was answered (the rest is recorded as gave_up; run again to resume); 0 = never",
        min=0,
    ),
    EvalFlag("image_size", Optional[str], None, help=IMAGE_SIZE_HELP, show_default=False),  # noqa: UP045
    EvalFlag(
        "max_side",
        Optional[int],  # noqa: UP045
        None,
        help="the same as --image-size N: longest image side in pixels, aspect kept (0 = original)",
        min=0,
        show_default=False,
    ),
    EvalFlag("model_opt", list[str], [], ("--model-opt",), "backend option KEY=VALUE (repeatable)"),
    EvalFlag("progress", bool, True, ("--progress/--no-progress",)),
    EvalFlag(
        "epochs",
        int,
        1,
        help="repeat the run N times (seeds S..S+N-1, one run directory each under --out/epoch-E) and report mean ± SE across epochs",
        min=1,
    ),
    EvalFlag("temperature", Optional[str], None, help=FLAG_HELP["temperature"]),  # noqa: UP045
    EvalFlag("max_tokens", Optional[str], None, help=FLAG_HELP["max_tokens"]),  # noqa: UP045
    EvalFlag("top_p", Optional[str], None, help=FLAG_HELP["top_p"]),  # noqa: UP045
    EvalFlag("reasoning_effort", Optional[str], None, help=FLAG_HELP["reasoning_effort"]),  # noqa: UP045
)

#: Options of eval that are options of the run, common to every benchmark.
RUN_OPTIONS = ("protocol", "limit", "seed", "perturb", "perturb_strength")


def benchmark_flags() -> list[EvalFlag]:
    """One flag per option of the registered benchmarks (an option several benchmarks share
    appears once), each not given (None; off for a switch) unless set: the chosen benchmark
    turns the given ones into its options dataclass."""
    from socialbench.benchmarks.base import benchmark_entries
    from socialbench.benchmarks.options import option_fields

    owners: dict[str, list[tuple[Any, Any]]] = {}
    for entry in benchmark_entries():
        for f in option_fields(entry.options):
            owners.setdefault(f.name, []).append((entry, f))
    flags = []
    for name, pairs in owners.items():
        f = pairs[0][1]
        titles = ", ".join(dict.fromkeys(e.title for e, _ in pairs))
        text = f"{titles}: " + (f"{' | '.join(f.info.choices)}; " if f.info.choices else "") + f.info.help
        if f.is_flag:
            flags.append(EvalFlag(name, bool, False, (f.flag,), text))
        else:
            shown = ", ".join(dict.fromkeys(str(g.default) for _, g in pairs))
            flags.append(EvalFlag(name, Optional[f.type], None, (f.flag,), text, min=f.info.min, show_default=shown))  # noqa: UP045
    return flags


def eval_flags() -> list[EvalFlag]:
    """Every option of ``socialbench eval``: :data:`RUN_FLAGS`, with every registered
    benchmark's options after ``data``."""
    own = list(RUN_FLAGS)
    at = next(i for i, f in enumerate(own) if f.name == "data") + 1
    theirs = benchmark_flags()
    clash = sorted({f.name for f in own} & {f.name for f in theirs})
    if clash:
        raise UsageError(
            f"benchmark option(s) {', '.join(clash)} have the name of an option of every eval; rename them"
        )
    return own[:at] + theirs + own[at:]


def eval_defaults() -> dict[str, object]:
    """Every option of eval by parameter name with its default (``...`` when required; None
    for a benchmark option: not given): what :func:`~socialbench.runner.prepare.prepare_eval` takes."""
    return {f.name: f.default for f in eval_flags()}


def eval_value_problem(name: str, value: object) -> str | None:
    """Why ``value`` is no valid value of eval's option ``name``, or None: the bounds its
    flag declares (``min``/``max``: ``--concurrency`` >= 1, ``--limit`` >= 1, ...), numbers
    finite, ``--timeout`` more than 0. The one check of eval's flags and of a sweep plan's
    options and axes (:func:`~socialbench.runner.prepare.prepare_eval`, :mod:`socialbench.sweep.plan`)."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value):
        return f"must be a finite number (got {value})"
    if name in ("timeout", "first_byte_timeout") and value <= 0:
        return f"must be more than 0 seconds (got {value:g})"
    flag = next((f for f in eval_flags() if f.name == name), None)
    low, high = (flag.min, flag.max) if flag is not None else (None, None)
    if low is not None and value < low:
        return f"must be at least {low} (got {value})"
    if high is not None and value > high:
        return f"must be at most {high} (got {value})"
    return None


def check_eval_values(values: Mapping[str, object]) -> None:
    """:class:`UsageError` naming the first of eval's option ``values`` (by parameter name)
    that :func:`eval_value_problem` refuses."""
    for name, value in values.items():
        problem = eval_value_problem(name, value)
        if problem is not None:
            raise UsageError(f"--{name.replace('_', '-')} {problem}")


def eval_options(values: Mapping[str, Any]) -> EvalOptions:
    """The options of an eval (:class:`~socialbench.benchmarks.options.EvalOptions`) from
    eval's option ``values`` by name: the run's, and the benchmark options given (a flag
    that is off is not given)."""
    from socialbench.benchmarks.base import benchmark_entries
    from socialbench.benchmarks.generation import GenerationOverrides
    from socialbench.benchmarks.options import EvalOptions, option_fields

    given = {}
    for entry in benchmark_entries():
        for f in option_fields(entry.options):
            value = values.get(f.name)
            if value is not None and not (f.is_flag and value is False):
                given[f.name] = value
    generation = GenerationOverrides.from_values(values)
    return EvalOptions(**{k: values[k] for k in RUN_OPTIONS}, generation=generation, extra=given)


def run_variant(benchmark: str, options: EvalOptions) -> str:
    """The last part of a run directory's name: the benchmark's ``variant()`` of its options
    (``cot-img-with-bev``, ``rag``, ``standard-blur2``)."""
    from socialbench.benchmarks.base import benchmark_entry, options_of

    variant: str = options_of(benchmark, benchmark_entry(benchmark).options, options).variant(options.perturbation)
    return variant
