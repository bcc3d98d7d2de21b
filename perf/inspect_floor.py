"""What Inspect itself costs for ``socialbench/socialnav_sub``'s requests: an Inspect task file
for ``perf/inspect_speed.py`` (``inspect eval perf/inspect_floor.py``), not a benchmark.

``floor`` sends, through Inspect's model, exactly the requests ``socialbench/socialnav_sub``
sends (built by the same benchmark ``solve`` and ``request_messages``, one sample per item, the
questions of a sample concurrently), and nothing else: no records, no sample messages, a
constant score instead of the papers' metrics. The gap between ``inspect eval
socialbench/socialnav_sub`` and this task is what socialbench's task adds; the gap between this
task and ``socialbench eval`` is Inspect's own start-up and per-request work. ``-T questions=1
-T limit=1`` is Inspect's start-up with one request. ``method=independent`` only (its requests do
not depend on the replies, so they are built before any is sent).
"""

from __future__ import annotations

import asyncio
import dataclasses

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from socialbench.benchmarks.prepared import PreparedEval, prepare_eval
from socialbench.export.inspect_format import request_messages
from socialbench.types import Outcome, Request
from socialbench.vision.render_cache import RenderCache, default_render_cache_dir


async def requests_of(prepared: PreparedEval, item_id: str) -> list[Request]:
    """The requests the benchmark's ``solve`` makes for the item (under ``independent`` they
    do not depend on the replies, so each is answered with an empty reply)."""
    (item,) = (i for i in prepared.dataset.items if str(i.item_id) == item_id)
    made: list[Request] = []

    async def keep(request: Request) -> Outcome:
        made.append(request)
        return Outcome("", None)

    await prepared.solve(item, keep)
    return made


def prepared_sim(limit: int | None) -> PreparedEval:
    """``socialbench/socialnav_sub``'s eval (bundled scenes, ``method=independent``), with
    socialbench eval's render cache as the task uses it."""
    prepared = prepare_eval("socialnav-sim", None, {"method": "independent"}, limit=limit)
    return dataclasses.replace(prepared, render_cache=RenderCache(default_render_cache_dir()))


@solver
def send_only(limit: int | None, questions: int | None) -> Solver:
    prepared = prepared_sim(limit)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        requests = (await requests_of(prepared, str(state.sample_id)))[:questions]
        model = get_model()
        await asyncio.gather(*(model.generate(request_messages(r)) for r in requests))
        return state

    return solve


@scorer(metrics=[mean()])
def nothing() -> object:
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=0)

    return score


@task
def floor(limit: int | None = None, questions: int | None = None) -> Task:
    """One sample per item of the bundled scenes (``limit`` items), each sending its first
    ``questions`` requests (default all), with the task's generation settings."""
    prepared = prepared_sim(limit)
    gen = prepared.generation
    return Task(
        dataset=MemoryDataset([Sample(id=item.item_id, input=item.item_id) for item in prepared.dataset.items]),
        solver=send_only(limit, questions),
        scorer=nothing(),
        config=GenerateConfig(temperature=gen.temperature, max_tokens=gen.max_tokens, top_p=gen.top_p),
    )
