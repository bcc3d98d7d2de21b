"""One RobotEQ label-file row -> a :class:`~socialbench.benchmarks.roboteq.schema.JudgmentScene`
(behavior judgment): its behaviors (:mod:`~socialbench.benchmarks.roboteq.behavior_lists`),
facets and per-annotator votes, in the published layout or the canonical JSONL form. Every
problem of the row is reported; a row with problems gives None."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from socialbench.benchmarks.roboteq.annotations import parse_facets, parse_judgment_votes
from socialbench.benchmarks.roboteq.behavior_lists import behaviors_canonical, behaviors_published
from socialbench.benchmarks.roboteq.label_files import Row
from socialbench.benchmarks.roboteq.paths import resolve_image
from socialbench.benchmarks.roboteq.rows import Counted, RowReport, image_value, infer_subset, opt_str
from socialbench.benchmarks.roboteq.schema import ID_FIELDS, LABELS, Behavior, JudgmentScene, normalise_subset
from socialbench.metrics.roboteq import INVALID_VOTE

__all__ = ["judgment_scene"]


def _behavior_votes(counts: dict[str, int] | None) -> tuple[tuple[str, int], ...] | None:
    """``((label, count), ...)`` in label order (the paper's ``invalid`` votes last: they are
    annotators of the behavior too), or None for a behavior without votes."""
    if counts is None:
        return None
    return tuple((lab, counts[lab]) for lab in (*LABELS, INVALID_VOTE) if counts.get(lab, 0) > 0)


def judgment_scene(row: Row, root: Path, canonical: bool, report: RowReport, meta_rel: str) -> JudgmentScene | None:
    """The behavior-judgment scene of a row (id left empty when the row gives none), or None."""
    d = row.data
    rep = Counted(report)
    image, err = resolve_image(root, row.file.parent, image_value(d, canonical))
    if err:
        rep("image", err, "use a path relative to the dataset folder")
    question = d.get("question")
    if not isinstance(question, str) or not question.strip():
        rep("question", "question (the role prompt) is missing", "add the question text")
    if canonical:
        parsed = behaviors_canonical(d, rep)
        entries = parsed[0] if parsed else None
        facets_value: object = None
        votes_value: object = None
        no_image_value: object = None
        if parsed:
            _, facet_lists, vote_lists, no_image_lists = parsed
            votes_value = None if all(v is None for v in vote_lists) else vote_lists
            no_image_value = no_image_lists if any(v is not None for v in no_image_lists) else None
            # per behavior, keyed by its number: a string such as "safety" (or
            # "safety, privacy") belongs to that behavior alone, not to the whole scene
            facets_value = {str(k): f for (k, _, _), f in zip(parsed[0], facet_lists)} if any(facet_lists) else None
    else:
        entries = behaviors_published(d, rep)
        facets_value = d.get("facets")
        votes_value = d.get("votes")
        no_image_value = None
    if entries is None:
        return None
    ks = [k for k, _, _ in entries]
    dup = sorted(k for k, c in Counter(ks).items() if c > 1)
    if dup:
        rep(
            "labels",
            f"behavior number(s) {dup} appear more than once",
            "number the behaviors [1], [2], ... without repeats",
        )
        return None
    facets, f_errors = parse_facets(facets_value, ks)
    for msg in f_errors:
        rep("facets", msg, "use safety, privacy, proxemics, cooperation, politeness, priority or sensitivity")
    votes, v_errors = parse_judgment_votes(votes_value, ks)
    for msg in v_errors:
        rep("votes", msg, "give per-annotator proper/improper/invalid labels for every behavior")
    no_image, n_errors = parse_judgment_votes(no_image_value, ks)
    for msg in n_errors:
        rep(
            "votes_no_image",
            msg,
            "give the without-image annotators' proper/improper labels, or null for a behavior not annotated so",
        )
    subset_raw = d.get("subset")
    subset = normalise_subset(subset_raw) if subset_raw is not None else None
    if subset_raw is not None and subset is None:
        rep("subset", f"subset {subset_raw!r} is neither synthetic nor real", "use synthetic or real")
    if rep.n:
        return None
    assert image is not None and isinstance(question, str)
    if subset is None:
        subset = infer_subset(image, meta_rel)
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
        category=opt_str(d, "category"),
        subcategory=opt_str(d, "subcategory"),
        source=str(row.file),
        line=row.line,
    )
