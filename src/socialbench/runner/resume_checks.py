"""Whether a run folder may be resumed by this run: the fields of its run.json that must match
(:data:`IDENTITY_FIELDS` and the benchmark's own options) and the ``--limit`` that may not
shrink it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from socialbench.benchmarks.options import BenchmarkOptions, recorded_options
from socialbench.errors import UsageError

#: Fields of run.json that must match for a run directory to be resumed, besides the
#: benchmark's own options (each compared with its default when an older run.json lacks it).
IDENTITY_FIELDS = (
    "benchmark",
    "dataset_fingerprint",
    "model",
    "model_identity",
    "model_options",
    "perturb",
    "seed",
    "image_policy",
    "generation",
)


def clashes(previous: Mapping[str, object], identity: Mapping[str, object], options: BenchmarkOptions) -> list[str]:
    """The fields in which a previous run.json differs from this run's identity: the
    :data:`IDENTITY_FIELDS` and each of the benchmark's options."""
    clash = [f for f in IDENTITY_FIELDS if previous.get(f) != identity[f]]
    before = recorded_options(type(options), previous)
    return clash + [name for name, value in before.items() if getattr(options, name) != value]


def check_limit(before: object, limit: int | None, out: Path) -> None:
    """Refuse a ``--limit`` that would shrink the run in ``out`` (of the first ``before``
    items; None: every item): its run.json and metrics.json would then describe only the
    first ``limit`` items, and a complete run would say so, while samples.jsonl keeps the
    other answers. A larger limit, or none, extends the run and is allowed."""
    if limit is None or (isinstance(before, int) and not isinstance(before, bool) and before <= limit):
        return
    scope = f"the first {before} items (--limit {before})" if isinstance(before, int) else "every item (no --limit)"
    raise UsageError(
        f"{out} holds a run of {scope}; --limit {limit} would make its run.json and metrics.json describe only "
        f"the first {limit} items; resume it with the same --limit (or a larger one, or none), "
        "or choose a new --out folder for the smaller run"
    )
