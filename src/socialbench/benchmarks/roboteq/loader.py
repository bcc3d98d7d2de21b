"""Load RobotEQ (behavior judgment and spatial grounding) into :class:`Item`\\ s.

Sources
-------
* a local folder in the **published layout** (the Hugging Face image-folder release);
* a local folder holding the **canonical JSONL** file ``roboteq.jsonl`` (below);
* the hub id ``Tongji-Emotion/Robot-EQ`` (or ``hf://OWNER/NAME``), downloaded with
  ``huggingface_hub.snapshot_download`` (optional extra ``socialbench[hub]``), see
  :func:`resolve_data`.

Published layout
----------------
One or more ``metadata.jsonl`` / ``metadata.csv`` files (at the root or in sub-folders,
e.g. ``behavior_judgment/metadata.jsonl``); image paths in a row are relative to the
folder of its metadata file. Row fields:

``file_name`` or ``image``
    the image path (``image`` may also be ``{"path": ...}``).
``question``
    the role prompt, e.g. "You are a restaurant service robot. In the following scenario,
    what is your most appropriate next action?" (judgment) or the grounding question.
``labels`` (judgment)
    a string of lines ``[k] proper: <behavior>`` / ``[k] improper: <behavior>``.
``option_texts``, ``gt_labels`` (judgment)
    the behaviors and their labels as two matching lists (JSON strings in CSV). When
    ``labels`` is present too, all three must agree (count, label, text).
``answer`` / ``answers`` / ``gt_labels`` (grounding)
    the correct regions, e.g. ``["A", "C"]`` or ``"A,C"``; ``options`` / ``option_texts``
    (optional) describe the regions A-D.
optional
    ``id`` (else the image path without suffix is the id), ``task``
    (``behavior_judgment`` | ``spatial_grounding``; else inferred: a row with ``labels`` or
    proper/improper ``gt_labels`` is judgment, one with letter answers is grounding, else
    the metadata folder's name decides), ``subset`` (``synthetic`` | ``real``; else inferred
    from a path component named ``synthetic``/``real``), ``category``, ``subcategory``,
    ``facets`` (one list for the scene, one list per behavior, or ``{k: [...]}``; names
    from :data:`~socialbench.benchmarks.roboteq.validate.FACETS`) and ``votes``
    (per-annotator labels: one entry per behavior, each a list of labels, a
    ``{label: count}`` object, or ``null`` for a behavior without votes; for grounding, a
    list of selections). List fields may be JSON or Python-literal strings (pandas CSV).

Canonical JSONL (``roboteq.jsonl`` at the dataset root; when present it is the only file
read). One JSON object per line; image paths are relative to the root::

    {"id": "syn-0001", "task": "behavior_judgment", "image": "images/syn-0001.png",
     "question": "You are a ...", "subset": "synthetic", "category": "...",
     "subcategory": "...",
     "behaviors": [{"k": 1, "text": "...", "label": "proper",
                    "facets": ["safety"], "votes": ["proper", "proper", "improper"]}]}
    {"id": "syn-0001-sg", "task": "spatial_grounding", "image": "images/syn-0001-sg.png",
     "question": "...", "options": {"A": "...", "B": "...", "C": "...", "D": "..."},
     "answer": ["A", "C"], "votes": [["A", "C"], ["A"], ["A", "C"]], "subset": "real"}

A behavior's ``facets`` may also be a string (``"safety"`` or ``"safety, privacy"``; it
belongs to that behavior only) and its ``votes`` may be ``null`` (no votes for that
behavior: its distribution is the gold label, ``has_votes`` is false).
:func:`write_canonical` writes this form (the construction pipeline uses it).

Items
-----
``roboteq-bj``: one :class:`Item` per scene; ``item_id`` is the scene id; one single-choice
question per behavior with key ``b<k>`` and options ``("proper", "improper")``.
``roboteq-sg``: one item per question with one multiple-select question ``sg`` over
``("A", "B", "C", "D")``. ``Item.votes`` hold the per-annotator distribution when the
data has votes, else the majority (gold) label with probability 1 and ``n = 1``.
``Item.metadata``: ``task``, ``image`` (absolute path string), ``image_rel``, ``role`` /
``question``, ``subset`` (``"unknown"`` when not known), ``category``, ``subcategory``,
``source`` and ``line`` (where the row is), and for judgment ``behaviors``
``{key: {k, text, label, facets, has_votes}}``; for grounding ``answer`` (list),
``options`` ({letter: text}), ``facets`` and ``has_votes``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any, Iterable, Iterator, Sequence

from socialbench.benchmarks.roboteq.validate import (
    LABELS,
    LETTERS,
    MAX_BEHAVIOR_NUMBER,
    image_problem,
    label_file_problem,
    loads_json,
    normalise_label,
    normalise_subset,
    parse_facets,
    parse_judgment_votes,
    parse_label_lines,
    parse_letters,
    parse_list_field,
    resolve_image,
    surrogate_fields,
)
from socialbench.errors import DataError, Problem, UsageError
from socialbench.types import HumanVotes, Item, Question, ordered_subsets

__all__ = [
    "HUB_ID",
    "CANONICAL_FILE",
    "TASK_BJ",
    "TASK_SG",
    "Behavior",
    "JudgmentScene",
    "GroundingQuestion",
    "Scan",
    "RobotEQDataset",
    "resolve_data",
    "find_label_files",
    "scan_roboteq",
    "load_roboteq",
    "judgment_item",
    "grounding_item",
    "canonical_row",
    "write_canonical",
]

HUB_ID = "Tongji-Emotion/Robot-EQ"
CANONICAL_FILE = "roboteq.jsonl"
METADATA_NAMES = ("metadata.jsonl", "metadata.csv")
TASK_BJ = "behavior_judgment"
TASK_SG = "spatial_grounding"
_TASKS = {
    "behavior_judgment": TASK_BJ, "behavior-judgment": TASK_BJ, "judgment": TASK_BJ, "bj": TASK_BJ,
    "action_judgment": TASK_BJ, "action-judgment": TASK_BJ,
    "spatial_grounding": TASK_SG, "spatial-grounding": TASK_SG, "grounding": TASK_SG, "sg": TASK_SG,
}
_ID_FIELDS = ("id", "scene_id", "question_id", "sample_id")
_ANSWER_FIELDS = ("answer", "answers", "gt_labels", "gt_answer", "gt")


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Behavior:
    """One candidate behavior of a scene."""

    k: int
    text: str
    label: str  # "proper" | "improper" (majority label)
    facets: tuple[str, ...] = ()
    votes: tuple[tuple[str, int], ...] | None = None  # per-annotator counts, label order


@dataclass(frozen=True)
class JudgmentScene:
    scene_id: str
    image: str  # relative to the dataset root, POSIX form
    question: str
    behaviors: tuple[Behavior, ...]
    subset: str | None = None
    category: str | None = None
    subcategory: str | None = None
    source: str = ""
    line: int | None = None


@dataclass(frozen=True)
class GroundingQuestion:
    question_id: str
    image: str
    question: str
    answer: tuple[str, ...]  # gold letters in A-D order
    options: tuple[tuple[str, str], ...] = ()  # (letter, description)
    votes: tuple[tuple[str, ...], ...] | None = None  # one selection per annotator
    subset: str | None = None
    category: str | None = None
    subcategory: str | None = None
    facets: tuple[str, ...] = ()
    source: str = ""
    line: int | None = None


@dataclass
class Scan:
    """Everything parsed from a dataset folder, with the problems found (tagged by task)."""

    root: Path
    files: list[Path]
    scenes: list[JudgmentScene] = field(default_factory=list)
    questions: list[GroundingQuestion] = field(default_factory=list)
    problems: list[tuple[str | None, Problem]] = field(default_factory=list)
    #: (task, file, line, image path relative to the root) of every row whose image path
    #: resolved inside the folder, valid or not (``validate`` checks them all)
    images: list[tuple[str, str, int, str]] = field(default_factory=list)

    def problems_for(self, task: str) -> list[Problem]:
        """Problems of rows of ``task`` plus those whose task is unknown."""
        return [p for t, p in self.problems if t is None or t == task]


@dataclass(frozen=True)
class RobotEQDataset:
    root: Path
    items: tuple[Item, ...]
    task: str
    files: tuple[Path, ...] = ()

    def __len__(self) -> int:
        return len(self.items)

    @property
    def n_questions(self) -> int:
        return sum(len(i.questions) for i in self.items)


# --------------------------------------------------------------------------- source resolution


def resolve_data(data: Path | str) -> Path:
    """A local dataset folder for ``data``: the folder itself, or a hub snapshot.

    ``Tongji-Emotion/Robot-EQ`` (when no such local folder exists) and ``hf://OWNER/NAME``
    are downloaded (or taken from the local cache) with ``huggingface_hub``. Raises
    :class:`UsageError` with the fix when the folder does not exist, ``huggingface_hub``
    is not installed, or the download fails (for instance offline without a cached copy).
    """
    path = Path(data)
    if path.exists():
        if not path.is_dir():
            raise UsageError(f"{path} is a file; --data needs the RobotEQ dataset folder")
        return path
    text = str(data)
    repo: str | None = None
    if text.startswith("hf:"):
        repo = text[3:].lstrip("/")
    elif text == HUB_ID or re.fullmatch(r"[A-Za-z0-9_.-]+/Robot-EQ[A-Za-z0-9_.-]*", text):
        repo = text
    if repo is None:
        raise UsageError(f"dataset folder {path} does not exist; pass the RobotEQ folder or the hub id {HUB_ID}")
    try:
        from huggingface_hub import snapshot_download  # optional extra: socialbench[hub]
    except ImportError as exc:
        raise UsageError(
            f"loading {repo} from the Hugging Face hub needs huggingface_hub: pip install 'socialbench[hub]', "
            "or download the dataset yourself and pass its folder with --data"
        ) from exc
    try:
        local = snapshot_download(repo_id=repo, repo_type="dataset")
    except Exception as exc:  # network errors, offline mode, gated repo, ...
        raise UsageError(
            f"could not fetch {repo} from the Hugging Face hub ({type(exc).__name__}: {exc}). "
            f"If this machine is offline, download it elsewhere with "
            f"`huggingface-cli download {repo} --repo-type dataset --local-dir DIR` and pass --data DIR"
        ) from exc
    return Path(local)


def find_label_files(root: Path) -> list[Path]:
    """The label files of a dataset: ``roboteq.jsonl`` if present, else every
    ``metadata.jsonl`` / ``metadata.csv`` up to three folders deep, sorted."""
    canonical = root / CANONICAL_FILE
    if canonical.is_file():
        return [canonical]
    found = [
        p
        for name in METADATA_NAMES
        for p in root.rglob(name)
        if p.is_file() and len(p.relative_to(root).parts) <= 4
    ]
    return sorted(found)


def _unreadable_label_files(root: Path) -> list[Path]:
    """Entries named like a label file that :func:`find_label_files` skips because they are
    not regular files (a FIFO, a device, a folder): reading a FIFO would block forever."""
    canonical = root / CANONICAL_FILE
    if canonical.is_symlink() or canonical.exists():
        return [] if canonical.is_file() else [canonical]
    return sorted(
        p
        for name in METADATA_NAMES
        for p in root.rglob(name)
        if not p.is_file() and len(p.relative_to(root).parts) <= 4
    )


# --------------------------------------------------------------------------- reading rows


@dataclass(frozen=True)
class _Row:
    data: dict[str, Any]
    file: Path
    line: int


def _read_jsonl(path: Path) -> Iterator[_Row | Problem]:
    with open(path, "rb") as fh:
        for i, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield Problem(str(path), "encoding", f"line is not valid UTF-8 (byte {exc.start + 1}: {raw[exc.start:exc.start + 1]!r})", "save the file as UTF-8", i)
                continue
            if i == 1:
                line = line.removeprefix("\ufeff")
            if not line.strip():
                continue
            obj, msg = loads_json(line)
            if msg is not None:
                yield Problem(str(path), "json", msg, "fix or remove the line", i)
                continue
            if not isinstance(obj, dict):
                yield Problem(str(path), "json", "a row must be a JSON object", "write one object per line", i)
                continue
            yield _Row(obj, path, i)


def _read_csv(path: Path) -> Iterator[_Row | Problem]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        yield Problem(str(path), "encoding", f"the file is not valid UTF-8 (byte {exc.start + 1}: {data[exc.start:exc.start + 1]!r})", "save the file as UTF-8", line)
        return
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        yield from _csv_rows(path, reader)
    except csv.Error as exc:
        yield Problem(str(path), "csv", f"unreadable CSV ({exc})", "quote fields correctly and keep each field under 131,072 characters", reader.line_num)


def _csv_rows(path: Path, reader: Any) -> Iterator[_Row | Problem]:
    try:
        header = next(reader)
    except StopIteration:
        return
    start = reader.line_num + 1
    for values in reader:
        line = start
        start = reader.line_num + 1
        if not any(v.strip() for v in values):
            continue
        if len(values) != len(header):
            yield Problem(str(path), "csv", f"row has {len(values)} fields but the header has {len(header)}", "quote fields that contain commas or newlines", line)
            continue
        yield _Row({h: (v if v != "" else None) for h, v in zip(header, values)}, path, line)


def _rows(path: Path) -> Iterator[_Row | Problem]:
    return _read_csv(path) if path.suffix == ".csv" else _read_jsonl(path)


# --------------------------------------------------------------------------- row parsing


def _row_task(row: dict[str, Any], folder_hint: str | None) -> str | None:
    task = row.get("task")
    if isinstance(task, str) and task.strip().casefold() in _TASKS:
        return _TASKS[task.strip().casefold()]
    # CSV rows keep every column (empty ones as None): a column counts only when filled
    if _filled(row.get("labels")) or _filled(row.get("behaviors")):
        return TASK_BJ
    for name in _ANSWER_FIELDS:
        raw = row.get(name)
        if raw in (None, "", []):
            continue
        values = parse_list_field(raw)
        if values and all(normalise_label(v) is not None for v in values):
            return TASK_BJ
        if parse_letters(raw)[1] is None:
            return TASK_SG
    if any(row.get(name) not in (None, "", []) for name in ("answer", "answers", "gt_answer", "gt")):
        return TASK_SG  # a grounding row with a malformed answer: report it as such
    return folder_hint


def _filled(value: Any) -> bool:
    """True unless ``value`` is absent: None, blank text or an empty list / object."""
    if value is None:
        return False
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, (list, tuple, dict)):
        return bool(value)
    return True


def _folder_hint(meta_dir: Path) -> str | None:
    for part in reversed(meta_dir.parts):
        p = part.casefold()
        if "ground" in p:
            return TASK_SG
        if "judg" in p or "behavio" in p or "action" in p:
            return TASK_BJ
    return None


def _infer_subset(*paths: str) -> str | None:
    for path in paths:
        for part in Path(path).parts:
            guess = normalise_subset(part)
            if guess is not None:
                return guess
    return None


def _image_value(row: dict[str, Any], canonical: bool) -> Any:
    if canonical:
        return row.get("image")
    return row.get("file_name") or row.get("image") or row.get("image_path")


def _opt_str(row: dict[str, Any], key: str) -> str | None:
    v = row.get(key)
    return v.strip() if isinstance(v, str) and v.strip() else None


def _text_key(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().rstrip(".").casefold()


def _behaviors_published(row: dict[str, Any], report: Any) -> list[tuple[int, str, str]] | None:
    """``(k, label, text)`` from ``labels`` and/or ``option_texts`` + ``gt_labels``."""
    labels_text = row.get("labels")
    option_texts = parse_list_field(row.get("option_texts"))
    gt_raw = parse_list_field(row.get("gt_labels"))
    ok = True
    entries: list[tuple[int, str, str]] | None = None
    if labels_text is not None:
        if not isinstance(labels_text, str):
            report("labels", "labels must be a string of '[k] proper: ...' lines", "write one line per behavior")
            ok = False
        else:
            entries, bad = parse_label_lines(labels_text)
            for i, line in bad:
                report(
                    "labels",
                    f"line {i} of labels is not '[k] proper: <behavior>' or '[k] improper: <behavior>': {line!r}",
                    "fix the line",
                )
            ok = ok and not bad
    pairs: list[tuple[str, str]] | None = None
    if option_texts is not None or gt_raw is not None:
        if option_texts is None:
            report("option_texts", "gt_labels is given without option_texts", "add the behaviors in option_texts")
            ok = False
        elif gt_raw is None:
            report("gt_labels", "option_texts is given without gt_labels", "add one proper/improper label per behavior")
            ok = False
        elif len(option_texts) != len(gt_raw):
            report(
                "option_texts",
                f"option/label count mismatch: {len(option_texts)} option_texts but {len(gt_raw)} gt_labels",
                "give one gt_label per option text",
            )
            ok = False
        else:
            pairs = []
            for i, (t, g) in enumerate(zip(option_texts, gt_raw), start=1):
                lab = normalise_label(g)
                if lab is None:
                    report("gt_labels", f"gt_labels[{i}] is {g!r}, not proper or improper", "use proper or improper")
                    ok = False
                if not isinstance(t, str) or not t.strip():
                    report("option_texts", f"option_texts[{i}] is empty or not text", "give the behavior text")
                    ok = False
                pairs.append((lab or "", t if isinstance(t, str) else ""))
    if not ok:
        return None
    if entries is not None and pairs is not None:
        if len(entries) != len(pairs):
            report(
                "labels",
                f"option/label count mismatch: labels has {len(entries)} lines but option_texts has {len(pairs)} entries",
                "make labels, option_texts and gt_labels list the same behaviors",
            )
            return None
        for i, ((k, lab, text), (glab, otext)) in enumerate(zip(entries, pairs), start=1):
            if lab != glab:
                report("gt_labels", f"behavior [{k}] is {lab} in labels but {glab} in gt_labels", "make the two agree")
                ok = False
            if _text_key(text) != _text_key(otext):
                report("option_texts", f"behavior [{k}] text differs between labels and option_texts[{i}]", "make the two agree")
                ok = False
        return entries if ok else None
    if entries is not None:
        return entries
    if pairs is not None:
        return [(i, lab, text.strip()) for i, (lab, text) in enumerate(pairs, start=1)]
    report("labels", "no behaviors: the row has neither labels nor option_texts/gt_labels", "add the candidate behaviors")
    return None


def _behaviors_canonical(row: dict[str, Any], report: Any) -> tuple[list[tuple[int, str, str]], list[Any], list[Any]] | None:
    items = row.get("behaviors")
    if not isinstance(items, list) or not items:
        report("behaviors", "behaviors must be a non-empty list", "list the candidate behaviors")
        return None
    out: list[tuple[int, str, str]] = []
    facets: list[Any] = []
    votes: list[Any] = []
    ok = True
    for i, b in enumerate(items, start=1):
        if not isinstance(b, dict):
            report("behaviors", f"behaviors[{i}] is not an object", "write {\"k\", \"text\", \"label\"}")
            ok = False
            continue
        k = b.get("k", i)
        lab = normalise_label(b.get("label"))
        text = b.get("text")
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= MAX_BEHAVIOR_NUMBER:
            report("behaviors", f"behaviors[{i}].k is {k!r}, not an integer from 0 to {MAX_BEHAVIOR_NUMBER}", "number the behaviors")
            ok = False
        if lab is None:
            report("behaviors", f"behaviors[{i}].label is {b.get('label')!r}, not proper or improper", "use proper or improper")
            ok = False
        if not isinstance(text, str) or not text.strip():
            report("behaviors", f"behaviors[{i}].text is missing", "give the behavior text")
            ok = False
        out.append((k if isinstance(k, int) else i, lab or "", text.strip() if isinstance(text, str) else ""))
        facets.append(b.get("facets") if _filled(b.get("facets")) else [])
        votes.append(b.get("votes"))
    return (out, facets, votes) if ok else None


def _behavior_votes(counts: dict[str, int] | None) -> tuple[tuple[str, int], ...] | None:
    """``((label, count), ...)`` in label order, or None for a behavior without votes."""
    if counts is None:
        return None
    return tuple((lab, counts[lab]) for lab in LABELS if counts.get(lab, 0) > 0)


def _judgment_scene(row: _Row, root: Path, canonical: bool, report: Any, meta_rel: str) -> JudgmentScene | None:
    d = row.data
    meta_dir = row.file.parent
    image, err = resolve_image(root, meta_dir, _image_value(d, canonical))
    if err:
        report("image", err, "use a path relative to the dataset folder")
    question = d.get("question")
    if not isinstance(question, str) or not question.strip():
        report("question", "question (the role prompt) is missing", "add the question text")
    if canonical:
        parsed = _behaviors_canonical(d, report)
        entries = parsed[0] if parsed else None
        facets_value: Any = parsed[1] if parsed else None
        votes_value: Any = parsed[2] if parsed else None
        if parsed and all(v is None for v in votes_value):
            votes_value = None
        if parsed and not any(facets_value):
            facets_value = None
        elif parsed:
            # per behavior, keyed by its number: a string such as "safety" (or
            # "safety, privacy") belongs to that behavior alone, not to the whole scene
            facets_value = {str(k): f for (k, _, _), f in zip(parsed[0], facets_value)}
    else:
        entries = _behaviors_published(d, report)
        facets_value = d.get("facets")
        votes_value = d.get("votes")
    if entries is None:
        return None
    ks = [k for k, _, _ in entries]
    dup = sorted(k for k, c in Counter(ks).items() if c > 1)
    if dup:
        report("labels", f"behavior number(s) {dup} appear more than once", "number the behaviors [1], [2], ... without repeats")
        return None
    facets, f_errors = parse_facets(facets_value, ks)
    for msg in f_errors:
        report("facets", msg, "use safety, privacy, proxemics, cooperation, politeness, priority or sensitivity")
    votes, v_errors = parse_judgment_votes(votes_value, ks)
    for msg in v_errors:
        report("votes", msg, "give per-annotator proper/improper labels for every behavior")
    subset_raw = d.get("subset")
    subset = normalise_subset(subset_raw) if subset_raw is not None else None
    if subset_raw is not None and subset is None:
        report("subset", f"subset {subset_raw!r} is neither synthetic nor real", "use synthetic or real")
    if err or f_errors or v_errors or not isinstance(question, str) or not question.strip() or (subset_raw is not None and subset is None):
        return None
    assert image is not None
    if subset is None:
        subset = _infer_subset(image, meta_rel)
    behaviors = tuple(
        Behavior(
            k=k,
            text=text,
            label=lab,
            facets=facets[i],
            votes=_behavior_votes(votes[i] if votes is not None else None),
        )
        for i, (k, lab, text) in enumerate(entries)
    )
    explicit = next((str(d[f]) for f in _ID_FIELDS if d.get(f) not in (None, "")), None)
    return JudgmentScene(
        scene_id=explicit or "",
        image=image,
        question=question.strip(),
        behaviors=behaviors,
        subset=subset,
        category=_opt_str(d, "category"),
        subcategory=_opt_str(d, "subcategory"),
        source=str(row.file),
        line=row.line,
    )


def _grounding_question(row: _Row, root: Path, canonical: bool, report: Any, meta_rel: str) -> GroundingQuestion | None:
    d = row.data
    meta_dir = row.file.parent
    image, err = resolve_image(root, meta_dir, _image_value(d, canonical))
    ok = err is None
    if err:
        report("image", err, "use a path relative to the dataset folder")
    question = d.get("question")
    if not isinstance(question, str) or not question.strip():
        report("question", "question is missing", "add the question text")
        ok = False
    field_name = next((f for f in _ANSWER_FIELDS if d.get(f) not in (None, "", [])), None)
    answer: tuple[str, ...] | None = None
    if field_name is None:
        report("answer", "no answer: expected answer (or gt_labels) listing the correct regions", "add e.g. [\"A\", \"C\"]")
        ok = False
    else:
        answer, a_err = parse_letters(d[field_name])
        if a_err:
            report(field_name, a_err, "list the correct regions among A, B, C, D")
            ok = False
    options: list[tuple[str, str]] = []
    raw_opts = d.get("options") if d.get("options") not in (None, "") else d.get("option_texts")
    if isinstance(raw_opts, str) and raw_opts.strip()[:1] == "{":
        raw_opts, opts_err = loads_json(raw_opts)
        if opts_err is not None:
            report("options", "options is not valid JSON", "give {\"A\": text, ...} or a list of four texts")
            ok = False
    if isinstance(raw_opts, dict):
        for key, text in raw_opts.items():
            letter = str(key).strip().upper()
            if letter not in LETTERS or not isinstance(text, str):
                report("options", f"option {key!r} is not one of A-D with a text", "key the descriptions by A, B, C, D")
                ok = False
                continue
            options.append((letter, text.strip()))
        options.sort(key=lambda p: LETTERS.index(p[0]))
    elif raw_opts is not None:
        texts = parse_list_field(raw_opts) or []
        if len(texts) != len(LETTERS):
            report("option_texts", f"option/label count mismatch: {len(texts)} option texts for the {len(LETTERS)} regions A-D", "give one description per region")
            ok = False
        else:
            options = [(letter, str(t).strip()) for letter, t in zip(LETTERS, texts)]
    votes: list[tuple[str, ...]] | None = None
    raw_votes = d.get("votes")
    if isinstance(raw_votes, str) and raw_votes.strip()[:1] == "[":
        raw_votes = parse_list_field(raw_votes)
    if raw_votes not in (None, "", []):
        if not isinstance(raw_votes, list):
            report("votes", "votes must be a list with one selection per annotator", "e.g. [[\"A\"], [\"A\", \"C\"]]")
            ok = False
        else:
            votes = []
            for i, v in enumerate(raw_votes, start=1):
                sel, v_err = parse_letters(v)
                if v_err:
                    report("votes", f"votes[{i}]: {v_err}", "list each annotator's regions among A-D")
                    ok = False
                else:
                    votes.append(sel or ())
    facets, f_errors = parse_facets(d.get("facets"), [0])
    for msg in f_errors:
        report("facets", msg, "use safety, privacy, proxemics, cooperation, politeness, priority or sensitivity")
        ok = False
    subset_raw = d.get("subset")
    subset = normalise_subset(subset_raw) if subset_raw is not None else None
    if subset_raw is not None and subset is None:
        report("subset", f"subset {subset_raw!r} is neither synthetic nor real", "use synthetic or real")
        ok = False
    if not ok:
        return None
    assert image is not None and answer is not None and isinstance(question, str)
    if subset is None:
        subset = _infer_subset(image, meta_rel)
    explicit = next((str(d[f]) for f in _ID_FIELDS if d.get(f) not in (None, "")), None)
    return GroundingQuestion(
        question_id=explicit or "",
        image=image,
        question=question.strip(),
        answer=answer,
        options=tuple(options),
        votes=None if votes is None else tuple(votes),
        subset=subset,
        category=_opt_str(d, "category"),
        subcategory=_opt_str(d, "subcategory"),
        facets=facets[0],
        source=str(row.file),
        line=row.line,
    )


def _assign_ids(records: list[Any], attr: str, task: str, scan: Scan) -> list[Any]:
    """Explicit ids must be unique; a derived id is the image path without its suffix,
    with ``#j`` (j = 1, 2, ...) appended when several rows share an image."""
    explicit = Counter(getattr(r, attr) for r in records if getattr(r, attr))
    for r in records:
        rid = getattr(r, attr)
        if rid and explicit[rid] > 1:
            scan.problems.append((task, Problem(r.source, "id", f"id {rid!r} is used by {explicit[rid]} rows", "give every row its own id", r.line)))

    def stem(r: Any) -> str:
        return PurePosixPath(r.image).with_suffix("").as_posix()

    shared = Counter(stem(r) for r in records if not getattr(r, attr))
    seen: Counter[str] = Counter()
    out = []
    for r in records:
        if getattr(r, attr):
            out.append(r)
            continue
        base = stem(r)
        seen[base] += 1
        rid = base if shared[base] == 1 else f"{base}#{seen[base]}"
        if rid in explicit:
            rid = f"{rid}@{r.line}"
        out.append(replace(r, **{attr: rid}))
    return out


