"""What a benchmark provides to the runner, and the registry of benchmarks.

A benchmark loads items, turns the options of an eval into its options dataclass
(:mod:`socialbench.benchmarks.options`), answers one item through a solver
(:mod:`socialbench.solving`: it builds requests and parses replies, the runner sends and
stores), validates data, and scores records with pure metric functions.

Adding a benchmark is one package under :mod:`socialbench.benchmarks` (or any module named
by a ``socialbench.benchmarks`` entry point) that calls :func:`register_benchmark` when
imported, naming its options dataclass and, as ``module:attribute``, its factory: the
command line reads the options without importing the benchmark's (heavier) code.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from socialbench.benchmarks.options import EvalOptions, option_fields, parse_options
from socialbench.errors import Problem, UsageError
from socialbench.metrics.json_result import JsonResult
from socialbench.metrics.results import ScoringHeader
from socialbench.records import read_samples
from socialbench.types import GenerationConfig, Item, SampleRecord

if TYPE_CHECKING:  # the registry stays light (no numpy): `socialbench eval --help` imports it
    from socialbench.metrics.protocols import ProtocolArg
    from socialbench.models.base import Model
    from socialbench.solving.context import SolveContext
    from socialbench.vision.images import ImagePolicy

OptionsT = TypeVar("OptionsT")

#: The entry-point group of benchmarks installed by other packages: each entry point names a
#: module that registers its benchmark(s) when imported.
ENTRY_POINT_GROUP = "socialbench.benchmarks"


class Dataset(Protocol):
    @property
    def root(self) -> Path: ...

    @property
    def items(self) -> tuple[Item, ...]: ...


class Benchmark(Protocol):
    name: str
    snapshot_types: tuple[type, ...]

    def load(self, data: Path, *, require_images: bool, limit: int | None) -> Dataset: ...

    def load_identity(self) -> dict[str, Any]: ...

    def validate(self, data: Path) -> list[Problem]: ...

    def fingerprint(self, data: Path) -> str: ...

    def check_options(self, options: EvalOptions) -> Any: ...

    def check_run(self, dataset: Dataset, model: Model, options: EvalOptions) -> None: ...

    def generation_config(self, options: Any, seed: int) -> GenerationConfig: ...

    def image_policy(self, options: Any) -> ImagePolicy: ...

    def question_order(self, dataset: Dataset) -> list[tuple[str, str]]: ...

    async def solve(self, item: Item, dataset: Dataset, ctx: SolveContext[Any]) -> None: ...

    def score(self, dataset: Dataset, records: Sequence[SampleRecord], protocol: ProtocolArg) -> JsonResult: ...

    def read_predictions(self, path: Path) -> list[SampleRecord]: ...

    def predictions_options(self, path: Path, records: Sequence[SampleRecord], options: EvalOptions) -> EvalOptions: ...


class BaseBenchmark(Generic[OptionsT]):
    """What most benchmarks share: options parsed into :attr:`options_type`, JSON replies
    at temperature 0, every question of every item in dataset order, predictions read from
    a ``samples.jsonl`` or a run directory. Subclasses set :attr:`name` and
    :attr:`options_type` and add their own checks in :meth:`check`."""

    name: str
    options_type: type[OptionsT]
    #: Every type the loaded dataset's objects are made of (besides plain containers,
    #: numbers, strings and paths): what :mod:`socialbench.runner.load_snapshot` may
    #: unpickle from a snapshot. Empty: the dataset is loaded anew by every run.
    snapshot_types: tuple[type, ...] = ()

    def load_identity(self) -> dict[str, Any]:
        """The settings (JSON-serialisable) besides the data folder, ``require_images`` and
        ``limit`` that :meth:`load` depends on: part of a dataset snapshot's key. None by
        default."""
        return {}

    def check_options(self, options: EvalOptions) -> OptionsT:
        """The benchmark's options from an eval's (see :func:`options_of`), checked."""
        typed = options_of(self.name, self.options_type, options)
        self.check(typed, options)
        return typed

    def check(self, options: OptionsT, run: EvalOptions) -> None:
        """Refuse combinations of options that do not work together (none by default)."""

    def check_run(self, dataset: Any, model: Model, options: EvalOptions) -> None:
        """Refuse, before any request or file of the run, a run of ``model`` on the loaded
        ``dataset`` that could not measure what the benchmark claims (a
        :class:`~socialbench.errors.UsageError` naming the reason and the fix); the options
        were checked by :meth:`check_options` first. Nothing by default."""

    def max_tokens(self, options: OptionsT) -> int | None:
        """The paper's reply token limit (None: none is sent). 1024 by default."""
        return 1024

    def temperature(self, options: OptionsT) -> float | None:
        """The paper's sampling temperature (None: none is sent, the provider's default
        applies). 0 (greedy) by default."""
        return 0.0

    def max_images_per_request(self, options: OptionsT) -> int | None:
        """The most images one request of a run with ``options`` carries, or None when the
        benchmark does not say. In-process backends size their per-prompt image limit from
        it (``vllm:``'s ``limit_mm_per_prompt``), so that no request is refused for its
        image count."""
        return None

    def image_policy(self, options: OptionsT) -> ImagePolicy:
        """How the paper's code prepares the images it sends, the run's policy unless
        ``--image-size`` says otherwise: longest side 768 px, aspect kept, JPEG quality 90 by
        default (RobotEQ's setting)."""
        from socialbench.vision.images import ImagePolicy

        return ImagePolicy()

    def generation_config(self, options: OptionsT, seed: int) -> GenerationConfig:
        """The paper's settings: :meth:`temperature`, :meth:`max_tokens`, JSON replies (the
        eval flags ``--temperature``, ... change them afterwards, see
        :mod:`socialbench.benchmarks.generation`)."""
        return GenerationConfig(
            max_tokens=self.max_tokens(options), temperature=self.temperature(options), json_mode=True, seed=seed
        )

    def question_order(self, dataset: Dataset) -> list[tuple[str, str]]:
        return question_order(dataset)

    def estimate_requests(self, dataset: Dataset, options: OptionsT, *, model_reads_prompt: bool) -> int:
        """Model requests of a run at most (cached answers cost none, retries add): one per
        question by default."""
        return len(self.question_order(dataset))

    def read_predictions(self, path: Path) -> list[SampleRecord]:
        """The records of a ``samples.jsonl`` file or of a run directory's."""
        refuse_folder_named_as_file(path)
        if path.is_dir():
            path = path / "samples.jsonl"
        if not path.exists():
            raise UsageError(f"predictions {path} do not exist; give a samples.jsonl or a run directory")
        return read_samples(path)

    def predictions_options(self, path: Path, records: Sequence[SampleRecord], options: EvalOptions) -> EvalOptions:
        """The eval options ``socialbench score`` checks before loading the dataset for the
        predictions at ``path`` (``records``, as :meth:`read_predictions` read them):
        ``options`` unchanged by default. A benchmark whose dataset depends on how the
        predictions were made (SocialNav-SUB's metamorphic variants) takes that from the run."""
        return options


