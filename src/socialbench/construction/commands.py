"""``socialbench build ...``: the RobotEQ-Data construction pipeline, one command per stage.

``register(app)`` adds a ``build`` sub-app. Every stage works in one folder (``--work``,
default ``build``) with fixed file names, reads the previous stage's JSONL and appends to its
own; rerunning a command resumes it (finished ids are skipped, failures retried). Exit
codes: 0 done; 1 usage or data error; 2 the stage finished but some records failed (they are
in ``<output>.failures.jsonl``; run the same command again to retry them).

Files in the work folder::

    taxonomy.yaml, taxonomy.jsonl               taxonomy
    scenarios/beams.jsonl, scenarios/merged.jsonl,
    scenarios.jsonl, scenarios.removed.jsonl    scenarios
    image_prompts.jsonl                         image-prompts
    images.jsonl, images/<id>/round<r>.png|json images
    review_steps.jsonl, review.jsonl            review
    behaviors.jsonl                             behaviors
    annotation/<kind>/tasks.json, config.xml    annotate export
    annotation/<kind>/annotations.jsonl         annotate import
    aggregated/*.jsonl, aggregated/agreement.json  aggregate
    overlays/*.png, grounding_items.jsonl       overlays
    real/*, real_images.jsonl                   real-images
    summaries/<stage>.json                      every stage (report)
"""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from pathlib import Path
from typing import Annotated, Any, Callable, List, Optional

import typer
from rich.console import Console

from socialbench.construction.jsonl import (
    StageOutput,
    StageSummary,
    read_jsonl,
    write_jsonl,
    write_summary,
)
from socialbench.construction.llm import LLMSettings, close_engine, fill_summary, open_engine, run_stage_tasks
from socialbench.errors import UsageError
from socialbench.types import GenerationConfig

__all__ = ["register", "build_app"]

# soft_wrap: a line is never broken at the terminal width, so paths reach pipes and logs whole
err = Console(stderr=True, soft_wrap=True)
out = Console(soft_wrap=True)

build_app = typer.Typer(no_args_is_help=True, help="Build a RobotEQ-style dataset: one resumable command per stage.")
annotate_app = typer.Typer(no_args_is_help=True, help="Label Studio tasks and configs; import of exports.")
build_app.add_typer(annotate_app, name="annotate")

Work = Annotated[Path, typer.Option("--work", "-w", help="Work folder shared by all stages.")]
Model = Annotated[str, typer.Option("--model", "-m", help="Chat/VLM model spec, e.g. openai:gpt-4o or openai:NAME@http://host:8000/v1.")]
Concurrency = Annotated[int, typer.Option(help="Model calls in flight.")]
Timeout = Annotated[float, typer.Option(help="Seconds per model call.")]
MaxAttempts = Annotated[int, typer.Option(help="Transport attempts per call (429/5xx/timeouts are retried).")]
ParseRetries = Annotated[int, typer.Option(help="Repair requests after invalid JSON or missing fields.")]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Do not use <work>/llm_cache.sqlite3.")]
ModelOpt = Annotated[Optional[List[str]], typer.Option("--model-opt", help="Backend option KEY=VALUE (repeatable).")]
PriceIn = Annotated[Optional[float], typer.Option(help="USD per 1M prompt tokens (for the cost report).")]
PriceOut = Annotated[Optional[float], typer.Option(help="USD per 1M completion tokens.")]
Progress = Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar.")]
RetryDelay = Annotated[float, typer.Option(help="Base backoff (s) before retrying a failed image call.")]
InPath = Annotated[Optional[Path], typer.Option("--in", help="Input JSONL (default: the previous stage's file in --work).")]


def register(app: typer.Typer) -> None:
    """Add the ``build`` command group to ``app``."""
    app.add_typer(build_app, name="build")


# --------------------------------------------------------------------------- helpers


def _settings(model: str, work: Path, *, concurrency: int, timeout: float, max_attempts: int, parse_retries: int,
              no_cache: bool, model_opt: Optional[List[str]], price_in: Optional[float], price_out: Optional[float],
              progress: bool, temperature: float, max_tokens: int, base_delay_s: float = 1.0) -> LLMSettings:
    opts = []
    for p in model_opt or []:
        k, sep, v = p.partition("=")
        if not sep or not k:
            raise UsageError(f"--model-opt takes KEY=VALUE (got {p!r})")
        opts.append((k.strip(), v.strip()))
    return LLMSettings(
        model=model, concurrency=concurrency, timeout_s=timeout, max_attempts=max_attempts, parse_retries=parse_retries,
        cache=None if no_cache else work / "llm_cache.sqlite3", model_opts=tuple(opts), price_in=price_in,
        price_out=price_out, progress=progress, temperature=temperature, max_tokens=max_tokens, base_delay_s=base_delay_s,
    )


def _config(s: LLMSettings, temperature: float | None = None) -> GenerationConfig:
    return GenerationConfig(max_tokens=s.max_tokens, temperature=s.temperature if temperature is None else temperature, json_mode=True)


def _finish(work: Path, summary: StageSummary, outputs: list[StageOutput], t0: float) -> None:
    """Fill failure counts, write the summary, print a line, exit 2 on open failures."""
    failures = [f for o in outputs for f in o.open_failures()]
    summary.n_failed = len(failures)
    kinds: dict[str, int] = {}
    for f in failures:
        kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
    summary.failure_kinds = kinds
    summary.wall_s = round(time.perf_counter() - t0, 3)
    write_summary(work, summary)
    removed = ", ".join(f"{k} {v}" for k, v in summary.removed.items())
    out.print(f"{summary.stage}: {summary.n_out} records in {summary.output} ({summary.n_new} new, {summary.n_skipped} resumed"
              + (f", removed: {removed}" if removed else "") + ")", markup=False, highlight=False)
    for note in summary.notes:
        out.print(f"  note: {note}", markup=False, highlight=False)
    if failures:
        err.print(f"{summary.stage}: {len(failures)} record(s) failed ({', '.join(f'{k} {v}' for k, v in kinds.items())}); "
                  f"see {', '.join(str(o.failures) for o in outputs)}; run the same command again to retry them",
                  markup=False, highlight=False)
        raise typer.Exit(2)