def scan_roboteq(root: Path) -> Scan:
    """Read every label file of ``root``; collect records and all problems found."""
    root = Path(root)
    files = find_label_files(root)
    scan = Scan(root=root, files=files)
    for path in _unreadable_label_files(root):
        hint = None if path.name == CANONICAL_FILE else _folder_hint(Path(path.parent.relative_to(root).as_posix()))
        scan.problems.append((hint, Problem(
            str(path), "", f"cannot read the label file: {label_file_problem(path, root) or 'not a regular file'}",
            "replace it with the regular file of the release",
        )))
    if not files:
        scan.problems.append((None, Problem(
            str(root), "", f"no {CANONICAL_FILE}, metadata.jsonl or metadata.csv found",
            "pass the folder of the RobotEQ release (see docs/roboteq-format.md)",
        )))
        return scan
    for path in files:
        canonical = path.name == CANONICAL_FILE
        meta_rel = path.parent.relative_to(root).as_posix()
        hint = None if canonical else _folder_hint(Path(meta_rel))
        unusable = label_file_problem(path, root)
        if unusable is not None:
            scan.problems.append((hint, Problem(str(path), "", f"cannot read the label file: {unusable}", "replace it with the regular file of the release")))
            continue
        n_rows = 0
        for row in _rows(path):
            n_rows += 1
            if isinstance(row, Problem):
                scan.problems.append((None, row))
                continue
            task = _row_task(row.data, hint)
            if task is None:
                scan.problems.append((None, Problem(
                    str(path), "task", "cannot tell whether the row is behavior judgment or spatial grounding",
                    "add task: behavior_judgment or spatial_grounding", row.line,
                )))
                continue
            found: list[tuple[str, str, str]] = []

            def report(field_name: str, message: str, fix: str = "", _found: list = found) -> None:
                _found.append((field_name, message, fix))

            for name in surrogate_fields(row.data):
                report(name, "text holds a lone surrogate (an unpaired \\ud800-\\udfff escape) that cannot be written as UTF-8", "remove the escape or write the full character")
            for name in _ID_FIELDS:
                value = row.data.get(name)
                if value not in (None, "") and (not isinstance(value, (str, int)) or isinstance(value, bool)):
                    report(name, f"{name} must be a string or an integer, not {type(value).__name__}", "give every row a text id")

            parse = _judgment_scene if task == TASK_BJ else _grounding_question
            rec = parse(row, root, canonical, report, meta_rel)
            image_rel, _ = resolve_image(root, path.parent, _image_value(row.data, canonical))
            if image_rel is not None:
                scan.images.append((task, str(path), row.line, image_rel))
            for field_name, message, fix in found:
                scan.problems.append((task, Problem(str(path), field_name, message, fix, row.line)))
            if rec is not None and not found:
                (scan.scenes if task == TASK_BJ else scan.questions).append(rec)
        if n_rows == 0:
            scan.problems.append((hint, Problem(str(path), "", "the label file has no rows", "restore the file from the release or remove it")))
    scan.scenes = _assign_ids(scan.scenes, "scene_id", TASK_BJ, scan)
    scan.questions = _assign_ids(scan.questions, "question_id", TASK_SG, scan)
    return scan