def refuse_folder_named_as_file(path: Path) -> None:
    """A ``--predictions`` path named like a file (``.../samples.jsonl``) that is a folder is
    refused in words that say so (read as a run directory, it names a file that is not there)."""
    if path.suffix == ".jsonl" and path.is_dir():
        raise UsageError(
            f"--predictions {path} is a folder, not a samples.jsonl file; "
            f"give the run directory that holds samples.jsonl, or the file itself"
        )


def question_order(dataset: Dataset) -> list[tuple[str, str]]:
    """Every (item id, question key) of a dataset, items in order, questions in item order."""
    return [(item.item_id, q.key) for item in dataset.items for q in item.questions]


def scoring_summary(
    name: str,
    protocol: ProtocolArg,
    dataset: Dataset,
    by_key: Mapping[tuple[str, str], SampleRecord],
    n_scored: int,
) -> ScoringHeader:
    """The counts every ``metrics.json`` starts with: how many questions were scored, how
    many have no prediction, and how many predictions name no question of the dataset."""
    known = set(question_order(dataset))
    return ScoringHeader(
        benchmark=name,
        protocol=protocol if isinstance(protocol, str) else protocol.name,
        n_scored=n_scored,
        n_missing=sum(1 for k in known if k not in by_key),
        n_unknown_predictions=sum(1 for k in by_key if k not in known),
        note=None if n_scored else _nothing_scored_note(by_key),
    )


def _nothing_scored_note(by_key: Mapping[tuple[str, str], SampleRecord]) -> str:
    """Why nothing was scored: no answer recorded at all (a run stopped before its first
    answer), or answers that name none of the dataset's questions (a data mismatch)."""
    if not by_key:
        return "no answers were recorded (the run stopped before its first answer): nothing could be scored"
    return "no predictions matched the dataset: nothing could be scored"


