"""Label Studio tasks and labeling configs, and import of Label Studio JSON exports.

Five annotation kinds (RobotEQ App. B.2 "Human Verification", App. D, App. E, §6 Figure 6(a)):

``verification``
    original vs edited image of a synthetic scene: ``original`` / ``edited`` / ``neither``,
    plus free-text revision instructions when neither matches the scenario.
``judgment``
    one task per candidate behavior: ``proper`` / ``improper`` / ``invalid`` (single
    choice) and the seven facets (multiple choice; the behavior stage's suggestion can be
    pre-filled as a Label Studio *prediction*, which annotators correct).
``grounding``
    an image with regions A-D drawn on it and a question: any of ``A``, ``B``, ``C``,
    ``D``, ``invalid`` (multiple choice). No model answer is shown.
``topics``
    a scene image alone (no scenario text, as in App. E "Manual Questions Generation"):
    the annotator proposes spatial grounding topics, one per line of the ``topics`` text
    area; the proposals are pooled per image by ``build topics``.
``judgment-no-image``
    the "w/o image" condition of Figure 6(a): one task per final behavior (a random sample
    of them, the paper's is 200) with the role and the behavior text and **no image**:
    ``proper`` / ``improper`` (single choice). The labels never change a final label;
    ``build aggregate`` attaches them to the behaviors as ``votes_no_image`` and the report
    compares them with the with-image votes (table ``roboteq_human_image``).

:func:`labeling_config` returns the XML of a kind; :func:`verification_tasks`,
:func:`judgment_tasks`, :func:`grounding_tasks`, :func:`topic_proposal_tasks` and
:func:`judgment_no_image_tasks` build the task lists (``[{"data":
{...}}]``) that Label Studio imports. Every task carries ``kind``, ``item_id`` (and ``k``
for judgment) so an export maps back to our records.

Images are referenced by URL (:class:`ImageRefs`): ``local-files`` (Label Studio's local
file serving: start it with ``LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED=true`` and
``LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT=<work folder>``), ``prefix`` (any URL prefix, e.g.
a static file server) or ``data-uri`` (the image embedded in the task; self-contained but
large).

:func:`import_export` reads Label Studio JSON exports (the "JSON" export format: a list of
tasks with ``annotations``) into one row per (kind, item, annotator): cancelled annotations
are skipped, and when an annotator submitted twice the later annotation wins (reported).
"Later" compares ``updated_at`` (else ``created_at``) as parsed ISO 8601 times (a time
without an offset counts as UTC), then the annotation id. Rows of different kinds never
replace each other, even when a verification and a grounding task share an ``item_id``.
"""

from __future__ import annotations

import base64
import dataclasses
import mimetypes
import random
import re
import reprlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote
from xml.sax.saxutils import quoteattr

from socialbench.benchmarks.roboteq.schema import FACETS, LETTERS
from socialbench.errors import DataError, Problem

__all__ = [
    "KINDS",
    "JUDGMENT_LABELS",
    "VERIFICATION_CHOICES",
    "GROUNDING_CHOICES",
    "ImageRefs",
    "labeling_config",
    "verification_tasks",
    "judgment_tasks",
    "grounding_tasks",
    "topic_proposal_tasks",
    "judgment_no_image_tasks",
    "NO_IMAGE_KIND",
    "NO_IMAGE_LABELS",
    "split_topics",
    "ImportResult",
    "annotation_time",
    "import_export",
]

NO_IMAGE_KIND = "judgment-no-image"
KINDS = ("verification", "judgment", "grounding", "topics", NO_IMAGE_KIND)
JUDGMENT_LABELS = ("proper", "improper", "invalid")
#: The choices of a without-image judgment (Figure 6(a) compares proper / improper labels).
NO_IMAGE_LABELS = ("proper", "improper")
VERIFICATION_CHOICES = ("original", "edited", "neither")
GROUNDING_CHOICES = (*LETTERS, "invalid")


def _choices(name: str, to: str, values: Sequence[str], multiple: bool, required: bool) -> str:
    attrs = f'name="{name}" toName="{to}" choice="{"multiple" if multiple else "single"}" showInline="true"'
    if required:
        attrs += ' required="true"'
    inner = "".join(f"<Choice value={quoteattr(v)}/>" for v in values)
    return f"  <Choices {attrs}>{inner}</Choices>"


