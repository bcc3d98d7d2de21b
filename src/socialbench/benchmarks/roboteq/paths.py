"""The files a RobotEQ row refers to: whether a label file may be read
(:func:`label_file_problem`), an image reference resolved inside the dataset folder
(:func:`resolve_image`: absolute paths, ``..`` and symbolic links leading outside are
refused) and whether the image decodes within
:data:`~socialbench.benchmarks.roboteq.schema.MAX_IMAGE_PIXELS` (:func:`image_problem`)."""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath, PureWindowsPath

from socialbench.benchmarks.roboteq.schema import MAX_IMAGE_PIXELS

__all__ = ["label_file_problem", "resolve_image", "image_problem"]


def label_file_problem(path: Path, root: Path) -> str | None:
    """What makes ``path`` unusable as a label file of the dataset at ``root``, or None:
    not a regular file (a FIFO, device or folder; reading one could block forever), or a
    symbolic link leading outside the dataset folder."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return f"cannot read the file ({exc.strerror})"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file (a FIFO, device or folder)"
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return "a symbolic link leading outside the dataset folder"
    return None


def resolve_image(root: Path, base: Path, value: object) -> tuple[str | None, str | None]:
    """Resolve an image reference to a path relative to ``root`` (POSIX form).

    ``base`` is the folder the reference is relative to (the metadata file's folder).
    Returns ``(relative path, None)`` or ``(None, message)`` when the value is missing or
    the path escapes the dataset folder (absolute path, ``..``, or a link leading outside).
    """
    if isinstance(value, dict):
        value = value.get("path") or value.get("file_name")
    if not isinstance(value, str) or not value.strip():
        return None, "no image path (expected a file_name or image field)"
    text = value.strip()
    if PurePosixPath(text).is_absolute() or PureWindowsPath(text).is_absolute() or PureWindowsPath(text).drive:
        return None, f"image path {text!r} is absolute and escapes the dataset folder"
    if "\x00" in text:
        return None, f"image path {text!r} contains a NUL character"
    try:
        root_r = root.resolve()
        full = (base / text).resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # too long, a link loop, ...
        return None, f"image path {text!r} cannot be resolved ({exc})"
    try:
        rel = full.relative_to(root_r)
    except ValueError:
        return None, f"image path {text!r} escapes the dataset folder {root}"
    return rel.as_posix(), None


def image_problem(path: Path, *, decode: bool) -> str | None:
    """None if ``path`` is a readable image; else what is wrong (missing, not a regular
    file, over :data:`~socialbench.benchmarks.roboteq.schema.MAX_IMAGE_PIXELS`, truncated or undecodable). ``decode`` decodes
    every pixel, as a model backend will; without it only the file's presence is checked."""
    try:
        if not path.is_file():
            return "image file is missing"
    except (OSError, ValueError) as exc:  # a name too long, or not encodable for the OS
        return f"image path cannot be used ({exc})"
    if not decode:
        return None
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # the size is checked below
            with Image.open(path) as img:
                w, h = img.size
                if w * h > MAX_IMAGE_PIXELS:
                    return f"image is {w}x{h} pixels, over the limit of {MAX_IMAGE_PIXELS:,} (resize it)"
                img.load()  # verify() alone misses truncated JPEG data
    except Image.DecompressionBombError as exc:
        return f"image is over the limit of {MAX_IMAGE_PIXELS:,} pixels ({exc})"
    except Exception as exc:  # PIL raises many types for broken files
        return f"image cannot be decoded ({type(exc).__name__}: {exc})"
    return None