def _rel(work: Path, path: Path) -> str:
    try:
        return path.relative_to(work).as_posix()
    except ValueError:
        return str(path)


async def _with_engine(settings: LLMSettings, body: Callable[[Any], Any]) -> Any:
    engine = open_engine(settings)
    try:
        return await body(engine)
    finally:
        await close_engine(engine)


def _run_llm_stage(*, stage: str, work: Path, inp: Path, output: Path, settings: LLMSettings,
                   make_tasks: Callable[[list[dict[str, Any]], dict[str, int], StageOutput], list[Any]],
                   to_records: Callable[[Any], list[dict[str, Any]]], records: list[dict[str, Any]] | None = None) -> None:
    t0 = time.perf_counter()
    rows = records if records is not None else read_jsonl(inp)
    so = StageOutput(output, stage)
    summary = StageSummary(stage=stage, input=_rel(work, inp), output=_rel(work, output), n_in=len(rows),
                           models={"model": settings.model})
    summary.n_skipped = sum(1 for r in rows if r["id"] in so.done)
    tasks = make_tasks([r for r in rows if r["id"] not in so.done], so.failure_counts(), so)

    async def body(engine: Any) -> None:
        stats = await run_stage_tasks(engine, tasks, so, to_records, parse_retries=settings.parse_retries,
                                      progress=settings.progress, label=stage)
        fill_summary(summary, engine, stats, settings)

    asyncio.run(_with_engine(settings, body))
    summary.n_new = so.written
    summary.n_out = len(so.done)
    _finish(work, summary, [so], t0)


# --------------------------------------------------------------------------- taxonomy


@build_app.command("taxonomy")
def taxonomy_cmd(
    work: Work = Path("build"),
    taxonomy: Annotated[Optional[Path], typer.Option(help="Your taxonomy YAML (default: the shipped 10 x 56 one).")] = None,
    force: Annotated[bool, typer.Option(help="Replace <work>/taxonomy.yaml with --taxonomy.")] = False,
) -> None:
    """Write the editable taxonomy (<work>/taxonomy.yaml) and taxonomy.jsonl (one row per subcategory)."""
    from socialbench.construction.taxonomy import copy_shipped_taxonomy, load_taxonomy, taxonomy_records

    t0 = time.perf_counter()
    work.mkdir(parents=True, exist_ok=True)
    dest = work / "taxonomy.yaml"
    if taxonomy is not None:
        load_taxonomy(taxonomy)  # check before copying
        if dest.exists() and not force and dest.resolve() != taxonomy.resolve():
            raise UsageError(f"{dest} exists; pass --force to replace it with {taxonomy}")
        if dest.resolve() != taxonomy.resolve():
            shutil.copyfile(taxonomy, dest)
    else:
        copy_shipped_taxonomy(dest)
    tax = load_taxonomy(dest)
    rows = taxonomy_records(tax)
    write_jsonl(work / "taxonomy.jsonl", rows)
    summary = StageSummary(stage="taxonomy", input=_rel(work, dest), output="taxonomy.jsonl", n_in=len(tax.categories),
                           n_out=len(rows), n_new=len(rows),
                           notes=[f"{len(tax.categories)} categories, {len(rows)} subcategories; edit {dest} and rerun to change them"])
    _finish(work, summary, [], t0)


# --------------------------------------------------------------------------- scenarios


