"""``socialbench export inspect RUN_DIR --out FILE``: a socialbench run as an Inspect AI log, for
``inspect view`` (the ``inspect`` extra).

Written with Inspect's own log API, one sample per item the run answered; the requests are
rebuilt by replaying the run (the benchmark's ``solve`` answered with the recorded replies)
and matched to their records by request hash. See docs/inspect.md, "`socialbench export inspect`".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from socialbench.benchmarks.base import benchmark_entry
from socialbench.benchmarks.options import recorded_options
from socialbench.benchmarks.prepared import PreparedEval, prepare_eval
from socialbench.errors import DataError, UsageError
from socialbench.report.loading import load_run
from socialbench.report.run_dir import RunDir
from socialbench.types import Item, Outcome, Request, SampleRecord, Usage
from socialbench.vision.images import ImagePolicy

if TYPE_CHECKING:  # inspect_ai is optional (the inspect extra): imported where it is used
    from inspect_ai.model import ChatMessage

#: The error kind of a rebuilt request the run holds no reply for (an unfinished run).
NOT_IN_RUN = "not_in_run"


@dataclass(frozen=True)
class InspectExport:
    """What :func:`export_inspect` wrote: the log file, its samples and failed questions."""

    path: Path
    samples: int
    questions: int
    errors: int
    mismatched_samples: int


def _prepared(run: RunDir, data: Path | None) -> PreparedEval:
    """The run's eval made ready again: its benchmark, options, seed, perturbation, image
    size and dataset (``data``, else the folder run.json names)."""
    rec = run.run
    options = recorded_options(benchmark_entry(run.benchmark).options, rec)
    folder = data or (Path(str(rec["data"])) if rec.get("data") else None)
    if folder is not None and not folder.exists():
        raise UsageError(
            f"{run.path / 'run.json'} names data folder {folder}, which does not exist here; "
            "give the run's dataset with --data DIR"
        )
    perturb = run.perturbation
    limit = rec.get("limit")
    policy = rec.get("image_policy")
    try:  # the policy the run recorded (a squashed one has no max_side to go by)
        image_policy = ImagePolicy(**policy) if isinstance(policy, Mapping) else ImagePolicy()
    except (TypeError, ValueError) as exc:
        raise DataError.single(
            run.path / "run.json", "image_policy", f"not an image policy ({exc})", "give the run's own run.json"
        ) from exc
    return prepare_eval(
        run.benchmark,
        folder,
        options,
        protocol=run.protocol,
        limit=limit if isinstance(limit, int) else None,
        seed=int(rec.get("seed") or 0),
        perturb=perturb[0] if perturb else None,
        perturb_strength=perturb[1] if perturb else 1.0,
        image_policy=image_policy,
    )


async def _replay(prepared: PreparedEval, item: Item, stored: Sequence[SampleRecord]) -> tuple[list[ChatMessage], bool]:
    """The messages of ``item``'s requests, each followed by the run's reply; and whether
    every rebuilt request has the hash the run recorded."""
    from inspect_ai.model import ChatMessageAssistant

    from socialbench.export.inspect_format import request_messages

    by_hash = {r.request_hash: r for r in stored if r.request_hash}
    by_key = {r.question_key: r for r in stored}
    messages: list[ChatMessage] = []
    matched = True

    async def reply(request: Request) -> Outcome:
        nonlocal matched
        rec = by_hash.get(request.fingerprint())
        if rec is None:
            matched = False
            rec = by_key.get(request.question.key) if request.question is not None else None
        messages.extend(request_messages(request))
        if rec is None:
            messages.append(ChatMessageAssistant(content=f"[{NOT_IN_RUN}] the run holds no reply to this request"))
            return Outcome(None, NOT_IN_RUN, "the run holds no reply to this request")
        if rec.error is not None:
            messages.append(ChatMessageAssistant(content=f"[{rec.error}] {rec.error_message or ''}".strip()))
            return Outcome(None, rec.error, rec.error_message, rec.latency_s)
        messages.append(ChatMessageAssistant(content=rec.raw or ""))
        usage = Usage(rec.usage.get("prompt_tokens", 0), rec.usage.get("completion_tokens", 0))
        return Outcome(
            rec.raw,
            None,
            latency_s=rec.latency_s,
            usage=usage,
            reasoning=rec.reasoning,
            finish_reason=rec.finish_reason,
        )

    await prepared.solve(item, reply)
    return messages, matched


def export_inspect(run_dir: Path, out: Path, data: Path | None = None) -> InspectExport:
    """Write the run in ``run_dir`` as an Inspect log at ``out`` (``.eval`` or ``.json``)."""
    import asyncio

    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalError,
        EvalLog,
        EvalMetric,
        EvalResults,
        EvalSample,
        EvalScore,
        EvalSpec,
        EvalStats,
        write_eval_log,
    )
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Score

    from socialbench.export.inspect_format import RECORDS_KEY, benchmark_metrics

    if out.suffix not in (".eval", ".json"):
        raise UsageError(f"--out {out}: an Inspect log file ends in .eval or .json")
    run = load_run(run_dir)
    prepared = _prepared(run, data)
    records = run.samples()
    by_item: dict[str, list[SampleRecord]] = {}
    for r in records:
        by_item.setdefault(r.item_id, []).append(r)
    samples: list[EvalSample] = []
    mismatched = 0
    for item in prepared.dataset.items:
        stored = by_item.get(str(item.item_id), [])
        if not stored:
            continue
        messages, matched = asyncio.run(_replay(prepared, item, stored))
        mismatched += not matched
        failed = [r for r in stored if r.error is not None]
        last = next((r.raw for r in reversed(stored) if r.raw), None)
        samples.append(
            EvalSample(
                id=str(item.item_id),
                epoch=1,
                input=f"{prepared.benchmark.name} item {item.item_id}: {len(item.questions)} question(s)",
                target="",
                messages=messages,
                output=ModelOutput.from_content(model=run.model, content=last or ""),
                scores={
                    "socialbench": Score(
                        value=(len(stored) - len(failed)) / len(stored),
                        answer=", ".join(f"{r.question_key}={r.parsed!r}" for r in stored),
                        metadata={RECORDS_KEY: [r.to_json() for r in stored]},
                    )
                },
                metadata={"item_id": str(item.item_id), "requests_match_run": matched},
                error=None
                if not failed
                else EvalError(
                    message=f"{len(failed)} of {len(stored)} questions failed: "
                    + "; ".join(f"{r.question_key}: {r.error} {r.error_message or ''}".strip() for r in failed),
                    traceback="",
                    traceback_ansi="",
                ),
            )
        )
    metrics = benchmark_metrics(prepared, records)
    rec = run.run
    sessions = rec.get("sessions") if isinstance(rec.get("sessions"), list) else []
    started = str(rec.get("started") or "")
    ended = str(sessions[-1].get("ended") or "") if sessions and isinstance(sessions[-1], Mapping) else ""
    log = EvalLog(
        status="cancelled" if rec.get("status") == "interrupted" else "success",
        eval=EvalSpec(
            created=started,
            task=f"socialbench/{prepared.benchmark.name.replace('-', '_')}",
            dataset=EvalDataset(name=run.benchmark, samples=len(prepared.dataset.items)),
            model=run.model,
            config=EvalConfig(limit=rec.get("limit") if isinstance(rec.get("limit"), int) else None),
            task_args=recorded_options(benchmark_entry(run.benchmark).options, rec),
            metadata={"socialbench_run": run.path.name, "protocol": run.protocol, "seed": rec.get("seed")},
        ),
        results=EvalResults(
            total_samples=len(prepared.dataset.items),
            completed_samples=len(samples),
            scores=[
                EvalScore(
                    name="socialbench",
                    scorer="socialbench",
                    metrics={k: EvalMetric(name=k, value=v) for k, v in metrics.items()},
                )
            ],
        ),
        stats=EvalStats(started_at=started, completed_at=ended),
        samples=samples,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, location=str(out))
    errors = sum(1 for r in records if r.error is not None)
    return InspectExport(out, len(samples), len(records), errors, mismatched)
