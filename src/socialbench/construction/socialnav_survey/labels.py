"""The human answer files of a survey and its agreement statistics, from the answers read by
:mod:`.answers`.

* ``common_answers.json`` of a scenario: the official format (reference §a): per question
  key ``K`` the distinct answers by decreasing count (ties in option order; a
  multiple-select answer is the list of its options in option order), ``K_probabilities``
  (count / n) and ``K_n_answers`` (n, the annotators of the scenario). The release's stray
  ``""`` key (its survey's "next" button) is not written: nothing reads it.
* ``raw_answers.json`` of a scenario (the release lists the file but its format is not
  published): ``{"sample_id", "survey_id", "n_annotators", "annotators": [{"annotator",
  "ls_task", "ls_annotation", "lead_time", "submitted_at", "answers": {K: answer}}]}``,
  annotators sorted by id.
* agreement (:func:`agreement`), per base question, per category and over all items (one
  item = one question about one scenario or person): ``items``; ``majority_share``, the mean
  over items of the largest answer's share (the Human Oracle's PA, Eq. 1 at the human
  mode); Krippendorff's alpha, Fleiss' kappa and pairwise percent agreement (the Average
  Human's PA) from :func:`socialbench.metrics.reliability.agreement_summary`, each answer a
  category (the 7 selections of the robot-direction question are 7 categories). A statistic
  that cannot be computed (every answer the same) is null."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from socialbench.benchmarks.socialnav_sub.bank import CATEGORY_OF, PromptBank, expand_questions
from socialbench.construction.socialnav_survey.answers import AnnotatorAnswers
from socialbench.construction.socialnav_survey.order import CATEGORY_ORDER, PERSON_KEYS, SCENE_KEYS
from socialbench.metrics.reliability import agreement_summary
from socialbench.types import Answer, Question

__all__ = ["common_answers", "raw_answers", "agreement"]


def _json_answer(a: Answer) -> str | list[str]:
    return list(a) if isinstance(a, tuple) else a


def _votes(q: Question, panel: Mapping[str, AnnotatorAnswers]) -> list[Answer]:
    return [panel[who].answers[q.key] for who in sorted(panel)]


def _distribution(q: Question, votes: Sequence[Answer]) -> tuple[list[Answer], list[float], int]:
    """(answers by decreasing count, ties in choice order; count / n each; n) of ``votes``."""
    counts = Counter(votes)
    choices = list(q.choices)
    order = sorted(counts, key=lambda a: (-counts[a], choices.index(a)))
    return order, [counts[a] / len(votes) for a in order], len(votes)


def common_answers(bank: PromptBank, n_people: int, panel: Mapping[str, AnnotatorAnswers]) -> dict[str, Any]:
    """The ``common_answers.json`` object of a scenario answered by ``panel`` (annotator ->
    answers)."""
    out: dict[str, Any] = {}
    for q in expand_questions(bank, n_people):
        answers, probs, n = _distribution(q, _votes(q, panel))
        out[q.key] = [_json_answer(a) for a in answers]
        out[f"{q.key}_probabilities"] = probs
        out[f"{q.key}_n_answers"] = n
    return out


def raw_answers(sample_id: str, survey: str, panel: Mapping[str, AnnotatorAnswers]) -> dict[str, Any]:
    """The ``raw_answers.json`` object of a scenario (see the module docstring)."""
    return {
        "sample_id": sample_id,
        "survey_id": survey,
        "n_annotators": len(panel),
        "annotators": [
            {
                "annotator": who,
                "ls_task": a.ls_task,
                "ls_annotation": a.ls_annotation,
                "lead_time": a.lead_time,
                "submitted_at": a.submitted_at,
                "answers": {k: _json_answer(v) for k, v in a.answers.items()},
            }
            for who, a in sorted(panel.items())
        ],
    }


def _label(a: Answer) -> str:
    return " + ".join(a) if isinstance(a, tuple) else a


def _stats(items: Sequence[tuple[Question, list[Answer]]]) -> dict[str, Any]:
    if not items:
        return {"items": 0, "majority_share": None}
    categories: list[str] = []
    for q, _ in items:
        for c in q.choices:
            if _label(c) not in categories:
                categories.append(_label(c))
    shares = []
    for _, votes in items:
        counts: dict[Answer, int] = {}
        for v in votes:
            counts[v] = counts.get(v, 0) + 1
        shares.append(max(counts.values()) / len(votes))
    summary = agreement_summary([[_label(v) for v in votes] for _, votes in items], categories)
    return {
        "items": len(items),
        "majority_share": round(sum(shares) / len(shares), 6),
        "krippendorff_alpha": summary["krippendorff_alpha"],
        "fleiss_kappa": summary["fleiss_kappa"],
        "percent_agreement": summary["percent_agreement"],
        "ratings": summary["ratings"],
    }


def agreement(
    bank: PromptBank, samples: Sequence[tuple[str, int]], answers: Mapping[str, Mapping[str, AnnotatorAnswers]]
) -> dict[str, Any]:
    """Agreement statistics of the survey's answers (see the module docstring)."""
    by_base: dict[str, list[tuple[Question, list[Answer]]]] = {}
    for sid, n in samples:
        for q in expand_questions(bank, n):
            by_base.setdefault(q.base_key, []).append((q, _votes(q, answers[sid])))
    everything = [it for base in by_base for it in by_base[base]]
    return {
        "All": _stats(everything),
        "categories": {
            c: _stats([it for it in everything if CATEGORY_OF[it[0].base_key] == c]) for c in CATEGORY_ORDER
        },
        "questions": {base: _stats(by_base.get(base, [])) for base in (*SCENE_KEYS, *PERSON_KEYS)},
    }
