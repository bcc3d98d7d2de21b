"""Whose answers a run's scores are: the one predicate every ranking and failure rate uses.

A run is ranked as a model only when the model answered every scored question from the
inputs every other model gets. Otherwise :func:`answer_source` says which of two kinds it
is, and why:

* **Human-derived**: answers (or the scene context the answers rest on) taken from the
  human labels: ``human:*`` models and replays of human answers, SocialNav-SUB ``--method
  cot-gt`` (the spatial and spatiotemporal answers are the human mode, and are fed to the
  model as chain-of-thought context), waypoint ``--context human-oracle`` (the human mode
  of the context questions is in the prompt);
* **Perception-assisted**: SocialNav-SUB ``--method scene-context`` (the rule-based
  perception module answers the spatial and spatiotemporal questions and the model gets its
  answers).

Tables 1 and 4, the bootstrap CI table, ``compare`` (pairs and leaderboard) and the figures
put such runs in their own section, never rank or bold them, and say why
(:func:`sources_note`). Inside a run, :func:`given_keys` lists the questions whose records
were not answered by the model at all (``parse_method`` ``human-mode`` / ``rule-based``):
failure rates count the model's own answers only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from socialbench.benchmarks.socialnav_sub.options import GIVEN_SOURCES
from socialbench.report.loading import RunDir

__all__ = [
    "ASSISTED",
    "HUMAN_DERIVED",
    "MODEL",
    "AnswerSource",
    "answer_source",
    "given_keys",
    "section_of",
    "sources_note",
]

#: The kinds of :class:`AnswerSource` (also the section titles of the tables).
MODEL = "Model"
HUMAN_DERIVED = "Human-derived"
ASSISTED = "Perception-assisted"

#: Model-spec prefixes whose answers are the human labels themselves.
HUMAN_MODEL_PREFIXES = ("human:", "replay:human")


@dataclass(frozen=True)
class AnswerSource:
    """Where a run's answers come from: ``kind`` (:data:`MODEL`, :data:`HUMAN_DERIVED` or
    :data:`ASSISTED`) and ``why`` (one line naming the setting; ``""`` for a model)."""

    kind: str
    why: str = ""

    @property
    def ranked(self) -> bool:
        """Whether the run may be ranked beside models (only a model's own answers may)."""
        return self.kind == MODEL


def answer_source(model: str, run: Mapping[str, Any]) -> AnswerSource:
    """The :class:`AnswerSource` of a run of model spec ``model`` whose ``run.json`` is
    ``run`` (see the module docstring for the rules)."""
    if model.startswith(HUMAN_MODEL_PREFIXES):
        return AnswerSource(HUMAN_DERIVED, f"{model}: every answer is drawn from the human labels")
    method = run.get("method")
    if method == "cot-gt":
        if run.get("gt_without_obstruction"):
            return AnswerSource(
                HUMAN_DERIVED,
                "--method cot-gt --gt-without-obstruction: the spatial and spatiotemporal answers except "
                "Person Goal Obstruction are the human mode, fed to the model as context",
            )
        return AnswerSource(
            HUMAN_DERIVED,
            "--method cot-gt: the spatial and spatiotemporal answers are the human mode, fed to the model as context",
        )
    if method == "scene-context":
        return AnswerSource(
            ASSISTED,
            "--method scene-context: the rule-based perception module answers the spatial and spatiotemporal "
            "questions and the model is given its answers",
        )
    options = run.get("options")
    context = options.get("context") if isinstance(options, Mapping) else None
    if context == "human-oracle":
        return AnswerSource(
            HUMAN_DERIVED, "--context human-oracle: the prompt holds the human mode of the context questions"
        )
    return AnswerSource(MODEL)


def source_of(r: RunDir) -> AnswerSource:
    """:func:`answer_source` of a loaded run."""
    return answer_source(r.model, r.run)


def section_of(r: RunDir) -> str:
    """The table section of a run: :data:`HUMAN_DERIVED`, :data:`ASSISTED`, else
    ``Baseline`` (``baseline:*``, ``mock:*``) or ``VLM``. Only ``VLM`` and ``Baseline``
    rows are ever ranked."""
    source = source_of(r)
    if not source.ranked:
        return source.kind
    return "Baseline" if r.is_baseline else "VLM"


#: Section order of every table that sorts runs by section.
SECTION_ORDER = ("Baseline", "VLM", ASSISTED, HUMAN_DERIVED)


def by_section(runs: Sequence[RunDir]) -> list[RunDir]:
    """``runs`` ordered Baseline, VLM, Perception-assisted, Human-derived (stable)."""
    return sorted(runs, key=lambda r: SECTION_ORDER.index(section_of(r)))


def sources_note(runs: Sequence[RunDir]) -> str | None:
    """One note naming each run that is kept apart and why (``None`` when all are models)."""
    apart = [(r.label, source_of(r)) for r in runs if not source_of(r).ranked]
    if not apart:
        return None
    listed = "; ".join(f"{label} ({s.kind}: {s.why})" for label, s in apart)
    return f"In their own sections and never ranked, since their answers are not wholly the model's own: {listed}."


def given_keys(r: RunDir) -> set[tuple[str, str]]:
    """The (item, question) keys of ``r`` whose answer the model never gave: records with
    ``parse_method`` ``human-mode`` (cot-gt) or ``rule-based`` (scene-context)."""
    return {(s.item_id, s.question_key) for s in r.samples() if s.parse_method in GIVEN_SOURCES}
