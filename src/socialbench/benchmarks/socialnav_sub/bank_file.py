"""Reading a SocialNav-SUB prompt bank from its JSON files (the official
``survey_prompt.json`` and ``relevant_prev_questions.json``, reference §b/§c, or socialbench's
built-in copy): :func:`load_bank`, which checks every field and raises one
:class:`~socialbench.errors.DataError` listing every problem."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from socialbench.benchmarks.socialnav_sub.bank import (
    BASE_KEYS,
    BLOCK_KEYS,
    GLOBAL_KEYS,
    BankQuestion,
    PromptBank,
)
from socialbench.errors import DataError, Problem
from socialbench.files.safe_read import read_json
from socialbench.types import QuestionKind

__all__ = ["BUILTIN_BANK", "BUILTIN_DEPENDENCIES", "load_bank", "parse_bank"]

_RANK = {k: i for i, k in enumerate(BASE_KEYS)}
_KIND_OF_TYPE: dict[str, QuestionKind] = {"multiple_choice": "single", "multiple_select": "multi"}

BUILTIN_BANK = "survey_prompt.json"
BUILTIN_DEPENDENCIES = "relevant_prev_questions.json"


def _read_json(path: Path | None, builtin: str) -> tuple[object, str]:
    """Parse a JSON file (or the built-in resource); DataError names file and line."""
    if path is None:
        ref = resources.files("socialbench.benchmarks.socialnav_sub") / "data" / builtin
        return json.loads(ref.read_text(encoding="utf-8")), f"<built-in>/{builtin}"
    return read_json(path), str(path)  # regular files only; DataError names file and line


def _as_lines(value: object) -> tuple[str, ...] | None:
    if isinstance(value, str):
        return tuple(value.split("\n"))
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def parse_bank(data: object, deps: object, bank_file: str, deps_file: str) -> PromptBank:
    """Build a :class:`PromptBank` from parsed JSON, collecting every problem."""
    problems: list[Problem] = []

    def problem(file: str, key: str, message: str, fix: str) -> None:
        problems.append(Problem(file, key, message, fix))

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
            problem(bank_file, key, "missing or not a list of strings", "give the instruction block as a list of lines")
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
            problem(
                bank_file,
                key,
                "question missing or not an object",
                'add {"question": ..., "type": ..., "choices": [...]}',
            )
            continue
        text, qtype, choices = entry.get("question"), entry.get("type"), entry.get("choices")
        question_text = text if isinstance(text, str) and text else None
        if question_text is None:
            problem(bank_file, f"{key}.question", "missing question text", "give the question as a string")
        kind = _KIND_OF_TYPE.get(qtype) if isinstance(qtype, str) else None
        if kind is None:
            problem(bank_file, f"{key}.type", f"unknown type {qtype!r}", 'use "multiple_choice" or "multiple_select"')
        options: tuple[str, ...] | None = None
        if (
            isinstance(choices, list)
            and choices
            and all(isinstance(c, str) and c for c in choices)
            and len(set(choices)) == len(choices)
        ):
            options = tuple(choices)
        else:
            problem(
                bank_file,
                f"{key}.choices",
                "choices must be a non-empty list of distinct strings",
                "list the options in order",
            )
        if question_text is not None and kind is not None and options is not None:
            questions[key] = BankQuestion(question_text, kind, options)

    formats: dict[str, str] = {}
    for key in ("answers_format_mc", "answers_format_ms"):
        value = data.get(key)
        if not isinstance(value, str):
            problem(bank_file, key, "missing answer-format string", "add the answer-format instructions as a string")
        else:
            formats[key] = value

    dependencies: dict[str, tuple[str, ...]] = {}
    for key in BASE_KEYS:
        value = deps.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problem(
                deps_file,
                key,
                "missing or not a list of base keys",
                "list the base questions this one depends on ([] for none)",
            )
            continue
        bad = [v for v in value if v not in _RANK]
        late = [v for v in value if v in _RANK and _RANK[v] >= _RANK[key]]
        personal = [v for v in value if key in GLOBAL_KEYS and v not in GLOBAL_KEYS]
        if bad:
            problem(deps_file, key, f"unknown base keys {bad}", f"use keys among {list(BASE_KEYS)}")
        elif late:
            problem(
                deps_file,
                key,
                f"depends on {late}, asked later",
                "a question may only depend on questions asked before it",
            )
        elif personal:
            problem(
                deps_file,
                key,
                f"a per-sample question cannot depend on per-person {personal}",
                "remove those dependencies",
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
