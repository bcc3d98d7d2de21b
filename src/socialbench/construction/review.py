"""Automated image quality review and revision loop (RobotEQ App. B.2, Table 3).

A reviewing VLM scores each image on the seven criteria of Table 3 and returns
``{"scenario_summary", "matrix": {criterion: bool}, "reasons": {failed criterion: fix}}``.
``json_consistency`` (criterion 6) is judged on that reply itself: it holds when the reply
has the summary, a boolean for every criterion, and reasons for exactly the failed
criteria (a reply the model marks inconsistent fails it too). A reply without a usable
matrix (no JSON, missing or non-boolean criteria) is *malformed* and asked again
(:mod:`socialbench.construction.llm`), then recorded as a failure.

Mandatory revision (:func:`revision_decision`): any Hard criterion failed
(``factual_correctness``, ``json_consistency``) or at least four criteria failed
(``sum(1 - q_j) >= 4``). A mandatory revision sends the image back through the edit
endpoint with the failed criteria's suggestions; with ``optional_edits`` an image that only
failed Soft criteria is edited too (minor improvements, as the paper does for every image).
The edited image is reviewed again, at most ``max_rounds`` edits per image.

Every step is kept: ``review_steps.jsonl`` gets one record per review and per edit (ids
``<image id>#r<round>-review`` / ``#r<round>-edit``), so a killed run resumes in the middle
of an image's loop. ``review.jsonl`` gets the final record per image: ``status``
(``passed``: nothing failed; ``passed_soft``: only Soft failures left, no mandatory flag;
``rejected``: still mandatory after ``max_rounds`` edits), every round, the original and the
final image.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from PIL import Image

from socialbench.construction.images import ImageClient, ImageError, save_image
from socialbench.construction.jsonl import latest_by_id
from socialbench.construction.llm import BatchStats, JsonTask, OutputError, run_json
from socialbench.construction.record_fields import mapping, text
from socialbench.construction.stage_output import StageOutput
from socialbench.runner.engine import Engine
from socialbench.runner.progress import RunProgress
from socialbench.types import EncodedImage, GenerationConfig, Request
from socialbench.vision.images import ImagePolicy, prepare_image

__all__ = [
    "CRITERIA",
    "HARD",
    "Criterion",
    "review_prompt",
    "validate_review",
    "revision_decision",
    "edit_prompt",
    "ReviewOptions",
    "review_images",
]


@dataclass(frozen=True)
class Criterion:
    key: str
    hard: bool
    description: str


#: Table 3 of the paper (id order).
CRITERIA: tuple[Criterion, ...] = (
    Criterion(
        "scenario_faithfulness",
        False,
        "The image correctly and sufficiently expresses the intended scenario; "
        "images that drift from it or are hard to interpret fail.",
    ),
    Criterion(
        "factual_correctness",
        True,
        "No obvious generation artifacts or physically implausible content "
        "(abnormal limbs, distorted fingers, broken joints, unreasonable object states).",
    ),
    Criterion(
        "detail_quality",
        False,
        "Human actions, object relations and spatial cues are clear enough for "
        "annotators to understand what is happening.",
    ),
    Criterion(
        "pov_constraint",
        False,
        "Robot first-person viewpoint; no robot body, robotic arms, external shell, "
        "screen or robot reflection visible.",
    ),
    Criterion(
        "no_forbidden_graphics",
        False,
        "No obvious text, posters, tables, infographics, mobile interfaces, computer UI or other non-scene graphics.",
    ),
    Criterion(
        "json_consistency",
        True,
        "The reply contains scenario_summary, matrix with the required boolean keys, "
        "and reasons; reasons list only failed criteria.",
    ),
    Criterion(
        "social_cue_visibility",
        False,
        "Visible social cues needed for social-norm reasoning (gaze, posture, "
        "gesture, interpersonal distance, object ownership, waiting state, ...).",
    ),
)
KEYS = tuple(c.key for c in CRITERIA)
HARD = frozenset(c.key for c in CRITERIA if c.hard)
#: Criteria the model judges from the image (json_consistency is judged on the reply).
IMAGE_KEYS = tuple(k for k in KEYS if k != "json_consistency")


def review_prompt(scenario: Mapping[str, object], image_prompt: str) -> str:
    lines = [
        "You are an expert reviewer of generated benchmark images for robot social reasoning.",
        "The attached image should show the following scenario from the robot's own first-person camera.",
        f"Scenario: {scenario.get('title', '')}: {scenario.get('description', '')}",
        f"Decision point: {scenario.get('decision_point', '')}",
        f"Image prompt used: {image_prompt}",
        "",
        "Judge each criterion (true = satisfied, false = failed):",
    ]
    for i, c in enumerate(CRITERIA, start=1):
        lines.append(f"{i}. {c.key} ({'Hard' if c.hard else 'Soft'}): {c.description}")
    lines += [
        "",
        "Reply with only a JSON object of this form. List in reasons only the failed criteria, each with a concrete "
        "revision suggestion; criteria marked true must not appear in reasons.",
        '{"scenario_summary": "what the image shows", "matrix": {'
        + ", ".join(f'"{k}": true' for k in KEYS)
        + '}, "reasons": {"criterion_key": "what is wrong and how to fix it"}}',
    ]
    return "\n".join(lines)


def validate_review(obj: dict[str, object]) -> dict[str, object]:
    """Structural checks (malformed -> retry) then the json_consistency judgment."""
    matrix = obj.get("matrix")
    if not isinstance(matrix, dict):
        raise OutputError("missing_fields", "the reply lacks the matrix object")
    missing = [k for k in IMAGE_KEYS if k not in matrix]
    if missing:
        raise OutputError("missing_fields", f"matrix lacks {', '.join(missing)}")
    bad = [k for k in KEYS if k in matrix and not isinstance(matrix[k], bool)]
    if bad:
        raise OutputError("invalid_output", f"matrix values must be true or false ({', '.join(bad)})")
    q = {k: bool(matrix[k]) for k in IMAGE_KEYS}
    reasons_raw = obj.get("reasons", {})
    problems: list[str] = []
    summary = obj.get("scenario_summary")
    if not isinstance(summary, str) or not summary.strip():
        problems.append("scenario_summary is missing")
    if isinstance(reasons_raw, list):  # [{"criterion": k, "reason": ...}] is accepted too
        reasons_raw = {str(r.get("criterion")): r.get("reason") for r in reasons_raw if isinstance(r, dict)}
    if not isinstance(reasons_raw, dict):
        problems.append("reasons is not an object")
        reasons_raw = {}
    reasons = {str(k): str(v) for k, v in reasons_raw.items() if v not in (None, "")}
    failed_img = [k for k in IMAGE_KEYS if not q[k]]
    extra = [k for k in reasons if k in q and q[k]]
    unknown = [k for k in reasons if k not in KEYS]
    without = [k for k in failed_img if k not in reasons]
    if extra:
        problems.append(f"reasons given for passed criteria: {', '.join(extra)}")
    if unknown:
        problems.append(f"reasons for unknown criteria: {', '.join(unknown)}")
    if without:
        problems.append(f"no reason for failed criteria: {', '.join(without)}")
    if matrix.get("json_consistency") is False:
        problems.append("the reviewer marked its own reply inconsistent")
    q["json_consistency"] = not problems
    return {
        "scenario_summary": summary.strip() if isinstance(summary, str) else "",
        "matrix": {k: q[k] for k in KEYS},
        "reasons": {k: v for k, v in reasons.items() if k in KEYS},
        "consistency_problems": problems,
    }


def revision_decision(matrix: Mapping[str, object]) -> tuple[list[str], bool]:
    """(failed criteria in Table 3 order, mandatory revision flag)."""
    failed = [k for k in KEYS if not matrix.get(k, False)]
    mandatory = any(k in HARD for k in failed) or len(failed) >= 4
    return failed, mandatory


def edit_prompt(image_prompt: str, review: Mapping[str, object], mandatory: bool) -> str:
    failed, _ = revision_decision(mapping(review, "matrix"))
    reasons = mapping(review, "reasons")
    fixes = [
        f"- {k}: {reasons.get(k) or next(c.description for c in CRITERIA if c.key == k)}"
        for k in failed
        if k != "json_consistency"
    ]
    head = (
        "Revise this image. The following problems must be corrected:"
        if mandatory
        else "Make minor improvements to this image where possible:"
    )
    return "\n".join(
        [
            head,
            *fixes,
            "Keep the scenario, the people, the layout and the robot's first-person viewpoint unchanged otherwise; "
            "photorealistic; no robot body, text or user-interface graphics.",
            f"Intended image: {image_prompt}",
        ]
    )


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
                    "review": {
                        k: step[k]
                        for k in (
                            "scenario_summary",
                            "matrix",
                            "reasons",
                            "consistency_problems",
                            "failed",
                            "mandatory",
                        )
                    },
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