# --------------------------------------------------------------------------- items


def _judgment_votes(b: Behavior) -> HumanVotes:
    if b.votes:
        n = sum(c for _, c in b.votes)
        return HumanVotes(tuple(lab for lab, _ in b.votes), tuple(c / n for _, c in b.votes), n)
    return HumanVotes((b.label,), (1.0,), 1)


def judgment_item(scene: JudgmentScene, root: Path) -> Item:
    """The :class:`Item` of one judgment scene (one question ``b<k>`` per behavior)."""
    questions = tuple(
        Question(
            key=f"b{b.k}",
            base_key="behavior",
            category="behavior judgment",
            kind="single",
            text=b.text,
            options=LABELS,
        )
        for b in scene.behaviors
    )
    return Item(
        item_id=scene.scene_id,
        questions=questions,
        votes={f"b{b.k}": _judgment_votes(b) for b in scene.behaviors},
        metadata={
            "task": TASK_BJ,
            "image": str(Path(root) / scene.image),
            "image_rel": scene.image,
            "role": scene.question,
            "subset": scene.subset or "unknown",
            "category": scene.category,
            "subcategory": scene.subcategory,
            "behaviors": {
                f"b{b.k}": {"k": b.k, "text": b.text, "label": b.label, "facets": list(b.facets), "has_votes": b.votes is not None}
                for b in scene.behaviors
            },
            "source": scene.source,
            "line": scene.line,
        },
    )


