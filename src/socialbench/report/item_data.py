"""Item-level data of the runs of a report: the labels (dataset) and the scoring entries of
each run, loaded once per data folder (:class:`ItemData`), and the scene attributes worth a
failure breakdown (:func:`auto_attributes`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from socialbench.errors import SocialbenchError
from socialbench.metrics.agreement import ScoringEntry
from socialbench.prompting.metamorphic import split_variant
from socialbench.report.run_dataset import data_path, dataset_options, load_dataset, scoring_entries
from socialbench.report.run_dir import RunDir
from socialbench.types import Item

__all__ = ["ItemData", "auto_attributes", "protocol_of", "MAX_FACET_VALUES"]

#: Attributes with more distinct values than this are not used as facets automatically.
MAX_FACET_VALUES = 12


class ItemData:
    """Labels and scoring entries of the runs, loaded once per data folder."""

    def __init__(self, runs: Sequence[RunDir], data: Path | None):
        self.runs = runs
        self.notes: list[str] = []
        self.datasets: dict[int, Any] = {}
        self.entries: dict[int, list[Any]] = {}
        cache: dict[tuple[str, Any, str, tuple[str | None, int] | None], Any] = {}
        for i, r in enumerate(runs):
            try:
                samples = r.samples()
                if not samples:
                    self.notes.append(f"{r.label}: no samples.jsonl; item-level analyses skip this run")
                    continue
                options = dataset_options(r)
                variant = None if options is None else (options.perturb, options.seed)
                key = (str(data_path(r, data)), r.run.get("limit"), r.benchmark, variant)
                if key not in cache:
                    cache[key] = load_dataset(r, data, options)
                ds = cache[key]
                self.datasets[i] = ds
                self.entries[i] = _scored_half(scoring_entries(ds, samples))
            except (SocialbenchError, OSError, ValueError) as exc:  # say what is missing, keep the rest
                self.notes.append(f"{r.label}: labels not loaded ({exc}); item-level analyses skip this run")

    def subset(self, keep: Sequence[int]) -> ItemData:
        """The item data of the runs at ``keep`` (in that order, renumbered from 0), sharing
        the labels already loaded; the notes stay with ``self``."""
        out = ItemData([], None)
        out.runs = [self.runs[i] for i in keep]
        out.datasets = {j: self.datasets[i] for j, i in enumerate(keep) if i in self.datasets}
        out.entries = {j: self.entries[i] for j, i in enumerate(keep) if i in self.entries}
        return out

    @property
    def indices(self) -> list[int]:
        return sorted(self.entries)

    def items(self) -> dict[str, Item]:
        out: dict[str, Item] = {}
        for ds in self.datasets.values():
            for it in ds.items:
                out.setdefault(it.item_id, it)
        return out


def _scored_half(entries: list[ScoringEntry]) -> list[ScoringEntry]:
    """The entries a run's ``scores`` cover: a metamorphic run's variants (``K@name``, which
    pair with question ``K`` of other runs), else all of them. Its unperturbed answers are
    its ``clean_scores``, never mixed with the variants."""
    varied = [e for e in entries if split_variant(e.question.key)[1] is not None]
    return varied or entries


def auto_attributes(items: Sequence[Item]) -> list[str]:
    """Scene attributes worth a failure breakdown: metadata fields outside the loader's own
    keys with scalar values and at most :data:`MAX_FACET_VALUES` distinct values."""
    try:
        from socialbench.benchmarks.socialnav_sub.layout import RESERVED_METADATA_KEYS
    except ImportError:  # pragma: no cover - the package always has it
        RESERVED_METADATA_KEYS = frozenset()
    skip = set(RESERVED_METADATA_KEYS) | {
        "image",
        "image_rel",
        "role",
        "question",
        "source",
        "line",
        "behaviors",
        "answer",
        "options",
        "facets",
        "has_votes",
        "task",
    }
    values: dict[str, set[Any]] = {}
    bad: set[str] = set()
    for it in items:
        for k, v in it.metadata.items():
            if k in skip:
                continue
            if isinstance(v, (bool, str, int)) and not isinstance(v, float):
                values.setdefault(k, set()).add(v)
            else:
                bad.add(k)
    return sorted(k for k, vs in values.items() if k not in bad and 1 <= len(vs) <= MAX_FACET_VALUES)


def protocol_of(runs: Sequence[RunDir]) -> str:
    """The scoring protocol of a report's runs (``paper`` without runs)."""
    return runs[0].protocol if runs else "paper"