@build_app.command("scenarios")
def scenarios_cmd(
    model: Model,
    work: Work = Path("build"),
    merge_model: Annotated[Optional[str], typer.Option(help="Model for the merge (deduplication) phase; the paper uses a different model family. Default: --model.")] = None,
    beams: Annotated[int, typer.Option(help="Independent beam requests per subcategory.")] = 10,
    k: Annotated[int, typer.Option("-k", "--per-beam", help="Scenarios each beam must return (at least).")] = 10,
    only: Annotated[Optional[str], typer.Option(help="Comma-separated subcategory ids to generate (default: all).")] = None,
    similarity: Annotated[str, typer.Option(help="Local near-duplicate filter: ngram, minhash or embedding.")] = "ngram",
    threshold: Annotated[float, typer.Option(help="Similarity at or above which a later scenario is a near-duplicate.")] = 0.5,
    scope: Annotated[str, typer.Option(help="Compare scenarios within each subcategory or across all.")] = "subcategory",
    embedding_model: Annotated[Optional[str], typer.Option(help="sentence-transformers model name or path (with --similarity embedding).")] = None,
    temperature: Annotated[float, typer.Option(help="Sampling temperature of the beam phase.")] = 0.9,
    max_tokens: Annotated[int, typer.Option(help="Max completion tokens per request.")] = 8192,
    concurrency: Concurrency = 8, timeout: Timeout = 300.0, max_attempts: MaxAttempts = 4,
    parse_retries: ParseRetries = 2, no_cache: NoCache = False, model_opt: ModelOpt = None,
    price_in: PriceIn = None, price_out: PriceOut = None, progress: Progress = False,
) -> None:
    """Beam-merge scenario generation plus the local near-duplicate filter."""
    from socialbench.construction import scenarios as sc

    t0 = time.perf_counter()
    subs = read_jsonl(work / "taxonomy.jsonl")
    if only:
        wanted = {s.strip() for s in only.split(",") if s.strip()}
        unknown = wanted - {s["id"] for s in subs}
        if unknown:
            raise UsageError(f"--only names unknown subcategories: {', '.join(sorted(unknown))} (see {work / 'taxonomy.jsonl'})")
        subs = [s for s in subs if s["id"] in wanted]
    common = dict(concurrency=concurrency, timeout=timeout, max_attempts=max_attempts, parse_retries=parse_retries,
                  no_cache=no_cache, model_opt=model_opt, price_in=price_in, price_out=price_out, progress=progress,
                  max_tokens=max_tokens)
    beam_s = _settings(model, work, temperature=temperature, **common)
    merge_s = _settings(merge_model or model, work, temperature=0.0, **common)
    embed = None
    if similarity == "embedding":
        if not embedding_model:
            raise UsageError("--similarity embedding needs --embedding-model NAME_OR_PATH")
        try:
            from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]
        except ImportError:
            raise UsageError("--similarity embedding needs `pip install sentence-transformers`; or use ngram") from None
        st_model = SentenceTransformer(embedding_model)
        embed = lambda texts: st_model.encode(list(texts), normalize_embeddings=True)  # noqa: E731

    beams_out = StageOutput(work / "scenarios" / "beams.jsonl", "scenarios-beam")
    merged_out = StageOutput(work / "scenarios" / "merged.jsonl", "scenarios-merge")
    summary = StageSummary(stage="scenarios", input="taxonomy.jsonl", output="scenarios.jsonl", n_in=len(subs),
                           models={"beam": beam_s.model, "merge": merge_s.model})
    n_beams_before = len(beams_out.done)
    summary.n_skipped = sum(1 for s in subs if s["id"] in merged_out.done)

    async def run() -> None:
        engine = open_engine(beam_s)
        try:
            tasks = sc.beam_tasks(subs, beams=beams, k=k, config=_config(beam_s), salts=beams_out.failure_counts())
            stats = await run_stage_tasks(engine, tasks, beams_out, sc.beam_records, parse_retries=parse_retries,
                                          progress=progress, label="beams")
            fill_summary(summary, engine, stats, beam_s)
        finally:
            await close_engine(engine)
        beam_recs: dict[str, list[dict[str, Any]]] = {}
        for rec in beams_out.records():
            beam_recs.setdefault(rec["subcategory_id"], []).append(rec)
        ready = {}
        for s in subs:
            have = [r for r in beam_recs.get(s["id"], []) if r["beam"] < beams]
            if len(have) == beams:
                ready[s["id"]] = have
            elif s["id"] not in merged_out.done:
                summary.notes.append(f"{s['id']}: {len(have)} of {beams} beams done; merge waits for a rerun")
        engine = open_engine(merge_s)
        try:
            mtasks = [t for t in sc.merge_tasks(subs, ready, _config(merge_s), salts=merged_out.failure_counts())
                      if t.id not in merged_out.done]
            stats = await run_stage_tasks(engine, mtasks, merged_out, sc.merge_records, parse_retries=parse_retries,
                                          progress=progress, label="merge")
            fill_summary(summary, engine, stats, merge_s)
        finally:
            await close_engine(engine)

    asyncio.run(run())
    order = {s["id"]: i for i, s in enumerate(read_jsonl(work / "taxonomy.jsonl"))}
    merged = sorted(merged_out.records(), key=lambda r: order.get(r["id"], len(order)))
    by_id = {s["id"]: s for s in read_jsonl(work / "taxonomy.jsonl")}
    final, removed = sc.dedup_scenarios(merged, by_id, threshold=threshold, method=similarity, scope=scope, embed=embed)
    write_jsonl(work / "scenarios.jsonl", final)
    write_jsonl(work / "scenarios.removed.jsonl", removed)
    for r in removed:
        summary.removed[r["reason"]] = summary.removed.get(r["reason"], 0) + 1
    summary.n_new = len(beams_out.done) - n_beams_before
    summary.n_out = len(final)
    summary.notes.append(f"{len(beams_out.done)} beams, {len(merged_out.done)} merged subcategories, {len(final)} scenarios "
                         f"after removing {len(removed)} duplicates (see scenarios.removed.jsonl)")
    if merge_s.model == beam_s.model:
        summary.notes.append("the merge used the beam model; the paper uses a different model family (--merge-model)")
    _finish(work, summary, [beams_out, merged_out], t0)


# --------------------------------------------------------------------------- image prompts


@build_app.command("image-prompts")
def image_prompts_cmd(
    model: Model,
    work: Work = Path("build"),
    inp: InPath = None,
    temperature: Annotated[float, typer.Option()] = 0.3,
    max_tokens: Annotated[int, typer.Option()] = 2048,
    concurrency: Concurrency = 8, timeout: Timeout = 120.0, max_attempts: MaxAttempts = 4,
    parse_retries: ParseRetries = 2, no_cache: NoCache = False, model_opt: ModelOpt = None,
    price_in: PriceIn = None, price_out: PriceOut = None, progress: Progress = False,
) -> None:
    """Scenario -> robot first-person visual prompt (layout, people, gaze, posture, cues)."""
    from socialbench.construction import image_prompts as ip

    s = _settings(model, work, concurrency=concurrency, timeout=timeout, max_attempts=max_attempts,
                  parse_retries=parse_retries, no_cache=no_cache, model_opt=model_opt, price_in=price_in,
                  price_out=price_out, progress=progress, temperature=temperature, max_tokens=max_tokens)
    _run_llm_stage(stage="image-prompts", work=work, inp=inp or work / "scenarios.jsonl", output=work / "image_prompts.jsonl",
                   settings=s, make_tasks=lambda rows, salts, _out: ip.image_prompt_tasks(rows, _config(s), salts),
                   to_records=ip.image_prompt_records)


# --------------------------------------------------------------------------- images


ImageModel = Annotated[str, typer.Option("--image-model", help="Images API model: MODEL[@BASE_URL], e.g. gpt-image-1 or name@http://127.0.0.1:9000/v1.")]


