"""Read Label Studio JSON exports of a SocialNav-SUB survey (:func:`read_survey_export`):
every submitted annotation becomes one annotator's answers to every question of its
scenario, checked against the dataset the survey was made from.

Rules: cancelled (skipped) annotations are left out; of one annotator's several
annotations of a scenario the latest counts (``updated_at``, else ``created_at``, then the
annotation id; as in :mod:`socialbench.construction.annotation_import`). Refused, each
with the file, the task / annotation and the field, and the fix: an export of another
project (tasks without ``data.kind`` = ``socialnav-survey``, one line for all of them), a
survey of another dataset (``data.survey_id``), a task whose people differ from the
dataset's, an annotation with a question unanswered, a choice that is not an option, and
an export that misses scenarios or has fewer than K annotators for some (one line each)."""

from __future__ import annotations

import reprlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from socialbench.benchmarks.socialnav_sub.bank import full_key
from socialbench.construction.annotation_import import annotation_time, read_export
from socialbench.construction.annotation_results import (
    BadField,
    annotator_of,
    check_id,
    id_text,
    json_kind,
    results_by_control,
)
from socialbench.construction.socialnav_survey.config import PEOPLE_FIELD
from socialbench.construction.socialnav_survey.dataset import SurveyDataset
from socialbench.construction.socialnav_survey.order import PERSON_KEYS, SCENE_KEYS, TASK_KIND, parse_control
from socialbench.errors import DataError, Problem
from socialbench.types import Answer

__all__ = ["AnnotatorAnswers", "SurveyRead", "read_survey_export", "OTHER_PROJECT_FIX"]

OTHER_PROJECT_FIX = (
    "export the Label Studio project made from `socialbench build socialnav-survey` (its project.json and tasks.json)"
)
_ANSWER_FIX = "answer every question (the config marks each one required), or skip the task instead of submitting it"
_EPOCH = datetime.min.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class AnnotatorAnswers:
    """One annotator's answers to one scenario (full question key -> canonical answer)."""

    sample_id: str
    annotator: str
    answers: dict[str, Answer]
    ls_task: int | str | None
    ls_annotation: int | str | None
    lead_time: float | None
    submitted_at: str | None


@dataclass
class SurveyRead:
    """The answers of an export, per scenario and annotator, and what was left out."""

    answers: dict[str, dict[str, AnnotatorAnswers]]  # sample id -> annotator -> answers
    annotators_asked: int  # K, as the tasks carry it
    tasks: int = 0
    cancelled: int = 0
    superseded: int = 0
    files: list[str] = field(default_factory=list)


def _choice(res: Mapping[str, list[str] | str], control: str, options: tuple[str, ...], multi: bool) -> Answer:
    got = res.get(control)
    if got is None:
        raise BadField(f"result.{control}", "is not answered", _ANSWER_FIX)
    if not isinstance(got, list):
        raise BadField(f"result.{control}", "is text, not choices", "annotate with the survey's config.xml")
    bad = [c for c in got if c not in options]
    if bad or not got or len(set(got)) != len(got) or (not multi and len(got) != 1):
        want = "one or more of" if multi else "exactly one of"
        raise BadField(
            f"result.{control}",
            f"{reprlib.repr(got)} is not {want} {list(options)}",
            "annotate with the survey's config.xml",
        )
    return tuple(o for o in options if o in got) if multi else got[0]


def _annotation_answers(ds: SurveyDataset, ann: Mapping[str, object], labels: Sequence[int]) -> dict[str, Answer]:
    """Full key -> answer of one annotation; :class:`BadField` for the first problem."""
    res = results_by_control(ann)
    for name in res:
        parsed = parse_control(name)
        if parsed is None:
            raise BadField(
                f"result.{name}", "is not a control of the survey's config", "annotate with the survey's config.xml"
            )
        if parsed[1] is not None and parsed[1] >= len(labels):
            raise BadField(f"result.{name}", f"names person row {parsed[1]}, but the task has {len(labels)} people")
    unanswered = [b for b in SCENE_KEYS if b not in res] + [
        f"{b}__r{i}" for i in range(len(labels)) for b in PERSON_KEYS if f"{b}__r{i}" not in res
    ]
    if unanswered:
        raise BadField(
            f"result.{unanswered[0]}", f"is not answered ({len(unanswered)} question(s) unanswered)", _ANSWER_FIX
        )
    out: dict[str, Answer] = {}
    for base in SCENE_KEYS:
        q = ds.bank.questions[base]
        out[full_key(base, None)] = _choice(res, base, q.options, q.kind == "multi")
    for i, label in enumerate(labels):
        for base in PERSON_KEYS:
            q = ds.bank.questions[base]
            out[full_key(base, label)] = _choice(res, f"{base}__r{i}", q.options, q.kind == "multi")
    return out


