"""Spatial grounding questions from topics (RobotEQ App. E, "Two-Stage Question and Image Editing").

Stage 1 (:func:`question_prompt`, :func:`validate_question`): the scene image and a topic ->
a multiple-select question, an editing instruction placing annotations A-D, the same regions
in relative coordinates (for the overlay renderer) and a proposed answer (never ground truth);
reply format and checks: docs/build.md, "9a". Stage 2's prompts: :func:`edit_prompt`
(two-stage) and :func:`single_stage_prompt` (Figure 19)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from socialbench.benchmarks.roboteq.schema import LETTERS
from socialbench.construction.llm import JsonResult, JsonTask, OutputError, image_tasks
from socialbench.construction.overlay_regions import parse_regions
from socialbench.construction.record_fields import text
from socialbench.types import EncodedImage, GenerationConfig

__all__ = [
    "question_prompt",
    "validate_question",
    "question_tasks",
    "question_records",
    "edit_prompt",
    "single_stage_prompt",
    "question_id",
]

#: Size the relative regions are checked at (any size works: they are relative).
_CHECK_SIZE = (1000, 1000)


def question_id(topic_id: str) -> str:
    """The grounding item id of the question made from topic ``topic_id``."""
    return f"{topic_id}-sg"


def question_prompt(topic: str) -> str:
    """The Stage 1 scaffolding prompt for one human-proposed topic (the image is attached)."""
    return "\n".join(
        [
            "You write spatial grounding questions for a benchmark of socially intelligent robots.",
            "The image is what the robot currently sees through its own camera.",
            f"Proposed topic: {topic}",
            "",
            "Produce two outputs:",
            "1. A standardized spatial grounding question title, addressed to the robot (for example "
            '"Where should you wait for the guest?" or "Which person should you approach first?"). '
            "The question is multiple-select: more than one option may be correct.",
            "2. An image editing instruction that overlays four spatial annotations labeled A, B, C and D on the "
            "original image (regions, positions or movement paths, each with its letter clearly visible). "
            "At least one annotation must correspond to a correct answer. Place the incorrect options at "
            "plausible but suboptimal regions, so that the question tests fine-grained spatial grounding rather "
            "than simple visual salience. Annotations must not overlap and must stay inside the image.",
            "Also give the same four annotations as coordinates relative to the image (0-1, origin top left): "
            'shape "box" with "box": [x0, y0, x1, y1], "polygon" with 3+ "points", or "arrow" / "path" with 2+ '
            '"points" [[x, y], ...]; a short description of each option; and the letters you consider correct.',
            "",
            "Reply with only a JSON object of this form:",
            '{"question": "Where should you ...?", "editing_instruction": "Overlay four labeled annotations: A, ...", '
            '"options": {"A": "...", "B": "...", "C": "...", "D": "..."}, '
            '"regions": [{"label": "A", "shape": "box", "box": [0.05, 0.4, 0.3, 0.9]}, '
            '{"label": "B", "shape": "arrow", "points": [[0.5, 0.95], [0.7, 0.6]]}, ...], "answer": ["A"]}',
        ]
    )


def _letters_named(text: str) -> set[str]:
    return {x for x in LETTERS if re.search(rf"(?<![A-Za-z]){x}(?![A-Za-z])", text)}


def validate_question(obj: dict[str, object]) -> dict[str, object]:
    """Validator of a Stage 1 reply (see the module docstring); returns the normalised
    question, instruction, options, regions and answer."""
    question, instruction = obj.get("question"), obj.get("editing_instruction")
    options, regions, answer = obj.get("options"), obj.get("regions"), obj.get("answer")
    missing = [
        name
        for name, value in (
            ("question", question),
            ("editing_instruction", instruction),
            ("options", options),
            ("regions", regions),
            ("answer", answer),
        )
        if value in (None, "", [], {})
    ]
    if missing:
        raise OutputError("missing_fields", f"the reply lacks {', '.join(missing)}")
    if not isinstance(question, str) or not isinstance(instruction, str):
        raise OutputError("invalid_output", "question and editing_instruction must be strings")
    absent = [x for x in LETTERS if x not in _letters_named(instruction)]
    if absent:
        raise OutputError("invalid_output", f"the editing instruction does not place annotation(s) {', '.join(absent)}")
    if not isinstance(options, dict) or any(
        not isinstance(options.get(x), str) or not options[x].strip() for x in LETTERS
    ):
        raise OutputError("invalid_output", "options must describe each of A, B, C and D")
    if not isinstance(answer, list) or any(str(a).strip().upper() not in LETTERS for a in answer):
        raise OutputError("invalid_output", f"answer {answer!r} must be a non-empty list of letters A-D")
    letters = [x for x in LETTERS if x in {str(a).strip().upper() for a in answer}]
    spec = {"coords": "relative", "regions": regions, "answer": letters}
    parsed, problems = parse_regions(spec, _CHECK_SIZE)
    if problems:
        raise OutputError("invalid_output", "; ".join(problems))
    if not isinstance(regions, list) or [r.label for r in parsed] != list(LETTERS):
        raise OutputError("invalid_output", "regions must place exactly the four annotations A, B, C and D")
    by_label = {str(r["label"]).strip().upper(): r for r in regions if isinstance(r, dict)}
    return {
        "question": " ".join(question.split()),
        "editing_instruction": instruction.strip(),
        "options": {x: options[x].strip() for x in LETTERS},
        "regions": [{**by_label[x], "label": x} for x in LETTERS],
        "answer": letters,
    }


def question_tasks(
    topics: Sequence[Mapping[str, object]],
    images: Mapping[str, EncodedImage],
    *,
    config: GenerationConfig,
    salts: Mapping[str, int] | None = None,
) -> list[JsonTask]:
    """One Stage 1 request per topic whose scene image was read. ``topics`` are
    ``topics.jsonl`` records re-keyed by their question id (:func:`question_id`) with the
    topic's own id in ``topic_id``; ``images`` are keyed by question id."""
    return image_tasks(topics, images, lambda t: question_prompt(text(t, "topic")), validate_question, config, salts)


def question_records(result: JsonResult, model: str) -> list[dict[str, object]]:
    """The ``grounding_questions.jsonl`` record of one answered topic: a region spec of
    :mod:`socialbench.construction.overlay_regions` plus the editing instruction and provenance."""
    t, v = result.context, result.value
    return [
        {
            "id": result.id,
            "image": t["image"],
            "scene": t.get("scene"),
            "topic_id": t["topic_id"],
            "topic": t["topic"],
            "question": v["question"],
            "options": v["options"],
            "coords": "relative",
            "regions": v["regions"],
            "answer": v["answer"],
            "editing_instruction": v["editing_instruction"],
            "subset": t.get("subset"),
            "category": t.get("category"),
            "subcategory": t.get("subcategory"),
            "pipeline": "two-stage",
            "question_model": model,
        }
    ]


def edit_prompt(record: Mapping[str, object]) -> str:
    """Stage 2 of the two-stage pipeline: the editing instruction, sent as is."""
    return str(record["editing_instruction"])


def single_stage_prompt(topic: str) -> str:
    """The single-stage variant (Figure 19): the image-editing model gets the image and the
    human-proposed topic directly."""
    return (
        f"This is a robot's first-person camera view. Spatial grounding topic: {topic}\n"
        "Overlay four spatial annotations labeled A, B, C and D on the image (regions, positions or movement "
        "paths, each with its letter clearly visible) as the answer options of a multiple-select question on this "
        "topic: at least one annotation must be a correct answer, and the others plausible but suboptimal. "
        "Keep the rest of the image unchanged."
    )
