"""Read run directories for reports and comparisons.

A run directory (written by ``socialbench eval`` or ``socialbench score``) holds
``metrics.json`` (needed), ``run.json`` and ``samples.jsonl`` (optional). A ``score`` output
without ``samples.jsonl`` reads the predictions it names; an official SocialNav-SUB
experiment folder is scored on the fly against ``--data`` (:func:`load_official_run`).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from socialbench.errors import DataError, UsageError
from socialbench.files.safe_read import file_kind
from socialbench.metrics.protocols import OFFICIAL
from socialbench.records import check_run_record, read_run_json
from socialbench.report.labels import assign_labels
from socialbench.report.metrics_file import read_metrics_json
from socialbench.report.run_dir import RunDir, benchmark_family


def is_official_experiment(path: Path) -> bool:
    """Whether ``path`` is an official SocialNav-SUB experiment folder (reference §d)."""
    if not path.is_dir() or (path / "metrics.json").exists():
        return False
    return any(
        (d / "question_answers.json").is_file() or (d / "evaluation.json").is_file()
        for d in path.iterdir()
        if d.is_dir()
    )


def load_official_run(path: Path, data: Path | None) -> RunDir:
    """An official experiment folder scored (``official`` protocol) against the labels in
    ``data``, as a run whose samples are the folder's answers."""
    from socialbench.benchmarks.base import get_benchmark
    from socialbench.benchmarks.socialnav_sub.official_run import official_experiment_run, read_official_experiment

    if data is None:
        raise UsageError(
            f"{path} is an official experiment folder: pass --data DIR (the "
            "SocialNav-SUB labels folder) to score and compare it"
        )
    if not Path(data).exists():
        raise UsageError(f"--data {data} does not exist")
    bench, _ = get_benchmark("socialnav-sub")
    records = read_official_experiment(path)
    dataset = bench.load(Path(data), require_images=False, limit=None)
    metrics = bench.score(dataset, records, OFFICIAL).to_json()
    metrics["source"] = {"predictions": str(path), "data": str(data)}
    run = {**official_experiment_run(path), "data": str(data)}
    return RunDir(path=path, run=run, metrics=metrics, _samples=records)


def load_run(path: str | Path, data: Path | None = None) -> RunDir:
    """Load a run directory (or an official experiment folder, scored against ``data``);
    raises :class:`DataError` naming the file and the fix."""
    p = Path(path)
    if is_official_experiment(p):
        return load_official_run(p, data)
    if not p.is_dir():
        if p.name == "metrics.json" and p.is_file():
            p = p.parent
        else:
            raise DataError.single(
                p, "", "not a run directory", "give a folder written by `socialbench eval` or `score`"
            )
    mpath = p / "metrics.json"
    if not mpath.is_file():
        raise unscored_run_error(p)
    metrics = read_metrics_json(mpath)
    if not isinstance(metrics.get("scores"), Mapping) and not isinstance(metrics.get("overall"), Mapping):
        note = metrics.get("note") or "it holds no scores"
        raise DataError.single(
            mpath, "scores", f"nothing to report: {note}", "re-score the run with `socialbench score`"
        )
    rpath = p / "run.json"
    # anything at run.json is read: a FIFO or a device there is refused, not taken for none
    run = read_run_json(rpath) if rpath.exists() or rpath.is_symlink() else scored_run(metrics, mpath)
    return RunDir(path=p, run=run, metrics=metrics)


#: Files whose presence says a folder is a dataset, not a run (SocialNav-SUB, RobotEQ).
_DATASET_MARKS = ("prompts/sample_info.json", "human_labels", "goal_info.json", "dataset_cfg.yaml", "images")


def unscored_run_error(p: Path) -> DataError:
    """Why the folder ``p`` (no metrics.json) cannot be reported, with a fix that works as
    written: a dataset folder is evaluated first; a run with no answers is resumed; a run with
    answers is scored into its own folder with the benchmark and data its run.json names."""
    mpath = p / "metrics.json"
    samples = p / "samples.jsonl"
    rpath = p / "run.json"
    run = read_run_json(rpath) if rpath.is_file() else {}
    if not run and file_kind(samples) == "missing":
        if any((p / mark).exists() for mark in _DATASET_MARKS):
            return DataError.single(
                p,
                "",
                "is a dataset folder, not a run directory",
                f"evaluate it first (socialbench eval -b BENCHMARK -d {p} -m MODEL -o RUN), then report RUN",
            )
        return DataError.single(
            p,
            "",
            "not a run directory (no run.json, samples.jsonl or metrics.json in it)",
            "give a folder written by `socialbench eval` or `socialbench score --out`",
        )
    if file_kind(samples) == "missing" or samples.stat().st_size == 0:
        state = f" (its run.json says {run['status']!r})" if isinstance(run.get("status"), str) else ""
        what = "is empty" if file_kind(samples) != "missing" else "is missing"
        return DataError.single(
            samples,
            "",
            f"{what}: the run recorded no answers yet{state}, so there is nothing to report",
            "run the same `socialbench eval` command again to resume it (its run.json 'argv' holds it)",
        )
    return DataError.single(mpath, "", "missing: the run was not scored", unscored_fix(p))