def _image_settings(image_model: str, size: Optional[str], quality: Optional[str], response_format: str, api_key_env: str,
                    timeout: float, max_attempts: int, concurrency: int, price_per_image: Optional[float], progress: bool,
                    base_delay_s: float = 2.0):
    from socialbench.construction.images import ImageSettings

    if response_format not in ("b64_json", "url", "none"):
        raise UsageError("--response-format must be b64_json, url or none")
    return ImageSettings(model=image_model, size=size, quality=quality,
                         response_format=None if response_format == "none" else response_format, api_key_env=api_key_env,
                         timeout_s=timeout, max_attempts=max_attempts, concurrency=concurrency,
                         price_per_image=price_per_image, progress=progress, base_delay_s=base_delay_s)


@build_app.command("images")
def images_cmd(
    image_model: ImageModel,
    work: Work = Path("build"),
    inp: InPath = None,
    size: Annotated[Optional[str], typer.Option(help="e.g. 1536x1024 (default: the server's).")] = None,
    quality: Annotated[Optional[str], typer.Option()] = None,
    response_format: Annotated[str, typer.Option(help="b64_json, url, or none (omit; gpt-image models always return b64_json).")] = "b64_json",
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the API key.")] = "OPENAI_API_KEY",
    concurrency: Concurrency = 4, timeout: Timeout = 300.0, max_attempts: MaxAttempts = 4,
    price_per_image: Annotated[Optional[float], typer.Option(help="USD per generated image (cost report).")] = None,
    retry_delay: RetryDelay = 2.0,
    progress: Progress = False,
) -> None:
    """One candidate image per visual prompt, saved with provenance."""
    from socialbench.construction.images import ImageClient, generate_images

    t0 = time.perf_counter()
    settings = _image_settings(image_model, size, quality, response_format, api_key_env, timeout, max_attempts,
                               concurrency, price_per_image, progress, retry_delay)
    src = inp or work / "image_prompts.jsonl"
    rows = read_jsonl(src)
    so = StageOutput(work / "images.jsonl", "images")
    summary = StageSummary(stage="images", input=_rel(work, src), output="images.jsonl", n_in=len(rows),
                           n_skipped=sum(1 for r in rows if r["id"] in so.done), models={"image": image_model})

    async def run() -> dict[str, int]:
        client = ImageClient(settings)
        try:
            counts = await generate_images(rows, work, so, client, progress=progress)
            summary.requests = client.calls
            summary.retries = client.retries
            return counts
        finally:
            await client.aclose()

    counts = asyncio.run(run())
    summary.images_generated = counts["generated"]
    if price_per_image is not None:
        summary.cost_usd = price_per_image * counts["generated"]
    summary.n_new, summary.n_out = so.written, len(so.done)
    _finish(work, summary, [so], t0)


# --------------------------------------------------------------------------- review


