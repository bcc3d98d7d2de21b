"""What a benchmark provides to the runner, and the per-run context its solvers use.

A benchmark loads items, answers one item through a strategy (an async solver that sends
requests through the engine and appends records to the store), validates data, and scores
records. Benchmarks register themselves with :func:`register_benchmark`; adding one is a new
module under :mod:`socialbench.benchmarks` and nothing else.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from concurrent.futures import Executor
from typing import Any, Callable, Mapping, Protocol, Sequence, TypeVar

from socialbench.errors import Problem, UsageError
from socialbench.models.base import Model
from socialbench.runner.engine import Engine
from socialbench.runner.store import RunStore
from socialbench.types import EncodedImage, GenerationConfig, Item, SampleRecord
from socialbench.vision.images import ImageEncoder
from socialbench.vision.prepare import ImageJob, ImagePreparer, PerturbSpec

T = TypeVar("T")


@dataclass(frozen=True)
class EvalOptions:
    """Options of ``socialbench eval`` that a benchmark interprets."""

    method: str = "independent"
    images: str = "img-with-bev"
    protocol: str = "paper"
    limit: int | None = None
    seed: int = 0
    strategy: str = "standard"  # RobotEQ: standard | cot | no-image | rag
    per_behavior: bool = False  # RobotEQ behavior judgment: one request per behavior
    perturb: str | None = None  # image perturbation name (see socialbench.vision.perturb)
    perturb_strength: float = 1.0
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class SolveContext:
    """Everything a solver needs while a run is going."""

    model: Model
    engine: Engine
    store: RunStore
    done: dict[tuple[str, str], SampleRecord]
    encoder: ImageEncoder | None
    generation: GenerationConfig
    options: EvalOptions
    advance: Callable[[int], None] = lambda n: None
    #: Where other CPU-bound preparation runs (:meth:`prepare`): one thread, so it does not
    #: compete with the event loop for the GIL in several threads at once.
    executor: Executor | None = None
    #: Prepares images on every core behind the render cache (:meth:`prepare_images`).
    preparer: ImagePreparer | None = None
    #: The run's image perturbation, as a picklable spec for image jobs.
    perturb: PerturbSpec | None = None

    async def prepare(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` off the event loop, in :attr:`executor`."""
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)

    async def prepare_images(self, job: ImageJob) -> tuple[EncodedImage, ...]:
        """The images of ``job`` (see :mod:`socialbench.vision.prepare`), from the worker
        processes and render cache, or in-process in a thread when the run has none."""
        if self.preparer is not None:
            return await self.preparer.prepare(job)
        from socialbench.vision.prepare import run_job

        return await self.prepare(run_job, job)

    def record(self, rec: SampleRecord) -> None:
        self.store.append(rec)
        self.done[(rec.item_id, rec.question_key)] = rec
        self.advance(1)

    def finished(self, item_id: str, key: str) -> SampleRecord | None:
        """The stored record if this question was already answered (errors are retried)."""
        rec = self.done.get((item_id, key))
        return rec if rec is not None and rec.error is None else None


class Dataset(Protocol):
    root: Path
    items: tuple[Item, ...]


class Benchmark(Protocol):
    name: str

    def load(self, data: Path, *, require_images: bool, limit: int | None) -> Dataset: ...

    def validate(self, data: Path) -> list[Problem]: ...

    def fingerprint(self, data: Path) -> str: ...

    def generation_config(self, options: EvalOptions) -> GenerationConfig: ...

    def check_options(self, options: EvalOptions) -> None: ...

    def question_order(self, dataset: Dataset) -> list[tuple[str, str]]: ...

    async def solve(self, item: Item, dataset: Dataset, ctx: SolveContext) -> None: ...

    def score(self, dataset: Dataset, records: Sequence[SampleRecord], protocol: str) -> dict[str, Any]: ...

    def read_predictions(self, path: Path) -> list[SampleRecord]: ...


def question_order(dataset: Dataset) -> list[tuple[str, str]]:
    """Every (item id, question key) of a dataset, items in order, questions in item order."""
    return [(item.item_id, q.key) for item in dataset.items for q in item.questions]


def scoring_summary(
    name: str, protocol: str, dataset: Dataset, by_key: Mapping[tuple[str, str], SampleRecord], n_scored: int
) -> dict[str, Any]:
    """The counts every ``metrics.json`` starts with: how many questions were scored, how
    many have no prediction, and how many predictions name no question of the dataset."""
    known = set(question_order(dataset))
    out: dict[str, Any] = {
        "benchmark": name,
        "protocol": protocol,
        "n_scored": n_scored,
        "n_missing": sum(1 for k in known if k not in by_key),
        "n_unknown_predictions": sum(1 for k in by_key if k not in known),
    }
    if not n_scored:
        out["note"] = "no predictions matched the dataset: nothing could be scored"
    return out


_BENCHMARKS: dict[str, Callable[[], Benchmark]] = {}
_ALIASES: dict[str, tuple[str, Callable[[], Path]]] = {}
_LOADED = False


def register_benchmark(name: str) -> Callable[[Callable[[], Benchmark]], Callable[[], Benchmark]]:
    def deco(factory: Callable[[], Benchmark]) -> Callable[[], Benchmark]:
        _BENCHMARKS[name] = factory
        return factory

    return deco


def register_alias(alias: str, benchmark: str, default_data: Callable[[], Path]) -> None:
    """``alias`` runs ``benchmark`` on bundled data (e.g. ``socialnav-sim``)."""
    _ALIASES[alias] = (benchmark, default_data)


def _load_all() -> None:
    global _LOADED
    if _LOADED:
        return
    import socialbench.benchmarks as pkg

    for mod in pkgutil.iter_modules(pkg.__path__):
        if mod.name == "base":
            continue
        # A benchmark is a module, or a package whose ``benchmark`` module registers it.
        name = f"socialbench.benchmarks.{mod.name}" + (".benchmark" if mod.ispkg else "")
        if mod.ispkg and importlib.util.find_spec(name) is None:
            continue  # a helper package (data, shared code) that defines no benchmark
        importlib.import_module(name)
    _LOADED = True


def benchmark_names() -> list[str]:
    _load_all()
    return sorted(set(_BENCHMARKS) | set(_ALIASES))


def get_benchmark(name: str) -> tuple[Benchmark, Path | None]:
    """The benchmark and, for an alias, its bundled data folder."""
    _load_all()
    if name in _ALIASES:
        real, data = _ALIASES[name]
        return _BENCHMARKS[real](), data()
    if name not in _BENCHMARKS:
        raise UsageError(f"unknown benchmark {name!r}; known: {', '.join(benchmark_names())}")
    return _BENCHMARKS[name](), None
