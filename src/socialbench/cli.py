"""The ``socialbench`` command line.

Exit codes: 0 ok; 1 usage or data error, including a command-line usage error from typer
(unknown or missing option) and a disk that cannot be written (a message, no traceback);
2 the run finished but some questions failed (they are recorded; the message names the
kinds and says whether to run the same command again or to fix the data first);
130 interrupted with Ctrl-C, at any point (everything answered so far is saved).
"""

from __future__ import annotations

import inspect
import signal
import sys
from pathlib import Path
from typing import Any, NoReturn, Protocol, runtime_checkable

import typer
from rich import box
from rich.table import Table

from socialbench.command_index import COMMANDS, DESCRIPTION, help_of
from socialbench.errors import DataError, SocialbenchError, StorageError, UsageError
from socialbench.messages import EXIT_INTERRUPTED, EXIT_MODEL_ERRORS, EXIT_USAGE, say, stdout_console
from socialbench.messages import line as _line
from socialbench.runner.prepare import prepare_eval, resolve_data

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
data_app = typer.Typer(no_args_is_help=True, help=help_of("data"))
app.add_typer(data_app, name="data")
sim_app = typer.Typer(no_args_is_help=True, help=help_of("sim"))
app.add_typer(sim_app, name="sim")

out = stdout_console()


def _slug(text: str) -> str:
    from socialbench.benchmarks.options import slug

    return slug(text)


def print_metrics(bench: Any, metrics: dict[str, Any]) -> None:
    summary = getattr(bench, "format_summary", None)
    if summary is not None:  # its text quotes metrics.json (model names, notes): escaped
        from socialbench.messages import terminal_safe

        out.print(terminal_safe(summary(metrics)), markup=False, highlight=False, soft_wrap=True)
    else:
        print_scores(metrics)


def print_scores(metrics: dict[str, Any]) -> None:
    scores = metrics.get("scores") or {}
    if not scores:
        _line(metrics.get("note", "nothing scored"))
        return
    groups = ["All", "Spatial reasoning", "Spatiotemporal reasoning", "Social reasoning"]
    present = [g for g in groups if any(g in b for b in scores.values())]
    from socialbench.messages import table_text

    table = Table(
        title=table_text(f"{metrics.get('benchmark', '')} — mean±SE ({metrics.get('protocol')} protocol)"),
        box=box.SIMPLE,
    )
    table.add_column("scorer", no_wrap=True)
    table.add_column("metric")
    for g in present:
        table.add_column(g.replace(" reasoning", ""), justify="right")
    table.add_column("n", justify="right")
    for scorer in ("model", "human:oracle", "human:average"):
        if scorer not in scores:
            continue
        for metric in ("PA", "CWPA"):
            row = [scorer if metric == "PA" else "", metric]
            for g in present:
                b = scores[scorer].get(g)
                row.append("—" if b is None else f"{b[metric]:.3f}±{b[metric + '_se']:.3f}")
            row.append(str(scores[scorer].get("All", {}).get("n", "")))
            table.add_row(*row)
    out.print(table)
    fails = metrics.get("failures") or {}
    if fails:
        _line(
            f"failure rate {fails.get('failure_rate', float('nan')):.3f} · invalid rate {fails.get('invalid_rate', float('nan')):.3f}"
            f" · error rate {fails.get('error_rate', float('nan')):.3f}"
        )
    cons = (metrics.get("consistency") or {}).get("All") or {}
    if cons.get("consistency") is not None:  # a metamorphic --perturb run
        se = cons.get("se")
        _line(
            f"consistency with the unperturbed answers {cons['consistency']:.3f}"
            + (f"±{se:.3f}" if se is not None else "")
            + f" over {cons['n']} question pairs"
        )


def eval_parameters() -> list[inspect.Parameter]:
    """Every parameter of ``socialbench eval``: a typer option for each of
    :func:`socialbench.runner.eval_options.eval_flags` (eval's own, and every registered
    benchmark's after ``--data``)."""
    from socialbench.runner.eval_options import eval_flags

    return [
        inspect.Parameter(
            f.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=typer.Option(f.default, *f.decls, help=f.help, min=f.min, max=f.max, show_default=f.show_default),
            annotation=f.annotation,
        )
        for f in eval_flags()
    ]


