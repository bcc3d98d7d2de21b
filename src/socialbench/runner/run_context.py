"""The solvers' view of one run: the :class:`~socialbench.solving.context.SolveContext` that
sends through the run's engine in the feeder's order, records into the run folder, and
prepares CPU-bound work and images off the event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from socialbench.benchmarks.options import BenchmarkOptions
from socialbench.runner.engine import Engine
from socialbench.runner.feeding import ItemFeeder
from socialbench.runner.progress import RunProgress
from socialbench.runner.store import RunStore
from socialbench.solving.context import SolveContext
from socialbench.types import EncodedImage, GenerationConfig, Item, Outcome, Request, SampleRecord
from socialbench.vision.images import ImageEncoder
from socialbench.vision.prepare import ImageJob, ImagePreparer, PerturbSpec, run_job

T = TypeVar("T")


def solve_context(
    engine: Engine,
    feeder: ItemFeeder[Item],
    store: RunStore,
    done: dict[tuple[str, str], SampleRecord],
    progress: RunProgress,
    executor: ThreadPoolExecutor,
    images: ImagePreparer | None,
    *,
    options: BenchmarkOptions,
    generation: GenerationConfig,
    needs_prompt: bool,
    encoder: ImageEncoder | None,
    perturb: PerturbSpec | None,
    seed: int,
) -> SolveContext[BenchmarkOptions]:
    """The solvers' view of this run: send through ``engine``, each request with its
    item's place in ``feeder``'s order as its priority; record into ``store`` (and
    ``done``, counting progress); prepare CPU-bound work in ``executor`` and images in the
    image workers (or in ``executor`` when there are none)."""

    async def generate(request: Request) -> Outcome:
        if request.item is None:
            return await engine.run(request)
        item_id = str(request.item.item_id)
        feeder.sending(item_id)
        return await engine.run(request, priority=feeder.priority(item_id))

    def record(rec: SampleRecord) -> None:
        store.append(rec)
        done[(rec.item_id, rec.question_key)] = rec
        progress.advance(1)

    def finished(item_id: str, key: str) -> SampleRecord | None:
        rec = done.get((item_id, key))
        return rec if rec is not None and rec.error is None else None  # errors are asked again

    async def prepare(fn: Callable[..., T], *args: object) -> T:
        return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)

    async def prepare_images(job: ImageJob) -> tuple[EncodedImage, ...]:
        if images is not None:
            return await images.prepare(job)
        return await prepare(run_job, job)

    return SolveContext(
        generate=generate,
        record=record,
        finished=finished,
        prepare=prepare,
        prepare_images=prepare_images,
        options=options,
        generation=generation,
        needs_prompt=needs_prompt,
        encoder=encoder,
        perturb=perturb,
        seed=seed,
    )