def _grounding_votes(q: GroundingQuestion) -> HumanVotes:
    if q.votes:
        counts = Counter(q.votes)
        order = [s for s in ordered_subsets(LETTERS) if s in counts]
        n = len(q.votes)
        return HumanVotes(tuple(order), tuple(counts[s] / n for s in order), n)
    return HumanVotes((q.answer,), (1.0,), 1)


def grounding_item(q: GroundingQuestion, root: Path) -> Item:
    """The :class:`Item` of one grounding question (one multiple-select question ``sg``)."""
    question = Question(
        key="sg", base_key="sg", category="spatial grounding", kind="multi", text=q.question, options=LETTERS
    )
    return Item(
        item_id=q.question_id,
        questions=(question,),
        votes={"sg": _grounding_votes(q)},
        metadata={
            "task": TASK_SG,
            "image": str(Path(root) / q.image),
            "image_rel": q.image,
            "question": q.question,
            "answer": list(q.answer),
            "options": dict(q.options),
            "subset": q.subset or "unknown",
            "category": q.category,
            "subcategory": q.subcategory,
            "facets": list(q.facets),
            "has_votes": q.votes is not None,
            "source": q.source,
            "line": q.line,
        },
    )


def load_roboteq(data: Path | str, task: str, *, require_images: bool, limit: int | None = None) -> RobotEQDataset:
    """Load ``task`` (``behavior_judgment`` | ``spatial_grounding``) from ``data``.

    Raises :class:`DataError` listing every problem of the task's rows (and missing image
    files when ``require_images``), :class:`UsageError` for a bad source.
    """
    if task not in (TASK_BJ, TASK_SG):
        raise ValueError(f"unknown RobotEQ task {task!r}")
    root = resolve_data(data)
    scan = scan_roboteq(root)
    problems = scan.problems_for(task)
    records: Sequence[JudgmentScene | GroundingQuestion] = scan.scenes if task == TASK_BJ else scan.questions
    if require_images:
        for rec in records:
            msg = image_problem(root / rec.image, decode=False)
            if msg:
                problems.append(Problem(rec.source, "image", f"{msg}: {rec.image}", "add the image or fix the path", rec.line))
    if problems:
        raise DataError(problems)
    if not records:
        what = "behavior-judgment" if task == TASK_BJ else "spatial-grounding"
        raise DataError.single(root, "", f"no {what} rows found", "check that the folder holds the RobotEQ release")
    if limit is not None:
        records = records[:limit]
    if task == TASK_BJ:
        items = tuple(judgment_item(r, root) for r in records)  # type: ignore[arg-type]
    else:
        items = tuple(grounding_item(r, root) for r in records)  # type: ignore[arg-type]
    return RobotEQDataset(root=root, items=items, task=task, files=tuple(scan.files))