def eval_function() -> Any:
    """``socialbench eval`` as a function of :func:`eval_parameters` (what typer builds the
    command from)."""
    params = eval_parameters()

    def run(**values: Any) -> None:
        _eval(values)

    run.__signature__ = inspect.Signature(params, return_annotation=None)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params}
    run.__doc__ = "``socialbench eval`` (its help line: :mod:`socialbench.command_index`)."
    run.__name__ = "eval"
    return run


def eval_command() -> Any:
    """The ``eval`` command with the options of the benchmarks registered now."""
    real = typer.Typer()
    real.command("eval", help=help_of("eval"))(eval_function())
    return typer.main.get_group(real).commands["eval"]


def _lazy_placeholder() -> None:  # never runs: _LazyGroup replaces it before invoking
    raise UsageError("internal error: a lazily loaded command was not loaded")


# A placeholder in the listing: :class:`_LazyGroup` builds the real command when it runs.
app.command("eval", help=help_of("eval"))(_lazy_placeholder)


def _eval(values: dict[str, Any]) -> None:
    """Run ``socialbench eval`` with its option ``values`` by parameter name."""
    from socialbench.runner.run import run_eval

    benchmark, epochs = values["benchmark"], values["epochs"]
    bench, path, mdl, req = prepare_eval(values)
    if epochs > 1:
        _eval_epochs(values, req.out, path)
        return
    run_dir = req.out
    result = run_eval(req, bench, mdl)
    print_metrics(bench, result.metrics)
    run = result.metrics.get("run", {})
    _line(
        f"run directory: {run_dir} · answered {run.get('answered')}/{run.get('questions')} · "
        f"requests {result.stats['requests']} · cache hits {result.stats['cache_hits']} · retries {result.stats['retries']}"
        + (f" · reasoning tokens {result.stats['reasoning_tokens']}" if result.stats.get("reasoning_tokens") else "")
    )
    if result.interrupted:
        say("interrupted: answered questions are saved; run the same command again to resume")
        raise typer.Exit(EXIT_INTERRUPTED)
    if run.get("model_errors"):
        say(failure_message(run, benchmark, path, first_error_messages(run_dir)))
        raise typer.Exit(EXIT_MODEL_ERRORS)


def _eval_epochs(values: dict[str, Any], out: Path, path: Path) -> None:
    """``eval --epochs N``: N runs under ``out/epoch-E`` and their combination in ``out``
    (see :mod:`socialbench.runner.epochs`)."""
    from socialbench.runner.epochs import run_epochs
    from socialbench.runner.run import run_eval

    def one(epoch: int, seed: int, run_dir: Path) -> Any:
        bench, _, mdl, req = prepare_eval(dict(values, seed=seed, out_dir=run_dir, epochs=1))
        return run_eval(req, bench, mdl)

    bench, _, mdl, req = prepare_eval(dict(values, epochs=1))
    if mdl.needs_prompt:  # baselines draw from the seed, which differs per epoch
        _warn_identical_epochs(values, bench, req.options)
    res = run_epochs(out, values["epochs"], values["seed"], one)
    print_metrics(bench, res.metrics)
    errors = sum(int((r.metrics.get("run") or {}).get("model_errors") or 0) for r in res.results)
    _line(
        f"run directory: {out} · epochs {len(res.results)}/{values['epochs']} (each in {out}/epoch-E) · "
        f"mean ± SE across epochs in {out / 'metrics.json'}"
    )
    if res.interrupted:
        say("interrupted: answered questions are saved; run the same command again to resume")
        raise typer.Exit(EXIT_INTERRUPTED)
    if errors:
        say(f"{errors} questions failed over the epochs; run the same command again to retry them")
        raise typer.Exit(EXIT_MODEL_ERRORS)


