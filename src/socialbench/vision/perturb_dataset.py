"""Perturbed copies of a dataset folder (``socialbench data perturb``): every image decoded,
perturbed (:mod:`socialbench.vision.perturb`) and written in its own format, every other
file copied unchanged."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from socialbench.errors import DataError, Problem, UsageError
from socialbench.vision.perturb import METAMORPHIC, check_perturbation, make_perturbation

__all__ = ["IMAGE_SUFFIXES", "perturb_dataset"]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp")


def _save_like(img: Image.Image, dst: Path, original_format: str | None) -> None:
    suffix = dst.suffix.lower()
    if suffix in (".jpg", ".jpeg"):
        img.save(dst, format="JPEG", quality=95)
    elif suffix == ".png":
        img.save(dst, format="PNG")
    elif suffix == ".webp":
        img.save(dst, format="WEBP", quality=95)
    else:
        img.save(dst, format=original_format or "PNG")


def perturb_dataset(
    src: Path, dst: Path, name: str, strength: float, seed: int, progress: Callable[[int, int], None] | None = None
) -> int:
    """Write a copy of dataset folder ``src`` to ``dst`` with every image perturbed.

    Every file under ``src`` whose suffix is one of :data:`IMAGE_SUFFIXES` is decoded,
    perturbed and written to the same relative path under ``dst`` in the same format (JPEG
    and WebP at quality 95, PNG lossless); every other file is copied unchanged, so label
    files keep pointing at the right images. A ``perturbation.json`` at the root of ``dst``
    records name, strength, seed and source. Returns the number of images written.
    ``progress(done, total)`` is called after each file (image or not) is written.

    Raises :class:`UsageError` when ``src`` is not a folder, ``dst`` exists and is not
    empty, or ``dst`` lies inside ``src``; raises :class:`DataError` listing every image that
    could not be decoded (the other files are still written).
    """
    check_perturbation(name, strength)
    if name in METAMORPHIC:
        raise UsageError(
            f"--perturb {name} changes the right answers, so a perturbed copy would carry wrong "
            f"labels; use `socialbench eval --perturb {name}` instead"
        )
    src, dst = Path(src), Path(dst)
    if not src.is_dir():
        raise UsageError(f"{src} is not a dataset folder")
    src_r, dst_r = src.resolve(), dst.resolve()
    if dst_r == src_r or src_r in dst_r.parents:
        raise UsageError(f"the output folder {dst} must not be inside the dataset folder {src}")
    if dst.exists() and (not dst.is_dir() or any(dst.iterdir())):
        raise UsageError(f"{dst} already exists and is not empty; choose a new output folder")
    perturb = make_perturbation(name, strength, seed)
    dst.mkdir(parents=True, exist_ok=True)
    written = 0
    problems: list[Problem] = []
    files: list[tuple[Path, Path]] = []  # (source, destination), in walk order
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        rel_dir = Path(dirpath).relative_to(src)
        (dst / rel_dir).mkdir(parents=True, exist_ok=True)
        files += [(Path(dirpath) / fname, dst / rel_dir / fname) for fname in sorted(filenames)]
    for done, (s_path, d_path) in enumerate(files, 1):
        if s_path.suffix.lower() not in IMAGE_SUFFIXES:
            shutil.copyfile(s_path, d_path)
        else:
            try:
                with Image.open(s_path) as img:
                    img.load()
                    fmt = img.format
                    out = perturb(img)
            except (OSError, ValueError) as exc:
                problems.append(
                    Problem(str(s_path), "image", f"cannot decode image: {exc}", "replace or remove the file")
                )
            else:
                _save_like(out, d_path, fmt)
                written += 1
        if progress is not None:
            progress(done, len(files))
    (dst / "perturbation.json").write_text(
        json.dumps({**perturb.describe(), "source": str(src), "images": written}, indent=2) + "\n", encoding="utf-8"
    )
    if problems:
        raise DataError(problems)
    return written
