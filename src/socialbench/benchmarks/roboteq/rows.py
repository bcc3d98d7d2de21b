"""One RobotEQ label-file row -> a :class:`~socialbench.benchmarks.roboteq.schema.JudgmentScene`
or :class:`~socialbench.benchmarks.roboteq.schema.GroundingQuestion`, in the published layout or
the canonical JSONL form (see :mod:`socialbench.benchmarks.roboteq.loader`). Every problem of
the row is reported through ``report(field, message, fix)``; a row with problems gives None."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from socialbench.benchmarks.roboteq.fields import (
    loads_json,
    parse_facets,
    parse_judgment_votes,
    parse_label_lines,
    parse_letters,
    parse_list_field,
    resolve_image,
)
from socialbench.benchmarks.roboteq.label_files import Row
from socialbench.benchmarks.roboteq.schema import (
    ID_FIELDS,
    LABELS,
    LETTERS,
    MAX_BEHAVIOR_NUMBER,
    TASK_BJ,
    TASK_SG,
    Behavior,
    GroundingQuestion,
    JudgmentScene,
    normalise_label,
    normalise_subset,
)

__all__ = ["row_task", "task_of_folder", "image_value", "judgment_scene", "grounding_question"]

_TASKS = {
    "behavior_judgment": TASK_BJ,
    "behavior-judgment": TASK_BJ,
    "judgment": TASK_BJ,
    "bj": TASK_BJ,
    "action_judgment": TASK_BJ,
    "action-judgment": TASK_BJ,
    "spatial_grounding": TASK_SG,
    "spatial-grounding": TASK_SG,
    "grounding": TASK_SG,
    "sg": TASK_SG,
}
_ANSWER_FIELDS = ("answer", "answers", "gt_labels", "gt_answer", "gt")


def row_task(row: dict[str, Any], folder_hint: str | None) -> str | None:
    """The task of a row: its ``task`` field, else what its fields look like, else ``folder_hint``."""
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


def task_of_folder(meta_dir: Path) -> str | None:
    """The task a metadata folder's name suggests (``behavior_judgment/``, ``grounding/``...), or None."""
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


def image_value(row: dict[str, Any], canonical: bool) -> Any:
    """The raw image path field of a row."""
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
                report(
                    "option_texts",
                    f"behavior [{k}] text differs between labels and option_texts[{i}]",
                    "make the two agree",
                )
                ok = False
        return entries if ok else None
    if entries is not None:
        return entries
    if pairs is not None:
        return [(i, lab, text.strip()) for i, (lab, text) in enumerate(pairs, start=1)]
    report(
        "labels", "no behaviors: the row has neither labels nor option_texts/gt_labels", "add the candidate behaviors"
    )
    return None


def _behaviors_canonical(
    row: dict[str, Any], report: Any
) -> tuple[list[tuple[int, str, str]], list[Any], list[Any], list[Any]] | None:
    """``(k, label, text)`` per behavior and, per behavior, its facets, votes and
    ``votes_no_image`` as written; None (reported) for a malformed list."""
    items = row.get("behaviors")
    if not isinstance(items, list) or not items:
        report("behaviors", "behaviors must be a non-empty list", "list the candidate behaviors")
        return None
    out: list[tuple[int, str, str]] = []
    facets: list[Any] = []
    votes: list[Any] = []
    no_image: list[Any] = []
    ok = True
    for i, b in enumerate(items, start=1):
        if not isinstance(b, dict):
            report("behaviors", f"behaviors[{i}] is not an object", 'write {"k", "text", "label"}')
            ok = False
            continue
        k = b.get("k", i)
        lab = normalise_label(b.get("label"))
        text = b.get("text")
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= MAX_BEHAVIOR_NUMBER:
            report(
                "behaviors",
                f"behaviors[{i}].k is {k!r}, not an integer from 0 to {MAX_BEHAVIOR_NUMBER}",
                "number the behaviors",
            )
            ok = False
        if lab is None:
            report(
                "behaviors",
                f"behaviors[{i}].label is {b.get('label')!r}, not proper or improper",
                "use proper or improper",
            )
            ok = False
        if not isinstance(text, str) or not text.strip():
            report("behaviors", f"behaviors[{i}].text is missing", "give the behavior text")
            ok = False
        out.append((k if isinstance(k, int) else i, lab or "", text.strip() if isinstance(text, str) else ""))
        facets.append(b.get("facets") if _filled(b.get("facets")) else [])
        votes.append(b.get("votes"))
        no_image.append(b.get("votes_no_image"))
    return (out, facets, votes, no_image) if ok else None


