"""One RobotEQ label-file row -> a :class:`~socialbench.benchmarks.roboteq.schema.GroundingQuestion`
(spatial grounding): the answer regions, the region descriptions, the annotators'
selections and the facets, in the published layout or the canonical JSONL form. Every
problem of the row is reported; a row with problems gives None."""

from __future__ import annotations

from pathlib import Path

from socialbench.benchmarks.roboteq.annotations import parse_facets
from socialbench.benchmarks.roboteq.fields import loads_json, parse_letters, parse_list_field
from socialbench.benchmarks.roboteq.label_files import Row
from socialbench.benchmarks.roboteq.paths import resolve_image
from socialbench.benchmarks.roboteq.rows import ANSWER_FIELDS, Counted, RowReport, image_value, infer_subset, opt_str
from socialbench.benchmarks.roboteq.schema import ID_FIELDS, LETTERS, GroundingQuestion, normalise_subset

__all__ = ["grounding_question"]


def grounding_question(
    row: Row, root: Path, canonical: bool, report: RowReport, meta_rel: str
) -> GroundingQuestion | None:
    """The spatial-grounding question of a row (id left empty when the row gives none), or None."""
    d = row.data
    rep = Counted(report)
    image, err = resolve_image(root, row.file.parent, image_value(d, canonical))
    if err:
        rep("image", err, "use a path relative to the dataset folder")
    question = d.get("question")
    if not isinstance(question, str) or not question.strip():
        rep("question", "question is missing", "add the question text")
    field_name = next((f for f in ANSWER_FIELDS if d.get(f) not in (None, "", [])), None)
    answer: tuple[str, ...] | None = None
    if field_name is None:
        rep("answer", "no answer: expected answer (or gt_labels) listing the correct regions", 'add e.g. ["A", "C"]')
    else:
        answer, a_err = parse_letters(d[field_name])
        if a_err:
            rep(field_name, a_err, "list the correct regions among A, B, C, D")
    options: list[tuple[str, str]] = []
    raw_opts = d.get("options") if d.get("options") not in (None, "") else d.get("option_texts")
    if isinstance(raw_opts, str) and raw_opts.strip()[:1] == "{":
        raw_opts, opts_err = loads_json(raw_opts)
        if opts_err is not None:
            rep("options", "options is not valid JSON", 'give {"A": text, ...} or a list of four texts')
    if isinstance(raw_opts, dict):
        for key, text in raw_opts.items():
            letter = str(key).strip().upper()
            if letter not in LETTERS or not isinstance(text, str):
                rep("options", f"option {key!r} is not one of A-D with a text", "key the descriptions by A, B, C, D")
                continue
            options.append((letter, text.strip()))
        options.sort(key=lambda p: LETTERS.index(p[0]))
    elif raw_opts is not None:
        texts = parse_list_field(raw_opts) or []
        if len(texts) != len(LETTERS):
            rep(
                "option_texts",
                f"option/label count mismatch: {len(texts)} option texts for the {len(LETTERS)} regions A-D",
                "give one description per region",
            )
        else:
            options = [(letter, str(t).strip()) for letter, t in zip(LETTERS, texts)]
    votes: list[tuple[str, ...]] | None = None
    raw_votes = d.get("votes")
    if isinstance(raw_votes, str) and raw_votes.strip()[:1] == "[":
        raw_votes = parse_list_field(raw_votes)
    if raw_votes not in (None, "", []):
        if not isinstance(raw_votes, list):
            rep("votes", "votes must be a list with one selection per annotator", 'e.g. [["A"], ["A", "C"]]')
        else:
            votes = []
            for i, v in enumerate(raw_votes, start=1):
                sel, v_err = parse_letters(v)
                if v_err:
                    rep("votes", f"votes[{i}]: {v_err}", "list each annotator's regions among A-D")
                else:
                    votes.append(sel or ())
    facets, f_errors = parse_facets(d.get("facets"), [0])
    for msg in f_errors:
        rep("facets", msg, "use safety, privacy, proxemics, cooperation, politeness, priority or sensitivity")
    subset_raw = d.get("subset")
    subset = normalise_subset(subset_raw) if subset_raw is not None else None
    if subset_raw is not None and subset is None:
        rep("subset", f"subset {subset_raw!r} is neither synthetic nor real", "use synthetic or real")
    if rep.n:
        return None
    assert image is not None and answer is not None and isinstance(question, str)
    if subset is None:
        subset = infer_subset(image, meta_rel)
    explicit = next((str(d[f]) for f in ID_FIELDS if d.get(f) not in (None, "")), None)
    return GroundingQuestion(
        question_id=explicit or "",
        image=image,
        question=question.strip(),
        answer=answer,
        options=tuple(options),
        votes=None if votes is None else tuple(votes),
        subset=subset,
        category=opt_str(d, "category"),
        subcategory=opt_str(d, "subcategory"),
        facets=facets[0],
        source=str(row.file),
        line=row.line,
    )