def _warn_identical_epochs(values: dict[str, Any], bench: Any, options: Any) -> None:
    """Warn when ``--epochs N`` runs a model at temperature 0: greedy decoding gives the
    same answers every epoch, so the standard error across epochs is 0 and says nothing."""
    config = options.generation.apply(bench.generation_config(bench.check_options(options), values["seed"]))
    if config.deterministic:
        say(
            f"warning: --epochs {values['epochs']} at temperature 0 (greedy decoding): the epochs will give the "
            "same answers and an SE of 0; give --temperature (e.g. 1) or --temperature default to sample"
        )


#: Error kinds of models that answer from a fixed source (a replay file, rules): running
#: again fails the same way, so the advice names the cause instead of a retry.
FIXED_ANSWER_KINDS = {
    "missing_answer": "the replay source has no answer for those questions (its predictions were made on other "
    "data, another --limit or other variants), so replaying it again fails the same way: replay predictions "
    "made on this dataset with these options",
    "unsupported_question": "the model has no answer for those questions, so running again fails the same way: "
    "evaluate a model that answers them",
}


def first_error_messages(run_dir: Path) -> dict[str, str]:
    """The first ``error_message`` of each error kind in ``run_dir``'s samples.jsonl (empty
    when it cannot be read): what :func:`failure_message` shows as each kind's example."""
    from socialbench.records import read_samples

    try:
        records = read_samples(run_dir / "samples.jsonl")
    except (SocialbenchError, OSError):  # the count is still reported; the example is extra
        return {}
    out: dict[str, str] = {}
    for r in records:
        if r.error is not None and r.error not in out and r.error_message:
            out[r.error] = r.error_message[:240]
    return out


def failure_message(run: dict[str, Any], benchmark: str, data: Path, examples: dict[str, str] | None = None) -> str:
    """What failed (each error kind with its count, and the first message of each kind in
    ``examples``) and what helps: a retry for model failures, a fix of the dataset for data
    failures, the source for a replay's missing answers (a retry would fail the same way)."""
    from socialbench.runner.run import DATA_ERROR_KINDS

    kinds: dict[str, int] = run.get("error_kinds") or {}
    shown = examples or {}
    named = (
        ", ".join(f"{k} {n}" + (f": {shown[k]}" if k in shown else "") for k, n in sorted(kinds.items()))
        or "kinds not recorded"
    )
    text = f"{run['model_errors']} questions failed ({named})"
    data_kinds = sorted(k for k in kinds if k in DATA_ERROR_KINDS)
    fixed_kinds = sorted(k for k in kinds if k in FIXED_ANSWER_KINDS)
    model_kinds = sorted(k for k in kinds if k not in DATA_ERROR_KINDS and k not in FIXED_ANSWER_KINDS)
    advice = [f"{k}: {FIXED_ANSWER_KINDS[k]}" for k in fixed_kinds]
    if data_kinds:
        advice.append(
            f"{' and '.join(data_kinds)} come from the dataset, not the model: see error_message in samples.jsonl "
            f"and `socialbench data validate -b {benchmark} -d {data}`, fix the data, then run the same command again"
        )
    if model_kinds or not kinds:
        advice.append("run the same command again to retry the model failures")
    return f"{text}; " + "; ".join(advice)


