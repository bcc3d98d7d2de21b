"""One evaluation run, start to finish (or to interruption, then resumed).

Order of work: check the run directory against the requested configuration, load what is
already answered, answer the rest concurrently through the engine (appending each record as it
arrives), compact ``samples.jsonl``, score, and write ``metrics.json`` and ``run.json``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import platform
import signal
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from socialbench.benchmarks.base import Benchmark, Dataset
from socialbench.benchmarks.options import BenchmarkOptions, EvalOptions, options_record
from socialbench.errors import StorageError, UsageError
from socialbench.messages import say
from socialbench.models.base import Model
from socialbench.models.redact import redact
from socialbench.runner.cache import ResponseCache
from socialbench.runner.engine import Engine, EngineStats, RetryPolicy
from socialbench.runner.feeding import ItemFeeder
from socialbench.runner.interrupts import CtrlC
from socialbench.runner.load_snapshot import loaded_dataset
from socialbench.runner.progress import RunProgress
from socialbench.runner.resume_checks import check_limit, clashes
from socialbench.runner.run_context import solve_context
from socialbench.runner.run_record import (
    add_up_sessions,
    close_session,
    git_commit,
    library_versions,
    now,
    record_adaptations,
)
from socialbench.runner.store import RunStore
from socialbench.types import GenerationConfig, Item, SampleRecord
from socialbench.vision.images import ImageEncoder, ImagePolicy
from socialbench.vision.prepare import ImagePreparer, PerturbSpec
from socialbench.vision.render_cache import RenderCache, seen_tag

if TYPE_CHECKING:
    from socialbench.vision.perturb import Perturbation

log = logging.getLogger(__name__)

#: Error kinds that come from the dataset, not the model: running again cannot fix them.
DATA_ERROR_KINDS = frozenset({"item_error", "missing_input"})


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
    #: None: the benchmark's own (``benchmark.image_policy(options)``), set by :func:`run_eval`.
    image_policy: ImagePolicy | None = None
    show_progress: bool = True
    #: Render cache folder (content-addressed, shared by every run); None: no render cache.
    render_cache: Path | None = None
    #: Image worker processes; None: one per core but one (see default_image_workers); 0: one thread in this process.
    image_workers: int | None = None


@dataclass(frozen=True)
class RunResult:
    run_dir: Path
    metrics: dict[str, Any]
    stats: dict[str, Any]
    complete: bool
    interrupted: bool


def _perturbation(options: EvalOptions) -> Perturbation | None:
    """The run's perturbation of inputs (images; metamorphic ones also of answers), or None."""
    if not options.perturb:
        return None
    from socialbench.vision.perturb import make_perturbation

    return make_perturbation(options.perturb, options.perturb_strength, options.seed)


def _image_perturbation(options: EvalOptions) -> PerturbSpec | None:
    """The run's image perturbation for image jobs; None when it changes no image."""
    if not options.perturb:
        return None
    from socialbench.vision.perturb import has_image_part

    if not has_image_part(options.perturb):
        return None
    return PerturbSpec(options.perturb, options.perturb_strength, options.seed)


def _check_metamorphic(benchmark: Benchmark, options: EvalOptions) -> None:
    """A perturbation that changes the right answers needs the benchmark's support."""
    if options.perturb:
        from socialbench.vision.perturb import METAMORPHIC, check_perturbation

        check_perturbation(options.perturb, options.perturb_strength)
        if options.perturb in METAMORPHIC and options.perturb not in getattr(benchmark, "metamorphic", ()):
            raise UsageError(
                f"--perturb {options.perturb} changes the prompt or the right answers and "
                f"{getattr(benchmark, 'name', 'this benchmark')} does not map them; "
                "choose an image perturbation such as blur"
            )


