"""The images of the synthetic SocialNav-SUB fixture: procedural front-camera frames with
each person's bounding box, a schematic bird's-eye view, and the annotated composite
(frame on top, BEV below) the official layout ships per frame."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from socialbench.benchmarks.socialnav_sub.synthetic_scene import NATIVE_H, NATIVE_W, Scene

if TYPE_CHECKING:
    from PIL import Image, ImageFont

__all__ = ["font_of_size", "frame_image", "bev_image", "composite_image"]

_COLOURS = [
    (220, 40, 40),
    (40, 120, 220),
    (40, 170, 60),
    (230, 150, 20),
    (150, 60, 200),
    (20, 170, 170),
    (200, 60, 140),
    (120, 120, 40),
    (90, 90, 220),
    (220, 100, 80),
    (60, 140, 110),
    (170, 40, 90),
    (100, 60, 30),
]


def font_of_size(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def _box_bottom(box: tuple[float, float, float, float] | None) -> float:
    """The lower edge of a bounding box (0 when the person is not in view)."""
    return box[3] if box else 0


def frame_image(scene: Scene, t: int, size: tuple[int, int]) -> Image.Image:
    from PIL import Image, ImageDraw

    w, h = size
    img = Image.new("RGB", (w, h), (150, 185, 215))
    draw = ImageDraw.Draw(img)
    horizon = int(h * 0.45)
    shift = int((scene.robot[t][2] * 200 + t * 3) % 40)
    draw.rectangle([0, horizon, w, h], fill=(120, 115, 105))
    for k in range(-1, w // 40 + 2):  # paving lines that move with the robot
        x = k * 40 + shift
        draw.line([(x, horizon), (x - (x - w / 2) * 0.8, h)], fill=(100, 96, 90), width=1)
    sx, sy = w / NATIVE_W, h / NATIVE_H
    for person in sorted(scene.people, key=lambda p: -_box_bottom(p.bboxes[t])):
        box = person.bboxes[t]
        if box is None:
            continue
        colour = _COLOURS[(person.label - 1) % len(_COLOURS)]
        draw.rectangle([box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy], fill=colour)
    return img


def bev_image(scene: Scene, t: int, width: int, font: ImageFont.FreeTypeFont | ImageFont.ImageFont) -> Image.Image:
    from PIL import Image, ImageDraw

    pts = [p for person in scene.people for p in person.positions]
    goal = (scene.goal_mm[0] / 1000, scene.goal_mm[1] / 1000)
    pts += [(r[0], r[1]) for r in scene.robot] + [goal]
    xmin = min([0.0] + [p[0] - 0.5 for p in pts])
    xmax = max([10.0] + [p[0] + 0.5 for p in pts])
    ymin = min([-5.0] + [p[1] - 0.5 for p in pts])
    ymax = max([5.0] + [p[1] + 0.5 for p in pts])
    span = max(xmax - xmin, ymax - ymin)
    scale = width / span

    def px(p: tuple[float, float]) -> tuple[float, float]:  # forward up, left on the left
        return ((ymax - p[1]) * scale, (xmin + span - p[0]) * scale)

    img = Image.new("RGB", (width, width), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    r = max(3, width // 60)
    for person in scene.people:
        cx, cy = px(person.positions[t])
        colour = _COLOURS[(person.label - 1) % len(_COLOURS)]
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=colour)
        draw.text((cx + r + 1, cy - r), str(person.label), fill=(0, 0, 0), font=font)
    rx, ry, rth = scene.robot[t]
    cx, cy = px((rx, ry))
    hx, hy = px((rx + 0.6 * math.cos(rth), ry + 0.6 * math.sin(rth)))
    draw.rectangle([cx - r, cy - r, cx + r, cy + r], fill=(0, 0, 0))
    draw.line([(cx, cy), (hx, hy)], fill=(0, 0, 0), width=2)
    draw.text((cx + r + 1, cy - r), "R", fill=(0, 0, 0), font=font)
    gx, gy = px(goal)
    draw.polygon([(gx, gy - r), (gx + r, gy), (gx, gy + r), (gx - r, gy)], fill=(0, 0, 0))
    draw.text((gx + r + 1, gy - r), "G", fill=(0, 0, 0), font=font)
    return img


def composite_image(
    scene: Scene, frame: Image.Image, t: int, font: ImageFont.FreeTypeFont | ImageFont.ImageFont
) -> Image.Image:
    """Half-size annotated frame on top, schematic BEV of the same width below."""
    from PIL import Image, ImageDraw

    w, h = max(32, frame.size[0] // 2), max(18, frame.size[1] // 2)
    top = frame.resize((w, h), Image.Resampling.BILINEAR)
    draw = ImageDraw.Draw(top)
    sx, sy = w / NATIVE_W, h / NATIVE_H
    r = max(3, round(30 * sx))
    for person in scene.people:
        box = person.bboxes[t]
        if box is None:
            continue
        cx, cy = (box[0] + box[2]) / 2 * sx, (box[1] + box[3]) / 2 * sy
        colour = _COLOURS[(person.label - 1) % len(_COLOURS)]
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=colour)
        draw.text((cx - r / 2, cy - r / 2), str(person.label), fill=(255, 255, 255), font=font)
    out = Image.new("RGB", (w, h + w), (255, 255, 255))
    out.paste(top, (0, 0))
    out.paste(bev_image(scene, t, w, font), (0, h))
    return out
