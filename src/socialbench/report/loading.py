"""Read run directories for reports and comparisons.

A run directory (written by ``socialbench eval`` or ``socialbench score``) holds
``metrics.json`` (needed), ``run.json`` and ``samples.jsonl`` (optional). A ``score`` output
without ``samples.jsonl`` reads the predictions it names; an official SocialNav-SUB
experiment folder is scored on the fly against ``--data`` (:func:`load_official_run`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from socialbench.errors import DataError, UsageError
from socialbench.files.safe_read import file_kind
from socialbench.metrics.protocols import OFFICIAL
from socialbench.records import read_run_json
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
    from socialbench.benchmarks.socialnav_sub.official_run import read_official_experiment

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
    run = {"benchmark": "socialnav-sub", "model": f"official:{path.name}", "data": str(data), "protocol": "official"}
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
    run = read_run_json(rpath) if rpath.exists() or rpath.is_symlink() else {}
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
    bench, data = run.get("benchmark"), run.get("data")
    if isinstance(bench, str) and isinstance(data, str):
        fix = f"score it into its folder: socialbench score -b {bench} -d {data} -p {p} --out {p}"
    else:
        fix = f"score it into its folder: socialbench score -b BENCHMARK -d DATA -p {p} --out {p}"
    return DataError.single(mpath, "", "missing: the run was not scored (it stopped before scoring)", fix)


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
