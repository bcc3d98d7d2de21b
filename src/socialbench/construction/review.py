"""Automated image quality review and revision loop (RobotEQ App. B.2, Table 3): each image is
reviewed and edited while a revision is due, at most ``max_rounds`` edits. Every review and
edit is a ``review_steps.jsonl`` record (ids ``<image id>#r<round>-review`` / ``-edit``), so a
killed run resumes inside an image's loop; ``review.jsonl`` gets the final record per image."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from PIL import Image

from socialbench.construction.images import ImageClient, ImageError, save_image
from socialbench.construction.jsonl import latest_by_id
from socialbench.construction.llm import BatchStats, JsonTask, run_json
from socialbench.construction.record_fields import mapping, text
from socialbench.construction.review_criteria import edit_prompt, review_prompt, revision_decision, validate_review
from socialbench.construction.stage_output import StageOutput
from socialbench.runner.engine import Engine
from socialbench.runner.progress import RunProgress
from socialbench.types import EncodedImage, GenerationConfig, Request
from socialbench.vision.images import ImagePolicy, prepare_image

__all__ = ["ReviewCounts", "ReviewOptions", "review_images"]


class ReviewCounts(TypedDict):
    """What one :func:`review_images` run did: reviews and edits made, images failed, final
    status counts, and the batch's tokens and repair requests."""

    reviews: int
    edits: int
    failed: int
    status: dict[str, int]
    batch: BatchStats


@dataclass(frozen=True)
class ReviewOptions:
    max_rounds: int = 2  # edits per image at most
    optional_edits: bool = False
    parse_retries: int = 2
    max_tokens: int = 2048
    image_policy: ImagePolicy = ImagePolicy(max_side=1024, format="JPEG", quality=90)
    progress: bool = False


#: The fields of a review step a ``review.jsonl`` round keeps.
_ROUND_KEYS = ("scenario_summary", "matrix", "reasons", "consistency_problems", "failed", "mandatory")


def _load_encoded(work: Path, rel: str, policy: ImagePolicy) -> EncodedImage:
    with Image.open(work / rel) as img:
        img.load()
        return prepare_image(img, policy)


async def review_images(
    records: Sequence[Mapping[str, object]],
    work: Path,
    steps: StageOutput,
    output: StageOutput,
    engine: Engine,
    editor: ImageClient | None,
    options: ReviewOptions,
) -> ReviewCounts:
    """Run the review loop for every ``images.jsonl`` record not yet in ``output``."""
    known_steps = latest_by_id(steps.records()) if steps.path.is_file() else {}
    pending = [r for r in records if r["id"] not in output.done]
    counts: ReviewCounts = {"reviews": 0, "edits": 0, "failed": 0, "status": {}, "batch": BatchStats()}
    config = GenerationConfig(max_tokens=options.max_tokens, temperature=0.0, json_mode=True)
    salts = output.failure_counts()

    async def one(rec: Mapping[str, object]) -> None:
        iid = str(rec["id"])  # the stage JSONL reader checked every id is text
        scenario = mapping(rec, "scenario")
        prompt = text(rec, "image_prompt", default="")
        rounds: list[dict[str, Any]] = []
        image_rel = text(rec, "image")
        r = 0
        while True:
            rid = f"{iid}#r{r}-review"
            step = known_steps.get(rid)
            if step is None:
                try:
                    encoded = await asyncio.to_thread(_load_encoded, work, image_rel, options.image_policy)
                except OSError as exc:
                    output.fail(iid, "image_missing", f"{image_rel}: {exc}")
                    counts["failed"] += 1
                    return
                task = JsonTask(
                    rid,
                    Request(prompt=review_prompt(scenario, prompt), images=(encoded,), config=config),
                    validate_review,
                    salt=salts.get(iid, 0),
                )
                res = await run_json(engine, task, options.parse_retries)
                b = counts["batch"]
                b.parse_retries += max(0, res.attempts - 1)
                b.prompt_tokens += res.prompt_tokens
                b.completion_tokens += res.completion_tokens
                if not res.ok:
                    output.fail(
                        iid,
                        res.error or "unknown",
                        f"round {r} review: {res.message}",
                        attempts=res.attempts,
                        raw=(res.raw or "")[:2000],
                    )
                    counts["failed"] += 1
                    return
                failed, mandatory = revision_decision(res.value["matrix"])
                step = {
                    "id": rid,
                    "image_id": iid,
                    "round": r,
                    "kind": "review",
                    "image": image_rel,
                    **res.value,
                    "failed": failed,
                    "mandatory": mandatory,
                }
                steps.write(step)
                counts["reviews"] += 1
            rounds.append(
                {
                    "round": r,
                    "image": image_rel,
                    "review": {k: step[k] for k in _ROUND_KEYS},
                }
            )
            failed, mandatory = step["failed"], step["mandatory"]
            if not failed:
                status = "passed"
                break
            if not mandatory and not options.optional_edits:
                status = "passed_soft"
                break
            if r >= options.max_rounds or editor is None:
                status = "rejected" if mandatory else "passed_soft"
                break
            eid = f"{iid}#r{r + 1}-edit"
            estep = known_steps.get(eid)
            if estep is None:
                edit_text = edit_prompt(prompt, step, mandatory)
                try:
                    data = (work / image_rel).read_bytes()
                    result = await editor.edit(data, edit_text)
                except (ImageError, OSError) as exc:
                    kind = exc.kind if isinstance(exc, ImageError) else "image_missing"
                    output.fail(iid, kind, f"round {r + 1} edit: {getattr(exc, 'message', str(exc))}")
                    counts["failed"] += 1
                    return
                fields = save_image(
                    work,
                    iid,
                    r + 1,
                    result,
                    {
                        "kind": "edit",
                        **editor.describe(),
                        "prompt": edit_text,
                        "source": image_rel,
                        "mandatory": mandatory,
                    },
                )
                estep = {
                    "id": eid,
                    "image_id": iid,
                    "round": r + 1,
                    "kind": "edit",
                    "edit_prompt": edit_text,
                    "mandatory": mandatory,
                    **fields,
                }
                steps.write(estep)
                counts["edits"] += 1
            rounds[-1]["edit_prompt"] = estep["edit_prompt"]
            image_rel = estep["image"]
            r += 1
        best = min(rounds, key=lambda x: (x["review"]["mandatory"], len(x["review"]["failed"]), -x["round"]))
        output.write(
            {
                "id": iid,
                "status": status,
                "original": rounds[0]["image"],
                "final": rounds[-1]["image"],
                "final_round": rounds[-1]["round"],
                "best_round": best["round"],
                "rounds": rounds,
                "image_prompt": prompt,
                "scenario": scenario,
            }
        )
        counts["status"][status] = counts["status"].get(status, 0) + 1

    with RunProgress(len(pending), enabled=options.progress, label="review") as bar:

        async def tracked(rec: Mapping[str, object]) -> None:
            await one(rec)
            bar.advance()

        await asyncio.gather(*(tracked(r) for r in pending))
    return counts
