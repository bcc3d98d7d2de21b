"""The ``socialbench`` command line.

Exit codes: 0 ok; 1 usage or data error (a message, no traceback); 2 the run finished but
some model calls failed (they are recorded; run the same command again to retry them);
130 interrupted with Ctrl-C (everything answered so far is saved).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, List, Optional

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from socialbench.errors import DataError, SocialbenchError, UsageError

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Measure the social intelligence of embodied agents.")
data_app = typer.Typer(no_args_is_help=True, help="Check and transform datasets.")
app.add_typer(data_app, name="data")
sim_app = typer.Typer(no_args_is_help=True, help="Generate procedural datasets.")
app.add_typer(sim_app, name="sim")

out = Console()
if not out.is_terminal:  # pipes and CI logs: wide enough for the results table
    out = Console(width=110)
err = Console(stderr=True)

EXIT_OK, EXIT_USAGE, EXIT_MODEL_ERRORS, EXIT_INTERRUPTED = 0, 1, 2, 130


def default_cache_path() -> Path:
    return Path.home() / ".cache" / "socialbench" / "responses.sqlite3"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text.replace("://", "_")).strip("_")[:80]


def _model_options(pairs: list[str], seed: int, timeout: float, data: Any = None):
    from socialbench.models.registry import ModelOptions

    extra = []
    for p in pairs:
        k, sep, v = p.partition("=")
        if not sep or not k:
            raise UsageError(f"--model-opt takes KEY=VALUE (got {p!r})")
        extra.append((k.strip(), v.strip()))
    return ModelOptions(seed=seed, timeout_s=timeout, data=data, extra=tuple(extra))


def _resolve_data(benchmark_name: str, data: Optional[Path]):
    from socialbench.benchmarks.base import get_benchmark

    bench, bundled = get_benchmark(benchmark_name)
    path = data or bundled
    if path is None:
        raise UsageError(f"--data is required for {benchmark_name} (the folder of the dataset release)")
    resolve = getattr(bench, "resolve_data", None)  # e.g. a hub id -> a local snapshot
    if resolve is not None:
        path = resolve(path)
    if not path.exists():
        raise UsageError(f"--data {path} does not exist")
    return bench, path


def print_metrics(bench: Any, metrics: dict[str, Any]) -> None:
    summary = getattr(bench, "format_summary", None)
    if summary is not None:
        out.print(summary(metrics), markup=False, highlight=False, soft_wrap=True)
    else:
        print_scores(metrics)


def print_scores(metrics: dict[str, Any]) -> None:
    scores = metrics.get("scores") or {}
    if not scores:
        out.print(metrics.get("note", "nothing scored"))
        return
    groups = ["All", "Spatial reasoning", "Spatiotemporal reasoning", "Social reasoning"]
    present = [g for g in groups if any(g in b for b in scores.values())]
    table = Table(title=f"{metrics.get('benchmark', '')} — mean±SE ({metrics.get('protocol')} protocol)", box=box.SIMPLE)
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
        out.print(
            f"failure rate {fails.get('failure_rate', float('nan')):.3f} · invalid rate {fails.get('invalid_rate', float('nan')):.3f}"
            f" · error rate {fails.get('error_rate', float('nan')):.3f}"
        )


@app.command("eval")
def eval_cmd(
    benchmark: str = typer.Option(..., "--benchmark", "-b", help="socialnav-sub, socialnav-sim (bundled), ..."),
    model: str = typer.Option(..., "--model", "-m", help="model spec, e.g. openai:MODEL[@URL], baseline:random"),
    data: Optional[Path] = typer.Option(None, "--data", "-d", help="dataset folder (optional for bundled benchmarks)"),
    method: str = typer.Option("independent", help="SocialNav-SUB: independent | cot | cot-gt"),
    strategy: str = typer.Option("standard", help="RobotEQ: standard | cot | no-image | rag"),
    per_behavior: bool = typer.Option(False, "--per-behavior", help="RobotEQ judgment: one request per behavior"),
    perturb: Optional[str] = typer.Option(None, help="image perturbation, e.g. blur, fisheye, fisheye-water"),
    perturb_strength: float = typer.Option(1.0, help="perturbation strength"),
    rag_backend: Optional[str] = typer.Option(None, help="RobotEQ --strategy rag retriever: bm25 | dense | hybrid"),
    rag_k: Optional[int] = typer.Option(None, min=1, help="RobotEQ --strategy rag: documents per query [default 2]"),
    images: str = typer.Option("img-with-bev", help="img-with-bev | img | bev"),
    protocol: str = typer.Option("paper", help="paper | official (metric protocol)"),
    concurrency: int = typer.Option(16, min=1, help="requests in flight at once"),
    limit: Optional[int] = typer.Option(None, min=1, help="only the first N items"),
    out_dir: Optional[Path] = typer.Option(None, "--out", "-o", help="run directory (re-running into it resumes)"),
    seed: int = typer.Option(0, help="seed for baselines, jitter and sampling"),
    cache: Optional[Path] = typer.Option(None, help="SQLite response cache file [default: ~/.cache/socialbench/responses.sqlite3]"),
    no_cache: bool = typer.Option(False, "--no-cache", help="do not read or write the response cache"),
    timeout: float = typer.Option(120.0, help="seconds per attempt"),
    max_attempts: int = typer.Option(6, min=1, help="attempts per request (retries + 1)"),
    max_side: int = typer.Option(768, min=0, help="longest image side in pixels (0 = original)"),
    model_opt: List[str] = typer.Option([], "--model-opt", help="backend option KEY=VALUE (repeatable)"),
    progress: bool = typer.Option(True, "--progress/--no-progress"),
) -> None:
    """Evaluate a model on a benchmark; writes run.json, samples.jsonl and metrics.json."""
    from socialbench.benchmarks.base import EvalOptions
    from socialbench.models.registry import create_model
    from socialbench.runner.engine import RetryPolicy
    from socialbench.runner.run import RunRequest, run_eval
    from socialbench.vision.images import ImagePolicy

    bench, path = _resolve_data(benchmark, data)
    options = EvalOptions(
        method=method, images=images, protocol=protocol, limit=limit, seed=seed, strategy=strategy,
        per_behavior=per_behavior, perturb=perturb, perturb_strength=perturb_strength,
        extra={k: v for k, v in (("rag_backend", rag_backend), ("rag_k", rag_k)) if v is not None},
    )
    bench.check_options(options)
    model_options = _model_options(model_opt, seed, timeout)
    mdl = create_model(model, model_options)
    variant = f"{method}-{images}" if benchmark.startswith("socialnav") else strategy + ("-per-behavior" if per_behavior else "")
    if perturb:
        variant += f"-{perturb}{perturb_strength:g}"
    run_dir = out_dir or Path("runs") / benchmark / _slug(mdl.spec) / variant  # spec: no credentials
    req = RunRequest(
        benchmark_name=benchmark,
        data=path,
        model_spec=model,
        out=run_dir,
        options=options,
        concurrency=concurrency,
        retry=RetryPolicy(max_attempts=max_attempts, timeout_s=timeout),
        cache_path=None if no_cache else (cache or default_cache_path()),
        model_options=model_options.extra,
        image_policy=ImagePolicy(max_side=max_side),
        show_progress=progress,
    )
    result = run_eval(req, bench, mdl)
    print_metrics(bench, result.metrics)
    run = result.metrics.get("run", {})
    out.print(
        f"run directory: {run_dir} · answered {run.get('answered')}/{run.get('questions')} · "
        f"requests {result.stats['requests']} · cache hits {result.stats['cache_hits']} · retries {result.stats['retries']}"
    )
    if result.interrupted:
        err.print("interrupted: answered questions are saved; run the same command again to resume")
        raise typer.Exit(EXIT_INTERRUPTED)
    if run.get("model_errors"):
        err.print(f"{run['model_errors']} questions failed ({result.stats['error_kinds']}); run the same command again to retry them")
        raise typer.Exit(EXIT_MODEL_ERRORS)


@app.command("score")
def score_cmd(
    benchmark: str = typer.Option(..., "--benchmark", "-b"),
    predictions: Path = typer.Option(..., "--predictions", "-p", help="samples.jsonl, a run directory, or an official experiment folder"),
    data: Optional[Path] = typer.Option(None, "--data", "-d"),
    protocol: str = typer.Option("paper", help="paper | official"),
    out_dir: Optional[Path] = typer.Option(None, "--out", "-o", help="where to write metrics.json"),
) -> None:
    """Score predictions made elsewhere (needs labels only, no images)."""
    from socialbench.benchmarks.base import EvalOptions
    from socialbench.runner.store import write_json_atomic

    bench, path = _resolve_data(benchmark, data)
    bench.check_options(EvalOptions(protocol=protocol))
    dataset = bench.load(path, require_images=False, limit=None)
    records = bench.read_predictions(predictions)
    metrics = bench.score(dataset, records, protocol)
    if out_dir is not None:
        target = out_dir
    elif predictions.is_dir() and (predictions / "samples.jsonl").exists():
        target = predictions
    elif predictions.is_file():
        target = predictions.parent
    else:
        target = Path("runs") / "scores" / _slug(predictions.name)
    metrics["source"] = {"predictions": str(predictions), "data": str(path), "dataset_fingerprint": bench.fingerprint(path)}
    # Never overwrite the metrics.json of an eval run: scoring into its folder without --out
    # writes metrics.score-<protocol>.json beside it.
    name = "metrics.json" if out_dir is not None or not (target / "run.json").exists() else f"metrics.score-{protocol}.json"
    target.mkdir(parents=True, exist_ok=True)
    write_json_atomic(target / name, metrics)
    print_metrics(bench, metrics)
    out.print(f"metrics written to {target / name}")


@data_app.command("perturb")
def perturb_cmd(
    src: Path = typer.Option(..., "--data", "-d", help="image folder or dataset to copy"),
    dst: Path = typer.Option(..., "--out", "-o", help="new folder for the perturbed copy"),
    name: str = typer.Option(..., "--perturb", help="blur | fisheye | fisheye-water | gaussian-noise | low-light | jpeg"),
    strength: float = typer.Option(1.0, "--perturb-strength"),
    seed: int = typer.Option(0),
) -> None:
    """Write a perturbed copy of a dataset's images (deterministic for a seed)."""
    from socialbench.vision.perturb import perturb_dataset

    n = perturb_dataset(src, dst, name, strength, seed)
    out.print(f"wrote {n} perturbed images to {dst}")


