"""Prompt text for one SocialNav-SUB question (reference §c "Prompt text").

The prompt is one user string with no system text:

1. the ``survey_instructions`` lines joined with "\\n", then "\\n";
2. chain of thought only (``earlier`` is not None): for each dependency, its question text
   (``{PERSON}`` -> ``person i``, no capital letter, no options), "\\n", then an answer line
   and "\\n";
3. "\\n" + the question's instruction-block lines joined with "\\n" + "\\n";
4. "\\n" + the question + "\\n" + ``Possible answers: "o1", "o2", ...`` followed by the
   single-choice or multiple-select answer-format text.

**Deliberate deviation (CoT answer line).** The official code fills a placeholder and sends
malformed nested JSON with an unquoted value, e.g. ``{"answer": {"answer": ahead of}``
(reference §9 bug 6). socialbench injects *valid* JSON instead: ``{"answer": "ahead of"}``,
``{"answer": ["moving ahead", "turning left"]}``, or ``{"answer": null}`` when the earlier
answer is missing or invalid. :func:`official_cot_line` reproduces the official line for
reference and tests only.
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


def official_cot_line(value: object) -> str:
    """The line the official code injects (malformed JSON), for reference only.

    A string ``A`` gives ``{"answer": {"answer": A}`` (no quotes); any other value gives
    ``{"answer": {"answer": "<str(value)>"}`` — pass the JSON-decoded answer (a list for
    the multiple-select question) to reproduce published conversations.
    """
    inner = '{"answer": ' + value + "}" if isinstance(value, str) else ('{"answer": "' + str(value) + '"}')
    return '{"answer": ' + inner


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
