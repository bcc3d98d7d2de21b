"""The assembly stages of ``socialbench build``: region overlays for spatial grounding, the
real-photo filter, and the export of the canonical dataset folder."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from socialbench.construction.jsonl import read_jsonl, write_jsonl
from socialbench.construction.llm import LLMSettings
from socialbench.construction.stage_output import StageOutput
from socialbench.construction.stage_summary import StageSummary
from socialbench.construction.stages.common import StageRun, json_config, run_tasks
from socialbench.errors import UsageError

if TYPE_CHECKING:
    from socialbench.construction.filters import FilterOptions

__all__ = ["overlays_stage", "real_images_stage", "export_stage"]


def overlays_stage(work: Path, specs: Path) -> StageRun:
    """Draw A-D region overlays from ``specs`` into ``<work>/overlays`` and write
    ``grounding_items.jsonl``; every invalid spec is a problem (file, line, id) and makes the
    run ``rejected``."""
    from socialbench.construction.overlays import render_spec
    from socialbench.construction.scene_fields import inherit_scene_fields, scene_index

    rows = read_jsonl(specs)
    by_id, by_image = scene_index(work)
    records, rejected, problems = [], [], []
    for i, spec in enumerate(rows, start=1):
        rec, spec_problems = render_spec(inherit_scene_fields(spec, by_id, by_image), work, work / "overlays")
        if rec is None:
            rejected.append({"id": spec["id"], "line": i, "problems": spec_problems})
            problems += [f"{specs}:{i} [{spec['id']}]: {p}" for p in spec_problems]
        else:
            records.append(rec)
    write_jsonl(work / "grounding_items.jsonl", records)
    write_jsonl(work / "overlays.rejected.jsonl", rejected)
    summary = StageSummary(
        stage="overlays",
        input=str(specs),
        output="grounding_items.jsonl",
        n_in=len(rows),
        n_out=len(records),
        n_new=len(records),
    )
    if rejected:
        summary.removed["invalid_spec"] = len(rejected)
    return StageRun(summary, problems=problems, rejected=bool(rejected))


def real_images_stage(
    work: Path,
    paths: Sequence[Path],
    opts: FilterOptions,
    settings: LLMSettings | None,
    *,
    category: str | None,
    subcategory: str | None,
) -> StageRun:
    """Filter collected photos (MIME, size, duplicates, near-duplicates, resolution, sharpness:
    ``opts``), copy the accepted ones to
    ``<work>/real`` and, with ``settings``, keep those a VLM judges robot-centric and
    suitable. Photos fetched by ``build crawl`` keep their provenance (``source_url``,
    ``query``, ``license``, category, subcategory; the options win)."""
    from PIL import Image

    from socialbench.construction.filters import relevance_tasks, scan_photos
    from socialbench.construction.images import IMAGE_EXT
    from socialbench.construction.stages.crawl import crawl_provenance
    from socialbench.vision.images import ImagePolicy, prepare_image

    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise UsageError(f"no such file or folder: {', '.join(missing)}")
    accepted, rejected = scan_photos(paths, opts)
    crawled = crawl_provenance(work)
    real = work / "real"
    real.mkdir(parents=True, exist_ok=True)
    for e in accepted:
        ext = IMAGE_EXT[e["mime"]]
        e["id"] = f"real/{e['sha256'][:16]}"
        target = real / f"{e['sha256'][:16]}{ext}"
        if not target.exists():
            shutil.copyfile(e["path"], target)
        e["image"] = target.relative_to(work).as_posix()
        e["source"] = e.pop("path")
        e.update(crawled.get(e["sha256"], {}))  # query, source URL, license of a crawled photo
        if category:
            e["category"] = category
        if subcategory:
            e["subcategory"] = subcategory
    summary = StageSummary(
        stage="real-images",
        input=", ".join(str(p) for p in paths),
        output="real_images.jsonl",
        n_in=len(accepted) + len(rejected),
    )
    outputs: list[StageOutput] = []
    if settings is not None:
        s = settings
        screen = StageOutput(work / "real_images.screen.jsonl", "real-images-screen")
        outputs.append(screen)
        pending = [e for e in accepted if e["id"] not in screen.done]
        images = {}
        for e in pending:
            with Image.open(work / e["image"]) as img:
                img.load()
                images[e["id"]] = prepare_image(img, ImagePolicy())
        tasks = relevance_tasks(pending, images, json_config(s))
        asyncio.run(run_tasks(s, tasks, screen, lambda r: [{"id": r.id, **r.value}], summary, "screen"))
        verdicts = {r["id"]: r for r in screen.records()}
        kept = []
        for e in accepted:
            v = verdicts.get(e["id"])
            if v is None:
                continue  # screening failed: retried on the next run
            if v["robot_centric"] and v["suitable"]:
                kept.append({**e, "relevance": v.get("reason", "")})
            else:
                rejected.append(
                    {
                        "path": e["source"],
                        "reason": "not_relevant",
                        "detail": v.get("reason", ""),
                        "robot_centric": v["robot_centric"],
                        "suitable": v["suitable"],
                    }
                )
        accepted = kept
    write_jsonl(work / "real_images.jsonl", accepted)
    write_jsonl(work / "real_images.rejected.jsonl", rejected)
    for r in rejected:
        summary.removed[r["reason"]] = summary.removed.get(r["reason"], 0) + 1
    summary.n_out = summary.n_new = len(accepted)
    return StageRun(summary, outputs)


def export_stage(work: Path, dest: Path, *, name: str, license: str, overwrite: bool) -> StageRun:
    """Write the canonical ``roboteq.jsonl``, ``images/`` and a dataset card from the
    aggregated annotations (loadable by ``socialbench eval`` and ``datasets``)."""
    from socialbench.construction.export import export_dataset
    from socialbench.construction.stage_summary import read_summaries

    folder = work / "aggregated"
    judgment = read_jsonl(folder / "judgment.jsonl") if (folder / "judgment.jsonl").is_file() else []
    grounding = read_jsonl(folder / "grounding.jsonl") if (folder / "grounding.jsonl").is_file() else []
    if not judgment and not grounding:
        raise UsageError(
            f"nothing to export: {folder} has no judgment.jsonl or grounding.jsonl (run `socialbench build aggregate`)"
        )
    agreement = (
        json.loads((folder / "agreement.json").read_text(encoding="utf-8"))
        if (folder / "agreement.json").is_file()
        else None
    )
    provenance = {d["stage"]: d.get("models") for d in read_summaries(work) if d.get("models")}
    res = export_dataset(
        judgment,
        grounding,
        work,
        dest,
        name=name,
        license=license,
        agreement=agreement,
        provenance=provenance,
        overwrite=overwrite,
    )
    summary = StageSummary(
        stage="export",
        input="aggregated/",
        output=str(dest),
        n_in=len(judgment) + len(grounding),
        n_out=res.scenes + res.questions,
        n_new=res.scenes + res.questions,
        notes=[
            f"{res.scenes} scenes ({res.behaviors} behaviors), {res.questions} grounding questions, "
            f"{res.images} images; load with socialbench eval --benchmark roboteq-bj --data {dest}"
        ],
    )
    return StageRun(summary)
