"""The four Inspect AI tasks: ``socialnav_sub``, ``socialnav_waypoint``, ``roboteq_bj`` and
``roboteq_sg``.

Each task argument (``-T name=value``) is the ``socialbench eval`` flag of the same name:
the benchmark's own options (``method``, ``images``, ``context``, ``strategy``, ...), the
shared run options that change what is asked (``seed``, ``perturb``, ``perturb_strength``,
``image_size`` (as eval's ``--image-size``; default the benchmark's policy), ``max_side``, ``images_first``) and ``limit``. One Inspect sample is one item; its solver
runs the benchmark's ``solve`` (which builds every prompt and image, and feeds earlier
answers forward under ``method=cot``) with each request sent to Inspect's model, and appends
each request and reply to the sample's messages. Its scorer keeps the item's records; the
metrics are the benchmark's own ``score`` of all of them
(:mod:`socialbench.export.inspect_format`).
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspect_ai import Epochs, Task, task
from inspect_ai._util.error import PrerequisiteError  # what Inspect's CLI prints as one line, no traceback
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig, ModelOutput, get_model
from inspect_ai.scorer import Metric, SampleScore, Score, ScoreReducer, Target, metric, score_reducer, scorer
from inspect_ai.solver import Generate as InspectGenerate
from inspect_ai.solver import Solver, TaskState, solver

from socialbench.benchmarks.prepared import PreparedEval, prepare_eval
from socialbench.errors import UsageError
from socialbench.export.inspect_format import (
    EPOCHS_KEY,
    RECORDS_KEY,
    epoch_metrics,
    epochs_of,
    item_agreement,
    item_targets,
    request_messages,
    restricted_to,
)
from socialbench.runner.prepare import requested_image_policy
from socialbench.types import Item, Outcome, Request, SampleRecord, Usage
from socialbench.vision.render_cache import RenderCache, default_render_cache_dir

#: The prepared evals of the tasks made in this process, by key: solvers, scorers and
#: metrics name their eval by this key (a string, which Inspect can log as an argument).
_PREPARED: dict[str, PreparedEval] = {}
#: The error kind a record gets when Inspect's model raised (after Inspect's own retries).
MODEL_ERROR = "inspect_error"


class TaskArgumentError(PrerequisiteError, UsageError):
    """A task argument (``-T name=value``) socialbench refuses: Inspect's command line prints
    a :class:`PrerequisiteError`'s message alone, so the user sees eval's one-line message
    instead of a traceback."""

    def __init__(self, message: str) -> None:
        PrerequisiteError.__init__(self, message)
        UsageError.__init__(self, message)


class EveryQuestionFailed(RuntimeError):
    """Every question of a sample failed: the sample fails (Inspect records it as the
    sample's error) instead of being scored as a sample of wrong answers."""


def make_task(
    benchmark: str,
    data: str | None,
    options: Mapping[str, object],
    *,
    limit: int | None,
    seed: int,
    perturb: str | None,
    perturb_strength: float,
    max_side: int | None,
    images_first: bool,
    image_size: str | None = None,
    task_name: str | None = None,
    render_cache: bool = True,
) -> Task:
    """The Inspect task of ``benchmark`` on ``data`` with its ``options`` (by name); an
    option socialbench refuses is a :class:`TaskArgumentError` naming ``task_name``."""
    task_name = task_name or benchmark.replace("-", "_")
    given = {k: v for k, v in options.items() if v is not None}
    try:
        prepared = prepare_eval(
            benchmark,
            None if data is None else Path(data),
            given,
            limit=limit,
            seed=seed,
            perturb=perturb,
            perturb_strength=perturb_strength,
            image_policy=requested_image_policy(image_size, max_side),  # None: the benchmark's, as eval
        )
    except UsageError as exc:
        raise TaskArgumentError(f"socialbench/{task_name}: {exc}") from None
    if render_cache:  # the prepared images socialbench eval keeps (~/.cache/socialbench/renders)
        prepared = dataclasses.replace(prepared, render_cache=RenderCache(default_render_cache_dir()))
    key = uuid.uuid4().hex
    _PREPARED[key] = prepared
    items = prepared.dataset.items
    samples = [
        Sample(
            id=item.item_id,
            input=f"{prepared.benchmark.name} item {item.item_id}: {len(item.questions)} question(s), "
            "asked one request at a time by socialbench's solver (the requests and replies follow)",
            target=item_targets(item),
            metadata={"item_id": item.item_id, "questions": [q.key for q in item.questions]},
        )
        for item in items
    ]
    gen = prepared.generation
    return Task(
        dataset=MemoryDataset(samples, name=prepared.name),
        solver=answer_item(key, images_first),
        scorer=item_records(key),
        metrics=[papers_metrics(key)],
        epochs=Epochs(1, reducer=keep_epochs()),
        # the paper's settings; Inspect's --temperature, --max-tokens, ... override them
        config=GenerateConfig(temperature=gen.temperature, max_tokens=gen.max_tokens, top_p=gen.top_p),
        metadata={"socialbench_benchmark": prepared.benchmark.name, "socialbench_options": {**given, "seed": seed}},
    )


@solver
def answer_item(key: str, images_first: bool = False) -> Solver:
    """Answer every question of the sample's item with the benchmark's ``solve``."""
    prepared = _PREPARED[key]
    by_id: dict[str, Item] = {str(item.item_id): item for item in prepared.dataset.items}

    async def solve(state: TaskState, generate: InspectGenerate) -> TaskState:
        item = by_id[str(state.sample_id)]
        model = get_model()

        async def send(request: Request) -> Outcome:
            messages = request_messages(request, images_first)
            t0 = time.perf_counter()
            try:
                output = await model.generate(messages)
            except Exception as exc:  # recorded as the question's error, as a run records a failed call
                state.messages.extend(messages)
                return Outcome(None, MODEL_ERROR, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0)
            state.messages.extend([*messages, output.message])
            state.output = output
            usage = output.usage
            return Outcome(
                output.completion,
                None,
                latency_s=call_latency(output, time.perf_counter() - t0),
                usage=Usage(usage.input_tokens, usage.output_tokens) if usage is not None else Usage(),
                finish_reason=output.stop_reason,  # Inspect's "max_tokens" reads as truncated
            )

        records = await prepared.solve(item, send)
        state.metadata[RECORDS_KEY] = [r.to_json() for r in records]
        if records and all(r.error is not None for r in records):
            raise EveryQuestionFailed(every_failed_message(records, str(model)))
        return state

    return solve


def call_latency(output: ModelOutput, waited: float) -> float:
    """A reply's latency as ``socialbench eval`` records it: the time of the request that
    answered, not the time the question waited for one of Inspect's connections (under
    ``method=independent`` a sample's questions queue for ``--max-connections`` slots; the
    wait was several times the call). Inspect's ``output.time`` is that time; ``waited``
    (the time around ``generate``) where a provider does not say."""
    return output.time if output.time is not None else waited


def every_failed_message(records: list[SampleRecord], model: str) -> str:
    """Why a sample whose every question failed fails: the count and the first error, and
    for Inspect's ``openai`` provider, the flag an OpenAI-compatible server needs."""
    first = next((r for r in records if r.error == MODEL_ERROR), records[0])
    text = (
        f"all {len(records)} questions failed; first: {first.question_key}: {first.error} {first.error_message or ''}"
    )
    if model.startswith("openai/"):
        text += (
            " (against an OpenAI-compatible server at OPENAI_BASE_URL, pass -M responses_api=false: "
            "Inspect's openai provider uses the Responses API by default; docs/inspect.md)"
        )
    return text.strip()


@metric
def papers_metrics(key: str) -> Metric:
    """The benchmark's own ``score`` of every sample's records
    (:func:`~socialbench.export.inspect_format.benchmark_metrics`)."""

    def compute(scores: list[SampleScore]) -> dict[str, float | int | str | bool | None]:
        # scored on the items Inspect asked (its --limit / --sample-id), not the whole dataset
        asked = restricted_to(_PREPARED[key], {str(s.sample_id) for s in scores})
        return dict(epoch_metrics(asked, epochs_of(s.score.metadata for s in scores)))

    return compute


@score_reducer(name="socialbench_epochs")
def keep_epochs() -> ScoreReducer:
    """Reduce a sample's scores over epochs to their mean value, keeping each epoch's records
    (Inspect's default reducer would keep one epoch's metadata only), so that the metrics
    score every epoch (:func:`~socialbench.export.inspect_format.epoch_metrics`)."""

    def reduce(scores: list[Score]) -> Score:
        values = [float(s.as_float()) for s in scores]
        return Score(
            value=sum(values) / len(values),
            answer=scores[0].answer,
            metadata={EPOCHS_KEY: [(s.metadata or {}).get(RECORDS_KEY, []) for s in scores]},
        )

    return reduce


@scorer(metrics=[])
def item_records(key: str) -> Any:
    """Keep the item's records; the value is the item's PA (:func:`item_agreement`: the mean
    share of human votes for the model's answers, failed questions 0). The papers' metrics
    come from :func:`papers_metrics` over all samples."""
    prepared = _PREPARED[key]
    by_id: dict[str, Item] = {str(item.item_id): item for item in prepared.dataset.items}

    async def score(state: TaskState, target: Target) -> Score:
        raw = state.metadata.get(RECORDS_KEY, [])
        records = [SampleRecord.from_json(r) for r in raw]
        failed = sum(1 for r in records if r.error is not None)
        return Score(
            value=item_agreement(by_id[str(state.sample_id)], records),
            answer=", ".join(f"{r['question_key']}={r.get('parsed')!r}" for r in raw),
            explanation=f"PA of {len(records)} answers ({failed} failed, scored 0)",
            metadata={RECORDS_KEY: raw},
        )

    return score


# the four tasks: arguments are the eval flags of the same name ------------------------------


@task
def socialnav_sub(
    data: str | None = None,
    method: str | None = None,
    images: str | None = None,
    gt_without_obstruction: bool | None = None,
    limit: int | None = None,
    seed: int = 0,
    perturb: str | None = None,
    perturb_strength: float = 1.0,
    image_size: str | None = None,
    max_side: int | None = None,
    images_first: bool = False,
    render_cache: bool = True,
) -> Task:
    """SocialNav-SUB VQA (``socialbench eval -b socialnav-sub``); the bundled simulated scenes
    when ``data`` is not given (``-b socialnav-sim``)."""
    return _task("socialnav-sub" if data is not None else "socialnav-sim", locals(), "socialnav_sub")


@task
def socialnav_waypoint(
    data: str | None = None,
    images: str | None = None,
    context: str | None = None,
    limit: int | None = None,
    seed: int = 0,
    perturb: str | None = None,
    perturb_strength: float = 1.0,
    image_size: str | None = None,
    max_side: int | None = None,
    images_first: bool = False,
    render_cache: bool = True,
) -> Task:
    """SocialNav-SUB waypoint selection (``socialbench eval -b socialnav-waypoint``); the
    bundled simulated scenes when ``data`` is not given."""
    return _task("socialnav-waypoint", locals(), "socialnav_waypoint")


@task
def roboteq_bj(
    data: str | None = None,
    strategy: str | None = None,
    rag_backend: str | None = None,
    rag_k: int | None = None,
    per_behavior: bool | None = None,
    limit: int | None = None,
    seed: int = 0,
    perturb: str | None = None,
    perturb_strength: float = 1.0,
    image_size: str | None = None,
    max_side: int | None = None,
    images_first: bool = False,
    render_cache: bool = True,
) -> Task:
    """RobotEQ behavior judgment (``socialbench eval -b roboteq-bj``)."""
    return _task("roboteq-bj", locals(), "roboteq_bj")


@task
def roboteq_sg(
    data: str | None = None,
    strategy: str | None = None,
    rag_backend: str | None = None,
    rag_k: int | None = None,
    limit: int | None = None,
    seed: int = 0,
    perturb: str | None = None,
    perturb_strength: float = 1.0,
    image_size: str | None = None,
    max_side: int | None = None,
    images_first: bool = False,
    render_cache: bool = True,
) -> Task:
    """RobotEQ spatial grounding (``socialbench eval -b roboteq-sg``)."""
    return _task("roboteq-sg", locals(), "roboteq_sg")


#: The task arguments that are shared run options; the others (but ``data``) are the benchmark's.
_RUN_ARGS = ("limit", "seed", "perturb", "perturb_strength", "image_size", "max_side", "images_first", "render_cache")


def _task(benchmark: str, args: dict[str, Any], name: str) -> Task:
    """:func:`make_task` from the arguments of the task ``name`` (its ``locals()``)."""
    run = {k: args.pop(k) for k in _RUN_ARGS}
    return make_task(benchmark, args.pop("data"), args, **run, task_name=name)
