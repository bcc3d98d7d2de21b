"""Geometry facts for the ``scene-context`` method: a perception module's outputs in words.

The module is the rule-based baseline (:mod:`socialbench.navigation.rules`) run on the
sample's tracks, odometry and goal; it answers every spatial and spatiotemporal question.
:func:`facts_block` turns those answers into the block put before a social question (see the
README's "SocialNav-SUB methods"), one line per question in the official order, the answer
filling the question's blank.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from socialbench.types import Item, Question

if TYPE_CHECKING:
    from socialbench.navigation.rules import RuleAnswer

__all__ = ["FACTS_HEADER", "rule_facts", "fact_line", "facts_block"]

FACTS_HEADER = "Scene facts measured by a perception module from the tracked positions of the robot and the people:"
_BLANK = re.compile(r"_{2,}")
_SELECT_ALL = re.compile(r"\s*\(Select all that apply\)", re.IGNORECASE)


def rule_facts(item: Item) -> dict[str, RuleAnswer]:
    """The rule-based module's answer to every question of ``item``, by question key.

    Raises :class:`~socialbench.errors.DataError` when the sample has no tracks or odometry.
    """
    from socialbench.navigation.frames import load_scene
    from socialbench.navigation.rules import rule_based_answers

    scene = load_scene(item.metadata)
    n = scene.n_people if scene.n_people is not None else len(scene.people)
    return dict(rule_based_answers(scene.people, scene.robot, scene.goal_xy, n))


def _answer_words(answer: object) -> str:
    if answer is None:
        return "unknown"
    if isinstance(answer, (list, tuple)):
        return " and ".join(str(a) for a in answer) if answer else "unknown"
    return str(answer)


def fact_line(question: Question, answer: object) -> str:
    """``question``'s text with ``answer`` in its blank (or after it when it has none)."""
    text = _SELECT_ALL.sub("", question.text).strip()
    words = _answer_words(answer)
    if _BLANK.search(text):
        return _BLANK.sub(lambda _: words, text, count=1)
    return f"{text} {words}"


def facts_block(facts: Sequence[tuple[Question, object]]) -> str:
    """The facts text: :data:`FACTS_HEADER` and one ``- `` line per (question, answer)."""
    return "\n".join([FACTS_HEADER, *(f"- {fact_line(q, a)}" for q, a in facts)])