def unscored_fix(p: Path) -> str:
    """How to score the run folder ``p`` that has no metrics.json: a ``socialbench score``
    command that writes metrics.json into ``p`` itself (so that ``report p`` then reads it,
    with the run's run.json: a run that was killed stays marked partial), complete when its
    run.json names the benchmark; what to give otherwise."""
    quoted = shlex.quote(str(p))
    if not (p / "samples.jsonl").is_file():
        return (
            f"give a folder written by `socialbench eval` or `socialbench score` ({p} holds no "
            "samples.jsonl of answers to score)"
        )
    rpath = p / "run.json"
    run = read_run_json(rpath) if rpath.is_file() else {}
    benchmark = run.get("benchmark")
    data = run.get("data")
    if not isinstance(benchmark, str) or not benchmark:
        return (
            f"score its answers with `socialbench score -b BENCHMARK -p {quoted} -d DATASET --out {quoted}` "
            "(the benchmark and dataset they answer), or resume the eval"
        )
    command = f"socialbench score -b {shlex.quote(benchmark)} -p {quoted}"
    if isinstance(data, str) and data and Path(data).exists():
        command += f" -d {shlex.quote(data)}"
    return f"score the answers it has with `{command} --out {quoted}`, or resume the eval"


def scored_run(metrics: Mapping[str, object], path: Path) -> dict[str, object]:
    """The run record of a ``socialbench score`` output without run.json of its own: the
    copy of the scored run's run.json that ``score`` kept under ``source.run`` (checked as
    the file is), with the data it was scored against; ``{}`` when it kept none (predictions
    that came without a run.json)."""
    source = metrics.get("source")
    kept = source.get("run") if isinstance(source, Mapping) else None
    if kept is None:
        return {}
    fix = "score the predictions again with `socialbench score --out` or restore the file"
    run = dict(check_run_record(kept, str(path), prefix="source.run.", fix=fix))
    assert isinstance(source, Mapping)  # kept came from it
    for name in ("data", "dataset_fingerprint"):
        if isinstance(source.get(name), str):
            run[name] = source[name]
    return run


def load_runs(
    paths: Sequence[str | Path], labels: Sequence[str] | None = None, data: Path | None = None
) -> list[RunDir]:
    """Load several run directories (official experiment folders scored against ``data``)
    and label them."""
    if not paths:
        raise UsageError("give at least one run directory")
    runs = [load_run(p, data) for p in expand_run_folders(paths)]
    assign_labels(runs, labels)
    return runs


def expand_run_folders(paths: Sequence[str | Path]) -> list[Path]:
    """``paths`` with every folder that holds run directories but is none itself (a
    ``socialbench sweep`` folder) replaced by the scored run directories below it, sorted
    (one without any is kept: loading it then says what is missing)."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if not p.is_dir() or (p / "metrics.json").exists() or (p / "run.json").exists() or is_official_experiment(p):
            out.append(p)
            continue
        found = sorted(m.parent for m in p.rglob("metrics.json") if (m.parent / "run.json").is_file())
        found_set = set(found)
        # A run inside another (an epoch of an `eval --epochs` run) is reported through it.
        out += [d for d in found if not any(a in found_set for a in d.parents)] or [p]
    return out


def check_same_benchmark(runs: Sequence[RunDir]) -> str:
    """The benchmark family shared by ``runs`` ("socialnav" or "roboteq"); error otherwise."""
    families = {benchmark_family(r) for r in runs}
    if len(families) != 1:
        listing = ", ".join(f"{r.path} ({r.benchmark or 'unknown'})" for r in runs)
        raise UsageError(f"runs of different benchmarks cannot share one report: {listing}")
    return families.pop()
