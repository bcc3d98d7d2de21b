"""``socialbench build ...``: the RobotEQ-Data construction pipeline, one command per stage.

This module is the command line only: it parses the options, runs the stage (the
``*_stage`` functions of :mod:`socialbench.construction.stages`) and prints its summary.
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
    topics.jsonl (topics.model.jsonl)           topics
    grounding_questions.jsonl                   grounding-questions
    grounding_items.jsonl, overlays/, grounding_images/  grounding-images
    crawl_queries.jsonl, crawl.jsonl, crawl/*   crawl
    real/*, real_images.jsonl                   real-images
    summaries/<stage>.json                      every stage (report)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from socialbench.construction.stage_options import (
    Concurrency,
    LLMOptions,
    MaxAttempts,
    Progress,
    Timeout,
    with_llm_options,
)
from socialbench.errors import UsageError

if TYPE_CHECKING:
    from socialbench.construction.images import ImageSettings
    from socialbench.construction.stages.common import StageRun

__all__ = ["register", "build_app"]

# soft_wrap: a line is never broken at the terminal width, so paths reach pipes and logs whole
err = Console(stderr=True, soft_wrap=True)
out = Console(soft_wrap=True)

build_app = typer.Typer(no_args_is_help=True, help="Build a RobotEQ-style dataset: one resumable command per stage.")
annotate_app = typer.Typer(no_args_is_help=True, help="Label Studio tasks and configs; import of exports.")
build_app.add_typer(annotate_app, name="annotate")

Work = Annotated[Path, typer.Option("--work", "-w", help="Work folder shared by all stages.")]
Model = Annotated[
    str,
    typer.Option("--model", "-m", help="Chat/VLM model spec, e.g. openai:gpt-4o or openai:NAME@http://host:8000/v1."),
]
RetryDelay = Annotated[float, typer.Option(help="Base backoff (s) before retrying a failed image call.")]
InPath = Annotated[
    Path | None, typer.Option("--in", help="Input JSONL (default: the previous stage's file in --work).")
]


def register(app: typer.Typer) -> None:
    """Add the ``build`` command group to ``app``."""
    app.add_typer(build_app, name="build")


# --------------------------------------------------------------------------- helpers


def _run(work: Path, stage: Callable[[], StageRun]) -> None:
    """Run one stage (timed) and finish it with :func:`_finish`. A work folder that holds a
    symbolic link anywhere is refused first: the stage would write through it, out of the
    folder (socialbench never makes links there)."""
    from socialbench.files.atomic_write import refuse_links_in

    refuse_links_in(work, "--work folder")
    t0 = time.perf_counter()
    _finish(work, stage(), t0)


def _finish(work: Path, run: StageRun, t0: float) -> None:
    """Write the stage summary, print what was done (and rejected), exit 2 on open
    failures (retried by the next run) and 1 when the stage rejected some input."""
    from socialbench.construction.stages.common import close_stage
    from socialbench.messages import terminal_safe  # messages and notes quote files' text

    for line in run.messages:
        out.print(terminal_safe(line), markup=False, highlight=False)
    for line in run.problems:
        err.print(terminal_safe(line), markup=False, highlight=False)
    failures = close_stage(work, run, t0)
    summary = run.summary
    removed = ", ".join(f"{k} {v}" for k, v in summary.removed.items())
    out.print(
        f"{summary.stage}: {summary.n_out} records in {summary.output} ({summary.n_new} new, {summary.n_skipped} resumed"
        + (f", removed: {removed}" if removed else "")
        + ")",
        markup=False,
        highlight=False,
    )
    for note in summary.notes:
        out.print(f"  note: {terminal_safe(note)}", markup=False, highlight=False)
    if failures:
        kinds = summary.failure_kinds
        err.print(
            f"{summary.stage}: {len(failures)} record(s) failed ({', '.join(f'{k} {v}' for k, v in kinds.items())}); "
            f"see {', '.join(str(o.failures) for o in run.outputs)}; run the same command again to retry them",
            markup=False,
            highlight=False,
        )
        raise typer.Exit(2)
    if run.rejected:
        raise typer.Exit(1)


# --------------------------------------------------------------------------- taxonomy


@build_app.command("taxonomy")
def taxonomy_cmd(
    work: Work = Path("build"),
    taxonomy: Annotated[
        Path | None, typer.Option(help="Your taxonomy YAML (default: the shipped 10 x 56 one).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Replace <work>/taxonomy.yaml with --taxonomy.")] = False,
) -> None:
    """Write the editable taxonomy (<work>/taxonomy.yaml) and taxonomy.jsonl (one row per subcategory)."""
    from socialbench.construction.stages.generation import taxonomy_stage

    _run(work, lambda: taxonomy_stage(work, taxonomy, force=force))


# --------------------------------------------------------------------------- scenarios


@build_app.command("scenarios")
@with_llm_options(timeout=300.0)
def scenarios_cmd(
    model: Model,
    work: Work = Path("build"),
    merge_model: Annotated[
        str | None,
        typer.Option(
            help="Model for the merge (deduplication) phase; the paper uses a different model family. Default: --model."
        ),
    ] = None,
    beams: Annotated[int, typer.Option(help="Independent beam requests per subcategory.")] = 10,
    k: Annotated[int, typer.Option("-k", "--per-beam", help="Scenarios each beam must return (at least).")] = 10,
    only: Annotated[
        str | None, typer.Option(help="Comma-separated subcategory ids to generate (default: all).")
    ] = None,
    similarity: Annotated[
        str, typer.Option(help="Local near-duplicate filter: ngram, minhash or embedding.")
    ] = "ngram",
    threshold: Annotated[
        float, typer.Option(help="Similarity at or above which a later scenario is a near-duplicate.")
    ] = 0.5,
    scope: Annotated[
        str, typer.Option(help="Compare scenarios within each subcategory or across all.")
    ] = "subcategory",
    embedding_model: Annotated[
        str | None, typer.Option(help="sentence-transformers model name or path (with --similarity embedding).")
    ] = None,
    temperature: Annotated[float, typer.Option(help="Sampling temperature of the beam phase.")] = 0.9,
    max_tokens: Annotated[int, typer.Option(help="Max completion tokens per request.")] = 8192,
    *,
    llm: LLMOptions,
) -> None:
    """Beam-merge scenario generation plus the local near-duplicate filter."""
    from socialbench.construction.stages.generation import scenarios_stage

    beam_s = llm.settings(model, work, temperature=temperature, max_tokens=max_tokens)
    merge_s = llm.settings(merge_model or model, work, temperature=0.0, max_tokens=max_tokens)
    _run(
        work,
        lambda: scenarios_stage(
            work,
            beam_s,
            merge_s,
            beams=beams,
            k=k,
            only=only,
            similarity=similarity,
            threshold=threshold,
            scope=scope,
            embedding_model=embedding_model,
        ),
    )


# --------------------------------------------------------------------------- image prompts


@build_app.command("image-prompts")
@with_llm_options(timeout=120.0)
def image_prompts_cmd(
    model: Model,
    work: Work = Path("build"),
    inp: InPath = None,
    temperature: Annotated[float, typer.Option()] = 0.3,
    max_tokens: Annotated[int, typer.Option()] = 2048,
    *,
    llm: LLMOptions,
) -> None:
    """Scenario -> robot first-person visual prompt (layout, people, gaze, posture, cues)."""
    from socialbench.construction.stages.generation import image_prompts_stage

    s = llm.settings(model, work, temperature=temperature, max_tokens=max_tokens)
    _run(work, lambda: image_prompts_stage(work, inp, s))


# --------------------------------------------------------------------------- images


ImageModel = Annotated[
    str,
    typer.Option(
        "--image-model", help="Images API model: MODEL[@BASE_URL], e.g. gpt-image-1 or name@http://127.0.0.1:9000/v1."
    ),
]


def _image_settings(
    image_model: str,
    size: str | None,
    quality: str | None,
    response_format: str,
    api_key_env: str,
    timeout: float,
    max_attempts: int,
    concurrency: int,
    price_per_image: float | None,
    progress: bool,
    base_delay_s: float = 2.0,
) -> ImageSettings:
    """The images-API settings of an image stage from its options (``--response-format``
    checked here)."""
    from socialbench.construction.images import ImageSettings

    if response_format not in ("b64_json", "url", "none"):
        raise UsageError("--response-format must be b64_json, url or none")
    return ImageSettings(
        model=image_model,
        size=size,
        quality=quality,
        response_format=None if response_format == "none" else response_format,
        api_key_env=api_key_env,
        timeout_s=timeout,
        max_attempts=max_attempts,
        concurrency=concurrency,
        price_per_image=price_per_image,
        progress=progress,
        base_delay_s=base_delay_s,
    )


@build_app.command("images")
def images_cmd(
    image_model: ImageModel,
    work: Work = Path("build"),
    inp: InPath = None,
    size: Annotated[str | None, typer.Option(help="e.g. 1536x1024 (default: the server's).")] = None,
    quality: Annotated[str | None, typer.Option()] = None,
    response_format: Annotated[
        str, typer.Option(help="b64_json, url, or none (omit; gpt-image models always return b64_json).")
    ] = "b64_json",
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the API key.")] = "OPENAI_API_KEY",
    concurrency: Concurrency = 4,
    timeout: Timeout = 300.0,
    max_attempts: MaxAttempts = 4,
    price_per_image: Annotated[float | None, typer.Option(help="USD per generated image (cost report).")] = None,
    retry_delay: RetryDelay = 2.0,
    progress: Progress = False,
) -> None:
    """One candidate image per visual prompt, saved with provenance."""
    from socialbench.construction.stages.generation import images_stage

    settings = _image_settings(
        image_model,
        size,
        quality,
        response_format,
        api_key_env,
        timeout,
        max_attempts,
        concurrency,
        price_per_image,
        progress,
        retry_delay,
    )
    _run(work, lambda: images_stage(work, inp, settings))


# --------------------------------------------------------------------------- review


@build_app.command("review")
@with_llm_options(timeout=300.0)
def review_cmd(
    model: Model,
    image_model: ImageModel,
    work: Work = Path("build"),
    inp: InPath = None,
    max_rounds: Annotated[int, typer.Option(help="Edit rounds per image at most.")] = 2,
    optional_edits: Annotated[bool, typer.Option(help="Also edit images that only failed Soft criteria.")] = False,
    no_edit: Annotated[bool, typer.Option("--no-edit", help="Review only; never call the edit endpoint.")] = False,
    size: Annotated[str | None, typer.Option()] = None,
    response_format: Annotated[str, typer.Option()] = "b64_json",
    api_key_env: Annotated[str, typer.Option()] = "OPENAI_API_KEY",
    image_concurrency: Annotated[int, typer.Option(help="Edit calls in flight.")] = 4,
    price_per_image: Annotated[float | None, typer.Option(help="USD per edited image.")] = None,
    retry_delay: RetryDelay = 2.0,
    max_tokens: Annotated[int, typer.Option()] = 2048,
    *,
    llm: LLMOptions,
) -> None:
    """VLM review on the 7 criteria of Table 3; mandatory revisions through the edit endpoint."""
    from socialbench.construction.review import ReviewOptions
    from socialbench.construction.stages.generation import review_stage

    s = llm.settings(model, work, temperature=0.0, max_tokens=max_tokens)
    isettings = _image_settings(
        image_model,
        size,
        None,
        response_format,
        api_key_env,
        llm.timeout,
        llm.max_attempts,
        image_concurrency,
        price_per_image,
        llm.progress,
        retry_delay,
    )
    opts = ReviewOptions(
        max_rounds=max_rounds,
        optional_edits=optional_edits,
        parse_retries=llm.parse_retries,
        max_tokens=max_tokens,
        progress=llm.progress,
    )
    _run(work, lambda: review_stage(work, inp, s, isettings, opts, edit=not no_edit))


# --------------------------------------------------------------------------- behaviors


@build_app.command("behaviors")
@with_llm_options(timeout=180.0)
def behaviors_cmd(
    model: Model,
    work: Work = Path("build"),
    source: Annotated[
        str, typer.Option(help="Scenes from review, verification (aggregated human choice), images or real-images.")
    ] = "review",
    inp: InPath = None,
    proper: Annotated[int, typer.Option(help="Proper candidates per scene, at least.")] = 3,
    improper: Annotated[int, typer.Option(help="Improper candidates per scene, at least.")] = 3,
    include_rejected: Annotated[bool, typer.Option(help="Also use images the review rejected.")] = False,
    temperature: Annotated[float, typer.Option()] = 0.7,
    max_tokens: Annotated[int, typer.Option()] = 4096,
    *,
    llm: LLMOptions,
) -> None:
    """Candidate next actions per scene image (proper and improper, with suggested facets)."""
    from socialbench.construction.stages.generation import behaviors_stage

    s = llm.settings(model, work, temperature=temperature, max_tokens=max_tokens)
    _run(
        work,
        lambda: behaviors_stage(
            work, source, inp, s, proper=proper, improper=improper, include_rejected=include_rejected
        ),
    )


# --------------------------------------------------------------------------- annotation


@annotate_app.command("export")
def annotate_export_cmd(
    kind: Annotated[
        str,
        typer.Option(
            help="verification, judgment, grounding, topics or judgment-no-image (Figure 6(a): final behaviors "
            "without their image)."
        ),
    ],
    work: Work = Path("build"),
    inp: InPath = None,
    image_refs: Annotated[
        str, typer.Option(help="How tasks point at images: local-files, prefix or data-uri.")
    ] = "local-files",
    prefix: Annotated[str, typer.Option(help="URL prefix for --image-refs prefix.")] = "",
    document_root: Annotated[
        Path | None, typer.Option(help="LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT (default: --work).")
    ] = None,
    prefill_facets: Annotated[bool, typer.Option(help="Pre-fill suggested facets as a prediction (judgment).")] = True,
    sample: Annotated[
        int | None,
        typer.Option(help="judgment-no-image: a random sample of this many behaviors (the paper's is 200)."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of --sample.")] = 0,
) -> None:
    """Write <work>/annotation/<kind>/tasks.json and config.xml for Label Studio."""
    from socialbench.construction.stages.annotation import annotate_export_stage

    _run(
        work,
        lambda: annotate_export_stage(
            work,
            kind,
            inp,
            image_refs=image_refs,
            prefix=prefix,
            document_root=document_root,
            prefill_facets=prefill_facets,
            sample=sample,
            seed=seed,
        ),
    )


@annotate_app.command("import")
def annotate_import_cmd(
    exports: Annotated[list[Path], typer.Argument(help="Label Studio JSON export file(s).")],
    work: Work = Path("build"),
    replace: Annotated[bool, typer.Option(help="Replace earlier imported rows instead of merging with them.")] = False,
) -> None:
    """Read Label Studio JSON exports into <work>/annotation/<kind>/annotations.jsonl."""
    from socialbench.construction.stages.annotation import annotate_import_stage

    _run(work, lambda: annotate_import_stage(work, exports, replace=replace))


# --------------------------------------------------------------------------- aggregate


@build_app.command("aggregate")
def aggregate_cmd(
    work: Work = Path("build"),
    min_annotators: Annotated[int, typer.Option(help="Annotators needed per behavior / question / edited image.")] = 3,
    resolutions: Annotated[Path | None, typer.Option(help="Expert decisions for escalated items (JSONL).")] = None,
    gold: Annotated[
        Path | None, typer.Option(help="Expert gold labels for annotator accuracy (JSONL: item_id, k, label).")
    ] = None,
    text_only: Annotated[
        list[Path] | None,
        typer.Option(
            "--text-only", help="Run folder or samples.jsonl of a no-image eval (repeatable): image-necessity filter."
        ),
    ] = None,
    min_correct: Annotated[
        float, typer.Option(help="Drop a behavior when at least this share of the text-only runs judged it correctly.")
    ] = 1.0,
) -> None:
    """Majority vote, escalations, invalid removal, agreement and the image-necessity filter."""
    from socialbench.construction.stages.annotation import aggregate_stage

    _run(
        work,
        lambda: aggregate_stage(
            work,
            min_annotators=min_annotators,
            resolutions=resolutions,
            gold=gold,
            text_only=text_only,
            min_correct=min_correct,
        ),
    )


# --------------------------------------------------------------------------- overlays


@build_app.command("overlays")
def overlays_cmd(
    specs: Annotated[Path, typer.Option("--specs", help="Region specs JSONL (see socialbench.construction.overlays).")],
    work: Work = Path("build"),
) -> None:
    """Draw A-D region overlays from specs into <work>/overlays and write grounding_items.jsonl
    (each item inherits subset, category and subcategory from its source scene)."""
    from socialbench.construction.stages.assembly import overlays_stage

    _run(work, lambda: overlays_stage(work, specs))


# --------------------------------------------------------------------------- grounding (App. E)


@build_app.command("topics")
@with_llm_options(timeout=180.0)
def topics_cmd(
    work: Work = Path("build"),
    source: Annotated[
        str, typer.Option(help="annotators (imported Label Studio proposals) or model (a VLM proposes; needs -m).")
    ] = "annotators",
    model: Annotated[str | None, typer.Option("--model", "-m", help="VLM spec for --source model.")] = None,
    inp: InPath = None,
    per_scene: Annotated[int, typer.Option(help="Topics per scene the model proposes, at least.")] = 2,
    temperature: Annotated[float, typer.Option()] = 0.7,
    max_tokens: Annotated[int, typer.Option()] = 1024,
    *,
    llm: LLMOptions,
) -> None:
    """Pool spatial grounding topics per scene image into topics.jsonl (App. E)."""
    from socialbench.construction.stages.grounding import topics_stage

    s = llm.settings(model, work, temperature=temperature, max_tokens=max_tokens) if model else None
    _run(work, lambda: topics_stage(work, source, inp, s, n=per_scene))


@build_app.command("grounding-questions")
@with_llm_options(timeout=180.0)
def grounding_questions_cmd(
    model: Model,
    work: Work = Path("build"),
    inp: InPath = None,
    temperature: Annotated[float, typer.Option()] = 0.7,
    max_tokens: Annotated[int, typer.Option()] = 2048,
    *,
    llm: LLMOptions,
) -> None:
    """Stage 1: topic + image -> multiple-select question and an A-D editing instruction."""
    from socialbench.construction.stages.grounding import grounding_questions_stage

    s = llm.settings(model, work, temperature=temperature, max_tokens=max_tokens)
    _run(work, lambda: grounding_questions_stage(work, inp, s))


@build_app.command("grounding-images")
def grounding_images_cmd(
    work: Work = Path("build"),
    inp: InPath = None,
    out_file: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Output JSONL (default grounding_items.jsonl; single-stage: grounding_items.single_stage.jsonl).",
        ),
    ] = None,
    image_model: Annotated[
        str | None,
        typer.Option(
            "--image-model", help="Image-editing model MODEL[@BASE_URL]; without it the overlay renderer draws."
        ),
    ] = None,
    single_stage: Annotated[
        bool, typer.Option("--single-stage", help="Send image + topic straight to --image-model (Figure 19).")
    ] = False,
    size: Annotated[str | None, typer.Option()] = None,
    response_format: Annotated[str, typer.Option()] = "b64_json",
    api_key_env: Annotated[str, typer.Option()] = "OPENAI_API_KEY",
    concurrency: Concurrency = 4,
    timeout: Timeout = 300.0,
    max_attempts: MaxAttempts = 4,
    price_per_image: Annotated[float | None, typer.Option(help="USD per edited image.")] = None,
    retry_delay: RetryDelay = 2.0,
    progress: Progress = False,
) -> None:
    """Stage 2: annotate A-D on each scene image (editing model or overlay renderer)."""
    from socialbench.construction.stages.grounding import grounding_images_stage

    isettings = (
        _image_settings(
            image_model,
            size,
            None,
            response_format,
            api_key_env,
            timeout,
            max_attempts,
            concurrency,
            price_per_image,
            progress,
            retry_delay,
        )
        if image_model
        else None
    )
    _run(work, lambda: grounding_images_stage(work, inp, out_file, isettings, single_stage=single_stage))


# --------------------------------------------------------------------------- real images


@build_app.command("real-images")
@with_llm_options(timeout=120.0)
def real_images_cmd(
    paths: Annotated[list[Path], typer.Argument(help="Photo files or folders (searched recursively).")],
    work: Work = Path("build"),
    min_side: Annotated[int, typer.Option(help="Minimum shorter side in pixels.")] = 480,
    min_kb: Annotated[int, typer.Option(help="Minimum file size in KB.")] = 8,
    max_mb: Annotated[int, typer.Option(help="Maximum file size in MB.")] = 20,
    min_sharpness: Annotated[float, typer.Option(help="Minimum variance of the Laplacian.")] = 100.0,
    max_hamming: Annotated[int, typer.Option(help="pHash distance at or below which photos are near-duplicates.")] = 8,
    model: Annotated[str | None, typer.Option("--model", "-m", help="VLM for relevance screening (optional).")] = None,
    category: Annotated[str | None, typer.Option(help="Category for all photos of this run.")] = None,
    subcategory: Annotated[str | None, typer.Option(help="Subcategory for all photos of this run.")] = None,
    *,
    llm: LLMOptions,
) -> None:
    """Filter collected photos (MIME, size, duplicates, near-duplicates, resolution, sharpness, VLM relevance)."""
    from socialbench.construction.filters import FilterOptions
    from socialbench.construction.stages.assembly import real_images_stage

    opts = FilterOptions(
        min_bytes=min_kb * 1024,
        max_bytes=max_mb * 1024 * 1024,
        min_side=min_side,
        min_sharpness=min_sharpness,
        max_hamming=max_hamming,
    )
    s = None
    if model:
        s = llm.settings(model, work, temperature=0.0, max_tokens=512)
    _run(work, lambda: real_images_stage(work, paths, opts, s, category=category, subcategory=subcategory))


# --------------------------------------------------------------------------- crawl


@build_app.command("crawl")
def crawl_cmd(
    source: Annotated[
        str,
        typer.Option(
            "--source",
            help="Where candidates come from: folder:DIR, urls:FILE (one URL or JSON object a line) or "
            "search:URL_TEMPLATE (a JSON search API; {query}, {n}, {key} are filled in).",
        ),
    ],
    work: Work = Path("build"),
    queries: Annotated[
        Path | None,
        typer.Option(help="Queries JSONL (default: <work>/crawl_queries.jsonl, written from taxonomy.jsonl)."),
    ] = None,
    per_query: Annotated[int, typer.Option(help="Photos to keep per query (0: no limit).")] = 20,
    min_kb: Annotated[int, typer.Option(help="Minimum file size in KB.")] = 8,
    max_mb: Annotated[float, typer.Option(help="Maximum file size in MB (larger downloads are cut off).")] = 20,
    timeout: Annotated[float, typer.Option(help="Seconds per request.")] = 30.0,
    results_path: Annotated[
        str, typer.Option(help="search: dotted path of the image list in the JSON reply.")
    ] = "results",
    url_field: Annotated[str, typer.Option(help="search: field of an entry that holds the image URL.")] = "url",
    license_field: Annotated[str, typer.Option(help="search: field of an entry that holds its license.")] = "license",
    page_field: Annotated[str, typer.Option(help="search: field of an entry that holds its web page.")] = "page",
    key_env: Annotated[
        str | None, typer.Option(help="search: environment variable whose value fills {key} in the template.")
    ] = None,
) -> None:
    """Fetch real photo candidates from a source you configure into <work>/crawl (validated,
    deduplicated, with provenance) for `build real-images`."""
    from socialbench.construction.crawl import CrawlLimits, SearchShape, parse_source
    from socialbench.construction.stages.crawl import CrawlOptions, crawl_stage

    shape = SearchShape(results_path, url_field, license_field, page_field)
    src = parse_source(source, shape, key_env)
    if per_query < 0 or min_kb < 0 or max_mb <= 0 or timeout <= 0:
        raise UsageError("--per-query and --min-kb must be >= 0, --max-mb and --timeout > 0")
    limits = CrawlLimits(min_bytes=min_kb * 1024, max_bytes=int(max_mb * 1024 * 1024), timeout_s=timeout)
    opts = CrawlOptions(per_query=per_query, limits=limits, queries=queries)
    _run(work, lambda: crawl_stage(work, src, opts))


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
    from socialbench.construction.stages.assembly import export_stage

    _run(work, lambda: export_stage(work, dest, name=name, license=license, overwrite=overwrite))


@build_app.command("report")
def report_cmd(
    work: Work = Path("build"),
    dataset: Annotated[Path | None, typer.Option(help="An exported dataset folder to describe.")] = None,
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Where to write report.md / report.json (default: --work).")
    ] = None,
) -> None:
    """Per-stage counts, removals, tokens and cost; dataset distribution, label balance, agreement."""
    from socialbench.construction.report import write_build_report

    md, js = write_build_report(work, out_dir, dataset)
    out.print(f"wrote {md} and {js}", markup=False, highlight=False)