def run_eval(req: RunRequest, benchmark: Benchmark, model: Model) -> RunResult:
    """Run (or resume) an evaluation. Interrupt with Ctrl-C: answered questions are kept."""
    options = benchmark.check_options(req.options)
    _check_metamorphic(benchmark, req.options)
    if req.image_policy is None:  # what the benchmark's paper sends, unless --image-size said otherwise
        own = getattr(benchmark, "image_policy", None)
        req = replace(req, image_policy=own(options) if own is not None else ImagePolicy())
    if model.needs_prompt and req.render_cache is not None:
        from socialbench.vision.render_cache import check_render_cache_folder

        check_render_cache_folder(req.render_cache)
    images = (
        ImagePreparer(req.image_workers, req.render_cache, preload=getattr(benchmark, "image_modules", ()))
        if model.needs_prompt
        else None
    )
    renders = RenderCache(req.render_cache) if images is not None and req.render_cache is not None else None
    tag = seen_tag(_image_description(req)) if renders is not None else None
    # Workers that will be needed start now, so that they import the renderer while the
    # data loads: always without a render cache; with one, unless a run has already
    # prepared every image of this data and these settings (then they start at the first
    # miss, if any: a run whose images are all cached starts none).
    if images is not None and (renders is None or tag is None or not renders.has_seen(tag)):
        images.warm()
    try:
        with loaded_dataset(
            benchmark, req.data, require_images=model.needs_prompt, limit=req.options.limit, cache=req.render_cache
        ) as dataset:
            benchmark.check_run(dataset, model, req.options)  # before the run folder is made
            # the paper's settings, as the eval flags (--temperature, ...) change them
            generation = req.options.generation.apply(benchmark.generation_config(options, req.options.seed))
            store = RunStore(req.out)
            store.lock()
            try:
                result = _run_locked(req, benchmark, options, model, dataset, generation, store, images)
            finally:
                store.close()
                store.unlock()
        if renders is not None and tag is not None and result.complete and req.options.limit is None:
            renders.mark_seen(tag)
        return result
    finally:
        if images is not None:
            images.shutdown()


def _image_policy(req: RunRequest) -> ImagePolicy:
    """The run's image policy (:func:`run_eval` has set the benchmark's when none was asked for)."""
    if req.image_policy is None:
        raise AssertionError("run_eval sets the image policy before the run")
    return req.image_policy


def _image_description(req: RunRequest) -> dict[str, object]:
    """Which images a run sends, for :func:`seen_tag`: the benchmark, the dataset folder,
    the image policy and the image perturbation. Not the method nor the model (they send
    the same images); nor the benchmark's options, which a run of another image mode may
    change (the tag is only a hint of when to start the image workers)."""
    perturb = _image_perturbation(req.options)
    return {
        "benchmark": req.benchmark_name,
        "data": str(Path(req.data).resolve()),
        "image_policy": _image_policy(req).describe(),
        "perturb": None if perturb is None else perturb.describe(),
    }


