"""What every stage run shares: its result (:class:`StageRun`), closing its summary
(:func:`close_stage`) and running a chat model over the records of one input file
(:func:`run_llm_stage`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from socialbench.construction.jsonl import read_jsonl
from socialbench.construction.llm import (
    JsonResult,
    JsonTask,
    LLMSettings,
    close_engine,
    fill_summary,
    open_engine,
    run_stage_tasks,
)
from socialbench.construction.record_fields import text
from socialbench.construction.stage_output import StageOutput
from socialbench.construction.stage_summary import StageSummary, write_summary
from socialbench.runner.engine import Engine
from socialbench.types import EncodedImage, GenerationConfig

T = TypeVar("T")

__all__ = [
    "StageRun",
    "close_stage",
    "rel",
    "json_config",
    "with_engine",
    "run_tasks",
    "open_summary",
    "read_scene_images",
    "run_llm_stage",
]


@dataclass
class StageRun:
    """The result of one stage run.

    ``summary`` is written to ``<work>/summaries/<stage>.json`` by :func:`close_stage`;
    the open failures of ``outputs`` (retried by the next run) make the run unfinished.
    ``messages`` and ``problems`` are lines for the user (what was done; what was rejected
    and why); ``rejected`` says the stage refused some of its input (the command exits 1).
    """

    summary: StageSummary
    outputs: list[StageOutput] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    rejected: bool = False


def close_stage(work: Path, run: StageRun, t0: float) -> list[dict[str, Any]]:
    """Fill the failure counts (by kind) and the wall time since ``t0`` into the summary,
    write it to ``<work>/summaries/``, and return the open failures of the run's outputs."""
    failures = [f for o in run.outputs for f in o.open_failures()]
    summary = run.summary
    summary.n_failed = len(failures)
    kinds: dict[str, int] = {}
    for f in failures:
        kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
    summary.failure_kinds = kinds
    summary.wall_s = round(time.perf_counter() - t0, 3)
    write_summary(work, summary)
    return failures


def rel(work: Path, path: Path) -> str:
    """``path`` relative to the work folder (as posix), or whole when it lies outside."""
    try:
        return path.relative_to(work).as_posix()
    except ValueError:
        return str(path)


def json_config(s: LLMSettings, temperature: float | None = None) -> GenerationConfig:
    """The generation config of a JSON-answering request under ``s`` (``temperature``
    overrides the settings')."""
    return GenerationConfig(
        max_tokens=s.max_tokens, temperature=s.temperature if temperature is None else temperature, json_mode=True
    )


async def with_engine(settings: LLMSettings, body: Callable[[Engine], Awaitable[T]]) -> T:
    """Run ``body`` with an engine for ``settings``, closed afterwards."""
    engine = open_engine(settings)
    try:
        return await body(engine)
    finally:
        await close_engine(engine)


async def run_tasks(
    settings: LLMSettings,
    tasks: Sequence[JsonTask],
    output: StageOutput,
    to_records: Callable[[JsonResult], Sequence[Mapping[str, object]]],
    summary: StageSummary,
    label: str,
) -> None:
    """Run ``tasks`` into ``output`` with an engine for ``settings`` and add the engine's and
    the batch's counts to ``summary``."""

    async def body(engine: Engine) -> None:
        stats = await run_stage_tasks(
            engine,
            tasks,
            output,
            to_records,
            parse_retries=settings.parse_retries,
            progress=settings.progress,
            label=label,
        )
        fill_summary(summary, engine, stats, settings)

    await with_engine(settings, body)


def open_summary(
    stage: str, work: Path, inp: Path, output: StageOutput, rows: Sequence[Mapping[str, object]], models: dict[str, str]
) -> StageSummary:
    """The summary of a stage that reads ``rows`` from ``inp`` into ``output`` (rows already
    done counted as skipped)."""
    return StageSummary(
        stage=stage,
        input=rel(work, inp),
        output=rel(work, output.path),
        n_in=len(rows),
        n_skipped=sum(1 for r in rows if r["id"] in output.done),
        models=models,
    )


def read_scene_images(
    work: Path, rows: Sequence[Mapping[str, object]], output: StageOutput, fix: Callable[[str], str]
) -> tuple[dict[str, EncodedImage], list[Mapping[str, object]]]:
    """The prepared image of every row (keyed by row id) and the rows whose image was read;
    an unreadable image fails its row only (the rerun retries it), ``fix(row id)`` saying how
    to mend it."""
    from PIL import Image

    from socialbench.vision.images import ImagePolicy, prepare_image

    policy = ImagePolicy()
    by_path: dict[str, EncodedImage] = {}
    images: dict[str, EncodedImage] = {}
    readable = []
    for r in rows:
        rid, path = str(r["id"]), text(r, "image")  # the stage JSONL reader checked the id
        if path not in by_path:
            try:
                with Image.open(work / path) as img:
                    img.load()
                    by_path[path] = prepare_image(img, policy)
            except (OSError, ValueError, Image.DecompressionBombError) as exc:
                msg = f"cannot read scene image {work / path}: {exc} ({fix(rid)}, then run this command again)"
                output.fail(rid, "unreadable_image", msg, image=path)
                continue
        images[rid] = by_path[path]
        readable.append(r)
    return images, readable


def run_llm_stage(
    *,
    stage: str,
    work: Path,
    inp: Path,
    output: Path,
    settings: LLMSettings,
    make_tasks: Callable[[list[dict[str, object]], dict[str, int], StageOutput], Sequence[JsonTask]],
    to_records: Callable[[JsonResult], Sequence[Mapping[str, object]]],
    records: list[dict[str, object]] | None = None,
) -> StageRun:
    """One model request per input record not yet in ``output`` (the records of ``inp``,
    or ``records`` when given); ``make_tasks(pending, salts, output)`` builds the requests
    and ``to_records`` turns each reply into output records."""
    rows = records if records is not None else read_jsonl(inp)
    so = StageOutput(output, stage)
    summary = open_summary(stage, work, inp, so, rows, {"model": settings.model})
    tasks = make_tasks([r for r in rows if r["id"] not in so.done], so.failure_counts(), so)
    asyncio.run(run_tasks(settings, tasks, so, to_records, summary, stage))
    summary.n_new = so.written
    summary.n_out = len(so.done)
    return StageRun(summary, [so])
