"""The scene fields a grounding item inherits from its source scene (subset, category,
subcategory): an index of the work folder's scenes by id and by image path
(:func:`scene_index`) and the filling in of what a spec leaves empty
(:func:`inherit_scene_fields`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["SCENE_FIELDS", "scene_index", "inherit_scene_fields"]


#: Fields a grounding item inherits from its source scene.
SCENE_FIELDS = ("subset", "category", "subcategory")


def scene_index(work: Path) -> tuple[dict[str, dict[str, object]], dict[str, dict[str, object]]]:
    """Scene fields (:data:`SCENE_FIELDS`) of every scene in ``work``, keyed by scene id and
    by image path: ``(by_id, by_image)``. ``behaviors.jsonl`` comes first (its fields are
    final); ``review.jsonl`` (every round's image), ``images.jsonl`` and
    ``real_images.jsonl`` fill in scenes without behaviors. Missing files are skipped."""
    from socialbench.construction.jsonl import read_jsonl

    by_id: dict[str, dict[str, object]] = {}
    by_image: dict[str, dict[str, object]] = {}

    def add(rid: object, images: Sequence[object], fields: dict[str, object]) -> None:
        fields = {k: v for k, v in fields.items() if v}
        if isinstance(rid, str):
            by_id.setdefault(rid, fields)
        for im in images:
            if isinstance(im, str):
                by_image.setdefault(im, fields)

    if (work / "behaviors.jsonl").is_file():
        for r in read_jsonl(work / "behaviors.jsonl"):
            add(r.get("id"), [r.get("image")], {k: r.get(k) for k in SCENE_FIELDS})
    for name, subset in (("review.jsonl", "synthetic"), ("images.jsonl", "synthetic"), ("real_images.jsonl", "real")):
        if not (work / name).is_file():
            continue
        for r in read_jsonl(work / name):
            scen = r.get("scenario") or {}
            images = [
                r.get("final"),
                r.get("image"),
                *[x.get("image") for x in r.get("rounds") or [] if isinstance(x, dict)],
            ]
            add(
                r.get("id"),
                images,
                {
                    "subset": subset,
                    "category": r.get("category") or scen.get("category"),
                    "subcategory": r.get("subcategory") or scen.get("subcategory"),
                },
            )
    return by_id, by_image


def inherit_scene_fields(
    spec: Mapping[str, object],
    by_id: Mapping[str, Mapping[str, object]],
    by_image: Mapping[str, Mapping[str, object]],
) -> dict[str, object]:
    """``spec`` with the subset, category and subcategory of its source scene (by ``scene``
    id, else by ``image`` path) filled in where the spec leaves them empty."""
    scene_id, image = spec.get("scene"), spec.get("image")
    scene = by_id.get(scene_id) if isinstance(scene_id, str) else None
    if scene is None and isinstance(image, str):
        scene = by_image.get(image)
    out = dict(spec)
    for key in SCENE_FIELDS:
        if not out.get(key) and scene and scene.get(key):
            out[key] = scene[key]
    return out
