"""The image review of RobotEQ App. B.2, Table 3: its seven criteria, the reviewer's prompt, the
check of its reply and the revision decision and edit prompt that follow from it.

``json_consistency`` is judged on the reply itself: the summary, a boolean for every criterion
and reasons for exactly the failed ones. A revision is mandatory when a Hard criterion
(``factual_correctness``, ``json_consistency``) or at least four criteria failed
(``sum(1 - q_j) >= 4``); the loop is :mod:`socialbench.construction.review`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from socialbench.construction.llm import OutputError
from socialbench.construction.record_fields import mapping

__all__ = [
    "CRITERIA",
    "HARD",
    "KEYS",
    "IMAGE_KEYS",
    "Criterion",
    "review_prompt",
    "validate_review",
    "revision_decision",
    "edit_prompt",
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
