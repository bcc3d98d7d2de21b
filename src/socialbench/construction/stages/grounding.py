"""The grounding stages of ``socialbench build`` (RobotEQ App. E): the topic pool, Stage 1 (topic +
image -> question and editing instruction) and Stage 2 (the edit, by an image-editing model or
by the overlay renderer), plus the single-stage variant of Figure 19 (files: docs/build.md, "9a")."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from socialbench.construction.file_names import unique_name
from socialbench.construction.jsonl import read_jsonl, write_jsonl
from socialbench.construction.llm import JsonTask, LLMSettings
from socialbench.construction.record_fields import mapping, text
from socialbench.construction.stage_output import StageOutput
from socialbench.construction.stage_summary import StageSummary
from socialbench.construction.stages.common import (
    StageRun,
    json_config,
    open_summary,
    read_scene_images,
    rel,
    run_llm_stage,
)
from socialbench.errors import UsageError

if TYPE_CHECKING:
    from socialbench.construction.images import ImageClient, ImageSettings

__all__ = ["TOPIC_SOURCES", "topics_stage", "grounding_questions_stage", "grounding_images_stage"]

#: ``--source`` of the topics stage.
TOPIC_SOURCES = ("annotators", "model")


def _scenes(work: Path, inp: Path | None) -> tuple[Path, list[dict[str, object]]]:
    """Scene records ``{id, image, subset, category, subcategory}`` of ``inp`` (default
    ``behaviors.jsonl``: the scenes of the dataset)."""
    src = inp or work / "behaviors.jsonl"
    if not src.is_file():
        raise UsageError(f"no scene file {src}; run `socialbench build behaviors` first or pass --in SCENES.jsonl")
    rows = read_jsonl(src)
    bad = [str(r["id"]) for r in rows if not isinstance(r.get("image"), str)]
    if bad:
        raise UsageError(f"{src}: records without an image path: {', '.join(bad[:5])}")
    keys = ("id", "image", "subset", "category", "subcategory")
    return src, [{k: r.get(k) for k in keys} for r in rows]


def _fix_image(_rid: str) -> str:
    return "fix the image"


def topics_stage(work: Path, source: str, inp: Path | None, settings: LLMSettings | None, *, n: int) -> StageRun:
    """Pool the topics of every scene into ``topics.jsonl``: from the imported Label Studio
    ``topics`` annotations (``annotators``) or from a VLM shown the image only (``model``,
    ``n`` topics per scene at least, resumable in ``topics.model.jsonl``)."""
    from socialbench.construction import topics as tp

    if source not in TOPIC_SOURCES:
        raise UsageError(f"--source must be one of {', '.join(TOPIC_SOURCES)}")
    if source == "annotators" and settings is not None:
        raise UsageError("-m/--model is only used with --source model (annotators' topics need no model)")
    src, scenes = _scenes(work, inp)
    proposals: list[tuple[str, str, Sequence[str]]] = []
    if source == "annotators":
        ann = work / "annotation" / "topics" / "annotations.jsonl"
        if not ann.is_file():
            raise UsageError(
                f"no imported topic proposals ({ann}); run `socialbench build annotate export --kind topics`, "
                "collect proposals in Label Studio and `annotate import` the export (or use --source model -m VLM)"
            )
        proposals = [(r["item_id"], r["annotator"], r.get("topics") or []) for r in read_jsonl(ann)]
        run = StageRun(StageSummary(stage="topics", input=rel(work, ann), output="topics.jsonl", n_in=len(scenes)))
    else:
        if settings is None:
            raise UsageError("--source model needs -m/--model VLM")
        s = settings

        def make_tasks(pending: list[dict[str, object]], salts: dict[str, int], output: StageOutput) -> list[JsonTask]:
            images, readable = read_scene_images(work, pending, output, _fix_image)
            return tp.topic_tasks(readable, images, n=n, config=json_config(s), salts=salts)

        run = run_llm_stage(
            stage="topics",
            work=work,
            inp=src,
            output=work / "topics.model.jsonl",
            settings=s,
            make_tasks=make_tasks,
            to_records=lambda r: tp.topic_proposal_records(r, s.model),
            records=scenes,
        )
        proposals = [(r["id"], r["proposer"], r["topics"]) for r in run.outputs[0].records()]
        run.summary.output = "topics.jsonl"
        run.summary.notes.append("model-proposed topics stand in for the annotators' proposals of App. E")
    known = {str(sc["id"]) for sc in scenes}
    unknown = sorted({p[0] for p in proposals if p[0] not in known})
    if unknown:
        run.summary.notes.append(
            f"proposals for {len(unknown)} scene(s) not in {rel(work, src)} ignored: {unknown[:5]}"
        )
    pooled = tp.pool_topics(scenes, proposals)
    write_jsonl(work / "topics.jsonl", pooled)
    with_topics = {r["scene"] for r in pooled}
    run.summary.n_out = len(pooled)
    run.summary.notes.append(
        f"{len(pooled)} topics for {len(with_topics)} of {len(scenes)} scenes"
        + (f"; {len(scenes) - len(with_topics)} scene(s) have no topic yet" if len(with_topics) < len(scenes) else "")
    )
    return run


def grounding_questions_stage(work: Path, inp: Path | None, settings: LLMSettings) -> StageRun:
    """Stage 1: one question, A-D options, editing instruction and regions per topic
    (``grounding_questions.jsonl``); unusable replies are kept as failures."""
    from socialbench.construction import grounding_questions as gq

    src = inp or work / "topics.jsonl"
    rows = [{**t, "id": gq.question_id(t["id"]), "topic_id": t["id"]} for t in read_jsonl(src)]

    def make_tasks(pending: list[dict[str, object]], salts: dict[str, int], output: StageOutput) -> list[JsonTask]:
        images, readable = read_scene_images(work, pending, output, _fix_image)
        return gq.question_tasks(readable, images, config=json_config(settings), salts=salts)

    return run_llm_stage(
        stage="grounding-questions",
        work=work,
        inp=src,
        output=work / "grounding_questions.jsonl",
        settings=settings,
        make_tasks=make_tasks,
        to_records=lambda r: gq.question_records(r, settings.model),
        records=rows,
    )


def _edited_record(row: Mapping[str, object], image_rel: str, pipeline: str, model: str) -> dict[str, object]:
    """The grounding item of an image the editing model annotated (its regions are in the
    pixels only)."""
    return {
        "id": row["id"],
        "image": image_rel,
        "source_image": row["image"],
        "question": row["question"],
        "options": dict(mapping(row, "options")),
        "regions": [],
        "proposed_answer": row.get("answer"),
        "scene": row.get("scene"),
        "subset": row.get("subset"),
        "category": row.get("category"),
        "subcategory": row.get("subcategory"),
        "facets": [],
        "topic_id": row.get("topic_id"),
        "topic": row.get("topic"),
        "editing_instruction": row.get("editing_instruction"),
        "pipeline": pipeline,
        "renderer": "image-model",
        "image_model": model,
    }


async def _edit_all(
    work: Path, rows: Sequence[Mapping[str, object]], so: StageOutput, client: ImageClient, pipeline: str
) -> int:
    """Send each row's image and prompt to the edit endpoint; save and record each result."""
    from socialbench.construction import grounding_questions as gq
    from socialbench.construction.images import IMAGE_EXT, ImageError, write_atomic

    folder = work / "grounding_images" / pipeline
    folder.mkdir(parents=True, exist_ok=True)
    edited = 0

    async def one(row: Mapping[str, object]) -> None:
        nonlocal edited
        rid, image = str(row["id"]), text(row, "image")  # the stage JSONL reader checked the id
        try:
            data = (work / image).read_bytes()
        except OSError as exc:
            so.fail(rid, "unreadable_image", f"cannot read scene image {work / image}: {exc}")
            return
        prompt = gq.edit_prompt(row) if pipeline == "two-stage" else gq.single_stage_prompt(text(row, "topic"))
        try:
            result = await client.edit(data, prompt)
        except ImageError as exc:
            so.fail(rid, exc.kind, exc.message)
            return
        path = folder / f"{unique_name(rid)}{IMAGE_EXT.get(result.mime, '.png')}"
        write_atomic(path, result.data)
        so.write({**_edited_record(row, rel(work, path), pipeline, client.settings.model), "edit_prompt": prompt})
        edited += 1

    await asyncio.gather(*(one(r) for r in rows))
    return edited


