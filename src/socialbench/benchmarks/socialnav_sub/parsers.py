"""Parsers for the fields of a SocialNav-SUB dataset: sample-relative paths, goals
(``goal_info.json``) and human votes (``common_answers.json``). Each records what is wrong
with its input in a :class:`~socialbench.benchmarks.socialnav_sub.validation_report.ValidationReport`
or returns None, so a scan can report every problem at once."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, TypeGuard

from socialbench.benchmarks.socialnav_sub.validation_report import ValidationReport
from socialbench.types import Answer, HumanVotes, Question

__all__ = ["is_int", "unsafe_relative_path", "parse_goal", "goal_key", "parse_votes"]

PROB_TOL = 1e-6
_STRAY_KEYS = frozenset({"", "_probabilities", "_n_answers"})
#: Most human answers one question may have (the release has 7-14).
MAX_ANSWERS = 100_000


def unsafe_relative_path(rel: str) -> str | None:
    """Why ``rel`` is not a safe path relative to the dataset folder, or None if it is."""
    if not rel:
        return "empty path"
    if PurePosixPath(rel).is_absolute() or PureWindowsPath(rel).is_absolute() or (PureWindowsPath(rel).drive):
        return "absolute path"
    parts = re.split(r"[\\/]", rel)
    if ".." in parts:
        return "'..' component"
    return None


def is_int(v: object) -> TypeGuard[int]:
    """An int that is not a bool."""
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: object) -> bool:
    """A finite int or float (an int too large for a float is not a number here)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


def parse_goal(raw: object) -> tuple[float, float] | None:
    """Official goal string ``"[gx, gy]"`` in millimetres -> metres, or None if malformed."""
    if not isinstance(raw, str):
        return None
    parts = raw.replace(" ", "").replace("[", "").replace("]", "").split(",")
    if len(parts) != 2:
        return None
    try:
        return (int(parts[0]) / 1000.0, int(parts[1]) / 1000.0)
    except ValueError:
        try:
            gx, gy = float(parts[0]), float(parts[1])
        except ValueError:
            return None
        return (gx / 1000.0, gy / 1000.0) if math.isfinite(gx) and math.isfinite(gy) else None


def goal_key(sample_id: str) -> str:
    """goal_info.json key of a sample: ``<a>_Spot_<b>_<F0>`` -> ``<a>_Spot_<b>/<F0>.jpg``."""
    head, _, f0 = sample_id.rpartition("_")
    return f"{head}/{f0}.jpg"


def _canonical_answer(q: Question, answer: object) -> Answer | None:
    if q.kind == "single":
        # the question's own option string: every vote of a dataset shares those objects
        return q.options[q.options.index(answer)] if isinstance(answer, str) and answer in q.options else None
    if (
        not isinstance(answer, list)
        or not answer
        or not all(isinstance(a, str) and a in q.options for a in answer)
        or len(set(answer)) != len(answer)
    ):
        return None
    chosen = set(answer)
    return tuple(o for o in q.options if o in chosen)


def parse_votes(
    questions: tuple[Question, ...], data: Mapping[str, Any], file: Path | str, report: ValidationReport
) -> dict[str, HumanVotes]:
    """Check ``common_answers.json`` content and build the votes of every question."""
    votes: dict[str, HumanVotes] = {}
    for q in questions:
        k = q.key
        missing = [name for name in (k, f"{k}_probabilities", f"{k}_n_answers") if name not in data]
        for name in missing:
            report.error(file, name, "missing key", "every question key needs K, K_probabilities and K_n_answers")
        if missing:
            continue
        answers, probs, n = data[k], data[f"{k}_probabilities"], data[f"{k}_n_answers"]
        ok = True
        if not isinstance(answers, list) or not answers:
            report.error(file, k, "answers must be a non-empty list", "list the answers given")
            ok = False
        if not isinstance(probs, list) or not all(_is_number(p) for p in probs):
            report.error(file, f"{k}_probabilities", "must be a list of numbers", "give count/n for each answer")
            ok = False
        if not is_int(n):
            report.error(file, f"{k}_n_answers", f"must be an integer, got {n!r}", "give the number of annotators")
            ok = False
        elif n < 2:
            report.error(
                file, f"{k}_n_answers", f"n = {n} < 2 answers", "leave-one-out agreement needs at least 2 human answers"
            )
            ok = False
        elif n > MAX_ANSWERS:
            shown = n if n < 10**9 else f"an integer of {len(str(n))} digits"
            report.error(
                file,
                f"{k}_n_answers",
                f"n = {shown} is more than {MAX_ANSWERS} answers",
                "give the number of humans who answered",
            )
            ok = False
        if not ok:
            continue
        if len(answers) != len(probs):
            report.error(
                file,
                f"{k}_probabilities",
                f"{len(probs)} probabilities for {len(answers)} answers",
                "give one probability per answer",
            )
            continue
        if any(p < 0 or p > 1 for p in probs):
            report.error(file, f"{k}_probabilities", "probabilities must lie in [0, 1]", "use count/n")
            continue
        total = sum(probs)
        if abs(total - 1.0) > PROB_TOL:
            report.error(
                file,
                f"{k}_probabilities",
                f"probabilities sum to {total!r}, not 1",
                "use count/n for every answer given",
            )
            continue
        canon: list[Answer] = []
        for a in answers:
            c = _canonical_answer(q, a)
            if c is None:
                if q.kind == "multi":
                    report.error(
                        file,
                        k,
                        f"answer {a!r} is not a list of options {q.options}",
                        "write each multiple-select answer as a list of options",
                    )
                else:
                    report.error(
                        file,
                        k,
                        f"answer {a!r} is not an option of this question (options: {list(q.options)})",
                        "use the exact option text",
                    )
                ok = False
            else:
                canon.append(c)
        if not ok:
            continue
        if len(set(canon)) != len(canon):
            report.error(
                file, k, "the same answer is listed twice", "merge duplicate answers and add their probabilities"
            )
            continue
        counted = sum(int(round(p * n)) for p in probs)
        if counted != n:  # the human-agreement rows count votes (metrics.agreement._exact_counts)
            report.error(
                file,
                f"{k}_probabilities",
                f"the vote counts round(p*n) add up to {counted}, not to the {n} answers of {k}_n_answers "
                f"(probabilities {probs}: not whole votes of {n} annotators)",
                "give count/n for every answer, the counts adding up to n",
            )
            continue
        for a, p in zip(canon, probs):
            exact = p * n
            if abs(exact - round(exact)) > PROB_TOL:
                report.warn(
                    file,
                    f"{k}_probabilities",
                    f"p*n = {exact!r} for {a!r} is not a whole number of votes",
                    "use count/n with the stated n",
                )
            elif int(exact) != round(exact):
                report.warn(
                    file,
                    f"{k}_probabilities",
                    f"int(p*n) = {int(exact)} does not recover the count "
                    f"{round(exact)} for {a!r} (the official scorer truncates)",
                    "store count/n exactly",
                )
        votes[k] = HumanVotes(tuple(canon), tuple(float(p) for p in probs), n)
    expected = {s for q in questions for s in (q.key, f"{q.key}_probabilities", f"{q.key}_n_answers")}
    extra = sorted(k for k in data if k not in expected and k not in _STRAY_KEYS)
    if extra:
        shown = ", ".join(extra[:5]) + (" ..." if len(extra) > 5 else "")
        report.warn(
            file, "", f"{len(extra)} unexpected keys ({shown})", "check n_people in sample_info.json for this sample"
        )
    return votes
