"""The model-driven stages of ``socialbench build``: taxonomy, scenarios, image prompts,
images, review and behaviors.

Each function runs one stage in the work folder (reading the previous stage's file, or
``inp``), appends to its resumable outputs and returns the :class:`StageRun`. Stage
modules are imported when their stage runs (some pull in PIL or an embedding model).
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from socialbench.construction.jsonl import read_jsonl, write_jsonl
from socialbench.construction.llm import JsonTask, LLMSettings, close_engine, fill_summary, open_engine, run_stage_tasks
from socialbench.construction.record_fields import text
from socialbench.construction.stage_output import StageOutput
from socialbench.construction.stage_summary import StageSummary
from socialbench.construction.stages.common import StageRun, json_config, rel, run_llm_stage
from socialbench.errors import UsageError

if TYPE_CHECKING:
    import numpy as np

    from socialbench.construction.images import ImageSettings
    from socialbench.construction.review import ReviewCounts, ReviewOptions

__all__ = [
    "taxonomy_stage",
    "scenarios_stage",
    "image_prompts_stage",
    "images_stage",
    "review_stage",
    "behaviors_stage",
    "BEHAVIOR_SOURCES",
]


def taxonomy_stage(work: Path, taxonomy: Path | None, *, force: bool) -> StageRun:
    """Write the editable ``<work>/taxonomy.yaml`` (``taxonomy``, checked, or the shipped
    one) and ``taxonomy.jsonl`` (one row per subcategory)."""
    from socialbench.construction.taxonomy import copy_shipped_taxonomy, load_taxonomy, taxonomy_records

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
    summary = StageSummary(
        stage="taxonomy",
        input=rel(work, dest),
        output="taxonomy.jsonl",
        n_in=len(tax.categories),
        n_out=len(rows),
        n_new=len(rows),
        notes=[f"{len(tax.categories)} categories, {len(rows)} subcategories; edit {dest} and rerun to change them"],
    )
    return StageRun(summary)


def _selected_subcategories(work: Path, only: str | None) -> list[dict[str, object]]:
    """The ``taxonomy.jsonl`` rows named in ``only`` (comma-separated ids; all when None)."""
    subs = read_jsonl(work / "taxonomy.jsonl")
    if only:
        wanted = {s.strip() for s in only.split(",") if s.strip()}
        unknown = wanted - {s["id"] for s in subs}
        if unknown:
            raise UsageError(
                f"--only names unknown subcategories: {', '.join(sorted(unknown))} (see {work / 'taxonomy.jsonl'})"
            )
        subs = [s for s in subs if s["id"] in wanted]
    return subs


def _embedder(similarity: str, embedding_model: str | None) -> Callable[[Sequence[str]], np.ndarray] | None:
    """The sentence-transformers encoder of ``--similarity embedding`` (None otherwise)."""
    if similarity != "embedding":
        return None
    if not embedding_model:
        raise UsageError("--similarity embedding needs --embedding-model NAME_OR_PATH")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise UsageError("--similarity embedding needs `pip install sentence-transformers`; or use ngram") from None
    st_model = SentenceTransformer(embedding_model)
    return lambda texts: st_model.encode(list(texts), normalize_embeddings=True)


def scenarios_stage(
    work: Path,
    beam_s: LLMSettings,
    merge_s: LLMSettings,
    *,
    beams: int,
    k: int,
    only: str | None,
    similarity: str,
    threshold: float,
    scope: str,
    embedding_model: str | None,
) -> StageRun:
    """Beam-merge scenario generation (``beams`` requests of ``k`` scenarios per
    subcategory, then one merge per subcategory whose beams are all done) plus the local
    near-duplicate filter; writes ``scenarios.jsonl`` and ``scenarios.removed.jsonl``."""
    from socialbench.construction import scenarios as sc

    subs = _selected_subcategories(work, only)
    embed = _embedder(similarity, embedding_model)
    beams_out = StageOutput(work / "scenarios" / "beams.jsonl", "scenarios-beam")
    merged_out = StageOutput(work / "scenarios" / "merged.jsonl", "scenarios-merge")
    summary = StageSummary(
        stage="scenarios",
        input="taxonomy.jsonl",
        output="scenarios.jsonl",
        n_in=len(subs),
        models={"beam": beam_s.model, "merge": merge_s.model},
    )
    n_beams_before = len(beams_out.done)
    summary.n_skipped = sum(1 for s in subs if s["id"] in merged_out.done)

    async def run() -> None:
        engine = open_engine(beam_s)
        try:
            tasks = sc.beam_tasks(subs, beams=beams, k=k, config=json_config(beam_s), salts=beams_out.failure_counts())
            stats = await run_stage_tasks(
                engine,
                tasks,
                beams_out,
                sc.beam_records,
                parse_retries=beam_s.parse_retries,
                progress=beam_s.progress,
                label="beams",
            )
            fill_summary(summary, engine, stats, beam_s)
        finally:
            await close_engine(engine)
        beam_recs: dict[str, list[dict[str, Any]]] = {}
        for rec in beams_out.records():
            beam_recs.setdefault(rec["subcategory_id"], []).append(rec)
        ready = {}
        for s in subs:
            sid = str(s["id"])  # the stage JSONL reader checked every id is text
            have = [r for r in beam_recs.get(sid, []) if r["beam"] < beams]
            if len(have) == beams:
                ready[sid] = have
            elif sid not in merged_out.done:
                summary.notes.append(f"{sid}: {len(have)} of {beams} beams done; merge waits for a rerun")
        engine = open_engine(merge_s)
        try:
            mtasks = [
                t
                for t in sc.merge_tasks(subs, ready, json_config(merge_s), salts=merged_out.failure_counts())
                if t.id not in merged_out.done
            ]
            stats = await run_stage_tasks(
                engine,
                mtasks,
                merged_out,
                sc.merge_records,
                parse_retries=merge_s.parse_retries,
                progress=merge_s.progress,
                label="merge",
            )
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
    summary.notes.append(
        f"{len(beams_out.done)} beams, {len(merged_out.done)} merged subcategories, {len(final)} scenarios "
        f"after removing {len(removed)} duplicates (see scenarios.removed.jsonl)"
    )
    if merge_s.model == beam_s.model:
        summary.notes.append("the merge used the beam model; the paper uses a different model family (--merge-model)")
    return StageRun(summary, [beams_out, merged_out])


def image_prompts_stage(work: Path, inp: Path | None, settings: LLMSettings) -> StageRun:
    """Scenario -> robot first-person visual prompt, one request per scenario."""
    from socialbench.construction import image_prompts as ip

    return run_llm_stage(
        stage="image-prompts",
        work=work,
        inp=inp or work / "scenarios.jsonl",
        output=work / "image_prompts.jsonl",
        settings=settings,
        make_tasks=lambda rows, salts, _out: ip.image_prompt_tasks(rows, json_config(settings), salts),
        to_records=ip.image_prompt_records,
    )


def images_stage(work: Path, inp: Path | None, settings: ImageSettings) -> StageRun:
    """One candidate image per visual prompt, saved with provenance."""
    from socialbench.construction.images import ImageClient, generate_images

    src = inp or work / "image_prompts.jsonl"
    rows = read_jsonl(src)
    so = StageOutput(work / "images.jsonl", "images")
    summary = StageSummary(
        stage="images",
        input=rel(work, src),
        output="images.jsonl",
        n_in=len(rows),
        n_skipped=sum(1 for r in rows if r["id"] in so.done),
        models={"image": settings.model},
    )

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
    summary = StageSummary(
        stage="review",
        input=rel(work, src),
        output="review.jsonl",
        n_in=len(rows),
        n_skipped=sum(1 for r in rows if r["id"] in so.done),
        models={"reviewer": settings.model, "editor": editor_settings.model},
    )

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


#: ``--source`` of the behaviors stage -> its default input file in the work folder.
BEHAVIOR_SOURCES = {
    "review": "review.jsonl",
    "verification": "aggregated/verification.jsonl",
    "images": "images.jsonl",
    "real-images": "real_images.jsonl",
}


def behaviors_stage(
    work: Path,
    source: str,
    inp: Path | None,
    settings: LLMSettings,
    *,
    proper: int,
    improper: int,
    include_rejected: bool,
) -> StageRun:
    """Candidate next actions per scene image (at least ``proper`` proper and ``improper``
    improper ones, with suggested facets); a scene whose image cannot be read fails alone."""
    from PIL import Image

    from socialbench.construction import behaviors as bh
    from socialbench.vision.images import ImagePolicy, prepare_image

    if source not in BEHAVIOR_SOURCES:
        raise UsageError(f"--source must be one of {', '.join(BEHAVIOR_SOURCES)}")
    src = inp or work / BEHAVIOR_SOURCES[source]
    rows = read_jsonl(src)
    if source == "verification":
        scenes = [
            {"id": r["id"], "image": r["image"], "subset": "synthetic", "scenario": r.get("scenario") or {}}
            for r in rows
        ]
    else:
        scenes = bh.scene_inputs(rows, source, include_rejected=include_rejected)
    policy = ImagePolicy()

    def make_tasks(pending: list[dict[str, object]], salts: dict[str, int], output: StageOutput) -> list[JsonTask]:
        images, readable = {}, []
        for sc in pending:
            sid, image = str(sc["id"]), text(sc, "image")  # the stage JSONL reader checked the id
            try:
                with Image.open(work / image) as img:
                    img.load()
                    images[sid] = prepare_image(img, policy)
            except (OSError, ValueError, Image.DecompressionBombError) as exc:
                # one bad image fails its scene only; the rerun retries it
                output.fail(
                    sid,
                    "unreadable_image",
                    f"cannot read scene image {work / image}: {exc} (fix the image of {sid} "
                    "or rerun the stage that made it, then run this command again)",
                    image=image,
                )
                continue
            readable.append(sc)
        return bh.behavior_tasks(
            readable, images, n_proper=proper, n_improper=improper, config=json_config(settings), salts=salts
        )

    return run_llm_stage(
        stage="behaviors",
        work=work,
        inp=src,
        output=work / "behaviors.jsonl",
        settings=settings,
        make_tasks=make_tasks,
        to_records=bh.behavior_records,
        records=scenes,
    )
