"""One Label Studio annotation -> one annotation row: the annotator, the results by control
name, and the fields each kind adds (label and facets, selected regions, topics, or the
verification choice), each field checked; :class:`BadField` names a field that is wrong."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TypedDict

from socialbench.benchmarks.roboteq.schema import FACETS, LETTERS
from socialbench.construction.annotation_config import (
    GROUNDING_CHOICES,
    JUDGMENT_LABELS,
    NO_IMAGE_KIND,
    NO_IMAGE_LABELS,
    VERIFICATION_CHOICES,
)

__all__ = [
    "AnnotationRow",
    "BadField",
    "EXPORT_FIX",
    "TASK_FIX",
    "json_kind",
    "check_id",
    "id_text",
    "behavior_number",
    "annotation_row",
    "annotator_of",
    "results_by_control",
    "split_topics",
]

#: A Label Studio id (task or annotation) as exported.
LabelStudioId = int | str | None
#: The results of one annotation: control name -> its choices or its text.
Results = Mapping[str, list[str] | str]


class KindFields(TypedDict, total=False):
    """The fields an annotation kind adds to its row: ``k``, ``label`` and ``facets``
    (judgment kinds), ``selection`` and ``invalid`` (grounding), ``topics`` (topics), or
    ``choice`` and ``instructions`` (verification)."""

    k: int | None
    label: str
    facets: list[str]
    selection: list[str]
    invalid: bool
    topics: list[str]
    choice: str
    instructions: str


class AnnotationRow(KindFields):
    """One imported annotation, a line of ``annotation/<kind>/annotations.jsonl``; ``id`` is
    ``<item_id>[#b<k>]@<annotator>``."""

    kind: str
    item_id: str
    annotator: str
    ls_task: LabelStudioId
    ls_annotation: LabelStudioId
    lead_time: float | None
    id: str


def split_topics(text: str) -> list[str]:
    """The topics of a ``topics`` text area: one per non-empty line, list bullets removed."""
    out = []
    for line in text.splitlines():
        topic = re.sub(r"^\s*(?:[-*\u2022]|\d+[.)])\s*", "", line).strip()
        if topic:
            out.append(topic)
    return out


EXPORT_FIX = "export the project again from Label Studio in JSON format (not JSON-MIN or CSV)"
_CONFIG_FIX = "annotate with the exported config"
TASK_FIX = "export tasks created by socialbench build annotate export"


class BadField(Exception):
    """A field of one task or annotation of the wrong type or value: the field's path (below
    the task or annotation), what is wrong, and the fix."""

    def __init__(self, field: str, message: str, fix: str = EXPORT_FIX):
        super().__init__(message)
        self.field, self.message, self.fix = field, message, fix


def json_kind(value: object) -> str:
    """What a JSON value is, in words (for "is X, not Y" messages)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    return "a list" if isinstance(value, list) else "an object"


def id_text(value: object, fallback: int) -> str:
    """A Label Studio id as shown in a problem: the id when it is a number or short text,
    else ``fallback`` (the position in the file)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value:
        return repr(value[:40])
    return f"#{fallback}"


def check_id(value: object, field: str) -> LabelStudioId:
    """A Label Studio id (task or annotation): a number, text or absent."""
    if value is None or (isinstance(value, (int, str)) and not isinstance(value, bool)):
        return value
    raise BadField(field, f"is {json_kind(value)}, not a Label Studio id (a number)")


def annotator_of(ann: Mapping[str, object]) -> str:
    """Who submitted ``ann``: ``completed_by`` (a user id, or an object with ``email`` /
    ``id``), else ``created_username``, else ``unknown``."""
    who = ann.get("completed_by")
    if isinstance(who, dict):
        name = who.get("email") or who.get("id")
        if isinstance(name, (str, int)) and not isinstance(name, bool):
            return str(name)
        raise BadField("completed_by", "has no email or id (text or a number)")
    if who is None:
        user = ann.get("created_username")
        if user is None or user == "":
            return "unknown"
        if isinstance(user, str):
            return user
        raise BadField("created_username", f"is {json_kind(user)}, not text")
    if isinstance(who, (str, int)) and not isinstance(who, bool):
        return str(who)
    raise BadField("completed_by", f"is {json_kind(who)}, not a user id or user object")


def results_by_control(ann: Mapping[str, object]) -> dict[str, list[str] | str]:
    """Control name -> its choices (a list of text) or text, from ``ann["result"]``; a
    result without a control name (``from_name``) is skipped."""
    results = ann.get("result")
    if results is None:
        return {}
    if not isinstance(results, list):
        raise BadField("result", f"is {json_kind(results)}, not a list of results")
    out: dict[str, list[str] | str] = {}
    for i, res in enumerate(results):
        if not isinstance(res, dict):
            raise BadField(f"result[{i}]", f"is {json_kind(res)}, not a result object")
        name = res.get("from_name")
        if not isinstance(name, str):  # results are looked up by control name; an unnamed one has none
            continue
        value = res.get("value")
        if value is None:
            continue
        if not isinstance(value, dict):
            raise BadField(f"result[{i}].value", f"is {json_kind(value)}, not an object")
        if "choices" in value:
            choices = value["choices"]
            if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
                raise BadField(f"result[{i}].value.choices", f"is {json_kind(choices)}, not a list of choices (text)")
            out[name] = list(choices)
        elif "text" in value:
            t = value["text"]
            if isinstance(t, list) and all(isinstance(x, str) for x in t):
                out[name] = "\n".join(t)
            elif isinstance(t, str):
                out[name] = t
            else:
                raise BadField(f"result[{i}].value.text", f"is {json_kind(t)}, not text or a list of text")
    return out


def behavior_number(data: Mapping[str, object]) -> int:
    """``data["k"]`` of a judgment task: the behavior's number (a whole number)."""
    if "k" not in data:
        raise BadField("data.k", "is missing: a judgment task names its behavior by k", TASK_FIX)
    k = data["k"]
    if not isinstance(k, int) or isinstance(k, bool):
        raise BadField("data.k", f"is {json_kind(k)}, not the behavior's number (a whole number)", TASK_FIX)
    return k


def _kind_fields(kind: str, res: Results, k: int | None) -> tuple[KindFields, str]:
    """The fields ``kind`` adds to a row from the annotation's results, and the row id's
    suffix; :class:`BadField` for a choice outside the config."""
    if kind in ("judgment", NO_IMAGE_KIND):
        labels = res.get("label") or []
        allowed = JUDGMENT_LABELS if kind == "judgment" else NO_IMAGE_LABELS
        if len(labels) != 1 or labels[0] not in allowed:
            raise BadField("", f"label {labels!r} is not one of {allowed}", _CONFIG_FIX)
        facets = res.get("facets") or []
        if not isinstance(facets, list):  # a text area named "facets"
            raise BadField("", "facets are text, not choices", _CONFIG_FIX)
        unknown = [f for f in facets if f not in FACETS]
        if unknown:
            raise BadField("", f"unknown facets {unknown}", _CONFIG_FIX)
        return {"k": k, "label": labels[0], "facets": facets}, f"#b{k}"
    if kind == "grounding":
        sel = res.get("regions") or []
        bad = [s for s in sel if s not in GROUNDING_CHOICES] if isinstance(sel, list) else [sel]
        if bad or not sel:
            raise BadField("", f"selection {sel!r} is not among {GROUNDING_CHOICES}", _CONFIG_FIX)
        return {"selection": [x for x in LETTERS if x in sel], "invalid": "invalid" in sel}, ""
    if kind == "topics":
        text = res.get("topics") or ""
        topics = split_topics(text if isinstance(text, str) else "\n".join(text))
        if not topics:
            raise BadField(
                "",
                "no topic proposed (the topics text area is empty)",
                "write one topic per line, or skip the task in Label Studio instead of submitting it",
            )
        return {"topics": topics}, ""
    choice = res.get("choice") or []
    if not isinstance(choice, list) or len(choice) != 1 or choice[0] not in VERIFICATION_CHOICES:
        raise BadField("", f"choice {choice!r} is not one of {VERIFICATION_CHOICES}", _CONFIG_FIX)
    instructions = res.get("instructions") or ""
    if not isinstance(instructions, str):
        raise BadField("", "instructions are choices, not text", _CONFIG_FIX)
    return {"choice": choice[0], "instructions": instructions}, ""


def annotation_row(
    kind: str, item: str, k: int | None, task_id: LabelStudioId, ann: Mapping[str, object]
) -> AnnotationRow:
    """The row of one (not cancelled) annotation; :class:`BadField` naming the field."""
    who = annotator_of(ann)
    lead_time = ann.get("lead_time")
    if lead_time is not None and (not isinstance(lead_time, (int, float)) or isinstance(lead_time, bool)):
        raise BadField("lead_time", f"is {json_kind(lead_time)}, not a number of seconds")
    fields, suffix = _kind_fields(kind, results_by_control(ann), k)
    return {
        "kind": kind,
        "item_id": item,
        "annotator": who,
        "ls_task": task_id,
        "ls_annotation": check_id(ann.get("id"), "id"),
        "lead_time": lead_time,
        **fields,
        "id": f"{item}{suffix}@{who}",
    }
