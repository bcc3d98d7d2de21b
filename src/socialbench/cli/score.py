"""``socialbench score``: score predictions made elsewhere against a dataset's labels, and
write metrics.json beside them (never over an eval's own)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import typer

from socialbench.cli.printing import print_metrics
from socialbench.errors import DataError, UsageError
from socialbench.messages import line as _line
from socialbench.runner.prepare import resolve_data
from socialbench.types import SampleRecord


def _slug(text: str) -> str:
    from socialbench.benchmarks.options import slug

    return slug(text)


def score_cmd(
    benchmark: str = typer.Option(..., "--benchmark", "-b"),
    predictions: Path = typer.Option(
        ..., "--predictions", "-p", help="samples.jsonl, a run directory, or an official experiment folder"
    ),
    data: Path | None = typer.Option(None, "--data", "-d"),
    protocol: str = typer.Option(
        "paper", help="paper | official | official-gemini (official with the Gemini path's reply reading)"
    ),
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
    # whose answers these are and whether the run finished: report and compare read them
    # from the copy as from the run itself (a cot-gt run stays human-derived, a killed run partial)
    provenance = _predictions_run(predictions)
    if provenance is not None:
        metrics["source"]["run"] = provenance
    metrics["run"] = _counts(bench.question_order(dataset), records)
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
    metrics: Mapping[str, object], records: Sequence[SampleRecord], predictions: Path, benchmark: str, data: Path
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


def _predictions_run(predictions: Path) -> dict[str, object] | None:
    """The run record of the run that made ``predictions``: its run.json (a run directory,
    or a samples.jsonl beside one), what an official experiment folder's name says of its
    run, else None."""
    from socialbench.benchmarks.socialnav_sub.official_run import official_experiment_run
    from socialbench.records import read_run_json

    run_json = (predictions if predictions.is_dir() else predictions.parent) / "run.json"
    if run_json.is_file():
        return read_run_json(run_json)
    if predictions.is_dir() and not (predictions / "samples.jsonl").exists():
        return official_experiment_run(predictions)
    return None


def _counts(order: Sequence[tuple[str, str]], records: Sequence[SampleRecord]) -> dict[str, object]:
    """metrics.json's ``run`` counts of a scored file, as ``eval`` counts a run's: the
    questions of the dataset (``order``), those answered (the latest record per question,
    without an error), those that failed, those with no record; complete when every
    question was answered."""
    latest = {(r.item_id, r.question_key): r for r in records}
    found = [latest[k] for k in order if k in latest]
    answered = sum(1 for r in found if r.error is None)
    return {
        "questions": len(order),
        "answered": answered,
        "model_errors": len(found) - answered,
        "missing": len(order) - len(found),
        "complete": answered == len(order),
    }


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
