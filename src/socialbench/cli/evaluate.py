"""``socialbench eval``: its typer command built from eval's declared options, the run (one
or ``--epochs N``), and what the command says when questions failed."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from socialbench.cli.printing import print_metrics
from socialbench.command_index import help_of
from socialbench.errors import SocialbenchError
from socialbench.messages import EXIT_INTERRUPTED, EXIT_MODEL_ERRORS, say
from socialbench.messages import line as _line
from socialbench.runner.prepare import prepare_eval

if TYPE_CHECKING:
    from socialbench.benchmarks.base import Benchmark
    from socialbench.benchmarks.options import EvalOptions
    from socialbench.runner.run import RunResult


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


def eval_function() -> Callable[..., None]:
    """``socialbench eval`` as a function of :func:`eval_parameters` (what typer builds the
    command from)."""
    params = eval_parameters()

    def run(**values: object) -> None:
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


def _eval(values: Mapping[str, object]) -> None:
    """Run ``socialbench eval`` with its option ``values`` by parameter name."""
    from socialbench.runner.run import run_eval

    benchmark, epochs = str(values["benchmark"]), values["epochs"]
    bench, path, mdl, req = prepare_eval(values)
    if isinstance(epochs, int) and epochs > 1:  # an int: typer converts --epochs
        _eval_epochs(values, epochs, req.out, path)
        return
    run_dir = req.out
    result = run_eval(req, bench, mdl)
    print_metrics(bench, result.metrics)
    run = result.metrics.get("run", {})
    _line(
        f"run directory: {run_dir} · answered {run.get('answered')}/{run.get('questions')} · "
        f"requests {result.stats['requests']} · cache hits {result.stats['cache_hits']} · retries {result.stats['retries']}"
        + (f" · reasoning tokens {result.stats['reasoning_tokens']}" if result.stats.get("reasoning_tokens") else "")
        + sent_note(result.stats)
    )
    truncation = truncation_warning(result.stats, run_dir)
    if truncation:
        say(truncation)
    if result.interrupted:
        say("interrupted: answered questions are saved; run the same command again to resume")
        raise typer.Exit(EXIT_INTERRUPTED)
    if run.get("model_errors"):
        say(failure_message(run, benchmark, path, first_error_messages(run_dir)))
        raise typer.Exit(EXIT_MODEL_ERRORS)


def sent_note(stats: Mapping[str, object]) -> str:
    """`` · sent N (...)`` when the session sent more HTTP requests than the engine's
    attempts (refusals learned from, stream fallbacks, the images probe), by cause; '' else."""
    causes = stats.get("requests_by_cause")
    if not isinstance(causes, Mapping):
        return ""
    extra = {k: v for k, v in causes.items() if k not in ("first_attempts", "retries") and v}
    if not extra:
        return ""
    total = sum(int(v) for v in causes.values())
    named = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in extra.items())
    return f" · sent {total} ({named} beside the attempts)"


#: The share of replies cut off at the token limit above which the end of a run says so.
TRUNCATED_SHARE_WARNED = 0.1


def truncation_warning(stats: Mapping[str, object], run_dir: Path) -> str:
    """A warning when at least :data:`TRUNCATED_SHARE_WARNED` of this session's replies
    were cut off at the token limit (``finish_reason: length``), with the fix: a larger
    ``--max-tokens`` than the run sent (read from ``run_dir``'s run.json); '' otherwise."""
    truncated, completed, hits = (stats.get(k) for k in ("truncated", "completed", "cache_hits"))
    if not isinstance(truncated, int) or not isinstance(completed, int) or not truncated:
        return ""
    replies = completed - (hits if isinstance(hits, int) else 0)
    if replies <= 0 or truncated < TRUNCATED_SHARE_WARNED * replies:
        return ""
    sent = _max_tokens_sent(run_dir)
    fix = (
        f"the run sent a limit of {sent} tokens: give more, e.g. --max-tokens {2 * sent}"
        if sent
        else "the run sent no limit, so the server's default applied (transformers serve's is small): "
        "give one, e.g. --max-tokens 1024"
    )
    return (
        f"warning: {truncated} of {replies} replies were cut off at the token limit (finish_reason length; "
        f'"truncated": true in samples.jsonl), so their answers may be missing or partial; {fix}'
    )


def _max_tokens_sent(run_dir: Path) -> int | None:
    """The ``max_tokens`` run.json says the run sent, or None (none sent, or unreadable)."""
    import json

    try:
        generation = json.loads((run_dir / "run.json").read_text(encoding="utf-8")).get("generation")
    except (OSError, ValueError, AttributeError):
        return None
    value = generation.get("max_tokens") if isinstance(generation, dict) else None
    return value if isinstance(value, int) and value > 0 else None


def _eval_epochs(values: Mapping[str, object], epochs: int, out: Path, path: Path) -> None:
    """``eval --epochs N``: N runs under ``out/epoch-E`` and their combination in ``out``
    (see :mod:`socialbench.runner.epochs`)."""
    from socialbench.runner.epochs import run_epochs
    from socialbench.runner.run import run_eval

    def one(epoch: int, seed: int, run_dir: Path) -> RunResult:
        bench, _, mdl, req = prepare_eval(dict(values, seed=seed, out_dir=run_dir, epochs=1))
        return run_eval(req, bench, mdl)

    bench, _, mdl, req = prepare_eval(dict(values, epochs=1))
    if mdl.needs_prompt:  # baselines draw from the seed, which differs per epoch
        _warn_identical_epochs(epochs, bench, req.options)
    res = run_epochs(out, epochs, req.options.seed, one)  # the seed given (eval_options)
    print_metrics(bench, res.metrics)
    errors = sum(int((r.metrics.get("run") or {}).get("model_errors") or 0) for r in res.results)
    _line(
        f"run directory: {out} · epochs {len(res.results)}/{epochs} (each in {out}/epoch-E) · "
        f"mean ± SE across epochs in {out / 'metrics.json'}"
    )
    if res.interrupted:
        say("interrupted: answered questions are saved; run the same command again to resume")
        raise typer.Exit(EXIT_INTERRUPTED)
    if errors:
        say(f"{errors} questions failed over the epochs; run the same command again to retry them")
        raise typer.Exit(EXIT_MODEL_ERRORS)


def _warn_identical_epochs(epochs: int, bench: Benchmark, options: EvalOptions) -> None:
    """Warn when ``--epochs N`` runs a model at temperature 0: greedy decoding gives the
    same answers every epoch, so the standard error across epochs is 0 and says nothing."""
    config = options.generation.apply(bench.generation_config(bench.check_options(options), options.seed))
    if config.deterministic:
        say(
            f"warning: --epochs {epochs} at temperature 0 (greedy decoding): the epochs will give the "
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


def failure_message(
    run: Mapping[str, object], benchmark: str, data: Path, examples: dict[str, str] | None = None
) -> str:
    """What failed (each error kind with its count, and the first message of each kind in
    ``examples``) and what helps: a retry for model failures, a fix of the dataset for data
    failures, the source for a replay's missing answers (a retry would fail the same way)."""
    from socialbench.runner.run import DATA_ERROR_KINDS

    recorded = run.get("error_kinds")
    kinds: dict[str, int] = recorded if isinstance(recorded, dict) else {}
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
    cut = run.get("errors_truncated")
    cut = cut if isinstance(cut, int) else 0
    if cut:
        advice.append(
            f"{cut} of them ran out of tokens (finish_reason length: the reply, or a reasoning model's thinking, "
            "filled the token limit before any answer), so running again fails the same way: raise --max-tokens "
            "(or lower --reasoning-effort)"
        )
    if "gave_up" in kinds:
        advice.append(
            f"gave_up {kinds['gave_up']}: the run stopped sending after the backend failed round after round "
            "(run.json's engine.gave_up says how); check the server, then run the same command again to resume"
        )
    if data_kinds:
        advice.append(
            f"{' and '.join(data_kinds)} come from the dataset, not the model: see error_message in samples.jsonl "
            f"and `socialbench data validate -b {benchmark} -d {data}`, fix the data, then run the same command again"
        )
    retried = sum(n for k, n in kinds.items() if k in model_kinds and k != "gave_up") - cut
    if retried > 0 or not kinds:
        advice.append("run the same command again to retry the model failures")
    return f"{text}; " + "; ".join(advice)