def labeling_config(kind: str) -> str:
    """The Label Studio labeling config (XML) for ``kind``."""
    if kind == "verification":
        return "\n".join(
            [
                "<View>",
                '  <Header value="$title"/>',
                '  <Text name="scenario" value="$scenario"/>',
                '  <View style="display: flex; gap: 12px;">',
                '    <View style="flex: 50%;"><Header value="Original" size="5"/><Image name="original" value="$original"/></View>',
                '    <View style="flex: 50%;"><Header value="Edited" size="5"/><Image name="edited" value="$edited"/></View>',
                "  </View>",
                '  <Header value="Which image best matches the scenario?" size="5"/>',
                _choices("choice", "scenario", VERIFICATION_CHOICES, False, True),
                '  <TextArea name="instructions" toName="scenario" rows="3" editable="true" maxSubmissions="1" '
                'placeholder="If neither matches: revision instructions"/>',
                "</View>",
            ]
        )
    if kind == "judgment":
        return "\n".join(
            [
                "<View>",
                '  <Image name="image" value="$image"/>',
                '  <Header value="$question"/>',
                '  <Text name="behavior" value="$behavior"/>',
                '  <Header value="Is this next action proper, improper, or invalid for the benchmark?" size="5"/>',
                _choices("label", "behavior", JUDGMENT_LABELS, False, True),
                '  <Header value="Facets (select all that apply)" size="5"/>',
                _choices("facets", "behavior", FACETS, True, False),
                "</View>",
            ]
        )
    if kind == "grounding":
        return "\n".join(
            [
                "<View>",
                '  <Image name="image" value="$image"/>',
                '  <Header value="$question"/>',
                '  <Text name="options" value="$options_text"/>',
                '  <Header value="Select every appropriate region (or invalid)" size="5"/>',
                _choices("regions", "image", GROUNDING_CHOICES, True, True),
                "</View>",
            ]
        )
    if kind == "topics":
        return "\n".join(
            [
                "<View>",
                '  <Image name="image" value="$image"/>',
                '  <Header value="Propose spatial grounding topics for this image, one per line: decisions a robot '
                "could make from what it sees (where to move, which person to approach, which object or region is "
                'socially appropriate to select)." size="5"/>',
                '  <TextArea name="topics" toName="image" rows="5" editable="true" maxSubmissions="1" required="true" '
                'placeholder="Where should the robot wait so it does not block the aisle?"/>',
                "</View>",
            ]
        )
    if kind == NO_IMAGE_KIND:
        return "\n".join(
            [
                "<View>",
                '  <Header value="$question"/>',
                '  <Text name="behavior" value="$behavior"/>',
                '  <Header value="No image is shown on purpose: judge from the text alone. Is this next action proper '
                'or improper?" size="5"/>',
                _choices("label", "behavior", NO_IMAGE_LABELS, False, True),
                "</View>",
            ]
        )
    raise ValueError(f"unknown annotation kind {kind!r}; use {', '.join(KINDS)}")


@dataclass(frozen=True)
class ImageRefs:
    """How task data refers to image files (see the module docstring)."""

    mode: str = "local-files"  # local-files | prefix | data-uri
    work: Path = Path(".")
    document_root: Path | None = None  # local-files: default = work
    prefix: str = ""

    def url(self, rel: str) -> str:
        path = (self.work / rel).resolve()
        if self.mode == "data-uri":
            mime = mimetypes.guess_type(path.name)[0] or "image/png"
            return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"
        if self.mode == "prefix":
            return self.prefix + quote(rel)
        if self.mode == "local-files":
            root = (self.document_root or self.work).resolve()
            try:
                inner = path.relative_to(root).as_posix()
            except ValueError:
                raise DataError.single(
                    path,
                    "image",
                    f"image is outside the document root {root}",
                    "pass --document-root above the work folder",
                ) from None
            return f"/data/local-files/?d={quote(inner)}"
        raise ValueError(f"unknown image reference mode {self.mode!r}; use local-files, prefix or data-uri")


def verification_tasks(
    review_records: Iterable[Mapping[str, Any]], refs: ImageRefs, *, only_edited: bool = True
) -> list[dict[str, Any]]:
    """One task per reviewed image whose final image differs from the original."""
    tasks = []
    for r in review_records:
        if only_edited and r["final"] == r["original"]:
            continue
        s = r.get("scenario") or {}
        tasks.append(
            {
                "data": {
                    "kind": "verification",
                    "item_id": r["id"],
                    "title": s.get("title") or r["id"],
                    "scenario": f"{s.get('description', '')}\nDecision point: {s.get('decision_point', '')}".strip(),
                    "original": refs.url(r["original"]),
                    "edited": refs.url(r["final"]),
                    "original_path": r["original"],
                    "edited_path": r["final"],
                }
            }
        )
    return tasks


