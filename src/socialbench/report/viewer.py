"""The data of the per-item viewer of the HTML report (:mod:`socialbench.report.html`).

One card per question: the item's images (those each run sent,
:mod:`socialbench.report.sent_images`, written into ``images/``; runs that sent the same
bytes share one row), the question, the human answer distribution and every run's reply,
parsed answer, status (:data:`STATUSES`) and PA / CWPA. A metamorphic run's answer to
variant ``K@name`` is shown on question ``K``'s card, mapped back. Questions are in the
order of :func:`socialbench.metrics.case_ranking.rank_cases` (paper §7.6), the first
``featured`` failures and successes marked, at most ``max_items`` embedded. See
docs/reading-the-report.md, "The item viewer (HTML)".
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from socialbench.errors import SocialbenchError
from socialbench.metrics.agreement import ScoringEntry
from socialbench.metrics.case_ranking import entropy_bits, rank_cases
from socialbench.metrics.failure_analysis import choice_label
from socialbench.metrics.failures import entry_answer
from socialbench.prompting.metamorphic import make_variant, split_variant
from socialbench.report.sent_images import SentImages
from socialbench.report.socialnav_tables import QUESTION_NAMES
from socialbench.report.unit_scores import model_item_score
from socialbench.types import EncodedImage, Item

__all__ = ["STATUSES", "status_of", "item_images", "viewer_payload"]

STATUSES = ("correct", "partial", "failed", "invalid", "missing")


def _safe_name(text: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", text)[:60].strip("._") or "item"
    return f"{slug}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def _answer_text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def status_of(entry: ScoringEntry, protocol: str) -> str:
    """``correct`` (a most common human answer), ``partial`` (some human gave it), ``failed``
    (a valid answer no human gave), ``invalid`` (unparseable, or the model call failed) or
    ``missing`` (the run has no record)."""
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
    return _pick(paths, mode)


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


def _as_original(entry: ScoringEntry, item: Item | None, seed: int, protocol: str) -> tuple[ScoringEntry, str | None]:
    """A variant's entry (``K@name``) as an entry of question ``K`` (its answer mapped back
    through the variant, its votes ``K``'s), with the answer as given to the variant; a
    plain entry (or one whose item is unknown) unchanged, with None."""
    base, name = split_variant(entry.question.key)
    if name is None or item is None:
        return entry, None
    original = item.question(base)
    variant = make_variant(original, name, seed=seed, item_id=entry.item_id)
    given = entry_answer(entry, protocol)
    mapped = None if given is None else variant.to_original(given)
    as_original = ScoringEntry(entry.item_id, original, item.votes[base], mapped, None, entry.error)
    return as_original, None if given is None else choice_label(given)


def _write_image(img_dir: Path, item_id: str, image: EncodedImage) -> Path:
    """``image`` under ``img_dir/<item>/<sha256 prefix>.<jpg|png>`` (written once)."""
    ext = ".png" if image.mime == "image/png" else ".jpg"
    dest = img_dir / _safe_name(item_id) / f"{image.sha256[:24]}{ext}"
    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(image.data)
    return dest


def _pick(paths: list[str], mode: str) -> list[str]:
    if mode == "none":
        return []
    if mode == "first-last" and len(paths) > 2:
        return [paths[0], paths[-1]]
    return paths


class _ImageRows:
    """The image rows of each item's card: one per distinct set of images the runs sent."""

    def __init__(self, out_dir: Path, mode: str, sent: Sequence[SentImages | str | None]):
        self.out_dir = out_dir
        self.img_dir = out_dir / "images"
        self.mode = mode
        self.sent = sent
        self.missing = 0
        self.notes: list[str] = []

    def _sent(self, s: SentImages, item_id: str) -> tuple[list[str], list[str]] | None:
        try:
            images, captions = s.images_with_captions(item_id)
        except (SocialbenchError, OSError, ValueError) as exc:
            self.missing += 1
            if len(self.notes) < 5:
                self.notes.append(f"{item_id}: the images sent could not be prepared again ({exc})")
            return None
        paths = [_write_image(self.img_dir, item_id, im).relative_to(self.out_dir).as_posix() for im in images]
        return paths, captions

    def _files(self, item: Item, item_id: str) -> tuple[list[str], list[str]]:
        paths: list[str] = []
        for i, src in enumerate(item_images(item, "all")):
            sp = Path(src)
            if not sp.is_file():
                self.missing += 1
                continue
            dest = self.img_dir / _safe_name(item_id) / f"{i:02d}_{_safe_name(sp.stem)}{sp.suffix.lower()}"
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(sp, dest)
            paths.append(dest.relative_to(self.out_dir).as_posix())
        return paths, [f"image {n + 1}" for n in range(len(paths))]

    def rows(self, item_id: str, item: Item | None) -> list[dict[str, Any]]:
        """``[{"src": paths, "cap": captions, "what": text, "runs": run indices}]``."""
        if self.mode == "none":
            return []
        made: dict[Any, tuple[tuple[list[str], list[str]] | None, str]] = {}
        rows: dict[tuple[str, ...], dict[str, Any]] = {}
        for r, s in enumerate(self.sent):
            if isinstance(s, SentImages):
                key: Any = s.key()
                if key not in made:
                    made[key] = (self._sent(s, item_id), "sent to the model: " + s.describe())
            else:
                key = ("files", s)
                if key not in made:
                    what = "image files as stored" if s is None else f"source files, not the images sent ({s})"
                    made[key] = (None if item is None else self._files(item, item_id), what)
            got, what = made[key]
            if got is None or not got[0]:
                continue
            src, cap = _pick(got[0], self.mode), _pick(got[1], self.mode)
            row = rows.setdefault(tuple(src), {"src": src, "cap": cap, "what": what, "runs": []})
            row["runs"].append(r)
        return list(rows.values())


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
    sent: Sequence[SentImages | str | None] | None = None,
    seeds: Sequence[int] | None = None,
) -> dict[str, Any]:
    """The viewer's data: runs, questions in §7.6 order, images written under ``out_dir``.

    ``entries_per_run[r]`` are run ``r``'s scoring entries; questions are the union over the
    runs, a variant ``K@name`` counting as question ``K`` (a run without a record shows
    ``missing``). ``models[r]`` False: run ``r`` is kept apart from the models
    (human-derived or perception-assisted, :mod:`socialbench.report.provenance`); it is
    shown, but the §7.6 order and the featured failures and successes come from the other
    runs' answers (from every run's when none is left). ``sent[r]``: how to prepare again
    the images run ``r`` sent (:class:`~socialbench.report.sent_images.SentImages`), or why
    that is not possible (text), or None for image files sent as they are; without ``sent``
    every run shows the item's source files. ``seeds[r]``: run ``r``'s seed (the
    ``shuffle-options`` variants depend on it). Returns the JSON-ready payload.
    """
    n_runs = len(entries_per_run)
    seed_of = list(seeds) if seeds is not None else [0] * n_runs
    order: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    by_run: list[dict[tuple[str, str], tuple[ScoringEntry, ScoringEntry, str | None]]] = []
    template: dict[tuple[str, str], ScoringEntry] = {}
    for r, entries in enumerate(entries_per_run):
        d = {}
        for e in entries:
            shown, given = _as_original(e, items.get(e.item_id), seed_of[r], protocol)
            k = (e.item_id, shown.question.key)
            d[k] = (e, shown, given)
            template.setdefault(k, shown)  # question K's text and votes, also for a variant
            if k not in seen:
                seen.add(k)
                order.append(k)
        by_run.append(d)

    def missing(k: tuple[str, str]) -> tuple[ScoringEntry, ScoringEntry, str | None]:
        e = ScoringEntry(k[0], template[k].question, template[k].votes, None, None, "missing")
        return e, e, None

    aligned = [[d.get(k) or missing(k) for k in order] for d in by_run]
    as_original = [[t[1] for t in run] for run in aligned]
    counted = [a for a, m in zip(as_original, models if models is not None else [True] * n_runs) if m]
    ranked = rank_cases(counted or as_original, protocol)
    counts = {"failure": 0, "success": 0}
    records: list[dict[str, Any]] = []
    images_out: dict[str, list[dict[str, Any]]] = {}
    rows = _ImageRows(
        out_dir, images, sent if sent is not None else ["the runs' image settings were not given"] * n_runs
    )
    for pos, case in enumerate(ranked[:max_items]):
        k = order[case.index]
        t = template[k]
        q, votes = t.question, t.votes
        item = items.get(k[0])
        feat = False
        if case.kind in counts and counts[case.kind] < featured:
            counts[case.kind] += 1
            feat = True
        if k[0] not in images_out:
            images_out[k[0]] = rows.rows(k[0], item)
        human = [[choice_label(c), votes.probability(c)] for c in q.choices]
        answers: list[list[Any]] = []
        for run_entries in aligned:
            e, shown, given = run_entries[case.index]
            st = status_of(e, protocol)
            if st == "missing":
                answers.append([None, None, st, None, None, None])
                continue
            s = model_item_score(e, protocol)
            a = entry_answer(shown, protocol)
            parsed = choice_label(a) if a is not None else _answer_text(e.parsed)
            name = split_variant(e.question.key)[1]
            if name is not None and given is not None and parsed is not None:
                parsed += f" (answered {given!r} to the {name} variant)" if given != parsed else f" ({name} variant)"
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
        "missing_images": rows.missing,
        "image_notes": rows.notes,
    }