@app.command("score", help=help_of("score"))
def score_cmd(
    benchmark: str = typer.Option(..., "--benchmark", "-b"),
    predictions: Path = typer.Option(
        ..., "--predictions", "-p", help="samples.jsonl, a run directory, or an official experiment folder"
    ),
    data: Path | None = typer.Option(None, "--data", "-d"),
    protocol: str = typer.Option("paper", help="paper | official"),
    out_dir: Path | None = typer.Option(None, "--out", "-o", help="where to write metrics.json"),
) -> None:
    """``socialbench score`` (its help line: :mod:`socialbench.command_index`)."""
    from socialbench.benchmarks.options import EvalOptions
    from socialbench.runner.store import write_json_atomic

    bench, path = resolve_data(benchmark, data)
    records = bench.read_predictions(predictions)
    # the options the predictions were made under, as far as the dataset depends on them
    # (a metamorphic run's variants): the benchmark reads them from the run
    bench.check_options(bench.predictions_options(predictions, records, EvalOptions(protocol=protocol)))
    # the items the eval loaded: a --limit run counts only its first items as missing
    dataset = bench.load(path, require_images=False, limit=_recorded_limit(predictions))
    metrics = bench.score(dataset, records, protocol).to_json()
    metrics["benchmark"] = benchmark  # as given: socialnav-sim, not the socialnav-sub that scores it
    _refuse_nothing_scored(metrics, records, predictions, benchmark, path)
    if out_dir is not None:
        target = out_dir
    elif predictions.is_dir() and (predictions / "samples.jsonl").exists():
        target = predictions
    elif predictions.is_file():
        target = predictions.parent
    else:
        target = Path("runs") / "scores" / _slug(predictions.name)
    metrics["source"] = {
        "predictions": str(predictions),
        "data": str(path),
        "dataset_fingerprint": bench.fingerprint(path),
    }
    # Never overwrite the metrics.json of an eval run: scoring into its folder without --out
    # writes metrics.score-<protocol>.json beside it.
    name = (
        "metrics.json"
        if out_dir is not None or not (target / "run.json").exists()
        else f"metrics.score-{protocol}.json"
    )
    target.mkdir(parents=True, exist_ok=True)
    write_json_atomic(target / name, metrics)
    print_metrics(bench, metrics)
    _line(f"metrics written to {target / name}")


def _refuse_nothing_scored(
    metrics: dict[str, Any], records: list[Any], predictions: Path, benchmark: str, data: Path
) -> None:
    """Refuse (before anything is written) a ``score`` in which no prediction matched a
    question of the dataset: its metrics file would hold no score and its exit status say
    all was well."""
    if metrics.get("n_scored") != 0:
        return
    if not records:
        found = f"{predictions} holds no predictions"
    else:
        found = (
            f"none of the {len(records)} predictions in {predictions} names a question of {data} "
            f"({metrics.get('n_unknown_predictions', len(records))} name other questions)"
        )
    raise UsageError(
        f"nothing could be scored: {found}; no metrics file was written. Give the predictions of a "
        f"{benchmark} run on this dataset (-p), or the dataset they were made on (-d)"
    )


def _recorded_limit(predictions: Path) -> int | None:
    """The ``--limit`` recorded in the run.json of the eval that wrote ``predictions`` (a
    run directory, or a samples.jsonl beside its run.json); None without one."""
    from socialbench.records import read_run_json

    run_json = (predictions if predictions.is_dir() else predictions.parent) / "run.json"
    if not run_json.is_file():
        return None
    run = read_run_json(run_json)  # DataError naming the file, line and field when it is unusable
    limit = run.get("limit") if isinstance(run, dict) else None
    if limit is None:
        return None
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise DataError.single(
            run_json, "limit", f"must be a positive integer or null, got {limit!r}", "give the run's own run.json"
        )
    return limit


@data_app.command("perturb")
def perturb_cmd(
    src: Path = typer.Option(..., "--data", "-d", help="image folder or dataset to copy"),
    dst: Path = typer.Option(..., "--out", "-o", help="new folder for the perturbed copy"),
    name: str = typer.Option(
        ..., "--perturb", help="blur | fisheye | fisheye-water | gaussian-noise | low-light | jpeg"
    ),
    strength: float = typer.Option(1.0, "--perturb-strength"),
    seed: int = typer.Option(0),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="show a progress bar on stderr"),
) -> None:
    """Write a perturbed copy of a dataset's images (deterministic for a seed)."""
    from socialbench.runner.progress import RunProgress
    from socialbench.vision.perturb_dataset import perturb_dataset

    with RunProgress(0, enabled=progress, label="data perturb", unit="files") as bar:
        n = perturb_dataset(src, dst, name, strength, seed, progress=bar.update)
    _line(f"wrote {n} perturbed images to {dst}")