def judgment_tasks(
    behavior_records: Iterable[Mapping[str, Any]], refs: ImageRefs, *, prefill_facets: bool = True
) -> list[dict[str, Any]]:
    """One task per (scene, behavior); suggested facets become a prediction when asked."""
    tasks = []
    for r in behavior_records:
        url = refs.url(r["image"])
        for b in r["behaviors"]:
            task: dict[str, Any] = {
                "data": {
                    "kind": "judgment",
                    "item_id": r["id"],
                    "k": b["k"],
                    "image": url,
                    "image_path": r["image"],
                    "question": r["question"],
                    "behavior": b["text"],
                }
            }
            if prefill_facets and b.get("facets"):
                task["predictions"] = [
                    {
                        "model_version": "behaviors-stage",
                        "result": [
                            {
                                "from_name": "facets",
                                "to_name": "behavior",
                                "type": "choices",
                                "value": {"choices": list(b["facets"])},
                            }
                        ],
                    }
                ]
            tasks.append(task)
    return tasks


def grounding_tasks(grounding_records: Iterable[Mapping[str, Any]], refs: ImageRefs) -> list[dict[str, Any]]:
    """One task per grounding question (the overlay image); no answer is included."""
    tasks = []
    for r in grounding_records:
        options = r.get("options") or {}
        text = "\n".join(f"{k}: {options[k]}" for k in LETTERS if options.get(k))
        tasks.append(
            {
                "data": {
                    "kind": "grounding",
                    "item_id": r["id"],
                    "image": refs.url(r["image"]),
                    "image_path": r["image"],
                    "question": r["question"],
                    "options_text": text or "Regions A-D are drawn on the image.",
                }
            }
        )
    return tasks


def topic_proposal_tasks(scene_records: Iterable[Mapping[str, Any]], refs: ImageRefs) -> list[dict[str, Any]]:
    """One topic-proposal task per scene image; the scenario text is left out on purpose
    (the proposals must rest on visual evidence)."""
    return [
        {"data": {"kind": "topics", "item_id": r["id"], "image": refs.url(r["image"]), "image_path": r["image"]}}
        for r in scene_records
    ]


def judgment_no_image_tasks(
    judgment_records: Sequence[Mapping[str, Any]], *, sample: int | None = None, seed: int = 0
) -> list[dict[str, Any]]:
    """One without-image task per behavior of the final judgment scenes (role and behavior
    text, no image field at all), or per behavior of a uniform random sample of ``sample``
    of them (``random.Random(seed)``; all when there are fewer), in dataset order.
    Raises ValueError for ``sample`` < 1."""
    pairs = [(r, b) for r in judgment_records for b in r["behaviors"]]
    if sample is not None:
        if sample < 1:
            raise ValueError(f"sample must be at least 1 (got {sample})")
        if sample < len(pairs):
            chosen = sorted(random.Random(seed).sample(range(len(pairs)), sample))
            pairs = [pairs[i] for i in chosen]
    return [
        {
            "data": {
                "kind": NO_IMAGE_KIND,
                "item_id": r["id"],
                "k": b["k"],
                "question": r["question"],
                "behavior": b["text"],
            }
        }
        for r, b in pairs
    ]


def split_topics(text: str) -> list[str]:
    """The topics of a ``topics`` text area: one per non-empty line, list bullets removed."""
    out = []
    for line in text.splitlines():
        topic = re.sub(r"^\s*(?:[-*\u2022]|\d+[.)])\s*", "", line).strip()
        if topic:
            out.append(topic)
    return out


# --------------------------------------------------------------------------- import

#: Largest Label Studio export read (bytes); an export of the paper's ~6,000 judgment tasks
#: with three annotations each is ~20 MB.
MAX_EXPORT_BYTES = 256 * 1024**2
_EXPORT_FIX = "export the project again from Label Studio in JSON format (not JSON-MIN or CSV)"
_CONFIG_FIX = "annotate with the exported config"
_TASK_FIX = "export tasks created by socialbench build annotate export"


@dataclass
class ImportResult:
    rows: dict[str, list[dict[str, Any]]]  # kind -> rows
    superseded: int = 0  # earlier annotations replaced by a later one of the same annotator
    cancelled: int = 0
    skipped_tasks: int = 0  # tasks without annotations