# registry --------------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchmarkEntry:
    """A registered benchmark: its name, a title for messages (``SocialNav-SUB``), its
    options dataclass and its factory (a callable, or ``module:attribute`` imported when
    the benchmark is first made)."""

    name: str
    title: str
    options: type[Any]
    factory: Callable[[], Benchmark] | str

    def make(self) -> Benchmark:
        factory = self.factory
        if isinstance(factory, str):
            module, _, attr = factory.partition(":")
            factory = getattr(importlib.import_module(module), attr)
        assert callable(factory)
        return factory()


_BENCHMARKS: dict[str, BenchmarkEntry] = {}
_ALIASES: dict[str, tuple[str, Callable[[], Path]]] = {}
_LOADED = False


def register_benchmark(
    name: str, *, options: type[Any], factory: Callable[[], Benchmark] | str, title: str | None = None
) -> None:
    """Register benchmark ``name`` (``-b NAME``): its options dataclass and its factory."""
    option_fields(options)  # every field declared with option(...)
    _BENCHMARKS[name] = BenchmarkEntry(name, title or name, options, factory)


def register_alias(alias: str, benchmark: str, default_data: Callable[[], Path]) -> None:
    """``alias`` runs ``benchmark`` on bundled data (e.g. ``socialnav-sim``)."""
    _ALIASES[alias] = (benchmark, default_data)


def _load_all() -> None:
    """Import every benchmark package under :mod:`socialbench.benchmarks` and every module
    named by a :data:`ENTRY_POINT_GROUP` entry point (each registers itself)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import socialbench.benchmarks as pkg

    for mod in pkgutil.iter_modules(pkg.__path__):
        if mod.ispkg:
            importlib.import_module(f"socialbench.benchmarks.{mod.name}")
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        importlib.import_module(ep.value.partition(":")[0])


def benchmark_entries() -> list[BenchmarkEntry]:
    """Every registered benchmark (aliases not repeated), by name."""
    _load_all()
    return [_BENCHMARKS[n] for n in sorted(_BENCHMARKS)]


def load_benchmark_code() -> None:
    """Import every registered benchmark's code (its factory's module), not only its options:
    what registers the baselines a benchmark brings (``socialbench models`` lists them)."""
    for entry in benchmark_entries():
        if isinstance(entry.factory, str):
            importlib.import_module(entry.factory.partition(":")[0])


def benchmark_names() -> list[str]:
    _load_all()
    return sorted(set(_BENCHMARKS) | set(_ALIASES))


def benchmark_entry(name: str) -> BenchmarkEntry:
    """The registered benchmark ``name`` (an alias gives the benchmark it runs)."""
    _load_all()
    real = _ALIASES[name][0] if name in _ALIASES else name
    if real not in _BENCHMARKS:
        raise UsageError(f"unknown benchmark {name!r}; known: {', '.join(benchmark_names())}")
    return _BENCHMARKS[real]


def get_benchmark(name: str) -> tuple[Benchmark, Path | None]:
    """The benchmark and, for an alias, its bundled data folder."""
    entry = benchmark_entry(name)
    if name in _ALIASES:
        return entry.make(), _ALIASES[name][1]()
    return entry.make(), None


def names_of(entry: BenchmarkEntry) -> list[str]:
    """``-b`` names that run ``entry``: its name and its aliases."""
    return [entry.name] + sorted(a for a, (real, _) in _ALIASES.items() if real == entry.name)


def option_owners(name: str) -> str:
    """Which benchmarks take option ``name``, as the end of a refusal: ``is a RobotEQ
    option: it applies to roboteq-bj only``."""
    owners = [e for e in benchmark_entries() if any(f.name == name for f in option_fields(e.options))]
    if not owners:
        return "is not an option of any benchmark"
    titles = " and ".join(dict.fromkeys(e.title for e in owners))
    names = ", ".join(n for e in owners for n in names_of(e))
    return f"is a {titles} option: it applies to {names} only"


def options_of(benchmark: str, cls: type[OptionsT], options: EvalOptions) -> OptionsT:
    """Benchmark ``benchmark``'s options dataclass ``cls`` from the options of an eval."""
    return parse_options(cls, options.given, benchmark, option_owners)
