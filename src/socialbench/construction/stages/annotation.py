"""The human-annotation stages of ``socialbench build``: Label Studio task export, import of
its JSON exports, and aggregation of the imported annotations (majority vote, escalations,
agreement, the image-necessity filter)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from socialbench.construction.jsonl import read_jsonl, write_jsonl
from socialbench.construction.stage_summary import StageSummary
from socialbench.construction.stages.common import StageRun, rel
from socialbench.errors import UsageError

__all__ = ["annotate_export_stage", "annotate_import_stage", "aggregate_stage", "ANNOTATION_INPUTS"]

#: Annotation kind -> the work-folder file its tasks are made from.
ANNOTATION_INPUTS = {
    "verification": "review.jsonl",
    "judgment": "behaviors.jsonl",
    "grounding": "grounding_items.jsonl",
    "topics": "behaviors.jsonl",
    # the final behaviors (after a first `build aggregate`): Figure 6(a) relabels questions of the benchmark
    "judgment-no-image": "aggregated/judgment.jsonl",
}


def annotate_export_stage(
    work: Path,
    kind: str,
    inp: Path | None,
    *,
    image_refs: str,
    prefix: str,
    document_root: Path | None,
    prefill_facets: bool,
    sample: int | None = None,
    seed: int = 0,
) -> StageRun:
    """Write ``<work>/annotation/<kind>/tasks.json`` and ``config.xml`` for Label Studio
    (``sample`` / ``seed``: a random sample of behaviors, ``judgment-no-image`` only)."""
    from socialbench.construction import annotation_tasks as an
    from socialbench.construction.annotation_config import NO_IMAGE_KIND, labeling_config

    if kind not in ANNOTATION_INPUTS:
        raise UsageError(f"--kind must be one of {', '.join(ANNOTATION_INPUTS)}")
    if image_refs == "prefix" and not prefix:
        raise UsageError("--image-refs prefix needs --prefix URL")
    if sample is not None and kind != NO_IMAGE_KIND:
        raise UsageError(f"--sample applies to --kind {NO_IMAGE_KIND} only (got --kind {kind})")
    if sample is not None and sample < 1:
        raise UsageError(f"--sample must be at least 1 (got {sample})")
    src = inp or work / ANNOTATION_INPUTS[kind]
    if kind == NO_IMAGE_KIND and not src.is_file():
        raise UsageError(
            f"{src} does not exist: run `socialbench build aggregate` on the with-image judgment annotations first "
            "(the without-image tasks are made from the final behaviors), or pass --in"
        )
    rows = read_jsonl(src)
    refs = an.ImageRefs(mode=image_refs, work=work, document_root=document_root, prefix=prefix)
    if kind == "verification":
        tasks = an.verification_tasks(rows, refs)
    elif kind == "judgment":
        tasks = an.judgment_tasks(rows, refs, prefill_facets=prefill_facets)
    elif kind == "topics":
        tasks = an.topic_proposal_tasks(rows, refs)
    elif kind == NO_IMAGE_KIND:
        tasks = an.judgment_no_image_tasks(rows, sample=sample, seed=seed)
    else:
        tasks = an.grounding_tasks(rows, refs)
    folder = work / "annotation" / kind
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tasks.json").write_text(json.dumps(tasks, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (folder / "config.xml").write_text(labeling_config(kind) + "\n", encoding="utf-8")
    summary = StageSummary(
        stage=f"annotate-export-{kind}",
        input=rel(work, src),
        output=rel(work, folder / "tasks.json"),
        n_in=len(rows),
        n_out=len(tasks),
        n_new=len(tasks),
    )
    if kind == NO_IMAGE_KIND:
        summary.notes.append(
            "give these tasks to annotators who have not seen these scenes with their image; import the export, "
            "then run `socialbench build aggregate` again to attach the labels as votes_no_image"
        )
    elif image_refs == "local-files":
        summary.notes.append(
            "start Label Studio with LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED=true and "
            f"LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT={(document_root or work).resolve()}"
        )
    return StageRun(summary)


def annotate_import_stage(work: Path, exports: Sequence[Path], *, replace: bool) -> StageRun:
    """Read Label Studio JSON exports into ``<work>/annotation/<kind>/annotations.jsonl``
    (merged with earlier imports, the latest annotation of an annotator winning, unless
    ``replace``); one message per kind imported."""
    from socialbench.construction.annotation_import import import_export
    from socialbench.construction.jsonl import latest_by_id

    res = import_export(exports)
    total = 0
    messages = []
    for kind, rows in res.rows.items():
        if not rows:
            continue
        path = work / "annotation" / kind / "annotations.jsonl"
        old = [] if replace or not path.is_file() else read_jsonl(path)
        merged = list(latest_by_id([*old, *rows]).values())
        merged.sort(key=lambda r: (r["item_id"], r.get("k", 0), r["annotator"]))
        write_jsonl(path, merged)
        total += len(merged)
        messages.append(f"{kind}: {len(rows)} annotation(s) imported, {len(merged)} in {path}")
    summary = StageSummary(
        stage="annotate-import",
        input=", ".join(str(e) for e in exports),
        output="annotation/",
        n_in=sum(len(r) for r in res.rows.values()),
        n_out=total,
        n_new=sum(len(r) for r in res.rows.values()),
    )
    if res.cancelled:
        summary.removed["cancelled"] = res.cancelled
    if res.superseded:
        summary.removed["superseded_by_later_annotation"] = res.superseded
    return StageRun(summary, messages=messages)


def _resolutions(
    path: Path | None, behaviors: list[dict[str, Any]] | None, items: list[dict[str, Any]] | None
) -> tuple[dict[tuple[str, int], str], dict[str, Any]]:
    """Checked expert decisions (see :func:`socialbench.construction.resolutions.read_resolutions`):
    behaviors must be in ``behaviors`` (None: no judgment annotations imported), grounding
    questions in ``items``."""
    from socialbench.construction.resolutions import read_resolutions

    if path is None:
        return {}, {}
    keys = [(str(b_scene["id"]), int(b["k"])) for b_scene in behaviors or [] for b in b_scene["behaviors"]]
    return read_resolutions(path, behaviors=keys, questions=[str(q["id"]) for q in items or []])


def _count(summary: StageSummary, key: str, n: int) -> None:
    if n:
        summary.removed[key] = summary.removed.get(key, 0) + n


def aggregate_stage(
    work: Path,
    *,
    min_annotators: int,
    resolutions: Path | None,
    gold: Path | None,
    text_only: Sequence[Path] | None,
    min_correct: float,
) -> StageRun:
    """Majority vote, escalations, invalid removal, agreement and the image-necessity filter
    over the imported annotations; writes ``<work>/aggregated/``."""
    from socialbench.construction.aggregate import aggregate_judgment
    from socialbench.construction.aggregate_grounding import aggregate_grounding
    from socialbench.construction.aggregate_verification import aggregate_verification
    from socialbench.construction.image_necessity import (
        attach_no_image_votes,
        image_necessity,
        load_text_only_predictions,
    )

    if min_annotators < 1:
        raise UsageError("--min-annotators must be at least 1")
    folder = work / "aggregated"
    ann = work / "annotation"
    has_judgment = (ann / "judgment" / "annotations.jsonl").is_file()
    has_grounding = (ann / "grounding" / "annotations.jsonl").is_file()
    has_verification = (ann / "verification" / "annotations.jsonl").is_file()
    if not (has_judgment or has_grounding or has_verification):
        raise UsageError(
            f"no imported annotations under {ann}; run `socialbench build annotate import EXPORT.json` first"
        )
    behaviors = read_jsonl(work / "behaviors.jsonl") if has_judgment else None
    items = read_jsonl(work / "grounding_items.jsonl") if has_grounding else None
    jres, gres = _resolutions(resolutions, behaviors, items)
    folder.mkdir(parents=True, exist_ok=True)
    agreement: dict[str, Any] = {}
    summary = StageSummary(stage="aggregate", input="annotation/", output="aggregated/")
    if behaviors is not None:
        rows = read_jsonl(ann / "judgment" / "annotations.jsonl")
        gold_map = (
            {(str(r["item_id"]), int(r["k"])): r["label"] for r in read_jsonl(gold, require_id=False)} if gold else None
        )
        res = aggregate_judgment(behaviors, rows, min_annotators=min_annotators, resolutions=jres, gold=gold_map)
        scenes, removed = res.scenes, list(res.removed)
        if text_only:
            runs = load_text_only_predictions(text_only)
            scenes, dropped = image_necessity(scenes, runs, min_correct=min_correct)
            write_jsonl(folder / "image_necessity.dropped.jsonl", dropped)
            removed += dropped
        no_image = ann / "judgment-no-image" / "annotations.jsonl"
        if no_image.is_file():
            scenes, n_attached, unmatched = attach_no_image_votes(scenes, read_jsonl(no_image))
            summary.notes.append(f"{n_attached} behavior(s) carry votes_no_image (labels given without the image)")
            if unmatched:
                summary.notes.append(
                    f"{len(unmatched)} behavior(s) labeled without the image are not among the final behaviors "
                    f"(e.g. {unmatched[0]}); their labels are not attached"
                )
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
            summary.notes.append(
                f"{len(res.escalations)} behavior(s) escalated: decide them in a --resolutions file "
                f"(see {folder / 'escalations.judgment.jsonl'})"
            )
    if items is not None:
        rows = read_jsonl(ann / "grounding" / "annotations.jsonl")
        gr = aggregate_grounding(items, rows, min_annotators=min_annotators, resolutions=gres)
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
            summary.notes.append(
                f"{len(gr.escalations)} grounding question(s) escalated: decide them in a --resolutions "
                f"file (see {folder / 'escalations.grounding.jsonl'})"
            )
    if has_verification:
        rows = read_jsonl(ann / "verification" / "annotations.jsonl")
        reviews = read_jsonl(work / "review.jsonl")
        vr = aggregate_verification(reviews, rows, min_annotators=min_annotators)
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
            summary.notes.append(
                f"{len(vr['unannotated'])} edited image(s) without enough annotators (need "
                f"{min_annotators}): annotate them and aggregate again "
                f"(see {folder / 'verification.unannotated.jsonl'})"
            )
    (folder / "agreement.json").write_text(json.dumps(agreement, indent=2) + "\n", encoding="utf-8")
    return StageRun(summary)