# --------------------------------------------------------------------------- canonical form


def canonical_row(rec: JudgmentScene | GroundingQuestion) -> dict[str, Any]:
    """The canonical JSONL object of one record (see the module docstring)."""
    common = {
        "subset": rec.subset,
        "category": rec.category,
        "subcategory": rec.subcategory,
    }
    if isinstance(rec, JudgmentScene):
        return {
            "id": rec.scene_id,
            "task": TASK_BJ,
            "image": rec.image,
            "question": rec.question,
            **common,
            "behaviors": [
                {
                    "k": b.k,
                    "text": b.text,
                    "label": b.label,
                    "facets": list(b.facets),
                    "votes": None if b.votes is None else dict(b.votes),
                }
                for b in rec.behaviors
            ],
        }
    return {
        "id": rec.question_id,
        "task": TASK_SG,
        "image": rec.image,
        "question": rec.question,
        "options": dict(rec.options),
        "answer": list(rec.answer),
        "votes": None if rec.votes is None else [list(v) for v in rec.votes],
        "facets": list(rec.facets),
        **common,
    }


def write_canonical(path: Path, records: Iterable[JudgmentScene | GroundingQuestion]) -> int:
    """Write records as canonical JSONL (UTF-8, one object per line); returns the count.

    Image paths are written as stored (relative to the dataset root), so write the file at
    the root as ``roboteq.jsonl``.
    """
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(canonical_row(rec), ensure_ascii=False) + "\n")
            n += 1
    return n
