"""``socialbench build`` commands for real photos and the finished dataset: real-images,
crawl, export and report (registered by :mod:`socialbench.construction.commands`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from socialbench.construction.stage_command import out, run_stage
from socialbench.construction.stage_options import LLMOptions, Work, with_llm_options
from socialbench.errors import UsageError

# --------------------------------------------------------------------------- real images


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
    run_stage(work, lambda: real_images_stage(work, paths, opts, s, category=category, subcategory=subcategory))


# --------------------------------------------------------------------------- crawl


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
    from socialbench.construction.crawl_fetch import CrawlLimits
    from socialbench.construction.crawl_sources import SearchShape, parse_source
    from socialbench.construction.stages.crawl import CrawlOptions, crawl_stage

    shape = SearchShape(results_path, url_field, license_field, page_field)
    src = parse_source(source, shape, key_env)
    if per_query < 0 or min_kb < 0 or max_mb <= 0 or timeout <= 0:
        raise UsageError("--per-query and --min-kb must be >= 0, --max-mb and --timeout > 0")
    limits = CrawlLimits(min_bytes=min_kb * 1024, max_bytes=int(max_mb * 1024 * 1024), timeout_s=timeout)
    opts = CrawlOptions(per_query=per_query, limits=limits, queries=queries)
    run_stage(work, lambda: crawl_stage(work, src, opts))


# --------------------------------------------------------------------------- export and report


def export_cmd(
    dest: Annotated[Path, typer.Argument(help="Dataset folder to write.")],
    work: Work = Path("build"),
    name: Annotated[str, typer.Option(help="Dataset name for the card.")] = "RobotEQ-style SPI dataset",
    license: Annotated[str, typer.Option(help="License identifier for the card.")] = "other",
    overwrite: Annotated[bool, typer.Option(help="Replace an existing export in DEST.")] = False,
) -> None:
    """Write the canonical roboteq.jsonl, images/ and a dataset card (loadable by eval and datasets)."""
    from socialbench.construction.stages.assembly import export_stage

    run_stage(work, lambda: export_stage(work, dest, name=name, license=license, overwrite=overwrite))


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
