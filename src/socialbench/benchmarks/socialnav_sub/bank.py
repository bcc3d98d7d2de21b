"""The SocialNav-SUB prompt bank: question texts, options, instruction blocks, dependencies.

The on-disk format is the official one (``prompts/survey_prompt.json`` and
``prompts/relevant_prev_questions.json``, reference §b/§c); the bundled copy in ``data/`` and
how it differs from the official prompts are described in the README's "SocialNav-SUB
methods". :func:`expand_questions` turns the bank into the per-sample list of
:class:`~socialbench.types.Question` in the official query order: 3 + 12·n questions for a
sample with n people.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from socialbench.types import Question, QuestionKind

SPATIAL = "Spatial reasoning"
SPATIOTEMPORAL = "Spatiotemporal reasoning"
SOCIAL = "Social reasoning"

#: The 15 base questions, in the rank order used by the official query order (reference §c).
BASE_KEYS: tuple[str, ...] = (
    "q_robot_moving_direction",
    "q_person_spatial_position_begin",
    "q_person_spatial_position_end",
    "q_person_distance_change",
    "q_goal_position_begin",
    "q_goal_position_end",
    "q_obstructing_path",
    "q_obstructing_end_position",
    "q_robot_affected",
    "q_robot_action",
    "q_person_affected",
    "q_person_action",
    "q_robot_suggested_affected",
    "q_robot_suggested_action",
    "q_human_future_action_prediction",
)

#: Questions asked once per sample (no ``_p<i>`` suffix).
GLOBAL_KEYS: frozenset[str] = frozenset({"q_robot_moving_direction", "q_goal_position_begin", "q_goal_position_end"})

#: Instruction-block keys of the bank, ``survey_instructions`` first.
BLOCK_KEYS: tuple[str, ...] = (
    "survey_instructions",
    "movement_instructions",
    "goal_location_instructions",
    "navigation_affected_instructions",
    "navigation_action_instructions",
    "suggested_future_navigation_affected_instructions",
    "suggested_future_navigation_action_instructions",
)

#: Reasoning category of each base question (reference §b table).
CATEGORY_OF: dict[str, str] = {
    "q_robot_moving_direction": SPATIOTEMPORAL,
    "q_person_spatial_position_begin": SPATIAL,
    "q_person_spatial_position_end": SPATIAL,
    "q_person_distance_change": SPATIOTEMPORAL,
    "q_goal_position_begin": SPATIAL,
    "q_goal_position_end": SPATIAL,
    "q_obstructing_path": SPATIOTEMPORAL,
    "q_obstructing_end_position": SPATIAL,
    "q_robot_affected": SOCIAL,
    "q_robot_action": SOCIAL,
    "q_person_affected": SOCIAL,
    "q_person_action": SOCIAL,
    "q_robot_suggested_affected": SOCIAL,
    "q_robot_suggested_action": SOCIAL,
    "q_human_future_action_prediction": SOCIAL,
}

#: Instruction block shown with each base question (reference §c).
INSTRUCTION_BLOCK_OF: dict[str, str] = {
    "q_robot_moving_direction": "movement_instructions",
    "q_person_spatial_position_begin": "movement_instructions",
    "q_person_spatial_position_end": "movement_instructions",
    "q_person_distance_change": "movement_instructions",
    "q_goal_position_begin": "goal_location_instructions",
    "q_goal_position_end": "goal_location_instructions",
    "q_obstructing_path": "goal_location_instructions",
    "q_obstructing_end_position": "goal_location_instructions",
    "q_robot_affected": "navigation_affected_instructions",
    "q_person_affected": "navigation_affected_instructions",
    "q_robot_action": "navigation_action_instructions",
    "q_person_action": "navigation_action_instructions",
    "q_robot_suggested_affected": "suggested_future_navigation_affected_instructions",
    "q_robot_suggested_action": "suggested_future_navigation_action_instructions",
    "q_human_future_action_prediction": "suggested_future_navigation_action_instructions",
}

_PERSON_SUFFIX = re.compile(r"_p\d+$")
_PERSON_TOKEN = "{PERSON}"


@dataclass(frozen=True)
class BankQuestion:
    """One base question of the bank: raw text (with ``{PERSON}``), kind and options."""

    text: str
    kind: QuestionKind
    options: tuple[str, ...]


@dataclass(frozen=True)
class PromptBank:
    """Everything needed to expand questions and build prompts for SocialNav-SUB."""

    blocks: dict[str, tuple[str, ...]]
    questions: dict[str, BankQuestion]
    answers_format_mc: str
    answers_format_ms: str
    dependencies: dict[str, tuple[str, ...]]


def base_key_of(key: str) -> str:
    """Base key of a full question key: the key itself for ``q_goal_position*``, else the
    key with its last ``_p<i>`` removed (``q_person_action_p3`` -> ``q_person_action``)."""
    if key.startswith("q_goal_position"):
        return key
    return _PERSON_SUFFIX.sub("", key)


def person_of(key: str) -> int | None:
    """Person index of a full key (``..._p3`` -> 3), or None for a global question."""
    m = _PERSON_SUFFIX.search(key)
    if m is None or key.startswith("q_goal_position"):
        return None
    return int(m.group(0)[2:])


def full_key(base: str, person: int | None) -> str:
    """Full question key for ``base`` asked about ``person`` (no suffix for global ones)."""
    if base in GLOBAL_KEYS or person is None:
        return base
    # interned: a key is also in the depends_on of other questions, so that a loaded
    # dataset holds (and a snapshot stores) each key once
    return sys.intern(f"{base}_p{person}")


def render_question_text(text: str, person: int | None, *, capitalize: bool = True) -> str:
    """Replace ``{PERSON}`` by ``person i``; upper-case the first letter when the text starts
    with the placeholder and ``capitalize`` is set (official question rendering)."""
    if person is None or _PERSON_TOKEN not in text:
        return text
    starts = text.startswith(_PERSON_TOKEN)
    out = text.replace(_PERSON_TOKEN, f"person {person}")
    if capitalize and starts:
        out = out[0].upper() + out[1:]
    return out


def _question(bank: PromptBank, base: str, person: int | None) -> Question:
    bq = bank.questions[base]
    return Question(
        key=full_key(base, person),
        base_key=base,
        category=CATEGORY_OF[base],
        kind=bq.kind,
        text=render_question_text(bq.text, person),
        options=bq.options,
        person=None if base in GLOBAL_KEYS else person,
        depends_on=tuple(full_key(d, person) for d in bank.dependencies.get(base, ())),
        instruction_block=INSTRUCTION_BLOCK_OF[base],
    )


def query_order(n_people: int) -> list[tuple[str, int | None]]:
    """(base key, person) pairs in the official query order: 3 + 12·n entries."""
    if isinstance(n_people, bool) or not isinstance(n_people, int) or n_people < 0:
        raise ValueError(f"n_people must be a non-negative int, got {n_people!r}")
    people = range(1, n_people + 1)
    order: list[tuple[str, int | None]] = [("q_robot_moving_direction", None)]
    for i in people:
        order += [
            ("q_person_spatial_position_begin", i),
            ("q_person_spatial_position_end", i),
            ("q_person_distance_change", i),
        ]
    order += [("q_goal_position_begin", None), ("q_goal_position_end", None)]
    for i in people:
        order += [("q_obstructing_path", i), ("q_obstructing_end_position", i)]
    for i in people:
        order += [("q_robot_affected", i), ("q_robot_action", i), ("q_person_affected", i), ("q_person_action", i)]
    for i in people:
        order += [
            ("q_robot_suggested_affected", i),
            ("q_robot_suggested_action", i),
            ("q_human_future_action_prediction", i),
        ]
    return order


def expand_questions(bank: PromptBank, n_people: int) -> tuple[Question, ...]:
    """All questions of a sample with ``n_people`` people, in the official query order."""
    return tuple(_question(bank, base, person) for base, person in query_order(n_people))
