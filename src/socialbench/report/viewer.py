"""The data of the per-item viewer of the HTML report (:mod:`socialbench.report.html`).

Item images are copied into ``images/`` of the report folder.

Viewer
------
One card per question: the item's images, the question, the human answer distribution
(with its entropy), and for every run the raw reply, the parsed answer, its status and
PA / CWPA. Statuses: ``correct`` (a most common human answer), ``partial`` (some human
gave it), ``failed`` (a valid answer no human gave), ``invalid`` (unparseable, or the model
call failed), ``missing`` (the run has no record). Filters: selection, question type,
category, facet / attribute, status of a chosen run, human entropy range, item id text.
The URL fragment sets them for a shareable view, e.g. ``index.html#sel=all&run=1&status=failed``
(keys ``sel base cat facet run status hmin hmax q page``).

Selection (paper §7.6): questions are ordered by :func:`socialbench.metrics.failures.rank_cases`
(failures with the most human consensus first, then successes that split the models) and
the first ``featured`` failures and successes are marked; the viewer opens on them. When
there are more than ``max_items`` questions, the first ``max_items`` in that order are
embedded (the report says so).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from socialbench.metrics.agreement import ScoringEntry
from socialbench.metrics.failures import choice_label, entropy_bits, entry_answer, rank_cases
from socialbench.report.loading import model_item_score
from socialbench.report.socialnav_tables import QUESTION_NAMES
from socialbench.types import Item

__all__ = ["STATUSES", "status_of", "item_images", "viewer_payload"]

STATUSES = ("correct", "partial", "failed", "invalid", "missing")


def _safe_name(text: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", text)[:60].strip("._") or "item"
    return f"{slug}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def _answer_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def status_of(entry: ScoringEntry, protocol: str) -> str:
    """``correct`` / ``partial`` / ``failed`` / ``invalid`` / ``missing`` (see module doc)."""
    if entry.error == "missing":
        return "missing"
    a = entry_answer(entry, protocol)
    if a is None:
        return "invalid"
    p = entry.votes.probability(a)
    if p == 0.0:
        return "failed"
    return "correct" if p == max(entry.votes.probabilities) else "partial"


def item_images(item: Item, mode: str) -> list[str]:
    """Source image paths of ``item`` to show: ``all``, ``first-last`` or ``none``. The
    release's composites when they exist, else the raw frames (a dataset without
    composites, such as the simulator's default output)."""
    meta = item.metadata
    paths: list[str] = []
    composites = [str(p) for p in meta.get("composites") or ()]
    if composites and (all(Path(p).is_file() for p in composites) or not meta.get("frames")):
        paths = composites
    elif meta.get("frames"):
        paths = [str(p) for p in meta["frames"]]
    elif meta.get("image"):
        paths = [str(meta["image"])]
    if mode == "none" or not paths:
        return []
    if mode == "first-last" and len(paths) > 2:
        return [paths[0], paths[-1]]
    return paths


def _facets(item: Item, entry: ScoringEntry, attributes: Sequence[str]) -> list[str]:
    """Facet / attribute tags of one question for the viewer filter (``name`` or
    ``attribute: value``)."""
    meta = item.metadata
    tags: list[str] = []
    beh = (meta.get("behaviors") or {}).get(entry.question.key) if isinstance(meta.get("behaviors"), Mapping) else None
    facets = (beh or {}).get("facets") if beh else meta.get("facets")
    if isinstance(facets, (list, tuple)):
        tags += [str(f) for f in facets]
    for a in attributes:
        v = meta.get(a)
        if v is None:
            continue
        if isinstance(v, bool):
            tags.append(a if v else f"not {a}")
        elif isinstance(v, (str, int, float)):
            tags.append(f"{a}: {v}")
    if meta.get("subset"):
        tags.append(f"subset: {meta['subset']}")
    return tags


def _context(item: Item | None, text: str) -> str:
    """The scene prompt shown above the question when the item has one (RobotEQ role)."""
    if item is None:
        return ""
    for key in ("role", "question"):
        v = item.metadata.get(key)
        if isinstance(v, str) and v and v != text:
            return v
    return ""


