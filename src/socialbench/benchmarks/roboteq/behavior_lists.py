"""The candidate behaviors of a RobotEQ behavior-judgment row, read from either layout:
the published ``labels`` lines and/or ``option_texts`` + ``gt_labels`` lists
(:func:`behaviors_published`), or the canonical JSONL ``behaviors`` list
(:func:`behaviors_canonical`). Problems are reported through a
:data:`~socialbench.benchmarks.roboteq.rows.RowReport`; a malformed list gives None."""

from __future__ import annotations

import re
from collections.abc import Mapping

from socialbench.benchmarks.roboteq.fields import parse_label_lines, parse_list_field
from socialbench.benchmarks.roboteq.rows import Counted, RowReport, filled
from socialbench.benchmarks.roboteq.schema import MAX_BEHAVIOR_NUMBER, normalise_label

__all__ = ["behaviors_published", "behaviors_canonical"]


def _text_key(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().rstrip(".").casefold()


def behaviors_published(row: Mapping[str, object], report: RowReport) -> list[tuple[int, str, str]] | None:
    """``(k, label, text)`` from ``labels`` and/or ``option_texts`` + ``gt_labels``."""
    rep = Counted(report)
    labels_text = row.get("labels")
    option_texts = parse_list_field(row.get("option_texts"))
    gt_raw = parse_list_field(row.get("gt_labels"))
    entries: list[tuple[int, str, str]] | None = None
    if labels_text is not None:
        if not isinstance(labels_text, str):
            rep("labels", "labels must be a string of '[k] proper: ...' lines", "write one line per behavior")
        else:
            entries, bad = parse_label_lines(labels_text)
            for i, line in bad:
                rep(
                    "labels",
                    f"line {i} of labels is not '[k] proper: <behavior>' or '[k] improper: <behavior>': {line!r}",
                    "fix the line",
                )
    pairs: list[tuple[str, str]] | None = None
    if option_texts is not None or gt_raw is not None:
        if option_texts is None:
            rep("option_texts", "gt_labels is given without option_texts", "add the behaviors in option_texts")
        elif gt_raw is None:
            rep("gt_labels", "option_texts is given without gt_labels", "add one proper/improper label per behavior")
        elif len(option_texts) != len(gt_raw):
            rep(
                "option_texts",
                f"option/label count mismatch: {len(option_texts)} option_texts but {len(gt_raw)} gt_labels",
                "give one gt_label per option text",
            )
        else:
            pairs = []
            for i, (t, g) in enumerate(zip(option_texts, gt_raw), start=1):
                lab = normalise_label(g)
                if lab is None:
                    rep("gt_labels", f"gt_labels[{i}] is {g!r}, not proper or improper", "use proper or improper")
                if not isinstance(t, str) or not t.strip():
                    rep("option_texts", f"option_texts[{i}] is empty or not text", "give the behavior text")
                pairs.append((lab or "", t if isinstance(t, str) else ""))
    if rep.n:
        return None
    if entries is not None and pairs is not None:
        if len(entries) != len(pairs):
            rep(
                "labels",
                f"option/label count mismatch: labels has {len(entries)} lines but option_texts has {len(pairs)} entries",
                "make labels, option_texts and gt_labels list the same behaviors",
            )
            return None
        for i, ((k, lab, text), (glab, otext)) in enumerate(zip(entries, pairs), start=1):
            if lab != glab:
                rep("gt_labels", f"behavior [{k}] is {lab} in labels but {glab} in gt_labels", "make the two agree")
            if _text_key(text) != _text_key(otext):
                rep(
                    "option_texts",
                    f"behavior [{k}] text differs between labels and option_texts[{i}]",
                    "make the two agree",
                )
        return None if rep.n else entries
    if entries is not None:
        return entries
    if pairs is not None:
        return [(i, lab, text.strip()) for i, (lab, text) in enumerate(pairs, start=1)]
    rep("labels", "no behaviors: the row has neither labels nor option_texts/gt_labels", "add the candidate behaviors")
    return None


def behaviors_canonical(
    row: Mapping[str, object], report: RowReport
) -> tuple[list[tuple[int, str, str]], list[object], list[object], list[object]] | None:
    """``(k, label, text)`` per behavior and, per behavior, its facets, votes and
    ``votes_no_image`` as written; None (reported) for a malformed list."""
    rep = Counted(report)
    items = row.get("behaviors")
    if not isinstance(items, list) or not items:
        rep("behaviors", "behaviors must be a non-empty list", "list the candidate behaviors")
        return None
    out: list[tuple[int, str, str]] = []
    facets: list[object] = []
    votes: list[object] = []
    no_image: list[object] = []
    for i, b in enumerate(items, start=1):
        if not isinstance(b, dict):
            rep("behaviors", f"behaviors[{i}] is not an object", 'write {"k", "text", "label"}')
            continue
        k = b.get("k", i)
        lab = normalise_label(b.get("label"))
        text = b.get("text")
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= MAX_BEHAVIOR_NUMBER:
            rep(
                "behaviors",
                f"behaviors[{i}].k is {k!r}, not an integer from 0 to {MAX_BEHAVIOR_NUMBER}",
                "number the behaviors",
            )
        if lab is None:
            rep(
                "behaviors",
                f"behaviors[{i}].label is {b.get('label')!r}, not proper or improper",
                "use proper or improper",
            )
        if not isinstance(text, str) or not text.strip():
            rep("behaviors", f"behaviors[{i}].text is missing", "give the behavior text")
        out.append((k if isinstance(k, int) else i, lab or "", text.strip() if isinstance(text, str) else ""))
        facets.append(b.get("facets") if filled(b.get("facets")) else [])
        votes.append(b.get("votes"))
        no_image.append(b.get("votes_no_image"))
    return None if rep.n else (out, facets, votes, no_image)