@build_app.command("review")
def review_cmd(
    model: Model,
    image_model: ImageModel,
    work: Work = Path("build"),
    inp: InPath = None,
    max_rounds: Annotated[int, typer.Option(help="Edit rounds per image at most.")] = 2,
    optional_edits: Annotated[bool, typer.Option(help="Also edit images that only failed Soft criteria.")] = False,
    no_edit: Annotated[bool, typer.Option("--no-edit", help="Review only; never call the edit endpoint.")] = False,
    size: Annotated[Optional[str], typer.Option()] = None,
    response_format: Annotated[str, typer.Option()] = "b64_json",
    api_key_env: Annotated[str, typer.Option()] = "OPENAI_API_KEY",
    image_concurrency: Annotated[int, typer.Option(help="Edit calls in flight.")] = 4,
    price_per_image: Annotated[Optional[float], typer.Option(help="USD per edited image.")] = None,
    retry_delay: RetryDelay = 2.0,
    max_tokens: Annotated[int, typer.Option()] = 2048,
    concurrency: Concurrency = 8, timeout: Timeout = 300.0, max_attempts: MaxAttempts = 4,
    parse_retries: ParseRetries = 2, no_cache: NoCache = False, model_opt: ModelOpt = None,
    price_in: PriceIn = None, price_out: PriceOut = None, progress: Progress = False,
) -> None:
    """VLM review on the 7 criteria of Table 3; mandatory revisions through the edit endpoint."""
    from socialbench.construction.images import ImageClient
    from socialbench.construction.llm import cost_usd
    from socialbench.construction.review import ReviewOptions, review_images

    t0 = time.perf_counter()
    s = _settings(model, work, concurrency=concurrency, timeout=timeout, max_attempts=max_attempts,
                  parse_retries=parse_retries, no_cache=no_cache, model_opt=model_opt, price_in=price_in,
                  price_out=price_out, progress=progress, temperature=0.0, max_tokens=max_tokens)
    isettings = _image_settings(image_model, size, None, response_format, api_key_env, timeout, max_attempts,
                                image_concurrency, price_per_image, progress, retry_delay)
    src = inp or work / "images.jsonl"
    rows = read_jsonl(src)
    steps = StageOutput(work / "review_steps.jsonl", "review-steps")
    so = StageOutput(work / "review.jsonl", "review")
    summary = StageSummary(stage="review", input=_rel(work, src), output="review.jsonl", n_in=len(rows),
                           n_skipped=sum(1 for r in rows if r["id"] in so.done),
                           models={"reviewer": model, "editor": image_model})
    opts = ReviewOptions(max_rounds=max_rounds, optional_edits=optional_edits, parse_retries=parse_retries,
                         max_tokens=max_tokens, progress=progress)

    async def run() -> dict[str, Any]:
        engine = open_engine(s)
        editor = None if no_edit else ImageClient(isettings)
        try:
            counts = await review_images(rows, work, steps, so, engine, editor, opts)
            summary.requests = engine.stats.requests + (editor.calls if editor else 0)
            summary.retries = engine.stats.retries + (editor.retries if editor else 0)
            summary.cache_hits = engine.stats.cache_hits
            return counts
        finally:
            await close_engine(engine)
            if editor is not None:
                await editor.aclose()

    counts = asyncio.run(run())
    b = counts["batch"]
    summary.parse_retries = b.parse_retries
    summary.prompt_tokens, summary.completion_tokens = b.prompt_tokens, b.completion_tokens
    summary.images_edited = counts["edits"]
    cost = cost_usd(b.prompt_tokens, b.completion_tokens, price_in, price_out)
    if price_per_image is not None:
        cost = (cost or 0.0) + price_per_image * counts["edits"]
    summary.cost_usd = cost
    statuses: dict[str, int] = {}
    for r in so.records():
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    if statuses.get("rejected"):
        summary.removed["rejected_after_max_rounds"] = statuses["rejected"]
    summary.notes.append(f"{counts['reviews']} reviews and {counts['edits']} edits this run; status: "
                         + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
    summary.n_new, summary.n_out = so.written, len(so.done)
    _finish(work, summary, [so], t0)


# --------------------------------------------------------------------------- behaviors


@build_app.command("behaviors")
def behaviors_cmd(
    model: Model,
    work: Work = Path("build"),
    source: Annotated[str, typer.Option(help="Scenes from review, verification (aggregated human choice), images or real-images.")] = "review",
    inp: InPath = None,
    proper: Annotated[int, typer.Option(help="Proper candidates per scene, at least.")] = 3,
    improper: Annotated[int, typer.Option(help="Improper candidates per scene, at least.")] = 3,
    include_rejected: Annotated[bool, typer.Option(help="Also use images the review rejected.")] = False,
    temperature: Annotated[float, typer.Option()] = 0.7,
    max_tokens: Annotated[int, typer.Option()] = 4096,
    concurrency: Concurrency = 8, timeout: Timeout = 180.0, max_attempts: MaxAttempts = 4,
    parse_retries: ParseRetries = 2, no_cache: NoCache = False, model_opt: ModelOpt = None,
    price_in: PriceIn = None, price_out: PriceOut = None, progress: Progress = False,
) -> None:
    """Candidate next actions per scene image (proper and improper, with suggested facets)."""
    from PIL import Image

    from socialbench.construction import behaviors as bh
    from socialbench.vision.images import ImagePolicy, prepare_image

    defaults = {"review": "review.jsonl", "verification": "aggregated/verification.jsonl", "images": "images.jsonl",
                "real-images": "real_images.jsonl"}
    if source not in defaults:
        raise UsageError(f"--source must be one of {', '.join(defaults)}")
    src = inp or work / defaults[source]
    rows = read_jsonl(src)
    if source == "verification":
        scenes = [{"id": r["id"], "image": r["image"], "subset": "synthetic", "scenario": r.get("scenario") or {}} for r in rows]
    else:
        scenes = bh.scene_inputs(rows, source, include_rejected=include_rejected)
    s = _settings(model, work, concurrency=concurrency, timeout=timeout, max_attempts=max_attempts,
                  parse_retries=parse_retries, no_cache=no_cache, model_opt=model_opt, price_in=price_in,
                  price_out=price_out, progress=progress, temperature=temperature, max_tokens=max_tokens)
    policy = ImagePolicy()

    def make_tasks(pending: list[dict[str, Any]], salts: dict[str, int], output: StageOutput) -> list[Any]:
        images, readable = {}, []
        for sc in pending:
            try:
                with Image.open(work / sc["image"]) as img:
                    img.load()
                    images[sc["id"]] = prepare_image(img, policy)
            except (OSError, ValueError, Image.DecompressionBombError) as exc:
                # one bad image fails its scene only; the rerun retries it
                output.fail(sc["id"], "unreadable_image",
                            f"cannot read scene image {work / sc['image']}: {exc} (fix the image of {sc['id']} "
                            "or rerun the stage that made it, then run this command again)", image=sc["image"])
                continue
            readable.append(sc)
        return bh.behavior_tasks(readable, images, n_proper=proper, n_improper=improper, config=_config(s), salts=salts)

    _run_llm_stage(stage="behaviors", work=work, inp=src, output=work / "behaviors.jsonl", settings=s,
                   make_tasks=make_tasks, to_records=bh.behavior_records, records=scenes)


# --------------------------------------------------------------------------- annotation


@annotate_app.command("export")
def annotate_export_cmd(
    kind: Annotated[str, typer.Option(help="verification, judgment or grounding.")],
    work: Work = Path("build"),
    inp: InPath = None,
    image_refs: Annotated[str, typer.Option(help="How tasks point at images: local-files, prefix or data-uri.")] = "local-files",
    prefix: Annotated[str, typer.Option(help="URL prefix for --image-refs prefix.")] = "",
    document_root: Annotated[Optional[Path], typer.Option(help="LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT (default: --work).")] = None,
    prefill_facets: Annotated[bool, typer.Option(help="Pre-fill suggested facets as a prediction (judgment).")] = True,
) -> None:
    """Write <work>/annotation/<kind>/tasks.json and config.xml for Label Studio."""
    from socialbench.construction import annotation as an

    t0 = time.perf_counter()
    defaults = {"verification": "review.jsonl", "judgment": "behaviors.jsonl", "grounding": "grounding_items.jsonl"}
    if kind not in defaults:
        raise UsageError(f"--kind must be one of {', '.join(defaults)}")
    if image_refs == "prefix" and not prefix:
        raise UsageError("--image-refs prefix needs --prefix URL")
    src = inp or work / defaults[kind]
    rows = read_jsonl(src)
    refs = an.ImageRefs(mode=image_refs, work=work, document_root=document_root, prefix=prefix)
    if kind == "verification":
        tasks = an.verification_tasks(rows, refs)
    elif kind == "judgment":
        tasks = an.judgment_tasks(rows, refs, prefill_facets=prefill_facets)
    else:
        tasks = an.grounding_tasks(rows, refs)
    folder = work / "annotation" / kind
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tasks.json").write_text(json.dumps(tasks, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (folder / "config.xml").write_text(an.labeling_config(kind) + "\n", encoding="utf-8")
    summary = StageSummary(stage=f"annotate-export-{kind}", input=_rel(work, src), output=_rel(work, folder / "tasks.json"),
                           n_in=len(rows), n_out=len(tasks), n_new=len(tasks))
    if image_refs == "local-files":
        summary.notes.append("start Label Studio with LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED=true and "
                             f"LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT={(document_root or work).resolve()}")
    _finish(work, summary, [], t0)


@annotate_app.command("import")
def annotate_import_cmd(
    exports: Annotated[List[Path], typer.Argument(help="Label Studio JSON export file(s).")],
    work: Work = Path("build"),
    replace: Annotated[bool, typer.Option(help="Replace earlier imported rows instead of merging with them.")] = False,
) -> None:
    """Read Label Studio JSON exports into <work>/annotation/<kind>/annotations.jsonl."""
    from socialbench.construction.annotation import import_export
    from socialbench.construction.jsonl import latest_by_id

    t0 = time.perf_counter()
    res = import_export(exports)
    total = 0
    for kind, rows in res.rows.items():
        if not rows:
            continue
        path = work / "annotation" / kind / "annotations.jsonl"
        old = [] if replace or not path.is_file() else read_jsonl(path)
        merged = list(latest_by_id([*old, *rows]).values())
        merged.sort(key=lambda r: (r["item_id"], r.get("k", 0), r["annotator"]))
        write_jsonl(path, merged)
        total += len(merged)
        out.print(f"{kind}: {len(rows)} annotation(s) imported, {len(merged)} in {path}", markup=False, highlight=False)
    summary = StageSummary(stage="annotate-import", input=", ".join(str(e) for e in exports), output="annotation/",
                           n_in=sum(len(r) for r in res.rows.values()), n_out=total, n_new=sum(len(r) for r in res.rows.values()))
    if res.cancelled:
        summary.removed["cancelled"] = res.cancelled
    if res.superseded:
        summary.removed["superseded_by_later_annotation"] = res.superseded
    _finish(work, summary, [], t0)


# --------------------------------------------------------------------------- aggregate


def _resolutions(path: Optional[Path], behaviors: list[dict[str, Any]] | None,
                 items: list[dict[str, Any]] | None) -> tuple[dict[tuple[str, int], str], dict[str, Any]]:
    """Checked expert decisions (see :func:`socialbench.construction.aggregate.read_resolutions`):
    behaviors must be in ``behaviors`` (None: no judgment annotations imported), grounding
    questions in ``items``."""
    from socialbench.construction.aggregate import read_resolutions

    if path is None:
        return {}, {}
    keys = [(str(b_scene["id"]), int(b["k"])) for b_scene in behaviors or [] for b in b_scene["behaviors"]]
    return read_resolutions(path, behaviors=keys, questions=[str(q["id"]) for q in items or []])


def _count(summary: StageSummary, key: str, n: int) -> None:
    if n:
        summary.removed[key] = summary.removed.get(key, 0) + n


@build_app.command("aggregate")
def aggregate_cmd(
    work: Work = Path("build"),
    min_annotators: Annotated[int, typer.Option(help="Annotators needed per behavior / question / edited image.")] = 3,
    resolutions: Annotated[Optional[Path], typer.Option(help="Expert decisions for escalated items (JSONL).")] = None,
    gold: Annotated[Optional[Path], typer.Option(help="Expert gold labels for annotator accuracy (JSONL: item_id, k, label).")] = None,
    text_only: Annotated[Optional[List[Path]], typer.Option("--text-only", help="Run folder or samples.jsonl of a no-image eval (repeatable): image-necessity filter.")] = None,
    min_correct: Annotated[float, typer.Option(help="Drop a behavior when at least this share of the text-only runs judged it correctly.")] = 1.0,
) -> None:
    """Majority vote, escalations, invalid removal, agreement and the image-necessity filter."""
    from socialbench.construction import aggregate as ag

    t0 = time.perf_counter()
    if min_annotators < 1:
        raise UsageError("--min-annotators must be at least 1")
    folder = work / "aggregated"
    ann = work / "annotation"
    has_judgment = (ann / "judgment" / "annotations.jsonl").is_file()
    has_grounding = (ann / "grounding" / "annotations.jsonl").is_file()
    has_verification = (ann / "verification" / "annotations.jsonl").is_file()
    if not (has_judgment or has_grounding or has_verification):
        raise UsageError(f"no imported annotations under {ann}; run `socialbench build annotate import EXPORT.json` first")
    behaviors = read_jsonl(work / "behaviors.jsonl") if has_judgment else None
    items = read_jsonl(work / "grounding_items.jsonl") if has_grounding else None
    jres, gres = _resolutions(resolutions, behaviors, items)
    folder.mkdir(parents=True, exist_ok=True)
    agreement: dict[str, Any] = {}
    summary = StageSummary(stage="aggregate", input="annotation/", output="aggregated/")
    if behaviors is not None:
        rows = read_jsonl(ann / "judgment" / "annotations.jsonl")
        gold_map = {(str(r["item_id"]), int(r["k"])): r["label"] for r in read_jsonl(gold, require_id=False)} if gold else None
        res = ag.aggregate_judgment(behaviors, rows, min_annotators=min_annotators, resolutions=jres, gold=gold_map)
        scenes, removed = res.scenes, list(res.removed)
        if text_only:
            runs = ag.load_text_only_predictions(text_only)
            scenes, dropped = ag.image_necessity(scenes, runs, min_correct=min_correct)
            write_jsonl(folder / "image_necessity.dropped.jsonl", dropped)
            removed += dropped
        write_jsonl(folder / "judgment.jsonl", scenes)
        write_jsonl(folder / "judgment.removed.jsonl", removed)
        write_jsonl(folder / "escalations.judgment.jsonl", res.escalations)
        (folder / "annotators.judgment.json").write_text(json.dumps(res.annotators, indent=2) + "\n", encoding="utf-8")
        agreement["judgment"] = res.agreement
        summary.n_in += sum(len(s["behaviors"]) for s in behaviors)
        summary.n_out += sum(len(s["behaviors"]) for s in scenes)
        for r in removed:
            _count(summary, r["reason"], 1)
        if res.escalations:
            summary.removed["escalated"] = len(res.escalations)
            summary.notes.append(f"{len(res.escalations)} behavior(s) escalated: decide them in a --resolutions file "
                                 f"(see {folder / 'escalations.judgment.jsonl'})")
    if items is not None:
        rows = read_jsonl(ann / "grounding" / "annotations.jsonl")
        gr = ag.aggregate_grounding(items, rows, min_annotators=min_annotators, resolutions=gres)
        write_jsonl(folder / "grounding.jsonl", gr.questions)
        write_jsonl(folder / "grounding.removed.jsonl", gr.removed)
        write_jsonl(folder / "escalations.grounding.jsonl", gr.escalations)
        (folder / "annotators.grounding.json").write_text(json.dumps(gr.annotators, indent=2) + "\n", encoding="utf-8")
        agreement["grounding"] = gr.agreement
        summary.n_in += len(items)
        summary.n_out += len(gr.questions)
        for r in gr.removed:
            _count(summary, f"grounding_{r['reason']}", 1)
        if gr.escalations:
            summary.removed["grounding_escalated"] = len(gr.escalations)
            summary.notes.append(f"{len(gr.escalations)} grounding question(s) escalated: decide them in a --resolutions "
                                 f"file (see {folder / 'escalations.grounding.jsonl'})")
    if has_verification:
        rows = read_jsonl(ann / "verification" / "annotations.jsonl")
        reviews = read_jsonl(work / "review.jsonl")
        vr = ag.aggregate_verification(reviews, rows, min_annotators=min_annotators)
        write_jsonl(folder / "verification.jsonl", vr["chosen"])
        write_jsonl(folder / "verification.revise.jsonl", vr["revise"])
        write_jsonl(folder / "escalations.verification.jsonl", vr["escalations"])
        write_jsonl(folder / "verification.unannotated.jsonl", vr["unannotated"])
        agreement["verification"] = vr["agreement"]
        _count(summary, "verification_needs_revision", len(vr["revise"]))
        _count(summary, "verification_escalated", len(vr["escalations"]))
        for r in vr["unannotated"]:
            _count(summary, f"verification_{r['reason']}", 1)
        if vr["unannotated"]:
            summary.notes.append(f"{len(vr['unannotated'])} edited image(s) without enough annotators (need "
                                 f"{min_annotators}): annotate them and aggregate again "
                                 f"(see {folder / 'verification.unannotated.jsonl'})")
    (folder / "agreement.json").write_text(json.dumps(agreement, indent=2) + "\n", encoding="utf-8")
    _finish(work, summary, [], t0)


# --------------------------------------------------------------------------- overlays


@build_app.command("overlays")
def overlays_cmd(
    specs: Annotated[Path, typer.Option("--specs", help="Region specs JSONL (see socialbench.construction.overlays).")],
    work: Work = Path("build"),
) -> None:
    """Draw A-D region overlays from specs into <work>/overlays and write grounding_items.jsonl
    (each item inherits subset, category and subcategory from its source scene)."""
    from socialbench.construction.overlays import inherit_scene_fields, render_spec, scene_index

    t0 = time.perf_counter()
    rows = read_jsonl(specs)
    by_id, by_image = scene_index(work)
    records, rejected = [], []
    for i, spec in enumerate(rows, start=1):
        rec, problems = render_spec(inherit_scene_fields(spec, by_id, by_image), work, work / "overlays")
        if rec is None:
            rejected.append({"id": spec["id"], "line": i, "problems": problems})
            for p in problems:
                err.print(f"{specs}:{i} [{spec['id']}]: {p}", markup=False, highlight=False)
        else:
            records.append(rec)
    write_jsonl(work / "grounding_items.jsonl", records)
    write_jsonl(work / "overlays.rejected.jsonl", rejected)
    summary = StageSummary(stage="overlays", input=str(specs), output="grounding_items.jsonl", n_in=len(rows),
                           n_out=len(records), n_new=len(records))
    if rejected:
        summary.removed["invalid_spec"] = len(rejected)
    _finish(work, summary, [], t0)
    if rejected:
        raise typer.Exit(1)


# --------------------------------------------------------------------------- real images


@build_app.command("real-images")
def real_images_cmd(
    paths: Annotated[List[Path], typer.Argument(help="Photo files or folders (searched recursively).")],
    work: Work = Path("build"),
    min_side: Annotated[int, typer.Option(help="Minimum shorter side in pixels.")] = 480,
    min_kb: Annotated[int, typer.Option(help="Minimum file size in KB.")] = 8,
    max_mb: Annotated[int, typer.Option(help="Maximum file size in MB.")] = 20,
    min_sharpness: Annotated[float, typer.Option(help="Minimum variance of the Laplacian.")] = 100.0,
    max_hamming: Annotated[int, typer.Option(help="pHash distance at or below which photos are near-duplicates.")] = 8,
    model: Annotated[Optional[str], typer.Option("--model", "-m", help="VLM for relevance screening (optional).")] = None,
    category: Annotated[Optional[str], typer.Option(help="Category for all photos of this run.")] = None,
    subcategory: Annotated[Optional[str], typer.Option(help="Subcategory for all photos of this run.")] = None,
    concurrency: Concurrency = 8, timeout: Timeout = 120.0, max_attempts: MaxAttempts = 4,
    parse_retries: ParseRetries = 2, no_cache: NoCache = False, model_opt: ModelOpt = None,
    price_in: PriceIn = None, price_out: PriceOut = None, progress: Progress = False,
) -> None:
    """Filter collected photos (MIME, size, duplicates, near-duplicates, resolution, sharpness, VLM relevance)."""
    from PIL import Image

    from socialbench.construction.filters import FilterOptions, relevance_tasks, scan_photos
    from socialbench.vision.images import ImagePolicy, prepare_image

    t0 = time.perf_counter()
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise UsageError(f"no such file or folder: {', '.join(missing)}")
    opts = FilterOptions(min_bytes=min_kb * 1024, max_bytes=max_mb * 1024 * 1024, min_side=min_side,
                         min_sharpness=min_sharpness, max_hamming=max_hamming)
    accepted, rejected = scan_photos(paths, opts)
    real = work / "real"
    real.mkdir(parents=True, exist_ok=True)
    for e in accepted:
        ext = {"image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp"}[e["mime"]]
        e["id"] = f"real/{e['sha256'][:16]}"
        target = real / f"{e['sha256'][:16]}{ext}"
        if not target.exists():
            shutil.copyfile(e["path"], target)
        e["image"] = target.relative_to(work).as_posix()
        e["source"] = e.pop("path")
        if category:
            e["category"] = category
        if subcategory:
            e["subcategory"] = subcategory
    summary = StageSummary(stage="real-images", input=", ".join(str(p) for p in paths), output="real_images.jsonl",
                           n_in=len(accepted) + len(rejected))
    outputs: list[StageOutput] = []
    if model:
        s = _settings(model, work, concurrency=concurrency, timeout=timeout, max_attempts=max_attempts,
                      parse_retries=parse_retries, no_cache=no_cache, model_opt=model_opt, price_in=price_in,
                      price_out=price_out, progress=progress, temperature=0.0, max_tokens=512)
        screen = StageOutput(work / "real_images.screen.jsonl", "real-images-screen")
        outputs.append(screen)
        pending = [e for e in accepted if e["id"] not in screen.done]
        images = {}
        for e in pending:
            with Image.open(work / e["image"]) as img:
                img.load()
                images[e["id"]] = prepare_image(img, ImagePolicy())
        tasks = relevance_tasks(pending, images, _config(s))

        async def body(engine: Any) -> None:
            stats = await run_stage_tasks(engine, tasks, screen, lambda r: [{"id": r.id, **r.value}],
                                          parse_retries=parse_retries, progress=progress, label="screen")
            fill_summary(summary, engine, stats, s)

        asyncio.run(_with_engine(s, body))
        verdicts = {r["id"]: r for r in screen.records()}
        kept = []
        for e in accepted:
            v = verdicts.get(e["id"])
            if v is None:
                continue  # screening failed: retried on the next run
            if v["robot_centric"] and v["suitable"]:
                kept.append({**e, "relevance": v.get("reason", "")})
            else:
                rejected.append({"path": e["source"], "reason": "not_relevant", "detail": v.get("reason", ""),
                                 "robot_centric": v["robot_centric"], "suitable": v["suitable"]})
        accepted = kept
    write_jsonl(work / "real_images.jsonl", accepted)
    write_jsonl(work / "real_images.rejected.jsonl", rejected)
    for r in rejected:
        summary.removed[r["reason"]] = summary.removed.get(r["reason"], 0) + 1
    summary.n_out = summary.n_new = len(accepted)
    _finish(work, summary, outputs, t0)


# --------------------------------------------------------------------------- export and report


@build_app.command("export")
def export_cmd(
    dest: Annotated[Path, typer.Argument(help="Dataset folder to write.")],
    work: Work = Path("build"),
    name: Annotated[str, typer.Option(help="Dataset name for the card.")] = "RobotEQ-style SPI dataset",
    license: Annotated[str, typer.Option(help="License identifier for the card.")] = "other",
    overwrite: Annotated[bool, typer.Option(help="Replace an existing export in DEST.")] = False,
) -> None:
    """Write the canonical roboteq.jsonl, images/ and a dataset card (loadable by eval and datasets)."""
    from socialbench.construction.export import export_dataset
    from socialbench.construction.jsonl import read_summaries

    t0 = time.perf_counter()
    folder = work / "aggregated"
    judgment = read_jsonl(folder / "judgment.jsonl") if (folder / "judgment.jsonl").is_file() else []
    grounding = read_jsonl(folder / "grounding.jsonl") if (folder / "grounding.jsonl").is_file() else []
    if not judgment and not grounding:
        raise UsageError(f"nothing to export: {folder} has no judgment.jsonl or grounding.jsonl (run `socialbench build aggregate`)")
    agreement = json.loads((folder / "agreement.json").read_text(encoding="utf-8")) if (folder / "agreement.json").is_file() else None
    provenance = {d["stage"]: d.get("models") for d in read_summaries(work) if d.get("models")}
    res = export_dataset(judgment, grounding, work, dest, name=name, license=license, agreement=agreement,
                         provenance=provenance, overwrite=overwrite)
    summary = StageSummary(stage="export", input="aggregated/", output=str(dest), n_in=len(judgment) + len(grounding),
                           n_out=res.scenes + res.questions, n_new=res.scenes + res.questions,
                           notes=[f"{res.scenes} scenes ({res.behaviors} behaviors), {res.questions} grounding questions, "
                                  f"{res.images} images; load with socialbench eval --benchmark roboteq-bj --data {dest}"])
    _finish(work, summary, [], t0)


@build_app.command("report")
def report_cmd(
    work: Work = Path("build"),
    dataset: Annotated[Optional[Path], typer.Option(help="An exported dataset folder to describe.")] = None,
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Where to write report.md / report.json (default: --work).")] = None,
) -> None:
    """Per-stage counts, removals, tokens and cost; dataset distribution, label balance, agreement."""
    from socialbench.construction.report import write_build_report

    md, js = write_build_report(work, out_dir, dataset)
    out.print(f"wrote {md} and {js}", markup=False, highlight=False)