@data_app.command("render")
def render_cmd(
    data: Path = typer.Option(..., "--data", "-d", help="SocialNav-SUB folder with raw frames, tracks and odometry"),
    out_dir: Path | None = typer.Option(
        None, "--out", "-o", help="where to write prompts/<S>/sample_with_bev_<i>.png [default: --data]"
    ),
    max_side: int = typer.Option(
        0, min=0, help="longest composite side in pixels (0 = the frames' width, as released)"
    ),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace composites that already exist"),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="show a progress bar on stderr"),
) -> None:
    """Pre-render SocialNav-SUB composites in the release layout (sample_with_bev_<i>.png)."""
    from socialbench.benchmarks.socialnav_sub.prerender import prerender_dataset
    from socialbench.runner.progress import RunProgress

    if not data.exists():
        raise UsageError(f"--data {data} does not exist")
    with RunProgress(0, enabled=progress, label="data render", unit="samples") as bar:
        summary = prerender_dataset(data, out_dir, max_side=max_side, overwrite=overwrite, progress=bar.update)
    out.print(
        f"rendered {summary.written} samples into {summary.out / 'prompts'}"
        + (f" ({summary.skipped} already had their composites)" if summary.skipped else "")
    )


@data_app.command("validate")
def validate_cmd(
    benchmark: str = typer.Option(..., "--benchmark", "-b"),
    data: Path | None = typer.Option(None, "--data", "-d"),
) -> None:
    """List every problem in a dataset folder (file, field, what is wrong, how to fix)."""
    bench, path = resolve_data(benchmark, data)
    problems = bench.validate(path)
    errors = [p for p in problems if not p.message.startswith("warning:")]
    for p in problems:
        say(str(p))
    if errors:
        say(f"{len(errors)} error(s), {len(problems) - len(errors)} warning(s) in {path}")
        raise typer.Exit(EXIT_USAGE)
    ds = bench.load(path, require_images=False, limit=None)
    n_q = sum(len(i.questions) for i in ds.items)
    warned = f" ({len(problems)} warning(s) above)" if problems else ""
    _line(f"OK: {path} — {len(ds.items)} items, {n_q} questions{warned}")


def _parse_range(text: str, name: str) -> tuple[int, int]:
    lo, sep, hi = text.partition("-")
    try:
        a, b = int(lo), int(hi if sep else lo)
    except ValueError:
        raise UsageError(f"{name} takes MIN-MAX, e.g. 2-8 (got {text!r})") from None
    if a < 1 or b < a:
        raise UsageError(f"{name} needs 1 <= MIN <= MAX (got {text!r})")
    return a, b


@sim_app.command("socialnav")
def sim_socialnav_cmd(
    out_dir: Path = typer.Option(..., "--out", "-o", help="folder to write the dataset into"),
    scenes: int = typer.Option(20, min=1, help="number of scenes"),
    seed: int = typer.Option(0, help="random seed (same seed, same bytes)"),
    people: str = typer.Option("2-8", help="people per scene, MIN-MAX"),
    annotators: int = typer.Option(1, min=1, help=">1: a synthetic annotator panel with noisy judgments"),
    noise_m: float = typer.Option(
        1.3, min=0.0, help="tracker noise before smoothing, metres (1.3 leaves the paper's 0.67 m ADE)"
    ),
    composites: bool = typer.Option(False, "--composites/--no-composites", help="also write pre-rendered composites"),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="show a progress bar on stderr"),
) -> None:
    """Simulate SocialNav-SUB-format scenes with exact answers (official release layout)."""
    from socialbench.benchmarks.socialnav_sub.simulated import simulate_dataset
    from socialbench.runner.progress import RunProgress

    lo, hi = _parse_range(people, "--people")
    with RunProgress(0, enabled=progress, label="sim socialnav", unit="steps") as bar:
        path = simulate_dataset(
            out_dir,
            scenes=scenes,
            seed=seed,
            people=(lo, hi),
            annotators=annotators,
            noise_m=noise_m,
            write_composites=composites,
            progress=bar.update,
        )
    _line(f"wrote {scenes} scenes to {path}; evaluate with: socialbench eval -b socialnav-sub -d {path} -m MODEL")


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
