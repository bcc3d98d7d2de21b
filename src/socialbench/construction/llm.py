"""Run many JSON-answering requests through the :class:`~socialbench.runner.engine.Engine`.

The engine bounds concurrency, retries transport errors and caches replies; this module checks
that a reply is *usable*: it extracts the JSON object, runs the stage's validator and, on an
unusable reply, asks again with a repair note appended (a new request, never a cached copy).
After ``parse_retries`` repairs the task fails with a kind: ``invalid_json``, ``missing_fields``,
``invalid_output``, or the engine's error kind when the call itself failed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from socialbench.construction.stage_output import StageOutput
from socialbench.construction.stage_summary import StageSummary
from socialbench.models.registry import ModelOptions, create_model
from socialbench.prompting.parsing import find_json_object
from socialbench.runner.cache import ResponseCache
from socialbench.runner.engine import Engine, RetryPolicy
from socialbench.runner.progress import RunProgress
from socialbench.types import EncodedImage, GenerationConfig, Request

__all__ = [
    "OutputError",
    "JsonTask",
    "JsonResult",
    "LLMSettings",
    "open_engine",
    "close_engine",
    "run_json",
    "require_fields",
    "image_tasks",
    "cost_usd",
    "run_stage_tasks",
    "fill_summary",
    "BatchStats",
]


class OutputError(ValueError):
    """A model reply that parsed but cannot be used. ``kind`` is ``missing_fields`` or
    ``invalid_output`` (or ``invalid_json``)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


Validator = Callable[[dict[str, Any]], Any]


@dataclass(frozen=True)
class JsonTask:
    """One request whose reply must be a JSON object accepted by ``validate``."""

    id: str
    request: Request
    validate: Validator
    context: Any = None
    #: > 0 on a rerun of a task that failed before: a short variant note is appended to the
    #: prompt so the request misses the response cache (which would replay the bad reply)
    salt: int = 0


@dataclass
class JsonResult:
    id: str
    value: Any = None
    error: str | None = None
    message: str = ""
    attempts: int = 0  # model replies received (1 + repairs)
    raw: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    context: Any = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class LLMSettings:
    """How a stage talks to a chat model (all CLI options of the LLM stages)."""

    model: str
    concurrency: int = 8
    timeout_s: float = 120.0
    max_attempts: int = 4  # transport attempts per request (engine)
    base_delay_s: float = 1.0
    parse_retries: int = 2  # repair requests after an unusable reply
    cache: Path | None = None
    model_opts: tuple[tuple[str, str], ...] = ()
    max_tokens: int = 4096
    temperature: float = 0.7
    price_in: float | None = None  # USD per 1M prompt tokens
    price_out: float | None = None  # USD per 1M completion tokens
    progress: bool = False


def open_engine(settings: LLMSettings) -> Engine:
    """Build the model of ``settings.model`` and an engine around it."""
    model = create_model(settings.model, ModelOptions(timeout_s=settings.timeout_s, extra=settings.model_opts))
    cache = ResponseCache(settings.cache) if settings.cache else None
    retry = RetryPolicy(
        max_attempts=settings.max_attempts,
        base_delay_s=settings.base_delay_s,
        max_delay_s=max(settings.base_delay_s, 30.0),
        timeout_s=settings.timeout_s,
    )
    return Engine(model, concurrency=settings.concurrency, retry=retry, cache=cache)


async def close_engine(engine: Engine) -> None:
    await engine.model.aclose()
    if engine.cache is not None:
        engine.cache.close()


def image_tasks(
    records: Sequence[Mapping[str, object]],
    images: Mapping[str, EncodedImage],
    prompt: Callable[[Mapping[str, object]], str],
    validate: Validator,
    config: GenerationConfig,
    salts: Mapping[str, int] | None = None,
) -> list[JsonTask]:
    """One request per record whose image was read (``images`` is keyed by record id):
    ``prompt(record)`` with that image, answered under ``validate``, the record as the task's
    context and its id's salt (:attr:`JsonTask.salt`, 0 when ``salts`` has none)."""
    salts = salts or {}
    tasks = []
    for r in records:
        rid = str(r["id"])  # the stage JSONL reader checked every id is text
        if rid in images:
            request = Request(prompt=prompt(r), images=(images[rid],), config=config)
            tasks.append(JsonTask(id=rid, request=request, validate=validate, context=r, salt=salts.get(rid, 0)))
    return tasks


