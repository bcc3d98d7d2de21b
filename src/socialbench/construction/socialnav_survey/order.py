"""What the survey asks, in which order, and under which Label Studio control names.

App. 7.4: "Humans sequentially answered questions for each scenario in the following order:
spatial reasoning questions, spatiotemporal reasoning questions, and social reasoning
questions." A survey page shows the scenario's questions about the robot and the goal
first (:data:`SCENE_KEYS`), then one block per labelled person (:data:`PERSON_KEYS`); both
run spatial -> spatiotemporal -> social, and within a category keep the rank order of the
official query order (:data:`~socialbench.benchmarks.socialnav_sub.bank.BASE_KEYS`).

Control names: a scenario question's is its key (``q_goal_position_begin``); a person
question's is ``<base>__r{{idx}}`` inside Label Studio's ``<Repeater>`` over the task's
people, so an export holds ``<base>__r<idx>`` with ``idx`` the 0-based position in the
task's ``people`` list (whose entries carry the person's label)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence

from socialbench.benchmarks.socialnav_sub.bank import (
    BASE_KEYS,
    CATEGORY_OF,
    GLOBAL_KEYS,
    SOCIAL,
    SPATIAL,
    SPATIOTEMPORAL,
    PromptBank,
)

__all__ = [
    "CATEGORY_ORDER",
    "SCENE_KEYS",
    "PERSON_KEYS",
    "TASK_KIND",
    "INDEX_FLAG",
    "person_control",
    "parse_control",
    "survey_id",
]

#: The paper's order of the reasoning categories (App. 7.4).
CATEGORY_ORDER: tuple[str, ...] = (SPATIAL, SPATIOTEMPORAL, SOCIAL)
#: ``data.kind`` of every survey task: what tells a survey export from another project's.
TASK_KIND = "socialnav-survey"
#: Label Studio's Repeater index placeholder.
INDEX_FLAG = "{{idx}}"


def _ordered(keys: Sequence[str]) -> tuple[str, ...]:
    rank = {k: i for i, k in enumerate(BASE_KEYS)}
    return tuple(sorted(keys, key=lambda k: (CATEGORY_ORDER.index(CATEGORY_OF[k]), rank[k])))


#: Questions about the robot and the goal, asked once per scenario, in survey order.
SCENE_KEYS: tuple[str, ...] = _ordered([k for k in BASE_KEYS if k in GLOBAL_KEYS])
#: Questions asked about each person, in survey order.
PERSON_KEYS: tuple[str, ...] = _ordered([k for k in BASE_KEYS if k not in GLOBAL_KEYS])

_PERSON_CONTROL = re.compile(r"^(q_[a-z_]+?)__r(\d+)$")


def person_control(base: str, index: int | str = INDEX_FLAG) -> str:
    """Control name of person question ``base`` for repeater row ``index`` (the placeholder
    in the config, a number in an export)."""
    return f"{base}__r{index}"


def parse_control(name: str) -> tuple[str, int | None] | None:
    """(base key, repeater row or None) of a survey control name; None for any other name."""
    if name in SCENE_KEYS:
        return name, None
    m = _PERSON_CONTROL.match(name)
    if m is None or m.group(1) not in PERSON_KEYS:
        return None
    return m.group(1), int(m.group(2))


def survey_id(samples: Sequence[tuple[str, int]], bank: PromptBank) -> str:
    """A short fingerprint of what a survey asks: the (sample id, people) list and the
    question texts and options of the bank. Export and import compute it from the dataset
    folder; an export whose tasks carry another one belongs to another survey."""
    content = {
        "samples": [[sid, n] for sid, n in samples],
        "questions": {k: [q.text, q.kind, list(q.options)] for k, q in sorted(bank.questions.items())},
    }
    digest = hashlib.sha256(json.dumps(content, sort_keys=True, ensure_ascii=True).encode("ascii")).hexdigest()
    return digest[:16]
