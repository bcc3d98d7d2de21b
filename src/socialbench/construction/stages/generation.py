"""The text-generation stages of ``socialbench build``: taxonomy, scenarios (beam-merge plus the
local near-duplicate filter) and image prompts."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from socialbench.construction.jsonl import read_jsonl, write_jsonl
from socialbench.construction.llm import LLMSettings
from socialbench.construction.stage_output import StageOutput
from socialbench.construction.stage_summary import StageSummary
from socialbench.construction.stages.common import StageRun, json_config, rel, run_llm_stage, run_tasks
from socialbench.errors import UsageError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["taxonomy_stage", "scenarios_stage", "image_prompts_stage"]


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
        tasks = sc.beam_tasks(subs, beams=beams, k=k, config=json_config(beam_s), salts=beams_out.failure_counts())
        await run_tasks(beam_s, tasks, beams_out, sc.beam_records, summary, "beams")
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
        mtasks = sc.merge_tasks(subs, ready, json_config(merge_s), salts=merged_out.failure_counts())
        await run_tasks(merge_s, mtasks, merged_out, sc.merge_records, summary, "merge")

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