def cost_usd(
    prompt_tokens: int, completion_tokens: int, price_in: float | None, price_out: float | None
) -> float | None:
    """Cost from per-1M-token prices; None when no price is known."""
    if price_in is None and price_out is None:
        return None
    return (prompt_tokens * (price_in or 0.0) + completion_tokens * (price_out or 0.0)) / 1_000_000


def require_fields(obj: object, fields: Sequence[str], where: str = "reply") -> None:
    """Raise ``OutputError("missing_fields")`` unless every field is a non-empty value."""
    if not isinstance(obj, dict):
        raise OutputError("invalid_output", f"{where} is not a JSON object")
    missing = [f for f in fields if obj.get(f) in (None, "", [], {})]
    if missing:
        raise OutputError("missing_fields", f"{where} lacks {', '.join(missing)}")


def _repair_note(kind: str, message: str) -> str:
    what = "it was not a valid JSON object" if kind == "invalid_json" else message
    return (
        "\n\nYour previous reply could not be used: "
        f"{what}. Reply again with only the JSON object described above, with every required field."
    )


async def run_json(engine: Engine, task: JsonTask, parse_retries: int = 2) -> JsonResult:
    """Send ``task`` and repair unusable replies up to ``parse_retries`` times."""
    result = JsonResult(id=task.id, context=task.context)
    base = task.request
    if task.salt > 0:
        base = replace(base, prompt=base.prompt + f"\n\n(Request variant {task.salt}.)")
    request = base
    for repair in range(parse_retries + 1):
        outcome = await engine.run(request)
        result.prompt_tokens += outcome.usage.prompt_tokens
        result.completion_tokens += outcome.usage.completion_tokens
        result.cached = outcome.cached
        if outcome.error is not None:
            result.error, result.message = outcome.error, outcome.error_message or outcome.error
            return result
        result.attempts += 1
        result.raw = outcome.text
        obj = find_json_object(outcome.text or "")
        try:
            if obj is None:
                raise OutputError("invalid_json", "the reply holds no JSON object")
            result.value = task.validate(obj)
            result.error, result.message = None, ""
            return result
        except OutputError as exc:
            result.error, result.message = exc.kind, exc.message
            if repair < parse_retries:
                request = replace(base, prompt=base.prompt + _repair_note(exc.kind, exc.message))
    return result


@dataclass
class BatchStats:
    parse_retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


async def run_stage_tasks(
    engine: Engine,
    tasks: Iterable[JsonTask],
    output: StageOutput,
    to_records: Callable[[JsonResult], Sequence[Mapping[str, object]]],
    *,
    parse_retries: int = 2,
    progress: bool = False,
    label: str = "build",
) -> BatchStats:
    """Run the tasks whose id is not yet in ``output`` concurrently (the engine bounds
    in-flight calls); write each success as it arrives (``to_records`` may return several
    records, or raise :class:`OutputError` to reject the value) and record each failure with
    its kind."""
    pending = [t for t in tasks if t.id not in output.done]
    stats = BatchStats()
    with RunProgress(len(pending), enabled=progress, label=label) as bar:

        async def one(t: JsonTask) -> None:
            r = await run_json(engine, t, parse_retries)
            stats.parse_retries += max(0, r.attempts - 1)
            stats.prompt_tokens += r.prompt_tokens
            stats.completion_tokens += r.completion_tokens
            if r.ok:
                try:
                    records = to_records(r)
                except OutputError as exc:
                    r.error, r.message = exc.kind, exc.message
                else:
                    for rec in records:
                        output.write(rec)
            if not r.ok:
                output.fail(r.id, r.error or "unknown", r.message, attempts=r.attempts, raw=(r.raw or "")[:2000])
            bar.advance()
            bar.update_stats(engine.stats)

        await asyncio.gather(*(one(t) for t in pending))
    return stats


def fill_summary(summary: StageSummary, engine: Engine, stats: BatchStats, settings: LLMSettings) -> None:
    """Copy engine and batch counts (tokens, requests, retries, cost) into a stage summary."""
    es = engine.stats
    summary.requests += es.requests
    summary.retries += es.retries
    summary.cache_hits += es.cache_hits
    summary.parse_retries += stats.parse_retries
    summary.prompt_tokens += stats.prompt_tokens
    summary.completion_tokens += stats.completion_tokens
    cost = cost_usd(stats.prompt_tokens, stats.completion_tokens, settings.price_in, settings.price_out)
    if cost is not None:
        summary.cost_usd = (summary.cost_usd or 0.0) + cost