def _people(data: Mapping[str, object], n_people: int) -> list[int]:
    people = data.get(PEOPLE_FIELD)
    if not isinstance(people, list) or not all(isinstance(p, dict) for p in people):
        raise BadField(f"data.{PEOPLE_FIELD}", f"is {json_kind(people)}, not the list of people the survey wrote")
    labels = [p.get("label") for p in people]
    if labels != list(range(1, n_people + 1)):
        raise BadField(
            f"data.{PEOPLE_FIELD}",
            f"labels {reprlib.repr(labels)} are not the dataset's people 1..{n_people}",
            "export the survey again from this dataset (`socialbench build socialnav-survey`) and annotate that",
        )
    return [int(x) for x in labels if isinstance(x, int)]


def _order(ann: Mapping[str, object]) -> tuple[datetime, float]:
    when = annotation_time(ann.get("updated_at") or ann.get("created_at"))
    aid = ann.get("id")
    return (when or _EPOCH, aid if isinstance(aid, (int, float)) and not isinstance(aid, bool) else 0)


def _foreign_problem(path: Path, foreign: list[tuple[str, object]], total: int) -> Problem:
    where, kind = foreign[0]
    return Problem(
        str(path),
        f"{where}.data.kind",
        f"{len(foreign)} of {total} tasks are not SocialNav-SUB survey tasks (data.kind is {reprlib.repr(kind)}, "
        f"not {TASK_KIND!r}): this is the export of another Label Studio project",
        OTHER_PROJECT_FIX,
    )


