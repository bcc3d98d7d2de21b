"""The behaviors stage of ``socialbench build``: candidate next actions (proper and improper,
with suggested facets) per scene image, from the reviewed, verified, generated or real
images."""

from __future__ import annotations

from pathlib import Path

from socialbench.construction.jsonl import read_jsonl
from socialbench.construction.llm import JsonTask, LLMSettings
from socialbench.construction.stage_output import StageOutput
from socialbench.construction.stages.common import StageRun, json_config, read_scene_images, run_llm_stage
from socialbench.errors import UsageError

__all__ = ["BEHAVIOR_SOURCES", "behaviors_stage"]


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
    from socialbench.construction import behaviors as bh

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

    def make_tasks(pending: list[dict[str, object]], salts: dict[str, int], output: StageOutput) -> list[JsonTask]:
        fix = "fix the image of {} or rerun the stage that made it".format
        images, readable = read_scene_images(work, pending, output, fix)
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
