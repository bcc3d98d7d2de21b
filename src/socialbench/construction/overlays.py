"""Spatial-grounding overlays drawn programmatically from region specs (replaces RobotEQ
App. E's image-editing step, which misplaces, overlaps or drops labels).

Region spec (one JSONL record per grounding question)::

    {"id": "restaurant/b00-3-sg1", "image": "images/restaurant__b00-3-<hash>/round1.png",
     "question": "Where should you wait for the guest?",
     "options": {"A": "by the door", "B": "...", "C": "...", "D": "..."},
     "coords": "relative",                      # or "pixel"
     "regions": [
        {"label": "A", "shape": "box", "box": [0.05, 0.4, 0.3, 0.9]},
        {"label": "B", "shape": "polygon", "points": [[0.4, 0.5], [0.6, 0.5], [0.55, 0.9]]},
        {"label": "C", "shape": "arrow", "points": [[0.5, 0.95], [0.7, 0.6]]},
        {"label": "D", "shape": "path", "points": [[0.1, 0.95], [0.2, 0.7], [0.3, 0.6]]}],
     "answer": ["A"]}                           # optional proposal; never drawn

Optional ``scene`` names the source scene's id; ``subset``, ``category``,
``subcategory`` given in a spec win. Otherwise the item inherits them from its source scene
(:func:`inherit_scene_fields`), found by ``scene`` id or else by ``image`` path among the
scenes of the work folder (``behaviors.jsonl``, ``review.jsonl``, ``images.jsonl``,
``real_images.jsonl``, :func:`scene_index`).

``box`` is ``[x0, y0, x1, y1]``; ``polygon`` needs 3+ points; ``arrow`` (a path ending in
an arrowhead) and ``path`` (a plain polyline) need 2+ points. Labels A-D are unique.

Drawing (:func:`draw_overlay`): every size derives from the image's shorter side, so the
result looks the same at any resolution; lines and badges have a dark halo so they read on
light and dark backgrounds; colours are the Okabe-Ito palette (:data:`PALETTE`), which
stays distinguishable under the common colour-vision deficiencies (:func:`simulate_cvd`);
each region is labelled by a round badge with its letter, kept inside the image and moved
off other badges.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from socialbench.benchmarks.roboteq.schema import LETTERS

__all__ = [
    "PALETTE",
    "OKABE_ITO",
    "Region",
    "parse_regions",
    "draw_overlay",
    "simulate_cvd",
    "delta_e",
    "overlay_record",
    "SCENE_FIELDS",
    "scene_index",
    "inherit_scene_fields",
]

#: The Okabe-Ito colour-blind-safe palette.
OKABE_ITO = {
    "black": (0, 0, 0),
    "orange": (230, 159, 0),
    "sky_blue": (86, 180, 233),
    "bluish_green": (0, 158, 115),
    "yellow": (240, 228, 66),
    "blue": (0, 114, 178),
    "vermillion": (213, 94, 0),
    "reddish_purple": (204, 121, 167),
}
#: Region colours by letter (Okabe-Ito: blue, vermillion, bluish green, reddish purple).
PALETTE: dict[str, tuple[int, int, int]] = {
    "A": OKABE_ITO["blue"],
    "B": OKABE_ITO["vermillion"],
    "C": OKABE_ITO["bluish_green"],
    "D": OKABE_ITO["reddish_purple"],
}
SHAPES = ("box", "polygon", "arrow", "path")


@dataclass(frozen=True)
class Region:
    label: str
    shape: str
    points: tuple[tuple[float, float], ...]  # pixel coordinates; a box is (x0, y0), (x1, y1)


def parse_regions(spec: Mapping[str, Any], size: tuple[int, int]) -> tuple[list[Region], list[str]]:
    """Regions in pixel coordinates and a list of problems (empty when the spec is valid)."""
    w, h = size
    rel = (spec.get("coords") or "relative") == "relative"
    problems: list[str] = []
    raw = spec.get("regions")
    if not isinstance(raw, list) or not raw:
        return [], ["regions must be a non-empty list"]
    out: list[Region] = []
    seen: set[str] = set()
    for i, r in enumerate(raw):
        where = f"regions[{i}]"
        if not isinstance(r, dict):
            problems.append(f"{where} is not an object")
            continue
        label = str(r.get("label", "")).strip().upper()
        shape = r.get("shape")
        if label not in LETTERS:
            problems.append(f"{where}: label {r.get('label')!r} is not one of A-D")
            continue
        if label in seen:
            problems.append(f"{where}: label {label} is used twice")
            continue
        seen.add(label)
        if shape not in SHAPES:
            problems.append(f"{where}: shape {shape!r} is not one of {', '.join(SHAPES)}")
            continue
        pts_raw = [r.get("box", [])[:2], r.get("box", [])[2:]] if shape == "box" else r.get("points")
        try:
            pts = [(float(p[0]), float(p[1])) for p in pts_raw]  # type: ignore[union-attr]
        except (TypeError, ValueError, IndexError):
            problems.append(
                f"{where}: coordinates must be numbers ({'box [x0, y0, x1, y1]' if shape == 'box' else 'points [[x, y], ...]'})"
            )
            continue
        need = {"box": 2, "polygon": 3, "arrow": 2, "path": 2}[shape]
        if len(pts) < need:
            problems.append(f"{where}: {shape} needs at least {need} points")
            continue
        limit = (1.0, 1.0) if rel else (float(w), float(h))
        if any(not (0 <= x <= limit[0] and 0 <= y <= limit[1]) for x, y in pts):
            problems.append(f"{where}: coordinates outside the image ({'0-1 relative' if rel else f'{w}x{h} pixels'})")
            continue
        if rel:
            pts = [(x * w, y * h) for x, y in pts]
        if shape == "box":
            (x0, y0), (x1, y1) = pts
            if x1 <= x0 or y1 <= y0:
                problems.append(f"{where}: box needs x0 < x1 and y0 < y1")
                continue
        out.append(Region(label, shape, tuple(pts)))
    answer = spec.get("answer")
    if isinstance(answer, list):
        missing = [a for a in answer if str(a).upper() not in seen]
        if missing:
            problems.append(f"answer names regions that are not drawn: {missing}")
    return sorted(out, key=lambda r: r.label), problems


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, ImportError):  # Pillow built without FreeType
        return ImageFont.load_default()


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return not (a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1])


def _anchor(region: Region) -> tuple[float, float]:
    if region.shape == "box":
        return region.points[0]
    if region.shape == "polygon":
        return min(region.points, key=lambda p: (p[1], p[0]))
    return region.points[0]  # paths and arrows: label the tail, keep the head clear


def draw_overlay(
    image: Image.Image, regions: Sequence[Region]
) -> tuple[Image.Image, dict[str, tuple[int, int, int, int]]]:
    """The image with the regions drawn; also the bounding box of each letter badge."""
    base = image.convert("RGBA")
    w, h = base.size
    s = min(w, h)
    lw = max(2, round(s * 0.008))
    halo = max(1, round(lw * 0.6))
    radius = max(10, round(s * 0.035))
    fill_layer = Image.new("RGBA", base.size, (0, 0, 0, 0))
    fd = ImageDraw.Draw(fill_layer)
    for r in regions:
        colour = PALETTE[r.label]
        if r.shape == "box":
            fd.rectangle([*r.points[0], *r.points[1]], fill=(*colour, 56))
        elif r.shape == "polygon":
            fd.polygon(list(r.points), fill=(*colour, 56))
    out = Image.alpha_composite(base, fill_layer)
    d = ImageDraw.Draw(out)
    for r in regions:
        colour = PALETTE[r.label]
        pts = list(r.points)
        head = max(lw * 5.0, radius * 1.1)
        if r.shape == "arrow":
            (x0, y0), (x1, y1) = pts[-2], pts[-1]
            ang = math.atan2(y1 - y0, x1 - x0)
            seg = math.hypot(x1 - x0, y1 - y0)
            head = min(head, seg * 0.6)
            cut = head * 0.7  # the shaft stops inside the head, so the tip stays sharp
            pts[-1] = (x1 - cut * math.cos(ang), y1 - cut * math.sin(ang))
        for width, col, grow in ((lw + 2 * halo, (0, 0, 0, 255), halo), (lw, (*colour, 255), 0)):
            if r.shape == "box":
                (bx0, by0), (bx1, by1) = r.points
                d.rectangle([bx0 - grow, by0 - grow, bx1 + grow, by1 + grow], outline=col, width=width)
            elif r.shape == "polygon":
                d.line([*pts, pts[0], pts[1]], fill=col, width=width, joint="curve")
            else:
                d.line(pts, fill=col, width=width, joint="curve")
        if r.shape == "arrow":
            (x1, y1) = r.points[-1]
            tip = (x1, y1)
            left = (x1 - head * math.cos(ang - 0.5), y1 - head * math.sin(ang - 0.5))
            right = (x1 - head * math.cos(ang + 0.5), y1 - head * math.sin(ang + 0.5))
            d.polygon([tip, left, right], fill=(*colour, 255), outline=(0, 0, 0, 255), width=max(1, halo))
    font = _font(round(radius * 1.4))
    placed: dict[str, tuple[int, int, int, int]] = {}
    for r in regions:
        cx, cy = _anchor(r)
        cx = min(max(cx, radius + 1), w - radius - 1)
        cy = min(max(cy, radius + 1), h - radius - 1)
        box = (cx - radius, cy - radius, cx + radius, cy + radius)
        for step in range(12):
            if not any(_overlaps(box, b) for b in placed.values()):
                break
            dx, dy = [(1, 0), (0, 1), (-1, 0), (0, -1)][step % 4]
            mult = 2 * radius * (step // 4 + 1) + 2
            ncx = min(max(cx + dx * mult, radius + 1), w - radius - 1)
            ncy = min(max(cy + dy * mult, radius + 1), h - radius - 1)
            box = (ncx - radius, ncy - radius, ncx + radius, ncy + radius)
        colour = PALETTE[r.label]
        d.ellipse(box, fill=(*colour, 255), outline=(0, 0, 0, 255), width=max(1, halo))
        bx, by = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        d.text(
            (bx, by),
            r.label,
            font=font,
            fill=(255, 255, 255, 255),
            anchor="mm",
            stroke_width=round(radius * 0.12) if radius >= 14 else 0,
            stroke_fill=(0, 0, 0, 255),
        )
        placed[r.label] = tuple(int(round(v)) for v in box)  # type: ignore[assignment]
    return out.convert("RGB"), placed


# --------------------------------------------------------------------------- colour-vision checks

#: Machado et al. (2009) simulation matrices at severity 1.0, applied to linear RGB.
_CVD = {
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]
    ),
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]
    ),
    "tritanopia": np.array(
        [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]]
    ),
}


def _to_linear(c: np.ndarray) -> np.ndarray:
    c = c / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _to_srgb(c: np.ndarray) -> np.ndarray:
    c = np.clip(c, 0, 1)
    return 255.0 * np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055)


def simulate_cvd(rgb: Sequence[int], kind: str) -> tuple[float, float, float]:
    """How an sRGB colour looks under ``protanopia``, ``deuteranopia`` or ``tritanopia``."""
    lin = _to_linear(np.asarray(rgb, dtype=float))
    return tuple(float(v) for v in _to_srgb(_CVD[kind] @ lin))  # type: ignore[return-value]


def _lab(rgb: Sequence[float]) -> np.ndarray:
    lin = _to_linear(np.asarray(rgb, dtype=float))
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = m @ lin / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e(a: Sequence[float], b: Sequence[float]) -> float:
    """CIE76 colour difference between two sRGB colours."""
    return float(np.linalg.norm(_lab(a) - _lab(b)))


# --------------------------------------------------------------------------- stage helper


def overlay_record(spec: Mapping[str, Any], image_rel: str, regions: Sequence[Region]) -> dict[str, Any]:
    """The ``grounding_items.jsonl`` record of a drawn overlay (the answer is kept as a
    proposal only; annotators decide)."""
    return {
        "id": spec["id"],
        "image": image_rel,
        "source_image": spec["image"],
        "question": spec["question"],
        "options": {k: v for k, v in (spec.get("options") or {}).items() if k in LETTERS},
        "regions": [
            {"label": r.label, "shape": r.shape, "points": [[round(x, 1), round(y, 1)] for x, y in r.points]}
            for r in regions
        ],
        "proposed_answer": spec.get("answer"),
        "scene": spec.get("scene"),
        "subset": spec.get("subset"),
        "category": spec.get("category"),
        "subcategory": spec.get("subcategory"),
        "facets": spec.get("facets") or [],
    }


#: Fields a grounding item inherits from its source scene.
SCENE_FIELDS = ("subset", "category", "subcategory")


def scene_index(work: Path) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """Scene fields (:data:`SCENE_FIELDS`) of every scene in ``work``, keyed by scene id and
    by image path: ``(by_id, by_image)``. ``behaviors.jsonl`` comes first (its fields are
    final); ``review.jsonl`` (every round's image), ``images.jsonl`` and
    ``real_images.jsonl`` fill in scenes without behaviors. Missing files are skipped."""
    from socialbench.construction.jsonl import read_jsonl

    by_id: dict[str, dict[str, Any]] = {}
    by_image: dict[str, dict[str, Any]] = {}

    def add(rid: Any, images: Sequence[Any], fields: dict[str, Any]) -> None:
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
    spec: Mapping[str, Any], by_id: Mapping[str, Mapping[str, Any]], by_image: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
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


def render_spec(spec: Mapping[str, Any], work: Path, out_dir: Path) -> tuple[dict[str, Any] | None, list[str]]:
    """Draw one spec's overlay into ``out_dir``; returns (record, problems)."""
    from socialbench.construction.jsonl import unique_name

    problems = []
    for key in ("id", "image", "question"):
        if not isinstance(spec.get(key), str) or not spec[key].strip():
            problems.append(f"{key} is missing")
    if problems:
        return None, problems
    src = work / spec["image"]
    try:
        with Image.open(src) as img:
            img.load()
            image = img.copy()
    except OSError as exc:
        return None, [f"cannot open image {spec['image']}: {exc}"]
    regions, problems = parse_regions(spec, image.size)
    if problems:
        return None, problems
    drawn, _ = draw_overlay(image, regions)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{unique_name(spec['id'])}.png"  # different ids never share a file
    tmp = path.with_name(path.name + ".tmp")
    drawn.save(tmp, format="PNG")
    tmp.replace(path)
    return overlay_record(spec, path.relative_to(work).as_posix(), regions), []
