"""What a solver may do while a run is going: the runner's services, as typed callables.

A benchmark's ``solve(item, dataset, ctx)`` sends requests with :attr:`SolveContext.generate`,
keeps each answer with :attr:`SolveContext.record` and skips what
:attr:`SolveContext.finished` returns. The runner (:mod:`socialbench.runner.run`) builds the
context; a benchmark never sees the engine, the cache or the run store behind it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from socialbench.types import EncodedImage, GenerationConfig, Outcome, Request, SampleRecord
from socialbench.vision.images import ImageEncoder
from socialbench.vision.prepare import ImageJob, PerturbSpec

T = TypeVar("T")
O_co = TypeVar("O_co", covariant=True)


class Generate(Protocol):
    """Send one request to the model (with retries, cache and concurrency limits); never
    raises for a model failure: the :class:`~socialbench.types.Outcome` carries it."""

    def __call__(self, request: Request, /) -> Awaitable[Outcome]: ...


class Record(Protocol):
    """Keep one answer (appended to the run's samples at once)."""

    def __call__(self, record: SampleRecord, /) -> None: ...


class Finished(Protocol):
    """The stored record of (item id, question key) if it was answered in an earlier
    session without an error; None when it still has to be asked."""

    def __call__(self, item_id: str, key: str, /) -> SampleRecord | None: ...


class Prepare(Protocol):
    """Run ``fn(*args)`` off the event loop (CPU-bound preparation such as encoding)."""

    def __call__(self, fn: Callable[..., T], /, *args: object) -> Awaitable[T]: ...


class PrepareImages(Protocol):
    """The images of an image job, from the image workers and the render cache."""

    def __call__(self, job: ImageJob, /) -> Awaitable[tuple[EncodedImage, ...]]: ...


@dataclass(frozen=True)
class SolveContext(Generic[O_co]):
    """Everything a solver needs while a run is going; ``options`` are the benchmark's own
    (its options dataclass), the rest is the run's."""

    generate: Generate
    record: Record
    finished: Finished
    prepare: Prepare
    prepare_images: PrepareImages
    options: O_co
    generation: GenerationConfig
    #: False for models that answer from the item itself (baselines): no prompt, no images.
    needs_prompt: bool
    #: Encodes images under the run's image policy; None when the model reads no prompt.
    encoder: ImageEncoder | None = None
    #: The run's image perturbation, as a picklable spec for image jobs.
    perturb: PerturbSpec | None = None
    #: The run's seed.
    seed: int = 0