class _Bad(Exception):
    """A field of one task or annotation of the wrong type or value: the field's path (below
    the task or annotation), what is wrong, and the fix."""

    def __init__(self, field: str, message: str, fix: str = _EXPORT_FIX):
        super().__init__(message)
        self.field, self.message, self.fix = field, message, fix


def _json_kind(value: Any) -> str:
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


def _id_text(value: Any, fallback: int) -> str:
    """A Label Studio id as shown in a problem: the id when it is a number or short text,
    else ``fallback`` (the position in the file)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value:
        return repr(value[:40])
    return f"#{fallback}"


def _check_id(value: Any, field: str) -> Any:
    """A Label Studio id (task or annotation): a number, text or absent."""
    if value is None or (isinstance(value, (int, str)) and not isinstance(value, bool)):
        return value
    raise _Bad(field, f"is {_json_kind(value)}, not a Label Studio id (a number)")


def _annotator(ann: Mapping[str, Any]) -> str:
    """Who submitted ``ann``: ``completed_by`` (a user id, or an object with ``email`` /
    ``id``), else ``created_username``, else ``unknown``."""
    who = ann.get("completed_by")
    if isinstance(who, dict):
        name = who.get("email") or who.get("id")
        if isinstance(name, (str, int)) and not isinstance(name, bool):
            return str(name)
        raise _Bad("completed_by", "has no email or id (text or a number)")
    if who is None:
        user = ann.get("created_username")
        if user is None or user == "":
            return "unknown"
        if isinstance(user, str):
            return user
        raise _Bad("created_username", f"is {_json_kind(user)}, not text")
    if isinstance(who, (str, int)) and not isinstance(who, bool):
        return str(who)
    raise _Bad("completed_by", f"is {_json_kind(who)}, not a user id or user object")


def _results(ann: Mapping[str, Any]) -> dict[str, Any]:
    """Control name -> its choices (a list of text) or text, from ``ann["result"]``; a
    result without a control name (``from_name``) is skipped."""
    results = ann.get("result")
    if results is None:
        return {}
    if not isinstance(results, list):
        raise _Bad("result", f"is {_json_kind(results)}, not a list of results")
    out: dict[str, Any] = {}
    for i, res in enumerate(results):
        if not isinstance(res, dict):
            raise _Bad(f"result[{i}]", f"is {_json_kind(res)}, not a result object")
        name = res.get("from_name")
        if not isinstance(name, str):  # results are looked up by control name; an unnamed one has none
            continue
        value = res.get("value")
        if value is None:
            continue
        if not isinstance(value, dict):
            raise _Bad(f"result[{i}].value", f"is {_json_kind(value)}, not an object")
        if "choices" in value:
            choices = value["choices"]
            if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
                raise _Bad(f"result[{i}].value.choices", f"is {_json_kind(choices)}, not a list of choices (text)")
            out[name] = list(choices)
        elif "text" in value:
            t = value["text"]
            if isinstance(t, list) and all(isinstance(x, str) for x in t):
                out[name] = "\n".join(t)
            elif isinstance(t, str):
                out[name] = t
            else:
                raise _Bad(f"result[{i}].value.text", f"is {_json_kind(t)}, not text or a list of text")
    return out


def _behavior_number(data: Mapping[str, Any]) -> int:
    """``data["k"]`` of a judgment task: the behavior's number (a whole number)."""
    if "k" not in data:
        raise _Bad("data.k", "is missing: a judgment task names its behavior by k", _TASK_FIX)
    k = data["k"]
    if not isinstance(k, int) or isinstance(k, bool):
        raise _Bad("data.k", f"is {_json_kind(k)}, not the behavior's number (a whole number)", _TASK_FIX)
    return k


