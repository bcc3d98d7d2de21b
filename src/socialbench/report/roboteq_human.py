"""Human baseline rows of the RobotEQ tables, computed from the per-annotator votes in the
labels under both named definitions of :mod:`socialbench.metrics.human`: ``final-label``
(each annotator against the released label) and ``leave-one-out`` (each annotator against
the majority of the others). Neither is the paper's Human row, which cannot be recomputed
from the release (:mod:`socialbench.metrics.human`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from socialbench.report.item_data import ItemData

__all__ = ["roboteq_human", "roboteq_human_grounding", "roboteq_human_image"]


def _human_subsets(
    groups: dict[str, list[Any]], baseline: Callable[[list[Any]], dict[str, Any] | None], metrics: Sequence[str]
) -> dict[str, Any] | None:
    """``baseline`` per subset as ``{subset: {metric: {"value", "se": None}, "n"}}``, plus the
    unweighted ``average`` of synthetic and real (Table 1 Avg) and ``overall``."""
    out: dict[str, Any] = {}
    for subset, items in [*groups.items(), ("overall", [x for v in groups.values() for x in v])]:
        res = baseline(items)
        if res is not None:
            out[subset] = {"n": res["n"], **{m: {"value": res[m], "se": None} for m in metrics}}
    if "synthetic" in out and "real" in out:
        out["average"] = {
            m: {"value": (out["synthetic"][m]["value"] + out["real"][m]["value"]) / 2, "se": None} for m in metrics
        }
    return out or None


def roboteq_human(data: ItemData) -> tuple[dict[str, Any] | None, dict[str, float] | None]:
    """Human PA / CWPA / micro-F1 / macro-F1 per subset (+ average, overall) under each
    definition, as ``{definition: {subset: ...}}`` (``final-label``:
    :func:`~socialbench.metrics.human.human_judgment_vs_final`; ``leave-one-out``:
    :func:`~socialbench.metrics.human.human_judgment_baseline`; behaviors with at least 2
    votes), and CWPA per facet; ``(None, None)`` without labels."""
    from socialbench.metrics.agreement import human_average_paper
    from socialbench.metrics.human import human_judgment_baseline, human_judgment_vs_final

    by_subset: dict[str, list[Any]] = {}
    by_facet: dict[str, list[float]] = {}
    seen: set[tuple[str, str]] = set()
    for i in data.indices:
        ds = data.datasets[i]
        for it in ds.items:
            beh = it.metadata.get("behaviors")
            if not isinstance(beh, dict):
                continue
            for q in it.questions:
                v = it.votes[q.key]
                if (it.item_id, q.key) in seen or v.n < 2 or not beh.get(q.key, {}).get("has_votes", True):
                    continue
                seen.add((it.item_id, q.key))
                final = str(beh.get(q.key, {}).get("label"))
                by_subset.setdefault(str(it.metadata.get("subset") or "unknown"), []).append((v.counts(), final))
                for f in beh.get(q.key, {}).get("facets") or ():
                    by_facet.setdefault(str(f), []).append(human_average_paper(v).cwpa)
    if not by_subset:
        return None, None
    metrics = ("pa", "cwpa", "micro_f1", "macro_f1")
    loo = {s: [c for c, _ in rows] for s, rows in by_subset.items()}
    out = {
        "final-label": _human_subsets(by_subset, human_judgment_vs_final, metrics),
        "leave-one-out": _human_subsets(loo, human_judgment_baseline, metrics),
    }
    return out, {f: sum(v) / len(v) for f, v in by_facet.items()}


def roboteq_human_grounding(data: ItemData) -> dict[str, Any] | None:
    """Human exact match / Jaccard / option micro- and macro-F1 per subset (+ average,
    overall) under each definition, as ``{definition: {subset: ...}}``: ``final-label``,
    each annotator against the released answer
    (:func:`~socialbench.metrics.human.human_grounding_vs_final`), and ``leave-one-out``,
    each against the per-option majority of the others
    (:func:`~socialbench.metrics.human.human_grounding_baseline`); None without votes."""
    from socialbench.metrics.human import human_grounding_baseline, human_grounding_vs_final

    by_subset: dict[str, list[Any]] = {}
    seen: set[str] = set()
    for i in data.indices:
        for it in data.datasets[i].items:
            if it.metadata.get("task") != "spatial_grounding" or not it.metadata.get("has_votes") or it.item_id in seen:
                continue
            v = it.votes.get("sg")
            if v is None or v.n < 2:
                continue
            seen.add(it.item_id)
            selections = [list(answer) for answer, c in v.counts().items() for _ in range(c)]
            final = list(it.metadata.get("answer") or ())
            by_subset.setdefault(str(it.metadata.get("subset") or "unknown"), []).append((selections, final))
    if not by_subset:
        return None
    metrics = ("exact_match", "jaccard", "micro_f1", "macro_f1")
    loo = {s: [sels for sels, _ in rows] for s, rows in by_subset.items()}
    return {
        "final-label": _human_subsets(by_subset, human_grounding_vs_final, metrics),
        "leave-one-out": _human_subsets(loo, human_grounding_baseline, metrics),
    }


def roboteq_human_image(data: ItemData) -> dict[str, Any] | None:
    """RobotEQ Figure 6(a), humans with and without the image: on the behaviors that have
    at least two labels in each condition (``votes`` and ``votes_no_image``), the
    final-label human scores (:func:`~socialbench.metrics.human.human_judgment_vs_final`:
    PA / CWPA among the annotators of the condition, micro / macro F1 of their labels
    against the released label) of each condition, as ``{"with_image": ..., "without_image":
    ..., "n": behaviors}``; None when no behavior has two labels without the image."""
    from socialbench.metrics.human import human_judgment_vs_final

    with_image: list[tuple[dict[str, int], str]] = []
    without: list[tuple[dict[str, int], str]] = []
    seen: set[tuple[str, str]] = set()
    for i in data.indices:
        for it in data.datasets[i].items:
            beh = it.metadata.get("behaviors")
            if not isinstance(beh, dict):
                continue
            for q in it.questions:
                b = beh.get(q.key) or {}
                blind = b.get("votes_no_image")
                v = it.votes[q.key]
                if (it.item_id, q.key) in seen or not blind or sum(blind.values()) < 2:
                    continue
                if v.n < 2 or not b.get("has_votes", True):
                    continue
                seen.add((it.item_id, q.key))
                final = str(b.get("label"))
                with_image.append((v.counts(), final))
                without.append(({str(k): int(c) for k, c in blind.items()}, final))
    if not with_image:
        return None
    return {
        "n": len(with_image),
        "with_image": human_judgment_vs_final(with_image),
        "without_image": human_judgment_vs_final(without),
    }
