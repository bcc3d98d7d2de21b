"""Scene context for the waypoint prompt (``--context``), after the paper's Figure 4.

For every person i of the sample, two SocialNav-SUB answers: "Person End Goal Obstruction"
(``q_obstructing_end_position_p<i>``) and "Robot Action to Person at End"
(``q_robot_suggested_action_p<i>``), from one source:

``none``
    No context block (the prompt has no middle part).
``random``
    Each answer drawn uniformly from the question's options, seeded by (run seed, item id,
    question key): a context of the right form with no information.
``model:RUN_DIR``
    The answers of an earlier ``socialbench eval`` run of SocialNav-SUB (its
    ``samples.jsonl``), normally of the same model; an answer it lacks or failed reads
    "unknown".
``human-oracle``
    The human mode (most common human answer) of each question.

The block reads, one line per question in person order:

.. code-block:: text

    Scene context:
    - At the end frame, is person 1's position in the way of the robot's path to the goal? no
    - In the future (after the end of the video), the robot should avoid person 1 as it makes progress towards the goal.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from socialbench.errors import UsageError
from socialbench.types import Item

__all__ = ["CONTEXT_KEYS", "SOURCES", "check_context", "context_answers", "context_block", "load_model_answers"]

CONTEXT_KEYS = ("q_obstructing_end_position", "q_robot_suggested_action")
SOURCES = ("none", "random", "human-oracle", "model:RUN_DIR")
HEADER = "Scene context:"


def check_context(value: str) -> str:
    """``value`` if it names a context source, else a :class:`UsageError`."""
    if value in ("none", "random", "human-oracle"):
        return value
    if value.startswith("model:"):
        run = Path(value[len("model:") :])
        if not (run / "samples.jsonl").is_file() and not (run.is_file() and run.suffix == ".jsonl"):
            raise UsageError(
                f"--context {value}: {run} is not a run directory with samples.jsonl; "
                "give a folder written by `socialbench eval -b socialnav-sub`"
            )
        return value
    raise UsageError(f"--context must be one of {', '.join(SOURCES)} (got {value!r})")


def load_model_answers(value: str) -> dict[tuple[str, str], Any]:
    """(item id, question key) -> parsed answer of the run named by ``model:RUN_DIR``
    (failed or unparsed answers are left out)."""
    from socialbench.records import read_samples

    run = Path(value[len("model:") :])
    path = run / "samples.jsonl" if run.is_dir() else run
    return {
        (r.item_id, r.question_key): r.parsed for r in read_samples(path) if r.error is None and r.parsed is not None
    }


def _context_questions(item: Item) -> list[Any]:
    return [q for q in item.questions if q.base_key in CONTEXT_KEYS]


def context_answers(
    item: Item, source: str, seed: int = 0, model_answers: Mapping[tuple[str, str], Any] | None = None
) -> list[tuple[Any, Any]]:
    """(question, answer) for each context question of ``item``, by person, from ``source``."""
    out = []
    qs = sorted(_context_questions(item), key=lambda q: (q.person or 0, CONTEXT_KEYS.index(q.base_key)))
    for q in qs:
        if source == "human-oracle":
            votes = item.votes.get(q.key)
            answer = votes.mode(q.choices) if votes is not None else None
        elif source == "random":
            digest = hashlib.sha256(f"{seed}\0{item.item_id}\0{q.key}\0context".encode()).digest()
            answer = random.Random(int.from_bytes(digest[:8], "big")).choice(q.options)
        elif source.startswith("model:"):
            answer = (model_answers or {}).get((item.item_id, q.key))
        else:
            raise ValueError(f"no context answers for source {source!r}")
        out.append((q, answer))
    return out


def context_block(pairs: list[tuple[Any, Any]]) -> str:
    """The block text: the header and one line per (question, answer)."""
    from socialbench.benchmarks.socialnav_sub.scene_context import fact_line

    return "\n".join([HEADER, *(f"- {fact_line(q, a)}" for q, a in pairs)])