def _read_file(path: Path, ds: SurveyDataset, read: SurveyRead, latest: dict, problems: list[Problem]) -> None:
    tasks = read_export(path)
    foreign: list[tuple[str, object]] = []
    other_survey: list[tuple[str, object]] = []
    for t_index, task in enumerate(tasks):
        data = task.get("data") if isinstance(task, dict) else None
        where = f"task {id_text(task.get('id'), t_index)}" if isinstance(task, dict) else f"task #{t_index}"
        if not isinstance(data, dict) or data.get("kind") != TASK_KIND:
            foreign.append((where, data.get("kind") if isinstance(data, dict) else None))
            continue
        assert isinstance(task, dict)  # data is a dict only when the task is one
        if data.get("survey_id") != ds.survey_id:
            other_survey.append((where, data.get("survey_id")))
            continue
        sid = data.get("sample_id")
        if not isinstance(sid, str) or sid not in ds.n_people:
            problems.append(
                Problem(
                    str(path),
                    f"{where}.data.sample_id",
                    f"{reprlib.repr(sid)} is not a scenario of {ds.root}",
                    OTHER_PROJECT_FIX,
                )
            )
            continue
        asked = data.get("annotators")
        if isinstance(asked, int) and not isinstance(asked, bool):
            read.annotators_asked = max(read.annotators_asked, asked)
        try:
            task_id = check_id(task.get("id"), "id")
            labels = _people(data, ds.n_people[sid])
            anns = task.get("annotations")
            anns = [] if anns is None else anns
            if not isinstance(anns, list):
                raise BadField("annotations", f"is {json_kind(anns)}, not a list of annotations")
        except BadField as bad:
            problems.append(Problem(str(path), f"{where}.{bad.field}", bad.message, bad.fix))
            continue
        read.tasks += 1
        read.answers.setdefault(sid, {})
        for a_index, ann in enumerate(anns):
            at = f"{where}.annotation {id_text(ann.get('id'), a_index) if isinstance(ann, dict) else f'#{a_index}'}"
            try:
                if not isinstance(ann, dict):
                    raise BadField("", f"is {json_kind(ann)}, not an annotation object")
                cancelled = ann.get("was_cancelled")
                if cancelled is not None and not isinstance(cancelled, bool):
                    raise BadField("was_cancelled", f"is {json_kind(cancelled)}, not true/false")
                if cancelled:
                    read.cancelled += 1
                    continue
                who = annotator_of(ann)
                answers = _annotation_answers(ds, ann, labels)
                lead = ann.get("lead_time")
                if lead is not None and (isinstance(lead, bool) or not isinstance(lead, (int, float))):
                    raise BadField("lead_time", f"is {json_kind(lead)}, not a number of seconds")
                try:
                    order = _order(ann)
                except ValueError:
                    raise BadField(
                        "updated_at",
                        "is not an ISO 8601 time",
                        "keep Label Studio's updated_at / created_at as exported",
                    ) from None
                stamp = ann.get("updated_at") or ann.get("created_at")
                row = AnnotatorAnswers(
                    sid,
                    who,
                    answers,
                    task_id,
                    check_id(ann.get("id"), "id"),
                    float(lead) if lead is not None else None,
                    stamp if isinstance(stamp, str) else None,
                )
            except BadField as bad:
                problems.append(Problem(str(path), f"{at}.{bad.field}" if bad.field else at, bad.message, bad.fix))
                continue
            slot = (sid, who)
            if slot in latest:
                read.superseded += 1
                if latest[slot][0] > order:
                    continue
            latest[slot] = (order, row)
    if foreign:
        problems.append(_foreign_problem(path, foreign, len(tasks)))
    if other_survey:
        where, got = other_survey[0]
        problems.append(
            Problem(
                str(path),
                f"{where}.data.survey_id",
                f"{len(other_survey)} task(s) are of survey {reprlib.repr(got)}, not of the survey of {ds.root} "
                f"({ds.survey_id}): the export is of a survey of another dataset, or the dataset changed since",
                "pass the --data folder the survey was made from, or export the survey again and annotate that",
            )
        )


def read_survey_export(
    paths: Sequence[Path | str], ds: SurveyDataset, *, min_annotators: int | None = None
) -> SurveyRead:
    """The answers in the exports ``paths`` (see the module docstring); ``min_annotators``
    overrides K (the tasks' ``annotators``). Raises :class:`DataError` listing every problem."""
    read = SurveyRead(answers={}, annotators_asked=0, files=[str(p) for p in paths])
    latest: dict[tuple[str, str], tuple[tuple[datetime, float], AnnotatorAnswers]] = {}
    problems: list[Problem] = []
    for p in paths:
        _read_file(Path(p), ds, read, latest, problems)
    if problems:
        raise DataError(problems)
    for (sid, who), (_, row) in sorted(latest.items()):
        read.answers[sid][who] = row
    where = str(paths[0]) if len(paths) == 1 else f"exports ({', '.join(str(p) for p in paths)})"
    missing = [sid for sid, _ in ds.samples if sid not in read.answers]
    if missing:
        problems.append(
            Problem(
                where,
                "tasks",
                f"{len(missing)} of {len(ds.samples)} scenarios of {ds.root} have no task in the export "
                f"(first: {missing[0]})",
                "export every task of the project (Export > JSON of all tasks, not a filtered view); a task deleted "
                "from the project must be imported again from the survey's tasks.json and annotated",
            )
        )
    need = min_annotators if min_annotators is not None else max(read.annotators_asked, 2)
    short = [
        (sid, len(read.answers[sid])) for sid, _ in ds.samples if sid in read.answers and len(read.answers[sid]) < need
    ]
    if short:
        fewest = min(c for _, c in short)
        fix = f"collect the missing annotations (the survey asks for {need} per scenario)"
        if fewest >= 2:
            fix += f", or pass --min-annotators {fewest} to accept fewer"
        problems.append(
            Problem(
                where,
                "tasks",
                f"{len(short)} scenario(s) have fewer than {need} annotators (first: {short[0][0]} with {short[0][1]})",
                fix,
            )
        )
    if problems:
        raise DataError(problems)
    return read