def _choice_row(kind: str, res: Mapping[str, Any], k: int | None) -> tuple[dict[str, Any], str]:
    """The fields ``kind`` adds to a row from the annotation's results, and the row id's
    suffix; :class:`_Bad` for a choice outside the config."""
    if kind in ("judgment", NO_IMAGE_KIND):
        labels = res.get("label") or []
        allowed = JUDGMENT_LABELS if kind == "judgment" else NO_IMAGE_LABELS
        if len(labels) != 1 or labels[0] not in allowed:
            raise _Bad("", f"label {labels!r} is not one of {allowed}", _CONFIG_FIX)
        facets = res.get("facets") or []
        if not isinstance(facets, list):  # a text area named "facets"
            raise _Bad("", "facets are text, not choices", _CONFIG_FIX)
        unknown = [f for f in facets if f not in FACETS]
        if unknown:
            raise _Bad("", f"unknown facets {unknown}", _CONFIG_FIX)
        return {"k": k, "label": labels[0], "facets": facets}, f"#b{k}"
    if kind == "grounding":
        sel = res.get("regions") or []
        bad = [s for s in sel if s not in GROUNDING_CHOICES] if isinstance(sel, list) else [sel]
        if bad or not sel:
            raise _Bad("", f"selection {sel!r} is not among {GROUNDING_CHOICES}", _CONFIG_FIX)
        return {"selection": [x for x in LETTERS if x in sel], "invalid": "invalid" in sel}, ""
    if kind == "topics":
        text = res.get("topics") or ""
        topics = split_topics(text if isinstance(text, str) else "\n".join(text))
        if not topics:
            raise _Bad(
                "",
                "no topic proposed (the topics text area is empty)",
                "write one topic per line, or skip the task in Label Studio instead of submitting it",
            )
        return {"topics": topics}, ""
    choice = res.get("choice") or []
    if not isinstance(choice, list) or len(choice) != 1 or choice[0] not in VERIFICATION_CHOICES:
        raise _Bad("", f"choice {choice!r} is not one of {VERIFICATION_CHOICES}", _CONFIG_FIX)
    instructions = res.get("instructions") or ""
    if not isinstance(instructions, str):
        raise _Bad("", "instructions are choices, not text", _CONFIG_FIX)
    return {"choice": choice[0], "instructions": instructions}, ""


def _kind_of(data: Mapping[str, Any]) -> str | None:
    if data.get("kind") in KINDS:
        return str(data["kind"])
    if "behavior" in data:
        return "judgment"
    if "original" in data and "edited" in data:
        return "verification"
    if "options_text" in data:
        return "grounding"
    return None


_EPOCH = datetime.min.replace(tzinfo=timezone.utc)
_ISO_TIME = re.compile(r"(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?(Z|z|[+-]\d{2}:?\d{2})?")


def annotation_time(value: Any) -> datetime | None:
    """``updated_at`` / ``created_at`` of a Label Studio annotation as an aware datetime.

    Accepts ISO 8601 with any fraction precision and ``Z`` or an offset; a time without an
    offset counts as UTC. Returns None for a missing value; raises ValueError for text that
    is not an ISO 8601 time.
    """
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not an ISO 8601 time")
    text = value.strip()
    m = _ISO_TIME.fullmatch(text)
    if m:  # normalise what Python 3.10's fromisoformat refuses: any fraction length, Z, +HHMM
        base, frac, offset = m.groups()
        text = base + (f".{frac[:6].ljust(6, '0')}" if frac else "")
        if offset:
            text += "+00:00" if offset in ("Z", "z") else f"{offset[:3]}:{offset[-2:]}"
    parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=timezone.utc)


def _order(ann: Mapping[str, Any]) -> tuple[datetime, Any]:
    """Sort key of an annotation: (its time, else the epoch; its id)."""
    stamp = ann.get("updated_at") or ann.get("created_at")
    when = annotation_time(stamp)
    aid = ann.get("id")
    return (when or _EPOCH, aid if isinstance(aid, (int, float)) else 0)


def _read_export(path: Path) -> list[Any]:
    """The tasks of one export file, read as untrusted (:func:`socialbench.files.safe_read.read_json`:
    a regular file of at most :data:`MAX_EXPORT_BYTES`, strict UTF-8 JSON, bounded depth)."""
    from socialbench.files.safe_read import read_json

    try:
        doc = read_json(path, MAX_EXPORT_BYTES)
    except DataError as exc:
        raise DataError([dataclasses.replace(p, fix=_EXPORT_FIX) for p in exc.problems]) from None
    if not isinstance(doc, list):
        raise DataError.single(
            path,
            "",
            f"export is {_json_kind(doc)}, not a list of tasks",
            "use Label Studio's JSON export (not JSON-MIN or CSV)",
        )
    return doc


def _annotation_row(
    kind: str, item: str, k: int | None, task_id: Any, ann: Mapping[str, Any]
) -> tuple[dict[str, Any], str]:
    """The row of one (not cancelled) annotation and its id; :class:`_Bad` naming the field."""
    who = _annotator(ann)
    lead_time = ann.get("lead_time")
    if lead_time is not None and (not isinstance(lead_time, (int, float)) or isinstance(lead_time, bool)):
        raise _Bad("lead_time", f"is {_json_kind(lead_time)}, not a number of seconds")
    fields, suffix = _choice_row(kind, _results(ann), k)
    row: dict[str, Any] = {
        "kind": kind,
        "item_id": item,
        "annotator": who,
        "ls_task": task_id,
        "ls_annotation": _check_id(ann.get("id"), "id"),
        "lead_time": lead_time,
        **fields,
    }
    return row, f"{item}{suffix}@{who}"