def _run_locked(
    req: RunRequest,
    benchmark: Benchmark,
    options: BenchmarkOptions,
    model: Model,
    dataset: Dataset,
    generation: GenerationConfig,
    store: RunStore,
    images: ImagePreparer | None = None,
) -> RunResult:
    """Check the run folder against this run, then answer what is missing, compact, score and
    close the session in run.json."""
    identity = _run_identity(req, benchmark, options, model, generation)
    previous = store.read_run()
    if previous is None:  # no run record (new, or run.json removed): old request counts belong to no session
        store.forget_sends()
    else:
        _check_resumable(req, previous, identity, options)
    done = store.load_samples()
    order = benchmark.question_order(dataset)
    wanted = set(order)
    total = len(order)
    already = sum(1 for k, r in done.items() if k in wanted and r.error is None)
    record = _session_record(req, identity, options, previous, already)
    session = len(record["sessions"]) - 1  # this session's number in requests.log
    cache = ResponseCache(req.cache_path) if req.cache_path else None  # before run.json: a bad --cache changes nothing
    add_up_sessions(record, store)  # sessions killed earlier get their true request counts
    progress = RunProgress(
        total=total, done=already, enabled=req.show_progress, label=f"{req.benchmark_name} · {model.spec}"
    )
    stats_holder: dict[str, EngineStats] = {}
    t0 = time.perf_counter()

    def quit_now() -> None:
        """Third Ctrl-C: mark run.json interrupted and exit 130 at once (answers are on disk)."""
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        progress.__exit__(None, None, None)
        try:
            close_session(record, store, "interrupted", stats_holder.get("s", EngineStats()), time.perf_counter() - t0)
        except Exception:  # quitting anyway; the next run recounts from requests.log
            pass
        say("interrupted: answered questions are saved; run the same command again to resume")
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)

    ctrl_c = CtrlC(quit_now)
    with ctrl_c:
        try:
            store.write_run(record)
            preparer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="socialbench-prepare")

            async def main() -> EngineStats:
                ctrl_c.attach()
                feeder: ItemFeeder[Item] = ItemFeeder(
                    lambda: engine.backlog,
                    lookahead=2 * req.concurrency,
                    prefetch=(images.workers if images is not None else 0) + 1,
                    key=lambda item: str(item.item_id),
                )
                engine = Engine(
                    model,
                    concurrency=req.concurrency,
                    retry=req.retry,
                    cache=cache,
                    seed=req.options.seed,
                    on_update=progress.update_stats,
                    on_send=lambda attempt: store.count_send(session, attempt),
                    on_slot=feeder.room_changed,
                )
                stats_holder["s"] = engine.stats
                encoder = (
                    ImageEncoder(_image_policy(req), transform=_perturbation(req.options))
                    if model.needs_prompt
                    else None
                )
                ctx = solve_context(
                    engine,
                    feeder,
                    store,
                    done,
                    progress,
                    preparer,
                    images,
                    options=options,
                    generation=generation,
                    needs_prompt=model.needs_prompt,
                    encoder=encoder,
                    perturb=_image_perturbation(req.options),
                    seed=req.options.seed,
                )
                keys_of: dict[str, list[str]] = {}
                for item_id, key in order:
                    keys_of.setdefault(item_id, []).append(key)

                async def solve_one(item: Item) -> None:
                    try:
                        await benchmark.solve(item, dataset, ctx)
                    except StorageError:  # the disk failed: stop the run, every item would fail the same way
                        raise
                    except Exception as exc:  # one broken item must not stop the others
                        log.warning("%s failed: %s", item.item_id, exc)
                        for key in keys_of.get(item.item_id, []):
                            if ctx.finished(item.item_id, key) is None:
                                ctx.record(
                                    SampleRecord(
                                        item.item_id,
                                        key,
                                        None,
                                        None,
                                        None,
                                        "item_error",
                                        0.0,
                                        {},
                                        error_message=f"{type(exc).__name__}: {exc}",
                                    )
                                )

                try:
                    await feeder.run(dataset.items, solve_one)
                finally:
                    ctrl_c.detach()
                    await model.aclose()
                    preparer.shutdown(wait=False, cancel_futures=True)
                return engine.stats

            with progress:
                try:
                    stats = asyncio.run(main())
                except (KeyboardInterrupt, asyncio.CancelledError):
                    stats = stats_holder.get("s", EngineStats())
                finally:
                    preparer.shutdown(wait=True)  # no worker left for the interpreter to join at exit
            wall = time.perf_counter() - t0
            metrics = _score_run(req, benchmark, dataset, store, order, stats, wall)
            store.write_metrics(metrics)
            counts = metrics["run"]
            complete = bool(counts["complete"])
            # Ctrl-C that came when every question was already answered interrupted nothing.
            interrupted = ctrl_c.interrupted and not complete
            record.update({"answered": counts["answered"], "model_errors": counts["model_errors"]})
            record_adaptations(record, model)
            close_session(
                record,
                store,
                "interrupted" if interrupted else ("complete" if complete else "finished_with_errors"),
                stats,
                wall,
            )
            sent = {"requests_by_cause": record["sessions"][-1].get("requests_by_cause", {})}
            return RunResult(req.out, metrics, {**stats.as_dict(), **sent}, complete, interrupted)
        except StorageError as exc:
            record["error"] = str(exc)
            try:  # the disk may refuse this too; run.json then keeps "running" and resuming still works
                close_session(record, store, "failed", stats_holder.get("s", EngineStats()), time.perf_counter() - t0)
            except StorageError:
                pass
            raise
        finally:
            if cache is not None:
                cache.close()


def _run_identity(
    req: RunRequest, benchmark: Benchmark, options: BenchmarkOptions, model: Model, generation: GenerationConfig
) -> dict[str, Any]:
    """What makes a run folder this run: a resumed folder must hold the same identity."""
    own, details = options_record(options)  # the benchmark's options: run.json's top level and "options"
    return {
        "benchmark": req.benchmark_name,
        "dataset_fingerprint": benchmark.fingerprint(req.data),
        "model": model.spec,
        "model_identity": model.identity(),
        "model_options": redact(dict(req.model_options)),
        **own,
        "options": details,
        "perturb": None
        if req.options.perturb is None
        else {"name": req.options.perturb, "strength": req.options.perturb_strength},
        "seed": req.options.seed,
        "image_policy": _image_policy(req).describe(),
        # what is sent (a setting left out is not sent: the server's default applies)
        "generation": generation.settings(),
    }


