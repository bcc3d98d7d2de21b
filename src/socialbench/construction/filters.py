"""Filters for collected real photos (RobotEQ App. B.1 and §4.2), cheapest first, each rejection
recorded with its reason: ``mime`` (magic bytes), ``size``, ``undecodable``, ``resolution``
(shorter side), ``duplicate`` (SHA-256), ``blurry`` (variance of the Laplacian at 512 px wide),
``near_duplicate`` (pHash within ``max_hamming``; of a group the image with most pixels, then
the sharpest, is kept) and, optionally, ``not_relevant`` (VLM screening: a robot-centric view of
a social scene)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from socialbench.construction.images import sniff_mime
from socialbench.construction.llm import JsonTask, OutputError, image_tasks
from socialbench.types import EncodedImage, GenerationConfig

__all__ = [
    "FilterOptions",
    "dhash",
    "phash",
    "hamming",
    "laplacian_variance",
    "scan_photos",
    "relevance_prompt",
    "validate_relevance",
    "relevance_tasks",
]

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".jfif", ".bin", ""}


@dataclass(frozen=True)
class FilterOptions:
    min_bytes: int = 8 * 1024
    max_bytes: int = 20 * 1024 * 1024
    min_side: int = 480
    min_sharpness: float = 100.0
    max_hamming: int = 8  # pHash bits
    sharpness_width: int = 512


def _grey(img: Image.Image, size: tuple[int, int]) -> np.ndarray:
    return np.asarray(img.convert("L").resize(size, Image.Resampling.LANCZOS), dtype=np.float64)


def dhash(img: Image.Image, bits: int = 8) -> int:
    """Difference hash: ``bits x bits`` horizontal gradient signs of a (bits+1) x bits thumbnail."""
    g = _grey(img, (bits + 1, bits))
    diff = g[:, 1:] > g[:, :-1]
    return int("".join("1" if v else "0" for v in diff.flatten()), 2)


def _dct_matrix(n: int) -> np.ndarray:
    k = np.arange(n)[:, None]
    x = np.arange(n)[None, :]
    m = np.cos(np.pi * (2 * x + 1) * k / (2 * n)) * np.sqrt(2.0 / n)
    m[0] /= np.sqrt(2.0)
    return m


_DCT32 = _dct_matrix(32)


def phash(img: Image.Image) -> int:
    """Perceptual hash: signs of the 8x8 lowest DCT frequencies (DC excluded from the
    median) of a 32x32 grey thumbnail, against their median."""
    g = _grey(img, (32, 32))
    coeffs = (_DCT32 @ g @ _DCT32.T)[:8, :8].flatten()
    med = np.median(coeffs[1:])
    return int("".join("1" if c > med else "0" for c in coeffs), 2)


def hamming(a: int, b: int) -> int:
    return bin(a ^ b).count("1")


def laplacian_variance(img: Image.Image, width: int = 512) -> float:
    """Variance of the 4-neighbour Laplacian of a grey copy resized to ``width`` pixels
    wide (so thresholds do not depend on the photo's resolution)."""
    h = max(3, round(img.height * width / max(1, img.width)))
    g = _grey(img, (width, h))
    lap = g[1:-1, :-2] + g[1:-1, 2:] + g[:-2, 1:-1] + g[2:, 1:-1] - 4 * g[1:-1, 1:-1]
    return float(lap.var())


def _files(paths: Sequence[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(q for q in p.rglob("*") if q.is_file() and not q.name.startswith(".")))
        elif p.is_file():
            out.append(p)
    return out


def scan_photos(
    paths: Sequence[Path], options: FilterOptions = FilterOptions()
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(accepted, rejected) entries for every file under ``paths`` (sorted, deterministic).
    The ``real-images`` stage adds and renames fields of the accepted ones in place."""
    accepted: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    seen_sha: dict[str, str] = {}
    for f in _files(list(paths)):
        entry: dict[str, object] = {"path": str(f)}
        size = f.stat().st_size
        with open(f, "rb") as fh:
            head = fh.read(16)
        mime = sniff_mime(head)
        if mime is None:
            rejected.append({**entry, "reason": "mime", "detail": "not JPEG, PNG or WebP by its magic bytes"})
            continue
        if not (options.min_bytes <= size <= options.max_bytes):
            rejected.append(
                {**entry, "reason": "size", "detail": f"{size} bytes, allowed {options.min_bytes}-{options.max_bytes}"}
            )
            continue
        data = f.read_bytes()
        sha = hashlib.sha256(data).hexdigest()
        try:
            with Image.open(f) as img:
                img.load()
                img = img.convert("RGB")
        except Exception as exc:
            rejected.append({**entry, "reason": "undecodable", "detail": f"{type(exc).__name__}: {exc}"[:200]})
            continue
        if min(img.size) < options.min_side:
            rejected.append(
                {
                    **entry,
                    "reason": "resolution",
                    "detail": f"{img.width}x{img.height}, shorter side < {options.min_side}",
                }
            )
            continue
        if sha in seen_sha:
            rejected.append({**entry, "reason": "duplicate", "detail": "same SHA-256", "duplicate_of": seen_sha[sha]})
            continue
        seen_sha[sha] = str(f)
        sharp = laplacian_variance(img, options.sharpness_width)
        if sharp < options.min_sharpness:
            rejected.append(
                {**entry, "reason": "blurry", "detail": f"Laplacian variance {sharp:.1f} < {options.min_sharpness}"}
            )
            continue
        accepted.append(
            {
                **entry,
                "sha256": sha,
                "mime": mime,
                "bytes": size,
                "width": img.width,
                "height": img.height,
                "sharpness": round(sharp, 2),
                "phash": f"{phash(img):016x}",
                "dhash": f"{dhash(img):016x}",
            }
        )
    # near-duplicates: best first (most pixels, then sharpest), greedy
    order = sorted(
        range(len(accepted)),
        key=lambda i: (-accepted[i]["width"] * accepted[i]["height"], -accepted[i]["sharpness"], accepted[i]["path"]),
    )
    kept: list[int] = []
    drop: dict[int, tuple[int, int]] = {}
    for i in order:
        ph = int(accepted[i]["phash"], 16)
        match = next(
            (
                (j, hamming(ph, int(accepted[j]["phash"], 16)))
                for j in kept
                if hamming(ph, int(accepted[j]["phash"], 16)) <= options.max_hamming
            ),
            None,
        )
        if match is None:
            kept.append(i)
        else:
            drop[i] = match
    final = []
    for i, e in enumerate(accepted):
        if i in drop:
            j, dist = drop[i]
            rejected.append(
                {
                    "path": e["path"],
                    "reason": "near_duplicate",
                    "duplicate_of": accepted[j]["path"],
                    "detail": f"pHash distance {dist} <= {options.max_hamming} "
                    f"(dHash distance {hamming(int(e['dhash'], 16), int(accepted[j]['dhash'], 16))})",
                }
            )
        else:
            final.append(e)
    return final, rejected


# --------------------------------------------------------------------------- VLM relevance


def relevance_prompt() -> str:
    return "\n".join(
        [
            "You screen photos for a benchmark of robot social intelligence.",
            "Answer two questions about the attached photo:",
            "1. robot_centric: is it taken from a first-person viewpoint that a service robot moving among people could "
            "have (not a third-person view of a robot, not an aerial view, not a close-up product or portrait shot)?",
            "2. suitable: does it show a real social situation with people where a robot would have to choose a socially "
            "appropriate next action?",
            'Reply with only a JSON object: {"robot_centric": true, "suitable": true, "reason": "one sentence"}',
        ]
    )


def validate_relevance(obj: dict[str, object]) -> dict[str, object]:
    for key in ("robot_centric", "suitable"):
        if key not in obj:
            raise OutputError("missing_fields", f"the reply lacks {key}")
        if not isinstance(obj[key], bool):
            raise OutputError("invalid_output", f"{key} must be true or false")
    return {"robot_centric": obj["robot_centric"], "suitable": obj["suitable"], "reason": str(obj.get("reason") or "")}


def relevance_tasks(
    entries: Sequence[Mapping[str, object]], images: Mapping[str, EncodedImage], config: GenerationConfig
) -> list[JsonTask]:
    return image_tasks(entries, images, lambda e: relevance_prompt(), validate_relevance, config)
