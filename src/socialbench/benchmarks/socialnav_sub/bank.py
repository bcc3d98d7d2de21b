"""The SocialNav-SUB prompt bank: question texts, options, instruction blocks, dependencies.

The on-disk format is the official one (``prompts/survey_prompt.json`` and
``prompts/relevant_prev_questions.json``, reference §b/§c). socialbench ships its own copy in
``data/``: the 15 question texts and options are exactly the official ones (hub version), the
two answer-format strings are the official ones, and the instruction blocks are written in
socialbench's own words with the same definitions. A dataset folder that has its own bank
files uses those instead (see :mod:`socialbench.benchmarks.socialnav_sub.loader`).

:func:`expand_questions` turns the bank into the per-sample list of
:class:`~socialbench.types.Question` in the official query order: 3 + 12·n questions for a
sample with n people.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from socialbench.errors import DataError, Problem
from socialbench.files.safe_read import read_json
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

_RANK = {k: i for i, k in enumerate(BASE_KEYS)}
_KIND_OF_TYPE: dict[str, QuestionKind] = {"multiple_choice": "single", "multiple_select": "multi"}
_PERSON_SUFFIX = re.compile(r"_p\d+$")
_PERSON_TOKEN = "{PERSON}"

BUILTIN_BANK = "survey_prompt.json"
BUILTIN_DEPENDENCIES = "relevant_prev_questions.json"


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


# --------------------------------------------------------------------------- loading


def _read_json(path: Path | None, builtin: str) -> tuple[Any, str]:
    """Parse a JSON file (or the built-in resource); DataError names file and line."""
    if path is None:
        ref = resources.files("socialbench.benchmarks.socialnav_sub") / "data" / builtin
        return json.loads(ref.read_text(encoding="utf-8")), f"<built-in>/{builtin}"
    return read_json(path), str(path)  # regular files only; DataError names file and line


def _as_lines(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, str):
        return tuple(value.split("\n"))
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def parse_bank(data: Any, deps: Any, bank_file: str, deps_file: str) -> PromptBank:
    """Build a :class:`PromptBank` from parsed JSON, collecting every problem."""
    problems: list[Problem] = []
    if not isinstance(data, dict):
        raise DataError.single(
            bank_file, "", "the prompt bank must be a JSON object", "use the survey_prompt.json format"
        )
    if not isinstance(deps, dict):
        raise DataError.single(
            deps_file, "", "the dependency file must be a JSON object", "use the relevant_prev_questions.json format"
        )

    blocks: dict[str, tuple[str, ...]] = {}
    for key in BLOCK_KEYS:
        lines = _as_lines(data.get(key))
        if lines is None:
            problems.append(
                Problem(
                    bank_file, key, "missing or not a list of strings", "give the instruction block as a list of lines"
                )
            )
        else:
            blocks[key] = lines
    for key, value in data.items():  # keep any extra blocks a custom bank carries
        if key.endswith("_instructions") and key not in blocks:
            lines = _as_lines(value)
            if lines is not None:
                blocks[key] = lines

    questions: dict[str, BankQuestion] = {}
    for key in BASE_KEYS:
        entry = data.get(key)
        if not isinstance(entry, dict):
            problems.append(
                Problem(
                    bank_file,
                    key,
                    "question missing or not an object",
                    'add {"question": ..., "type": ..., "choices": [...]}',
                )
            )
            continue
        text, qtype, choices = entry.get("question"), entry.get("type"), entry.get("choices")
        question_text = text if isinstance(text, str) and text else None
        if question_text is None:
            problems.append(
                Problem(bank_file, f"{key}.question", "missing question text", "give the question as a string")
            )
        kind = _KIND_OF_TYPE.get(qtype) if isinstance(qtype, str) else None
        if kind is None:
            problems.append(
                Problem(
                    bank_file, f"{key}.type", f"unknown type {qtype!r}", 'use "multiple_choice" or "multiple_select"'
                )
            )
        options: tuple[str, ...] | None = None
        if (
            isinstance(choices, list)
            and choices
            and all(isinstance(c, str) and c for c in choices)
            and len(set(choices)) == len(choices)
        ):
            options = tuple(choices)
        else:
            problems.append(
                Problem(
                    bank_file,
                    f"{key}.choices",
                    "choices must be a non-empty list of distinct strings",
                    "list the options in order",
                )
            )
        if question_text is not None and kind is not None and options is not None:
            questions[key] = BankQuestion(question_text, kind, options)

    formats: dict[str, str] = {}
    for key in ("answers_format_mc", "answers_format_ms"):
        value = data.get(key)
        if not isinstance(value, str):
            problems.append(
                Problem(
                    bank_file, key, "missing answer-format string", "add the answer-format instructions as a string"
                )
            )
        else:
            formats[key] = value

    dependencies: dict[str, tuple[str, ...]] = {}
    for key in BASE_KEYS:
        value = deps.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problems.append(
                Problem(
                    deps_file,
                    key,
                    "missing or not a list of base keys",
                    "list the base questions this one depends on ([] for none)",
                )
            )
            continue
        bad = [v for v in value if v not in _RANK]
        late = [v for v in value if v in _RANK and _RANK[v] >= _RANK[key]]
        personal = [v for v in value if key in GLOBAL_KEYS and v not in GLOBAL_KEYS]
        if bad:
            problems.append(Problem(deps_file, key, f"unknown base keys {bad}", f"use keys among {list(BASE_KEYS)}"))
        elif late:
            problems.append(
                Problem(
                    deps_file,
                    key,
                    f"depends on {late}, asked later",
                    "a question may only depend on questions asked before it",
                )
            )
        elif personal:
            problems.append(
                Problem(
                    deps_file,
                    key,
                    f"a per-sample question cannot depend on per-person {personal}",
                    "remove those dependencies",
                )
            )
        else:
            dependencies[key] = tuple(value)

    if problems:
        raise DataError(problems)
    return PromptBank(
        blocks=blocks,
        questions=questions,
        answers_format_mc=formats["answers_format_mc"],
        answers_format_ms=formats["answers_format_ms"],
        dependencies=dependencies,
    )


def load_bank(path: Path | str | None = None, deps_path: Path | str | None = None) -> PromptBank:
    """Load a prompt bank and its dependency file; ``None`` means the built-in copy.

    Raises :class:`DataError` listing every problem found in the files.
    """
    data, bank_file = _read_json(Path(path) if path is not None else None, BUILTIN_BANK)
    deps, deps_file = _read_json(Path(deps_path) if deps_path is not None else None, BUILTIN_DEPENDENCIES)
    return parse_bank(data, deps, bank_file, deps_file)


# --------------------------------------------------------------------------- expansion


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


def bank_to_json(bank: PromptBank) -> dict[str, Any]:
    """The bank in the official ``survey_prompt.json`` layout (for writing copies)."""
    out: dict[str, Any] = {k: list(v) for k, v in bank.blocks.items()}
    for key, q in bank.questions.items():
        out[key] = {
            "question": q.text,
            "type": "multiple_select" if q.kind == "multi" else "multiple_choice",
            "choices": list(q.options),
        }
    out["answers_format_mc"] = bank.answers_format_mc
    out["answers_format_ms"] = bank.answers_format_ms
    return out


def dependencies_to_json(bank: PromptBank) -> dict[str, list[str]]:
    """The dependencies in the official ``relevant_prev_questions.json`` layout."""
    out: dict[str, list[str]] = {k: list(v) for k, v in bank.dependencies.items()}
    for key in bank.blocks:
        out.setdefault(key, [])
    return out
