"""``socialbench export inspect RUN_DIR --out FILE``: a socialbench run as an Inspect AI log, for
``inspect view`` (the ``inspect`` extra).

Written with Inspect's own log API, one sample per item the run answered and per epoch of an
``eval --epochs`` run; the requests are rebuilt by replaying the run
(:mod:`socialbench.export.inspect_replay`). Everything the run record holds that Inspect's log
has a field for is filled from it: token usage (per sample and per model), one model event per
request with its settings and output, stop reasons, the generation settings sent, reasoning,
the adaptations learned from the server, ids and package versions. See docs/inspect.md,
"`socialbench export inspect`".
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from socialbench.benchmarks.base import benchmark_entry
from socialbench.benchmarks.options import recorded_options
from socialbench.benchmarks.prepared import PreparedEval
from socialbench.errors import UsageError
from socialbench.export.inspect_replay import NOT_IN_RUN, Exchange, ItemReplay, prepared_run, replay_item
from socialbench.report.loading import load_run
from socialbench.report.run_dir import RunDir
from socialbench.types import GenerationConfig, SampleRecord

if TYPE_CHECKING:  # inspect_ai is optional (the inspect extra): imported where it is used
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ChatMessage, ChatMessageAssistant, GenerateConfig, ModelOutput, ModelUsage

__all__ = ["NOT_IN_RUN", "InspectExport", "export_inspect"]


@dataclass(frozen=True)
class InspectExport:
    """What :func:`export_inspect` wrote: the log file, its samples, epochs and failed questions."""

    path: Path
    samples: int
    questions: int
    errors: int
    mismatched_samples: int
    epochs: int = 1


def epoch_runs(run: RunDir) -> list[RunDir]:
    """The run directories of ``run``'s epochs (``run.json``'s ``epoch_dirs``, epoch 1
    first), or ``[run]`` for a run of one epoch."""
    dirs = run.run.get("epoch_dirs")
    if not isinstance(dirs, list) or not dirs:
        return [run]
    out: list[RunDir] = []
    for name in dirs:
        path = run.path / str(name)
        if not (path / "run.json").is_file():
            raise UsageError(
                f"{run.path / 'run.json'} lists epoch folder {name}, which has no run.json; "
                f"finish the run with the same `socialbench eval --epochs` command, or export an epoch "
                f"folder itself ({path})"
            )
        out.append(load_run(path))
    return out


def generate_config(gen: GenerationConfig) -> GenerateConfig:
    """Inspect's settings for what the run sent (``json_mode`` has no Inspect field; it is in
    the eval's metadata with the rest of run.json's ``generation``)."""
    from inspect_ai.model import GenerateConfig

    config = GenerateConfig(max_tokens=gen.max_tokens, temperature=gen.temperature, top_p=gen.top_p)
    if gen.reasoning_effort is not None:
        try:
            config = config.merge(GenerateConfig(reasoning_effort=gen.reasoning_effort))  # type: ignore[arg-type]
        except (
            ValueError
        ):  # pydantic's ValidationError: an effort Inspect has no word for: kept in the eval's metadata only
            pass
    return config


def model_usage(records: Sequence[SampleRecord]) -> ModelUsage:
    """The token counts of ``records`` summed (failed records' usage included: it was billed)."""
    from inspect_ai.model import ModelUsage

    prompt = sum(r.usage.get("prompt_tokens", 0) for r in records)
    completion = sum(r.usage.get("completion_tokens", 0) for r in records)
    reasoning = sum(r.usage.get("reasoning_tokens", 0) for r in records)
    return ModelUsage(
        input_tokens=prompt,
        output_tokens=completion,
        total_tokens=prompt + completion,
        reasoning_tokens=reasoning or None,
    )


def _reply(rec: SampleRecord | None) -> ChatMessageAssistant:
    from inspect_ai.model import ChatMessageAssistant, Content, ContentReasoning, ContentText

    if rec is None:
        return ChatMessageAssistant(content=f"[{NOT_IN_RUN}] the run holds no reply to this request")
    if rec.error is not None:
        return ChatMessageAssistant(content=f"[{rec.error}] {rec.error_message or ''}".strip())
    if rec.reasoning:
        parts: list[Content] = [ContentReasoning(reasoning=rec.reasoning), ContentText(text=rec.raw or "")]
        return ChatMessageAssistant(content=parts)
    return ChatMessageAssistant(content=rec.raw or "")


def _output(model: str, rec: SampleRecord | None, usage: ModelUsage | None) -> ModelOutput:
    from inspect_ai.model import ChatCompletionChoice, ModelOutput

    from socialbench.export.inspect_format import stop_reason_of

    return ModelOutput(
        model=model,
        choices=[
            ChatCompletionChoice(
                message=_reply(rec), stop_reason=stop_reason_of(rec.finish_reason if rec is not None else None)
            )
        ],
        usage=usage,
        time=rec.latency_s if rec is not None else None,
        error=f"{rec.error}: {rec.error_message or ''}".strip() if rec is not None and rec.error else None,
    )


def _exchange_parts(model: str, ex: Exchange) -> tuple[list[ChatMessage], Any]:
    """The messages of one request and its reply, and its model event."""
    from inspect_ai.event import ModelEvent

    from socialbench.export.inspect_format import request_messages

    rec = ex.record
    messages = request_messages(ex.request)
    output = _output(model, rec, model_usage([rec]) if rec is not None else None)
    event = ModelEvent(
        model=model,
        input=messages,
        tools=[],
        tool_choice="none",
        config=generate_config(ex.request.config),
        output=output,
        error=output.error,
        working_time=rec.latency_s if rec is not None else None,
        retries=max(rec.attempts - 1, 0) if rec is not None else None,
    )
    return [*messages, output.message], event


def _sample(
    prepared: PreparedEval, model: str, epoch: int, item_id: str, replay: ItemReplay, stored: Sequence[SampleRecord]
) -> EvalSample:
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.scorer import Score

    from socialbench.export.inspect_format import RECORDS_KEY, item_agreement, item_targets

    item = next(i for i in prepared.dataset.items if str(i.item_id) == item_id)
    messages: list[ChatMessage] = []
    events: list[Any] = []
    for ex in replay.exchanges:
        shown, event = _exchange_parts(model, ex)
        messages += shown
        events.append(event)
    usage = model_usage(stored)
    answered = [ex.record for ex in replay.exchanges if ex.record is not None and ex.record.raw]
    last = answered[-1] if answered else (replay.exchanges[-1].record if replay.exchanges else None)
    failed = [r for r in stored if r.error is not None]
    return EvalSample(
        id=item_id,
        epoch=epoch,
        input=f"{prepared.benchmark.name} item {item_id}: {len(item.questions)} question(s)",
        target=item_targets(item),
        messages=messages,
        events=events,
        output=_output(model, last, usage),
        model_usage={model: usage},
        total_time=sum(r.latency_s for r in stored),
        scores={
            "socialbench": Score(
                value=item_agreement(item, stored),
                answer=", ".join(f"{r.question_key}={r.parsed!r}" for r in stored),
                explanation=f"PA of {len(stored)} answers ({len(failed)} failed, scored 0)",
                metadata={RECORDS_KEY: [r.to_json() for r in stored]},
            )
        },
        metadata={"item_id": item_id, "requests_match_run": replay.matched},
        error=None
        if not failed
        else EvalError(
            message=f"{len(failed)} of {len(stored)} questions failed: "
            + "; ".join(f"{r.question_key}: {r.error} {r.error_message or ''}".strip() for r in failed),
            traceback="",
            traceback_ansi="",
        ),
    )


def _run_id(rec: Mapping[str, Any], what: str) -> str:
    """A stable id of the run (the same export gives the same ids): a digest of what names it."""
    seed = "|".join(str(rec.get(k) or "") for k in ("model_identity", "benchmark", "dataset_fingerprint", "started"))
    return hashlib.sha256(f"{what}|{seed}".encode()).hexdigest()[:22]


def export_inspect(run_dir: Path, out: Path, data: Path | None = None) -> InspectExport:
    """Write the run in ``run_dir`` (every epoch of an ``--epochs`` run) as an Inspect log at
    ``out`` (``.eval`` or ``.json``)."""
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalMetric,
        EvalPlan,
        EvalResults,
        EvalRevision,
        EvalScore,
        EvalSpec,
        EvalStats,
        write_eval_log,
    )

    from socialbench.export.inspect_format import epoch_metrics

    if out.suffix not in (".eval", ".json"):
        raise UsageError(f"--out {out}: an Inspect log file ends in .eval or .json")
    run = load_run(run_dir)
    epochs = epoch_runs(run)
    samples: list[EvalSample] = []
    per_epoch: list[list[SampleRecord]] = []
    mismatched = 0
    prepared = prepared_run(epochs[0], data)
    for number, epoch in enumerate(epochs, start=1):
        prepared_e = prepared if number == 1 else prepared_run(epoch, data)
        records = epoch.samples()
        per_epoch.append(records)
        by_item: dict[str, list[SampleRecord]] = {}
        for r in records:
            by_item.setdefault(r.item_id, []).append(r)
        for item in prepared_e.dataset.items:
            stored = by_item.get(str(item.item_id), [])
            if not stored:
                continue
            replay = asyncio.run(replay_item(prepared_e, item, stored))
            mismatched += not replay.matched
            samples.append(_sample(prepared_e, run.model, number, str(item.item_id), replay, stored))
    metrics = epoch_metrics(prepared, per_epoch)
    rec = run.run
    all_records = [r for recs in per_epoch for r in recs]
    sessions = rec.get("sessions") if isinstance(rec.get("sessions"), list) else []
    started = str(rec.get("started") or "")
    ended = str(
        rec.get("ended") or (sessions[-1].get("ended") if sessions and isinstance(sessions[-1], Mapping) else "") or ""
    )
    raw_versions = rec.get("versions")
    versions: Mapping[str, object] = raw_versions if isinstance(raw_versions, Mapping) else {}
    gen_config = generate_config(prepared.generation)
    limit = rec.get("limit") if isinstance(rec.get("limit"), int) else None
    log = EvalLog(
        status="cancelled" if rec.get("status") == "interrupted" else "success",
        eval=EvalSpec(
            eval_id=_run_id(rec, "eval"),
            run_id=_run_id(rec, "run"),
            task_id=_run_id(rec, "task"),
            created=started,
            task=f"socialbench/{prepared.benchmark.name.replace('-', '_')}",
            dataset=EvalDataset(name=run.benchmark, samples=len(prepared.dataset.items)),
            model=run.model,
            model_generate_config=gen_config,
            config=EvalConfig(limit=limit, epochs=len(epochs)),
            task_args=recorded_options(benchmark_entry(run.benchmark).options, rec),
            revision=EvalRevision(type="git", origin="", commit=str(rec["git_commit"]))
            if rec.get("git_commit")
            else None,
            packages={str(k): str(v) for k, v in versions.items() if v is not None},
            metadata={
                "socialbench_run": run.path.name,
                "protocol": run.protocol,
                "seed": rec.get("seed"),
                "seeds": rec.get("seeds"),
                "socialbench_generation": rec.get("generation"),
                "generation_adapted": rec.get("generation_adapted"),
                "requests": rec.get("requests"),
                "retries": rec.get("retries"),
                "cache_hits": rec.get("cache_hits"),
            },
        ),
        plan=EvalPlan(name="socialbench", config=gen_config),
        results=EvalResults(
            total_samples=len(prepared.dataset.items) * len(epochs),
            completed_samples=len(samples),
            scores=[
                EvalScore(
                    name="socialbench",
                    scorer="socialbench",
                    metrics={k: EvalMetric(name=k, value=v) for k, v in metrics.items()},
                )
            ],
        ),
        stats=EvalStats(started_at=started, completed_at=ended, model_usage={run.model: model_usage(all_records)}),
        samples=samples,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, location=str(out))
    errors = sum(1 for r in all_records if r.error is not None)
    return InspectExport(out, len(samples), len(all_records), errors, mismatched, len(epochs))