@data_app.command("validate")
def validate_cmd(
    benchmark: str = typer.Option(..., "--benchmark", "-b"),
    data: Optional[Path] = typer.Option(None, "--data", "-d"),
) -> None:
    """List every problem in a dataset folder (file, field, what is wrong, how to fix)."""
    bench, path = _resolve_data(benchmark, data)
    problems = bench.validate(path)
    errors = [p for p in problems if not p.message.startswith("warning:")]
    for p in problems:
        err.print(str(p), markup=False, highlight=False)
    if errors:
        err.print(f"{len(errors)} error(s), {len(problems) - len(errors)} warning(s) in {path}")
        raise typer.Exit(EXIT_USAGE)
    ds = bench.load(path, require_images=False, limit=None)
    n_q = sum(len(i.questions) for i in ds.items)
    warned = f" ({len(problems)} warning(s) above)" if problems else ""
    out.print(f"OK: {path} — {len(ds.items)} items, {n_q} questions{warned}")


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
    noise_m: float = typer.Option(1.3, min=0.0, help="tracker noise before smoothing, metres (1.3 leaves the paper's 0.67 m ADE)"),
    composites: bool = typer.Option(False, "--composites/--no-composites", help="also write pre-rendered composites"),
) -> None:
    """Simulate SocialNav-SUB-format scenes with exact answers (official release layout)."""
    from socialbench.navigation.sim_dataset import simulate_dataset

    lo, hi = _parse_range(people, "--people")
    path = simulate_dataset(
        out_dir, scenes=scenes, seed=seed, people=(lo, hi), annotators=annotators,
        noise_m=noise_m, write_composites=composites,
    )
    out.print(f"wrote {scenes} scenes to {path}; evaluate with: socialbench eval -b socialnav-sub -d {path} -m MODEL")


