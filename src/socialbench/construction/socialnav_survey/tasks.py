"""The Label Studio tasks of a SocialNav-SUB survey: one per scenario (:func:`survey_task`).

``data`` holds ``kind`` (:data:`~.order.TASK_KIND`), ``survey_id``, ``sample_id``,
``annotators`` (K, the annotations each task should get), ``title``, ``instructions``
(:func:`instructions_text`), ``image_0`` .. ``image_9`` (references to the composites) and
``image_paths`` (their paths in the dataset), the text of each scenario question under its
key, and ``people``: per labelled person, in label order, ``{"label", "title", <base>: text}``
with the text rendered for that person as in the model's prompt."""

from __future__ import annotations

from socialbench.benchmarks.socialnav_sub.bank import BLOCK_KEYS, INSTRUCTION_BLOCK_OF, PromptBank, expand_questions
from socialbench.benchmarks.socialnav_sub.layout import N_FRAMES
from socialbench.construction.annotation_tasks import ImageRefs
from socialbench.construction.socialnav_survey.config import PEOPLE_FIELD
from socialbench.construction.socialnav_survey.order import PERSON_KEYS, SCENE_KEYS, TASK_KIND

__all__ = ["composite_path", "instructions_text", "survey_task"]


def composite_path(sample_id: str, t: int) -> str:
    """The release path (relative to the dataset folder) of a sample's composite ``t``."""
    return f"prompts/{sample_id}/sample_with_bev_{t}.png"


def instructions_text(bank: PromptBank) -> str:
    """The survey instructions and then every instruction block, in the order the survey
    first needs them, one paragraph per block (the texts the model's prompts carry)."""
    order = ["survey_instructions"]
    for base in (*SCENE_KEYS, *PERSON_KEYS):
        block = INSTRUCTION_BLOCK_OF[base]
        if block not in order:
            order.append(block)
    order += [b for b in BLOCK_KEYS if b not in order]
    return "\n\n".join("\n".join(bank.blocks[b]) for b in order if bank.blocks.get(b))


def survey_task(
    sample_id: str,
    n_people: int,
    bank: PromptBank,
    refs: ImageRefs,
    *,
    survey: str,
    annotators: int,
    position: tuple[int, int],
    instructions: str,
) -> dict[str, object]:
    """The task of one scenario; ``position`` = (its number from 1, the number of scenarios)."""
    questions = {q.key: q for q in expand_questions(bank, n_people)}
    paths = [composite_path(sample_id, t) for t in range(N_FRAMES)]
    data: dict[str, object] = {
        "kind": TASK_KIND,
        "survey_id": survey,
        "sample_id": sample_id,
        "annotators": annotators,
        "title": f"Scenario {position[0]} of {position[1]} ({sample_id})",
        "instructions": instructions,
        **{f"image_{t}": refs.url(p) for t, p in enumerate(paths)},
        "image_paths": paths,
        **{base: questions[base].text for base in SCENE_KEYS},
    }
    people = []
    for label in range(1, n_people + 1):
        person: dict[str, object] = {"label": label, "title": f"Person {label} (the circle numbered {label})"}
        for base in PERSON_KEYS:
            person[base] = questions[f"{base}_p{label}"].text
        people.append(person)
    data[PEOPLE_FIELD] = people
    return {"data": data}
