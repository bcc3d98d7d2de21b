"""One run directory as the report reads it (:class:`RunDir`): its ``run.json`` and
``metrics.json``, its samples (read on first use), its benchmark options and the settings
that set it apart from other runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.benchmarks.options import OptionField
from socialbench.errors import DataError, UsageError
from socialbench.types import SampleRecord

SOCIALNAV_NAMES = ("socialnav-sub", "socialnav-sim")
ROBOTEQ_NAMES = ("roboteq-bj", "roboteq-sg")

#: Model-spec prefixes of reference rows (tables put them under "Baseline", not "VLM").
BASELINE_PREFIXES = ("baseline:", "human:", "mock:", "replay:human")


@dataclass
class RunDir:
    """One run directory: its ``run.json``, ``metrics.json`` and (lazily) its samples."""

    path: Path
    run: Mapping[str, Any]
    metrics: Mapping[str, Any]
    label: str = ""
    _samples: list[SampleRecord] | None = field(default=None, repr=False)

    @property
    def benchmark(self) -> str:
        """The benchmark the run was made as: ``run.json``'s (``socialnav-sim`` for a run on
        the bundled scenes), else ``metrics.json``'s (which names the benchmark that scored
        it, ``socialnav-sub`` for both)."""
        return str(self.run.get("benchmark") or self.metrics.get("benchmark") or "")

    @property
    def model(self) -> str:
        return str(self.run.get("model") or self.metrics.get("model") or self.path.name)

    @property
    def protocol(self) -> str:
        return str(self.metrics.get("protocol") or self.run.get("protocol") or "paper")

    @property
    def is_baseline(self) -> bool:
        return self.model.startswith(BASELINE_PREFIXES)

    @property
    def perturbation(self) -> tuple[str, float] | None:
        p = self.run.get("perturb")
        if isinstance(p, Mapping) and p.get("name"):
            return str(p["name"]), float(p.get("strength", 1.0))
        return None

    @property
    def strategy(self) -> str:
        return str(self.run.get("strategy") or "standard")

    def options_type(self) -> type | None:
        """The options dataclass of the run's benchmark (None for a benchmark not registered
        here)."""
        from socialbench.benchmarks.base import benchmark_entry

        try:
            return benchmark_entry(self.benchmark).options if self.benchmark else None
        except UsageError:
            return None

    def _settings(self) -> list[tuple[OptionField, object]]:
        """(option field, value) of each benchmark option that sets this run apart: recorded
        in run.json, not at its default, and in effect."""
        from socialbench.benchmarks.options import distinguishing, recorded_options

        cls = self.options_type()
        return [] if cls is None else distinguishing(cls, recorded_options(cls, self.run))

    def options(self) -> dict[str, object]:
        """Non-default benchmark options of run.json ``options`` (details such as the RAG
        backend), sorted by name; an option that matters only under another option's value
        counts only then. For a benchmark not registered here: every recorded one."""
        if self.options_type() is None:
            opts = self.run.get("options")
            opts = opts if isinstance(opts, Mapping) else {}
            return {str(k): opts[k] for k in sorted(opts, key=str) if opts[k] is not None}
        return {f.name: value for f, value in sorted(self._settings(), key=lambda fv: fv[0].name) if f.info.detail}

    def options_key(self, *, rag: bool = True) -> tuple[tuple[str, str], ...]:
        """The non-default options as a hashable key, for pairing runs that must share every
        other setting; without ``rag``, leaving out the options that matter only under another
        option's value (RobotEQ's retrieval settings, under ``--strategy rag``)."""
        keep = {f.name for f, _ in self._settings() if rag or f.info.when is None}
        return tuple((k, str(v)) for k, v in self.options().items() if k in keep or self.options_type() is None)

    def variant(self) -> str:
        """Non-default settings, e.g. ``cot, img``, ``rag, dense, k=4`` or ``rag, blur1``
        ('' for defaults): the benchmark's options in its order, then the perturbation."""
        if self.options_type() is None:
            parts = [f"{k}={v}" for k, v in self.options().items()]
        else:
            parts = [f.info.label.format(value=value, name=f.name) for f, value in self._settings()]
        pert = self.perturbation
        if pert:
            parts.append(f"{pert[0]}{pert[1]:g}")
        return ", ".join(parts)

    def samples(self) -> list[SampleRecord]:
        """The records of ``samples.jsonl`` (latest per question), else of the predictions
        that ``socialbench score`` recorded in ``metrics.json``; [] when there are none."""
        if self._samples is None:
            from socialbench.records import read_samples

            latest: dict[tuple[str, str], SampleRecord] = {}
            own = self.path / "samples.jsonl"
            # anything at samples.jsonl is read (a FIFO there is refused, not taken for none)
            records = read_samples(own) if own.exists() or own.is_symlink() else self._scored_predictions()
            for r in records:
                latest[(r.item_id, r.question_key)] = r
            self._samples = list(latest.values())
        return self._samples

    def _scored_predictions(self) -> list[SampleRecord]:
        """The predictions a ``socialbench score`` output was computed from (its
        ``metrics.json`` ``source.predictions``), read as the benchmark reads them."""
        source = self.metrics.get("source")
        pred = source.get("predictions") if isinstance(source, Mapping) else None
        if not isinstance(pred, str) or not pred or not self.benchmark:
            return []
        path = Path(pred)
        if not path.exists():
            raise DataError.single(
                self.path / "metrics.json",
                "source.predictions",
                f"the scored predictions {pred} are gone",
                "score them again with `socialbench score --out` here",
            )
        from socialbench.benchmarks.base import get_benchmark

        bench, _ = get_benchmark(self.benchmark)
        return list(bench.read_predictions(path))

    def seconds_per_query(self) -> float | None:
        """Mean model latency over answered, non-cached questions (None when unknown)."""
        lat = [r.latency_s for r in self.samples() if r.error is None and not r.cached and r.latency_s > 0]
        if lat:
            return float(np.mean(lat))
        wall = (self.metrics.get("run") or {}).get("wall_time_s")
        n = (self.metrics.get("run") or {}).get("answered")
        return float(wall) / float(n) if wall and n else None


def benchmark_family(run: RunDir) -> str:
    """ "socialnav", "roboteq", or the run's own benchmark name."""
    return (
        "socialnav"
        if run.benchmark in SOCIALNAV_NAMES
        else "roboteq"
        if run.benchmark in ROBOTEQ_NAMES
        else run.benchmark
    )
