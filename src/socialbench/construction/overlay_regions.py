"""Region specs of spatial-grounding overlays (one JSONL record per grounding question) and their
parsing into pixel-coordinate :class:`Region` s; the spec format is in docs/build.md,
"9. overlays — region specs"."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from socialbench.benchmarks.roboteq.schema import LETTERS

__all__ = ["SHAPES", "Region", "parse_regions"]

SHAPES = ("box", "polygon", "arrow", "path")


@dataclass(frozen=True)
class Region:
    label: str
    shape: str
    points: tuple[tuple[float, float], ...]  # pixel coordinates; a box is (x0, y0), (x1, y1)


def parse_regions(spec: Mapping[str, object], size: tuple[int, int]) -> tuple[list[Region], list[str]]:
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
