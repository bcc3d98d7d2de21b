"""One evaluation run, start to finish (or to interruption, then resumed).

Order of work: check the run directory against the requested configuration, load what is
already answered, answer the rest concurrently through the engine (appending each record as it
arrives), compact ``samples.jsonl``, score, and write ``metrics.json`` and ``run.json``.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
from concurrent.futures import ThreadPoolExecutor
import logging
import hashlib
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from socialbench import __version__
from socialbench.benchmarks.base import Benchmark, EvalOptions, SolveContext
from socialbench.errors import UsageError
from socialbench.models.base import Model
from socialbench.runner.cache import ResponseCache
from socialbench.runner.engine import Engine, EngineStats, RetryPolicy
from socialbench.runner.progress import RunProgress
from socialbench.runner.store import RunStore
from socialbench.types import SampleRecord
from socialbench.vision.images import ImageEncoder, ImagePolicy

log = logging.getLogger(__name__)

#: Fields of run.json that must match for a run directory to be resumed.
IDENTITY_FIELDS = (
    "benchmark", "dataset_fingerprint", "model", "model_identity", "model_options", "method",
    "strategy", "per_behavior", "options", "images", "perturb", "seed", "image_policy", "generation",
)


@dataclass(frozen=True)
class RunRequest:
    benchmark_name: str
    data: Path
    model_spec: str
    out: Path
    options: EvalOptions
    concurrency: int = 16
    retry: RetryPolicy = RetryPolicy()
    cache_path: Path | None = None
    model_options: tuple[tuple[str, str], ...] = ()  # --model-opt pairs (part of the identity)
    image_policy: ImagePolicy = ImagePolicy()
    show_progress: bool = True


@dataclass(frozen=True)
class RunResult:
    run_dir: Path
    metrics: dict[str, Any]
    stats: dict[str, Any]
    complete: bool
    interrupted: bool


def _versions() -> dict[str, str]:
    out = {"socialbench": __version__, "python": sys.version.split()[0]}
    for pkg in ("numpy", "pillow", "openai", "anthropic", "transformers", "torch"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def _git_commit() -> str | None:
    try:
        here = Path(__file__).resolve().parent
        res = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
        return res.stdout.strip() or None if res.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def _perturbation(options: EvalOptions):
    if not options.perturb:
        return None
    from socialbench.vision.perturb import make_perturbation

    return make_perturbation(options.perturb, options.perturb_strength, options.seed)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def run_eval(req: RunRequest, benchmark: Benchmark, model: Model) -> RunResult:
    """Run (or resume) an evaluation. Interrupt with Ctrl-C: answered questions are kept."""
    benchmark.check_options(req.options)
    dataset = benchmark.load(req.data, require_images=model.needs_prompt, limit=req.options.limit)
    generation = benchmark.generation_config(req.options)
    store = RunStore(req.out)
    store.lock()
    try:
        return _run_locked(req, benchmark, model, dataset, generation, store)
    finally:
        store.close()
        store.unlock()


def _run_locked(req: RunRequest, benchmark: Benchmark, model: Model, dataset: Any, generation: Any, store: RunStore) -> RunResult:
    identity = {
        "benchmark": req.benchmark_name,
        "dataset_fingerprint": benchmark.fingerprint(req.data),
        "model": model.spec,
        "model_identity": model.identity(),
        "model_options": dict(req.model_options),
        "method": req.options.method,
        "strategy": req.options.strategy,
        "per_behavior": req.options.per_behavior,
        "options": {k: req.options.extra[k] for k in sorted(req.options.extra)},
        "images": req.options.images,
        "perturb": None if req.options.perturb is None else {"name": req.options.perturb, "strength": req.options.perturb_strength},
        "seed": req.options.seed,
        "image_policy": req.image_policy.describe(),
        "generation": {
            "max_tokens": generation.max_tokens,
            "temperature": generation.temperature,
            "json_mode": generation.json_mode,
        },
    }
    previous = store.read_run()
    if previous is not None:
        clash = [f for f in IDENTITY_FIELDS if previous.get(f) != identity[f]]
        if clash:
            raise UsageError(
                f"{req.out} holds a different run ({', '.join(clash)} differ); "
                "choose a new --out folder or delete that one"
            )
    done = store.load_samples()
    order = benchmark.question_order(dataset)
    wanted = set(order)
    total = len(order)
    already = sum(1 for k, r in done.items() if k in wanted and r.error is None)
    record: dict[str, Any] = {
        **identity,
        "data": str(req.data),
        "protocol": req.options.protocol,
        "limit": req.options.limit,
        "concurrency": req.concurrency,
        "retry": {
            "max_attempts": req.retry.max_attempts,
            "base_delay_s": req.retry.base_delay_s,
            "max_delay_s": req.retry.max_delay_s,
            "timeout_s": req.retry.timeout_s,
        },
        "cache": str(req.cache_path) if req.cache_path else None,
        "versions": _versions(),
        "git_commit": _git_commit(),
        "platform": platform.platform(),
        "argv": [a for a in sys.argv[1:]],
        "status": "running",
        "started": (previous or {}).get("started", _now()),
        "sessions": list((previous or {}).get("sessions", [])) + [{"started": _now(), "resumed_from": already}],
    }
    store.write_run(record)

    cache = ResponseCache(req.cache_path) if req.cache_path else None
    progress = RunProgress(total=total, done=already, enabled=req.show_progress, label=f"{req.benchmark_name} · {model.spec}")
    stats_holder: dict[str, EngineStats] = {}
    t0 = time.perf_counter()
    interrupted = False

    preparer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="socialbench-prepare")

    async def main() -> EngineStats:
        _cancel_on_first_ctrl_c()
        engine = Engine(model, concurrency=req.concurrency, retry=req.retry, cache=cache, seed=req.options.seed, on_update=progress.update_stats)
        stats_holder["s"] = engine.stats
        encoder = ImageEncoder(req.image_policy, transform=_perturbation(req.options)) if model.needs_prompt else None
        ctx = SolveContext(
            model=model, engine=engine, store=store, done=done, encoder=encoder,
            generation=generation, options=req.options, advance=progress.advance,
            executor=preparer,
        )
        keys_of: dict[str, list[str]] = {}
        for item_id, key in order:
            keys_of.setdefault(item_id, []).append(key)

        async def solve_one(item: Any) -> None:
            try:
                await benchmark.solve(item, dataset, ctx)
            except Exception as exc:  # one broken item must not stop the others
                log.warning("%s failed: %s", item.item_id, exc)
                for key in keys_of.get(item.item_id, []):
                    if ctx.finished(item.item_id, key) is None:
                        ctx.record(SampleRecord(
                            item.item_id, key, None, None, None, "item_error", 0.0, {},
                            error_message=f"{type(exc).__name__}: {exc}",
                        ))

        try:
            await asyncio.gather(*(solve_one(item) for item in dataset.items))
        finally:
            await model.aclose()
            preparer.shutdown(wait=False, cancel_futures=True)
        return engine.stats

    with progress:
        try:
            stats = asyncio.run(main())
        except (KeyboardInterrupt, asyncio.CancelledError):
            interrupted = True
            stats = stats_holder.get("s", EngineStats())
    wall = time.perf_counter() - t0
    records = [r for r in store.compact(order) if (r.item_id, r.question_key) in wanted]
    if cache is not None:
        cache.close()
    metrics = benchmark.score(dataset, records, req.options.protocol)
    answered = {(r.item_id, r.question_key) for r in records if r.error is None}
    errors = sum(1 for r in records if r.error is not None)
    complete = len(answered) == total
    metrics["run"] = {
        "engine": stats.as_dict(),
        "wall_time_s": round(wall, 3),
        "questions": total,
        "answered": len(answered),
        "model_errors": errors,
        "missing": total - len(answered) - errors,
        "complete": complete,
    }
    store.write_metrics(metrics)
    sessions = record["sessions"]
    sessions[-1].update({"ended": _now(), "wall_time_s": round(wall, 3), "engine": stats.as_dict()})
    record.update(
        {
            "status": "interrupted" if interrupted else ("complete" if complete else "finished_with_errors"),
            "ended": _now(),
            "answered": len(answered),
            "model_errors": errors,
            "requests": sum(s.get("engine", {}).get("requests", 0) for s in sessions),
            "cache_hits": sum(s.get("engine", {}).get("cache_hits", 0) for s in sessions),
            "retries": sum(s.get("engine", {}).get("retries", 0) for s in sessions),
            "prompt_tokens": sum(s.get("engine", {}).get("prompt_tokens", 0) for s in sessions),
            "completion_tokens": sum(s.get("engine", {}).get("completion_tokens", 0) for s in sessions),
        }
    )
    store.write_run(record)
    return RunResult(req.out, metrics, stats.as_dict(), complete, interrupted)


def _cancel_on_first_ctrl_c() -> None:
    """On Python 3.10, make Ctrl-C cancel the run's main task, as ``asyncio.run`` does from
    3.11 on, instead of raising KeyboardInterrupt inside whichever coroutine is running
    (which leaves half-stepped coroutines behind and prints "Exception ignored" noise).
    A second Ctrl-C gets the default behaviour."""
    if sys.version_info >= (3, 11):
        return
    import signal

    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    if task is None:
        return

    def first() -> None:
        loop.remove_signal_handler(signal.SIGINT)
        task.cancel()

    try:
        loop.add_signal_handler(signal.SIGINT, first)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or Windows
        pass


def fingerprint_files(paths: list[Path], root: Path) -> str:
    """SHA-256 over (relative path, bytes) of label files, in sorted order."""
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(str(p.relative_to(root)).encode() + b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()
