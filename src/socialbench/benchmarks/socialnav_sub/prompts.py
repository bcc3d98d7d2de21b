"""Prompt text for one SocialNav-SUB question (reference §c "Prompt text").

One user string, no system text: the survey instructions, for chain of thought each
dependency's question text and answer line, the question's instruction block, then the
question and its ``Possible answers:`` line with the answer-format text (the README's
"SocialNav-SUB methods" describes the layout).

**Deliberate deviation (CoT answer line).** The official code sends malformed nested JSON
with an unquoted value, e.g. ``{"answer": {"answer": ahead of}`` (reference §9 bug 6);
socialbench injects valid JSON instead (:func:`cot_line`), ``{"answer": null}`` when the
earlier answer is missing or invalid.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from socialbench.benchmarks.socialnav_sub.bank import (
    PromptBank,
    base_key_of,
    person_of,
    render_question_text,
)
from socialbench.types import ParsedAnswer, Question


def cot_line(value: object) -> str:
    """socialbench's CoT answer line: ``{"answer": <JSON of value>}`` (``null`` if None)."""
    if isinstance(value, tuple):
        value = list(value)
    return '{"answer": ' + json.dumps(value) + "}"


def possible_answers_line(options: tuple[str, ...]) -> str:
    """``Possible answers: "o1", "o2", ...``."""
    return "Possible answers: " + ", ".join(f'"{o}"' for o in options)


def build_prompt(
    bank: PromptBank,
    question: Question,
    earlier: Mapping[str, ParsedAnswer] | None = None,
    preamble: str | None = None,
) -> str:
    """The full prompt for ``question``.

    ``earlier`` is None for independent questions; for chain of thought it maps full keys of
    earlier questions to their parsed answers (a string, a list/tuple of options, or None for
    an invalid answer). Each dependency in ``question.depends_on`` is shown in order; a
    dependency with no usable earlier answer is shown as ``{"answer": null}``.

    ``preamble`` (the ``scene-context`` method's facts block) is placed right after the
    survey instructions, followed by an empty line; None adds nothing (the official prompt).
    """
    parts = ["\n".join(bank.blocks["survey_instructions"]) + "\n"]
    if preamble is not None:
        parts.append("\n" + preamble + "\n")
    if earlier is not None:
        for dep in question.depends_on:
            dep_q = bank.questions[base_key_of(dep)]
            parts.append(render_question_text(dep_q.text, person_of(dep), capitalize=False))
            parts.append("\n")
            parts.append(cot_line(earlier.get(dep)) + "\n")
    block = bank.blocks.get(question.instruction_block, ())
    parts.append("\n" + "\n".join(block) + "\n")
    answer_format = bank.answers_format_ms if question.kind == "multi" else bank.answers_format_mc
    parts.append("\n" + question.text + "\n" + possible_answers_line(question.options) + answer_format)
    return "".join(parts)
