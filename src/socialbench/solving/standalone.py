"""A :class:`~socialbench.solving.context.SolveContext` outside the runner: one item solved
with a caller's ``generate``, its records kept in memory (the Inspect AI tasks and
``export inspect`` call the benchmark's own ``solve`` through it). There is no engine, cache
or run store behind it: nothing is resumed and images are prepared in a worker thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from socialbench.solving.context import Generate, SolveContext
from socialbench.types import EncodedImage, GenerationConfig, SampleRecord
from socialbench.vision.images import ImageEncoder
from socialbench.vision.prepare import ImageJob, PerturbSpec, run_job
from socialbench.vision.render_cache import RenderCache

T = TypeVar("T")
Opts = TypeVar("Opts")


def standalone_context(
    generate: Generate,
    records: list[SampleRecord],
    *,
    options: Opts,
    generation: GenerationConfig,
    encoder: ImageEncoder | None,
    perturb: PerturbSpec | None,
    seed: int,
    needs_prompt: bool = True,
    render_cache: RenderCache | None = None,
) -> SolveContext[Opts]:
    """A context whose requests go to ``generate`` and whose records are appended to
    ``records`` (in the order the solver records them); ``needs_prompt`` as the model's
    (:attr:`socialbench.models.base.Model.needs_prompt`: False builds no images); images are
    read from and stored in ``render_cache`` when given (the one ``socialbench eval`` uses)."""

    def finished(item_id: str, key: str) -> SampleRecord | None:
        return None  # nothing was answered before: every question is asked

    async def prepare(fn: Callable[..., T], *args: object) -> T:
        return await asyncio.to_thread(fn, *args)

    async def prepare_images(job: ImageJob) -> tuple[EncodedImage, ...]:
        return await asyncio.to_thread(run_job, job, render_cache)

    return SolveContext(
        generate=generate,
        record=records.append,
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
