"""Spatial-grounding overlays drawn programmatically from region specs (replaces RobotEQ App. E's
image-editing step, which misplaces, overlaps or drops labels). Every size derives from the
image's shorter side; lines and badges have a dark halo; colours are the colour-blind-safe
Okabe-Ito :data:`PALETTE`; each letter badge stays inside the image and off other badges."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from socialbench.benchmarks.roboteq.schema import LETTERS
from socialbench.construction.overlay_regions import Region, parse_regions
from socialbench.construction.record_fields import mapping, text

__all__ = ["PALETTE", "draw_overlay", "overlay_record", "render_spec"]

#: Region colours by letter: Okabe-Ito blue, vermillion, bluish green and reddish purple.
PALETTE: dict[str, tuple[int, int, int]] = {
    "A": (0, 114, 178),
    "B": (213, 94, 0),
    "C": (0, 158, 115),
    "D": (204, 121, 167),
}


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


def overlay_record(spec: Mapping[str, object], image_rel: str, regions: Sequence[Region]) -> dict[str, object]:
    """The ``grounding_items.jsonl`` record of a drawn overlay (the answer is kept as a
    proposal only; annotators decide)."""
    return {
        "id": spec["id"],
        "image": image_rel,
        "source_image": spec["image"],
        "question": spec["question"],
        "options": {k: v for k, v in mapping(spec, "options").items() if k in LETTERS},
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


def render_spec(spec: Mapping[str, object], work: Path, out_dir: Path) -> tuple[dict[str, object] | None, list[str]]:
    """Draw one spec's overlay into ``out_dir``; returns (record, problems)."""
    from socialbench.construction.file_names import unique_name

    problems = []
    for key in ("id", "image", "question"):
        value = spec.get(key)
        if not isinstance(value, str) or not value.strip():
            problems.append(f"{key} is missing")
    if problems:
        return None, problems
    image_path = text(spec, "image")
    src = work / image_path
    try:
        with Image.open(src) as img:
            img.load()
            image = img.copy()
    except OSError as exc:
        return None, [f"cannot open image {image_path}: {exc}"]
    regions, problems = parse_regions(spec, image.size)
    if problems:
        return None, problems
    drawn, _ = draw_overlay(image, regions)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{unique_name(text(spec, 'id'))}.png"  # different ids never share a file
    tmp = path.with_name(path.name + ".tmp")
    drawn.save(tmp, format="PNG")
    tmp.replace(path)
    return overlay_record(spec, path.relative_to(work).as_posix(), regions), []