def grounding_images_stage(
    work: Path,
    inp: Path | None,
    out: Path | None,
    image_settings: ImageSettings | None,
    *,
    single_stage: bool,
) -> StageRun:
    """Stage 2: annotate A-D on each scene image.

    Two-stage (default): from ``grounding_questions.jsonl``, by the image-editing model of
    ``image_settings`` (it gets the editing instruction) or, without one, by the overlay
    renderer (it draws the same instruction's ``regions``); output ``grounding_items.jsonl``.
    ``single_stage``: from ``topics.jsonl``, the image-editing model gets the topic itself
    (Figure 19's variant; the topic is the question; ids end in ``-sg-single`` so their
    annotations never mix with the two-stage items'); output
    ``grounding_items.single_stage.jsonl``. Items inherit their scene's subset, category and
    subcategory. Resumable: finished ids are skipped, failures retried."""
    from socialbench.construction import grounding_questions as gq
    from socialbench.construction.overlays import render_spec
    from socialbench.construction.scene_fields import inherit_scene_fields, scene_index

    if single_stage and image_settings is None:
        raise UsageError("--single-stage sends the topic to an image-editing model: pass --image-model")
    pipeline = "single-stage" if single_stage else "two-stage"
    if single_stage:
        src = inp or work / "topics.jsonl"
        rows = [
            {**t, "id": gq.question_id(t["id"]) + "-single", "topic_id": t["id"], "question": t["topic"]}
            for t in read_jsonl(src)
        ]
        dest = out or work / "grounding_items.single_stage.jsonl"
    else:
        src = inp or work / "grounding_questions.jsonl"
        rows = read_jsonl(src)
        dest = out or work / "grounding_items.jsonl"
    by_id, by_image = scene_index(work)
    rows = [inherit_scene_fields(r, by_id, by_image) for r in rows]
    so = StageOutput(dest, "grounding-images")
    renderer = "image-model" if image_settings is not None else "overlay"
    models = {"renderer": image_settings.model if image_settings is not None else "overlay"}
    summary = open_summary("grounding-images", work, src, so, rows, models)
    pending = [r for r in rows if r["id"] not in so.done]
    if image_settings is None:
        for row in pending:
            rec, problems = render_spec(row, work, work / "overlays")
            if rec is None:
                so.fail(row["id"], "invalid_spec", "; ".join(problems))
                continue
            keep = ("topic_id", "topic", "editing_instruction")
            so.write({**rec, **{k: row.get(k) for k in keep}, "pipeline": pipeline, "renderer": renderer})
    else:
        from socialbench.construction.images import ImageClient

        settings = image_settings

        async def run() -> int:
            client = ImageClient(settings)
            try:
                n = await _edit_all(work, pending, so, client, pipeline)
                summary.requests, summary.retries = client.calls, client.retries
                return n
            finally:
                await client.aclose()

        edited = asyncio.run(run())
        summary.images_edited = edited
        if settings.price_per_image is not None:
            summary.cost_usd = settings.price_per_image * edited
    summary.n_new, summary.n_out = so.written, len(so.done)
    summary.notes.append(f"{pipeline} pipeline, annotations by the {renderer} renderer")
    return StageRun(summary, [so])