def _behavior_votes(counts: dict[str, int] | None) -> tuple[tuple[str, int], ...] | None:
    """``((label, count), ...)`` in label order, or None for a behavior without votes."""
    if counts is None:
        return None
    return tuple((lab, counts[lab]) for lab in LABELS if counts.get(lab, 0) > 0)


def judgment_scene(row: Row, root: Path, canonical: bool, report: Any, meta_rel: str) -> JudgmentScene | None:
    """The behavior-judgment scene of a row (id left empty when the row gives none), or None."""
    d = row.data
    meta_dir = row.file.parent
    image, err = resolve_image(root, meta_dir, image_value(d, canonical))
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
        no_image_value: Any = parsed[3] if parsed and any(v is not None for v in parsed[3]) else None
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
        no_image_value = None
    if entries is None:
        return None
    ks = [k for k, _, _ in entries]
    dup = sorted(k for k, c in Counter(ks).items() if c > 1)
    if dup:
        report(
            "labels",
            f"behavior number(s) {dup} appear more than once",
            "number the behaviors [1], [2], ... without repeats",
        )
        return None
    facets, f_errors = parse_facets(facets_value, ks)
    for msg in f_errors:
        report("facets", msg, "use safety, privacy, proxemics, cooperation, politeness, priority or sensitivity")
    votes, v_errors = parse_judgment_votes(votes_value, ks)
    for msg in v_errors:
        report("votes", msg, "give per-annotator proper/improper labels for every behavior")
    no_image, n_errors = parse_judgment_votes(no_image_value, ks)
    for msg in n_errors:
        report(
            "votes_no_image",
            msg,
            "give the without-image annotators' proper/improper labels, or null for a behavior not annotated so",
        )
    subset_raw = d.get("subset")
    subset = normalise_subset(subset_raw) if subset_raw is not None else None
    if subset_raw is not None and subset is None:
        report("subset", f"subset {subset_raw!r} is neither synthetic nor real", "use synthetic or real")
    if (
        err
        or f_errors
        or v_errors
        or n_errors
        or not isinstance(question, str)
        or not question.strip()
        or (subset_raw is not None and subset is None)
    ):
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
            votes_no_image=_behavior_votes(no_image[i] if no_image is not None else None),
        )
        for i, (k, lab, text) in enumerate(entries)
    )
    explicit = next((str(d[f]) for f in ID_FIELDS if d.get(f) not in (None, "")), None)
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


def grounding_question(row: Row, root: Path, canonical: bool, report: Any, meta_rel: str) -> GroundingQuestion | None:
    """The spatial-grounding question of a row (id left empty when the row gives none), or None."""
    d = row.data
    meta_dir = row.file.parent
    image, err = resolve_image(root, meta_dir, image_value(d, canonical))
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
        report("answer", "no answer: expected answer (or gt_labels) listing the correct regions", 'add e.g. ["A", "C"]')
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
            report("options", "options is not valid JSON", 'give {"A": text, ...} or a list of four texts')
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
            report(
                "option_texts",
                f"option/label count mismatch: {len(texts)} option texts for the {len(LETTERS)} regions A-D",
                "give one description per region",
            )
            ok = False
        else:
            options = [(letter, str(t).strip()) for letter, t in zip(LETTERS, texts)]
    votes: list[tuple[str, ...]] | None = None
    raw_votes = d.get("votes")
    if isinstance(raw_votes, str) and raw_votes.strip()[:1] == "[":
        raw_votes = parse_list_field(raw_votes)
    if raw_votes not in (None, "", []):
        if not isinstance(raw_votes, list):
            report("votes", "votes must be a list with one selection per annotator", 'e.g. [["A"], ["A", "C"]]')
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
    explicit = next((str(d[f]) for f in ID_FIELDS if d.get(f) not in (None, "")), None)
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