def viewer_payload(
    labels: Sequence[str],
    entries_per_run: Sequence[Sequence[ScoringEntry]],
    items: Mapping[str, Item],
    protocol: str,
    out_dir: Path,
    *,
    attributes: Sequence[str] = (),
    max_items: int = 5000,
    featured: int = 12,
    images: str = "all",
    models: Sequence[bool] | None = None,
) -> dict[str, Any]:
    """The viewer's data: runs, questions in §7.6 order, images copied under ``out_dir``.

    ``entries_per_run[r]`` are run ``r``'s scoring entries; questions are the union over the
    runs (a run without a record shows ``missing``). ``models[r]`` False: run ``r`` is kept
    apart from the models (human-derived or perception-assisted,
    :mod:`socialbench.report.provenance`); it is shown, but the §7.6 order and the featured
    failures and successes come from the other runs' answers (from every run's when none is
    left). Returns the JSON-ready payload.
    """
    order: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    by_run: list[dict[tuple[str, str], ScoringEntry]] = []
    template: dict[tuple[str, str], ScoringEntry] = {}
    for entries in entries_per_run:
        d = {}
        for e in entries:
            k = (e.item_id, e.question.key)
            d[k] = e
            template.setdefault(k, e)
            if k not in seen:
                seen.add(k)
                order.append(k)
        by_run.append(d)
    aligned = [
        [d.get(k) or ScoringEntry(k[0], template[k].question, template[k].votes, None, None, "missing") for k in order]
        for d in by_run
    ]
    counted = [a for a, m in zip(aligned, models if models is not None else [True] * len(aligned)) if m]
    ranked = rank_cases(counted or aligned, protocol)
    counts = {"failure": 0, "success": 0}
    records: list[dict[str, Any]] = []
    images_out: dict[str, list[str]] = {}
    img_dir = out_dir / "images"
    missing_images = 0
    for pos, case in enumerate(ranked[:max_items]):
        k = order[case.index]
        t = template[k]
        q, votes = t.question, t.votes
        item = items.get(k[0])
        feat = False
        if case.kind in counts and counts[case.kind] < featured:
            counts[case.kind] += 1
            feat = True
        if item is not None and k[0] not in images_out:
            rel = []
            for i, src in enumerate(item_images(item, images)):
                sp = Path(src)
                if not sp.is_file():
                    missing_images += 1
                    continue
                dest = img_dir / _safe_name(k[0]) / f"{i:02d}_{_safe_name(sp.stem)}{sp.suffix.lower()}"
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(sp, dest)
                rel.append(dest.relative_to(out_dir).as_posix())
            images_out[k[0]] = rel
        human = [[choice_label(c), votes.probability(c)] for c in q.choices]
        answers: list[list[Any]] = []
        for run_entries in aligned:
            e = run_entries[case.index]
            st = status_of(e, protocol)
            if st == "missing":
                answers.append([None, None, st, None, None, None])
                continue
            s = model_item_score(e, protocol)
            a = entry_answer(e, protocol)
            parsed = choice_label(a) if a is not None else _answer_text(e.parsed)
            answers.append(
                [
                    e.raw,
                    parsed,
                    st,
                    None if s is None else round(s.pa, 4),
                    None if s is None else round(s.cwpa, 4),
                    e.error,
                ]
            )
        records.append(
            {
                "i": k[0],
                "k": q.key,
                "b": q.base_key,
                "bn": QUESTION_NAMES.get(q.base_key, q.base_key),
                "c": q.category,
                "t": q.text,
                "x": _context(item, q.text),
                "h": human,
                "n": votes.n,
                "he": round(entropy_bits(votes.probabilities), 4),
                "me": round(case.model_entropy, 4),
                "sel": case.kind,
                "feat": feat,
                "pos": pos,
                "f": _facets(item, t, attributes) if item is not None else [],
                "a": answers,
            }
        )
    return {
        "runs": list(labels),
        "protocol": protocol,
        "records": records,
        "images": images_out,
        "total": len(order),
        "shown": len(records),
        "missing_images": missing_images,
    }
