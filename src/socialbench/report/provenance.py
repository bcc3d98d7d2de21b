"""Whose answers a run's scores are: the one predicate every ranking and failure rate uses.

A run is ranked as a model only when the model answered every scored question from the
inputs every other model gets; otherwise :func:`answer_source` says whether it is
**Human-derived** or **Perception-assisted**, and why. :func:`given_keys` lists the questions
a run's model did not answer itself (failure rates count the model's own answers only). A
run is **partial** (:func:`completeness`) when it did not finish or answered fewer questions
than it was asked; :func:`rankable` leaves it out of the ranked tables unless
``--include-incomplete``, and wherever it is shown it carries :data:`PARTIAL_MARK`. See
docs/reading-the-report.md, "Partial runs" and "Runs whose answers are not wholly the model's".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from socialbench.benchmarks.socialnav_sub.options import GIVEN_SOURCES
from socialbench.report.run_dir import RunDir
from socialbench.report.table import Table

__all__ = [
    "ASSISTED",
    "HUMAN_DERIVED",
    "MODEL",
    "PARTIAL_MARK",
    "AnswerSource",
    "Completeness",
    "answer_source",
    "completeness",
    "mark_partial",
    "marked",
    "note_partial",
    "partial_note",
    "rankable",
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


def answer_source(model: str, run: Mapping[str, object]) -> AnswerSource:
    """The :class:`AnswerSource` of a run of model spec ``model`` whose ``run.json`` is
    ``run``."""
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


#: Appended to the label of a partial run wherever it is shown (every table format).
PARTIAL_MARK = "\u2020"  # dagger
#: run.json statuses of a run that finished asking every question.
FINISHED = ("complete",)


@dataclass(frozen=True)
class Completeness:
    """How much of its questions a run answered: ``status`` (run.json's, ``""`` when it has
    none), ``answered`` and ``expected`` (questions answered / asked; None when unknown) and
    ``complete_flag`` (metrics.json's ``run.complete``; None when absent)."""

    status: str
    answered: int | None
    expected: int | None
    complete_flag: bool | None = None

    @property
    def partial(self) -> bool:
        """Whether the run did not answer every question it was asked (module docstring)."""
        if self.status and self.status not in FINISHED:
            return True
        if self.complete_flag is False:
            return True
        return self.answered is not None and self.expected is not None and self.answered < self.expected

    @property
    def why(self) -> str:
        """``partial: 44/1,104 questions answered (run.json status: interrupted)``; ``""`` for
        a complete run."""
        if not self.partial:
            return ""
        counts = (
            f"{self.answered:,}/{self.expected:,} questions answered"
            if self.answered is not None and self.expected is not None
            else "questions answered unknown"
        )
        status = f" (run.json status: {self.status})" if self.status else ""
        return f"partial: {counts}{status}"


def _count(value: object) -> int | None:
    """``value`` as a count (None unless a non-negative whole number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0:
        return None
    return int(value) if float(value).is_integer() else None


def completeness(r: RunDir) -> Completeness:
    """The :class:`Completeness` of a loaded run: run.json's ``status``; metrics.json's
    ``run.answered`` / ``run.questions`` (summed over the epochs of an ``--epochs`` run),
    else run.json's ``answered``; metrics.json's ``run.complete``."""
    status = r.run.get("status")
    block = r.metrics.get("run")
    block = block if isinstance(block, Mapping) else {}
    flag = block.get("complete")
    epochs = block.get("epochs")
    parts = [e for e in epochs if isinstance(e, Mapping)] if isinstance(epochs, list) else [block]
    answered = [_count(p.get("answered")) for p in parts]
    expected = [_count(p.get("questions")) for p in parts]
    n_answered = sum(a for a in answered if a is not None) if parts and None not in answered else None
    n_expected = sum(e for e in expected if e is not None) if parts and None not in expected else None
    if n_answered is None and not isinstance(epochs, list):
        n_answered = _count(r.run.get("answered"))
    return Completeness(
        status if isinstance(status, str) else "",
        n_answered,
        n_expected,
        flag if isinstance(flag, bool) else None,
    )


def mark_partial(runs: Sequence[RunDir]) -> None:
    """Append :data:`PARTIAL_MARK` to the label of every partial run (once)."""
    for r in runs:
        if completeness(r).partial and not r.label.endswith(PARTIAL_MARK):
            r.label += PARTIAL_MARK


def rankable(runs: Sequence[RunDir], include_incomplete: bool = False) -> tuple[list[RunDir], list[str]]:
    """The runs a ranked table may take, and one line per run left out saying why: every run
    with ``include_incomplete``, else the complete ones (partial runs are left out, see the
    module docstring)."""
    if include_incomplete:
        return list(runs), []
    kept = [r for r in runs if not completeness(r).partial]
    left = [
        f"{r.label} left out of the ranked tables ({completeness(r).why}); "
        "pass --include-incomplete to include it, marked"
        for r in runs
        if completeness(r).partial
    ]
    return kept, left


def partial_note(runs: Sequence[RunDir]) -> str | None:
    """The note explaining :data:`PARTIAL_MARK` for the partial runs among ``runs`` (how much
    each answered); ``None`` when none is partial."""
    named = [f"{r.label} {completeness(r).why}" for r in runs if completeness(r).partial]
    if not named:
        return None
    return f"{PARTIAL_MARK} Did not answer every question it was asked: " + "; ".join(named) + "."


def marked(label: str, runs: Sequence[RunDir]) -> str:
    """``label`` of a table row that shows ``runs``, with :data:`PARTIAL_MARK` when one of
    them is partial (once)."""
    if any(completeness(r).partial for r in runs) and not label.endswith(PARTIAL_MARK):
        return label + PARTIAL_MARK
    return label


def note_partial(tables: Sequence[Table], runs: Sequence[RunDir]) -> list[Table]:
    """``tables`` with a :func:`partial_note` under each table that names a partial run of
    ``runs`` anywhere (its marked label in a row name, a column group or a note, such as
    "Data of slow†" or a human row "Human Oracle (32 questions: slow†)") and has no such note
    yet (a table whose rows merge several runs adds its own): each table file explains its
    own marks."""
    out = []
    for t in tables:
        texts = [s for row in t.rows for s in row.stub] + [g for g, _ in t.groups] + list(t.notes)
        named = [r for r in runs if completeness(r).partial and any(r.label in text for text in texts)]
        note = partial_note(named)
        if note is not None and not any(n.startswith(PARTIAL_MARK) for n in t.notes):
            t = replace(t, notes=(*t.notes, note))
        out.append(t)
    return out
