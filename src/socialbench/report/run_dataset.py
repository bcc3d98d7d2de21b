"""The labels a run was made on: where its dataset is (``--data`` or the ``data`` folder
``run.json`` records), the eval options it depends on, the dataset loaded without images,
and the run's records paired with its questions (:class:`ScoringEntry`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from socialbench.benchmarks.base import Dataset
from socialbench.benchmarks.options import EvalOptions
from socialbench.errors import UsageError
from socialbench.metrics.agreement import ScoringEntry
from socialbench.report.run_dir import SOCIALNAV_NAMES, RunDir
from socialbench.types import SampleRecord


def data_path(run: RunDir, data: Path | None = None) -> Path | None:
    """The labels folder of ``run``: ``data`` when given, else ``run.json``'s ``data``."""
    if data is not None:
        return Path(data)
    recorded = run.run.get("data") or (run.metrics.get("source") or {}).get("data")
    return Path(recorded) if recorded else None


def predictions_path(run: RunDir) -> Path:
    """Where ``run``'s predictions were made: the run directory, or for a ``socialbench
    score`` output without ``run.json`` the predictions it scored (``source.predictions``)."""
    source = run.metrics.get("source")
    pred = source.get("predictions") if isinstance(source, Mapping) else None
    if (run.path / "run.json").is_file() or not isinstance(pred, str) or not pred:
        return run.path
    return Path(pred)


def dataset_options(run: RunDir) -> EvalOptions | None:
    """The eval options ``run``'s dataset depends on, as its benchmark reads them from the
    run (:meth:`~socialbench.benchmarks.base.BaseBenchmark.predictions_options`: a
    SocialNav-SUB metamorphic run's variant and seed); ``None`` when it depends on none."""
    from socialbench.benchmarks.base import get_benchmark

    bench, _ = get_benchmark(run.benchmark)
    given = EvalOptions(protocol=run.protocol)
    found = bench.predictions_options(predictions_path(run), run.samples(), given)
    return None if found is given else found


def load_dataset(run: RunDir, data: Path | None = None, options: EvalOptions | None = None) -> Dataset:
    """Load the benchmark's items (labels only, no images needed) for ``run``, under the
    eval ``options`` its dataset depends on (:func:`dataset_options`; None: none).

    Raises :class:`UsageError` when the folder is unknown or gone, and lets the loader's
    :class:`DataError` through.
    """
    path = data_path(run, data)
    if path is None:
        raise UsageError(f"{run.path}: run.json records no data folder; pass --data DIR")
    if not path.exists():
        raise UsageError(f"{run.path}: data folder {path} does not exist; pass --data DIR")
    limit = run.run.get("limit")
    from socialbench.benchmarks.base import get_benchmark

    bench, _ = get_benchmark(run.benchmark)
    if options is not None:
        bench.check_options(options)
    elif run.benchmark in SOCIALNAV_NAMES:
        from socialbench.benchmarks.socialnav_sub.loader import load_socialnav

        return load_socialnav(path, require_images=False, limit=limit)
    return bench.load(path, require_images=False, limit=limit)


def scoring_entries(dataset: Dataset, records: Sequence[SampleRecord]) -> list[ScoringEntry]:
    """One :class:`ScoringEntry` per question of ``dataset`` that has a record, in item order."""
    by_key = {(r.item_id, r.question_key): r for r in records}
    out: list[ScoringEntry] = []
    for item in dataset.items:
        for q in item.questions:
            r = by_key.get((item.item_id, q.key))
            if r is not None:
                out.append(ScoringEntry(item.item_id, q, item.votes[q.key], r.parsed, r.raw, r.error))
    return out