@app.command("models")
def models_cmd() -> None:
    """List model backends and baselines."""
    from socialbench.models.registry import backends

    table = Table(title="model backends")
    table.add_column("spec")
    table.add_column("what it is")
    table.add_column("example")
    for b in backends():
        table.add_row(b.prefix if ":" in b.prefix else f"{b.prefix}:...", b.summary, b.example)
    out.print(table)


def _register_subcommands() -> None:
    """Command groups that live with their code: `report`/`compare`, `build ...`."""
    from socialbench.build.commands import register as register_build
    from socialbench.report.commands import register as register_report

    register_report(app)
    register_build(app)


_register_subcommands()


def main(argv: Optional[list[str]] = None) -> None:
    try:
        rv = app(args=argv, standalone_mode=False)
        if isinstance(rv, int) and rv:
            sys.exit(rv)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except DataError as exc:
        for p in exc.problems:
            err.print(str(p), markup=False, highlight=False)
        sys.exit(EXIT_USAGE)
    except SocialbenchError as exc:
        err.print(f"error: {exc}", markup=False, highlight=False)
        sys.exit(EXIT_USAGE)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(EXIT_INTERRUPTED)
    except Exception as exc:  # click usage errors
        import click

        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            sys.exit(EXIT_USAGE)
        if isinstance(exc, click.exceptions.Abort):
            sys.exit(EXIT_INTERRUPTED)
        raise


if __name__ == "__main__":
    main()
