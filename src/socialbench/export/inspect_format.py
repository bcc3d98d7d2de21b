"""The papers' metrics of an Inspect eval, from the benchmark's own ``score``.

Every sample's score carries the item's :class:`~socialbench.types.SampleRecord` s (as
``samples.jsonl`` lines) in its metadata; :func:`benchmark_metrics` gathers them and calls
``benchmark.score(dataset, records, protocol)`` under every protocol (SocialNav-SUB's
``paper`` and ``official``), then flattens the result's ``metrics.json`` form into Inspect's
metric values: ``PROTOCOL/PATH`` -> number, e.g. ``paper/scores/overall/cwpa/mean`` or
``official/scores/by_category/Spatial reasoning/pa/mean``. No number is computed here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from socialbench.benchmarks.prepared import PreparedEval
from socialbench.metrics.protocols import PROTOCOL_NAMES
from socialbench.types import SampleRecord

#: Where a sample score's metadata keeps the item's records.
RECORDS_KEY = "socialbench_records"
#: Parts of ``metrics.json`` that are counts or notes about the scoring, not metrics.
SKIPPED = frozenset({"header"})


def records_of(metadatas: Iterable[Mapping[str, Any] | None]) -> list[SampleRecord]:
    """The records kept in sample scores' metadata, in sample order."""
    out: list[SampleRecord] = []
    for meta in metadatas:
        for rec in (meta or {}).get(RECORDS_KEY, []):
            out.append(SampleRecord.from_json(rec))
    return out


def flatten_numbers(data: object, prefix: str = "") -> dict[str, float]:
    """Every number in ``data`` (a ``metrics.json`` object) under its slash-joined path;
    booleans, strings and nulls are left out, as are lists (per-item detail) and the human
    baselines (``human:...`` entries: the dataset's, the same for every model)."""
    out: dict[str, float] = {}
    if isinstance(data, Mapping):
        for key, value in data.items():
            if (not prefix and key in SKIPPED) or str(key).startswith("human:"):
                continue
            out.update(flatten_numbers(value, f"{prefix}/{key}" if prefix else str(key)))
    elif isinstance(data, (int, float)) and not isinstance(data, bool):
        out[prefix] = float(data)
    return out


def benchmark_metrics(
    prepared: PreparedEval, records: Sequence[SampleRecord], protocols: Sequence[str] = PROTOCOL_NAMES
) -> dict[str, float]:
    """``prepared``'s benchmark's ``score`` of ``records`` under each of ``protocols``, as
    ``PROTOCOL/PATH`` -> number (see the module docstring)."""
    out: dict[str, float] = {}
    for protocol in protocols:
        result = prepared.benchmark.score(prepared.dataset, records, protocol).to_json()
        out.update({f"{protocol}/{k}": v for k, v in flatten_numbers(result).items()})
    return out
