"""The image stages of ``socialbench build``: one candidate image per visual prompt, and the
review loop that reviews each image and edits it while a revision is due."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from socialbench.construction.jsonl import read_jsonl
from socialbench.construction.llm import LLMSettings, close_engine, open_engine
from socialbench.construction.stage_output import StageOutput
from socialbench.construction.stages.common import StageRun, open_summary

if TYPE_CHECKING:
    from socialbench.construction.images import ImageSettings
    from socialbench.construction.review import ReviewCounts, ReviewOptions

__all__ = ["images_stage", "review_stage"]


def images_stage(work: Path, inp: Path | None, settings: ImageSettings) -> StageRun:
    """One candidate image per visual prompt, saved with provenance."""
    from socialbench.construction.images import ImageClient, generate_images

    src = inp or work / "image_prompts.jsonl"
    rows = read_jsonl(src)
    so = StageOutput(work / "images.jsonl", "images")
    summary = open_summary("images", work, src, so, rows, {"image": settings.model})

    async def run() -> dict[str, int]:
        client = ImageClient(settings)
        try:
            counts = await generate_images(rows, work, so, client, progress=settings.progress)
            summary.requests = client.calls
            summary.retries = client.retries
            return counts
        finally:
            await client.aclose()

    counts = asyncio.run(run())
    summary.images_generated = counts["generated"]
    if settings.price_per_image is not None:
        summary.cost_usd = settings.price_per_image * counts["generated"]
    summary.n_new, summary.n_out = so.written, len(so.done)
    return StageRun(summary, [so])


def review_stage(
    work: Path,
    inp: Path | None,
    settings: LLMSettings,
    editor_settings: ImageSettings,
    opts: ReviewOptions,
    *,
    edit: bool = True,
) -> StageRun:
    """VLM review on the 7 criteria of Table 3; mandatory revisions through the edit
    endpoint of ``editor_settings`` (``edit=False``: review only, never edit)."""
    from socialbench.construction.images import ImageClient
    from socialbench.construction.llm import cost_usd
    from socialbench.construction.review import review_images

    src = inp or work / "images.jsonl"
    rows = read_jsonl(src)
    steps = StageOutput(work / "review_steps.jsonl", "review-steps")
    so = StageOutput(work / "review.jsonl", "review")
    models = {"reviewer": settings.model, "editor": editor_settings.model}
    summary = open_summary("review", work, src, so, rows, models)

    async def run() -> ReviewCounts:
        engine = open_engine(settings)
        editor = ImageClient(editor_settings) if edit else None
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
    cost = cost_usd(b.prompt_tokens, b.completion_tokens, settings.price_in, settings.price_out)
    if editor_settings.price_per_image is not None:
        cost = (cost or 0.0) + editor_settings.price_per_image * counts["edits"]
    summary.cost_usd = cost
    statuses: dict[str, int] = {}
    for r in so.records():
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    if statuses.get("rejected"):
        summary.removed["rejected_after_max_rounds"] = statuses["rejected"]
    summary.notes.append(
        f"{counts['reviews']} reviews and {counts['edits']} edits this run; status: "
        + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()))
    )
    summary.n_new, summary.n_out = so.written, len(so.done)
    return StageRun(summary, [so])