def _check_resumable(
    req: RunRequest, previous: dict[str, Any], identity: dict[str, Any], options: BenchmarkOptions
) -> None:
    """:class:`UsageError` when the folder's run.json (``previous``) is another run, an
    --epochs run, or a run whose --limit this one cannot resume."""
    if "epoch_dirs" in previous:
        raise UsageError(
            f"{req.out} holds runs made with --epochs (in {req.out}/epoch-E); "
            "run the same --epochs command to resume them, or choose a new --out folder"
        )
    clash = clashes(previous, identity, options)
    if clash:
        hint = ""
        if "image_policy" in clash:  # e.g. a SocialNav-SUB run made before 512x512 was its default
            hint = f" (its images: {_policy_words(previous.get('image_policy'))}; --image-size sets this run's)"
        raise UsageError(
            f"{req.out} holds a different run ({', '.join(clash)} differ){hint}; "
            "choose a new --out folder or delete that one"
        )
    check_limit(previous.get("limit"), req.options.limit, req.out)


def _policy_words(doc: object) -> str:
    """A recorded image policy in words (``longest side 768 px (aspect kept), JPEG quality 90``)."""
    try:
        return ImagePolicy(**doc).label() if isinstance(doc, dict) else "not recorded"
    except (TypeError, ValueError):
        return "an unreadable image policy"


def _session_record(
    req: RunRequest, identity: dict[str, Any], options: BenchmarkOptions, previous: dict[str, Any] | None, already: int
) -> dict[str, Any]:
    """run.json for this session: the identity, how it runs, and the sessions so far."""
    record: dict[str, Any] = {
        **identity,
        "variant": options.variant(req.options.perturbation),
        "data": str(req.data),
        "protocol": req.options.protocol,
        "limit": req.options.limit,
        "concurrency": req.concurrency,
        "retry": asdict(req.retry),
        "cache": str(req.cache_path) if req.cache_path else None,
        "render_cache": str(req.render_cache) if req.render_cache else None,
        "versions": library_versions(),
        "git_commit": git_commit(),
        "platform": platform.platform(),
        "argv": redact(sys.argv[1:]),  # credentials in URLs masked
        "status": "running",
        "started": (previous or {}).get("started", now()),
        "sessions": list((previous or {}).get("sessions", [])) + [{"started": now(), "resumed_from": already}],
    }
    if previous is not None and isinstance(previous.get("generation_adapted"), dict):
        record["generation_adapted"] = dict(previous["generation_adapted"])  # learnt by earlier sessions
    for name in ("images_seen", "images_check"):  # found by an earlier session's images probe
        if previous is not None and name in previous:
            record[name] = previous[name]
    return record


def _score_run(
    req: RunRequest,
    benchmark: Benchmark,
    dataset: Dataset,
    store: RunStore,
    order: Sequence[tuple[str, str]],
    stats: EngineStats,
    wall: float,
) -> dict[str, Any]:
    """metrics.json: the benchmark's scores of the compacted records of ``order``, and the
    run's counts (answered, model errors by kind, missing) under ``run``."""
    wanted = set(order)
    total = len(order)
    records = [r for r in store.compact(order) if (r.item_id, r.question_key) in wanted]
    metrics = benchmark.score(dataset, records, req.options.protocol).to_json()
    metrics["benchmark"] = req.benchmark_name  # as run: socialnav-sim, not the socialnav-sub that scores it
    answered = {(r.item_id, r.question_key) for r in records if r.error is None}
    errors = sum(1 for r in records if r.error is not None)
    metrics["run"] = {
        "engine": stats.as_dict(),
        "wall_time_s": round(wall, 3),
        "questions": total,
        "answered": len(answered),
        "model_errors": errors,
        "error_kinds": dict(sorted(Counter(r.error for r in records if r.error is not None).items())),
        # failures cut off at the token limit (a reasoning model that spent it thinking): a
        # larger --max-tokens, not another run, answers them
        "errors_truncated": sum(1 for r in records if r.error is not None and r.truncated),
        "missing": total - len(answered) - errors,
        "complete": len(answered) == total,
    }
    return metrics