def import_export(paths: Sequence[str | Path]) -> ImportResult:
    """Rows per kind from Label Studio JSON exports (see the module docstring).

    Raises :class:`DataError` with one problem per bad task or annotation, each naming the
    file, the task (and annotation) and the field, for: a file that is not a regular JSON
    file of at most :data:`MAX_EXPORT_BYTES` (a FIFO or ``/dev/zero`` is refused without
    being read), an export that is not a list of tasks, tasks without ``item_id`` or kind,
    fields of the wrong type (``k``, ``annotations``, ``result``, ``value``, ``choices``,
    ...), choices outside the allowed values and times that are not ISO 8601.
    """
    problems: list[Problem] = []
    # keyed by (kind, row id): a verification and a grounding task may share an item_id
    latest: dict[tuple[str, str], tuple[tuple[datetime, Any], dict[str, Any]]] = {}
    result = ImportResult(rows={k: [] for k in KINDS})
    for path in paths:
        p = Path(path)
        for t_index, task in enumerate(_read_export(p)):
            data = task.get("data") if isinstance(task, dict) else None
            where = f"task {_id_text(task.get('id'), t_index) if isinstance(task, dict) else f'#{t_index}'}"
            if not isinstance(data, dict):
                problems.append(Problem(str(p), where, "task has no data", _TASK_FIX))
                continue
            if "kind" in data and data["kind"] not in KINDS:
                problems.append(
                    Problem(
                        str(p), f"{where}.data.kind", f"{reprlib.repr(data['kind'])} is not one of {KINDS}", _TASK_FIX
                    )
                )
                continue
            kind = _kind_of(data)
            item = data.get("item_id")
            if kind is None or not isinstance(item, str):
                problems.append(Problem(str(p), f"{where}.data", "task has no kind/item_id", _TASK_FIX))
                continue
            try:
                task_id = _check_id(task.get("id"), "id")
                k = _behavior_number(data) if kind in ("judgment", NO_IMAGE_KIND) else None
                anns = task.get("annotations")
                if anns is None:
                    anns = []
                if not isinstance(anns, list):
                    raise _Bad("annotations", f"is {_json_kind(anns)}, not a list of annotations")
                for a_index, ann in enumerate(anns):
                    if not isinstance(ann, dict):
                        raise _Bad(f"annotations[{a_index}]", f"is {_json_kind(ann)}, not an annotation object")
            except _Bad as bad:
                problems.append(Problem(str(p), f"{where}.{bad.field}", bad.message, bad.fix))
                continue
            if not anns:
                result.skipped_tasks += 1
            for a_index, ann in enumerate(anns):
                at = f"{where}.annotation {_id_text(ann.get('id'), a_index)}"
                cancelled = ann.get("was_cancelled")
                if cancelled is not None and not isinstance(cancelled, bool):
                    problems.append(
                        Problem(
                            str(p), f"{at}.was_cancelled", f"is {_json_kind(cancelled)}, not true/false", _EXPORT_FIX
                        )
                    )
                    continue
                if cancelled:
                    result.cancelled += 1
                    continue
                try:
                    row, key = _annotation_row(kind, item, k, task_id, ann)
                except _Bad as bad:
                    problems.append(Problem(str(p), f"{at}.{bad.field}" if bad.field else at, bad.message, bad.fix))
                    continue
                row["id"] = key
                try:
                    order = _order(ann)
                except ValueError:
                    stamp = ann.get("updated_at") or ann.get("created_at")
                    problems.append(
                        Problem(
                            str(p),
                            f"{at}.updated_at",
                            f"{reprlib.repr(stamp)} is not an ISO 8601 time",
                            "keep Label Studio's updated_at / created_at values as exported",
                        )
                    )
                    continue
                slot = (kind, key)
                if slot in latest:
                    result.superseded += 1
                    if latest[slot][0] > order:
                        continue
                latest[slot] = (order, row)
    if problems:
        raise DataError(problems)
    for _, row in latest.values():
        result.rows[row["kind"]].append(row)
    for rows in result.rows.values():
        rows.sort(key=lambda r: (r["item_id"], r.get("k", 0), r["annotator"]))
    return result
