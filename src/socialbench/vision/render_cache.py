"""A content-addressed cache of prepared (rendered, resized, encoded) prompt images.

A key is a SHA-256 over everything that decides the pixels (input file bytes, job parameters,
image policy, perturbation, :data:`RENDERER_VERSION`, Pillow and matplotlib versions), never
the model or method: README.md, "Render cache". Layout: ``<root>/<key[:2]>/<key>.img``, a
one-line JSON header (mime, width, height, length and SHA-256 of each image) then the bytes,
written atomically; ``<root>/seen/<tag>`` marks a dataset whose images a run prepared in full
(only a hint of when to start image workers). Entries are untrusted: anything but a regular
file of at most :data:`MAX_ENTRY_BYTES`, or an image not matching its header or not whole
(:func:`image_problem`), is a miss, rendered again and replaced.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from socialbench.errors import DataError, StorageError
from socialbench.files.atomic_write import write_bytes_atomic
from socialbench.files.safe_read import read_regular_bytes
from socialbench.records import json_digest
from socialbench.types import EncodedImage
from socialbench.versions import installed_version

#: Bump when anything in socialbench changes the pixels or bytes of a prepared image
#: (drawing, resizing, encoding), so entries written by older code are not served.
RENDERER_VERSION = "3"  # 3: sent-size frames shrunk with HAMMING, not LANCZOS

_SUFFIX = ".img"
_SEEN = "seen"
#: Largest render-cache entry read (bytes); a composite of a sample's frames is a few MB.
MAX_ENTRY_BYTES = 64 * 1024**2
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"


def image_problem(image: EncodedImage) -> str | None:
    """Why ``image``'s bytes are not a whole image of its mime type and size, or None.

    A structural check that reads no pixels: a PNG starts with its signature, its IHDR
    chunk gives ``width`` x ``height`` and it ends with the IEND chunk; a JPEG starts with
    the SOI marker and ends with the EOI marker (``FF D9``). Any other mime type is refused:
    socialbench encodes only these two."""
    data = image.data
    if image.mime == "image/png":
        if not data.startswith(_PNG_SIGNATURE) or data[12:16] != b"IHDR":
            return "not a PNG"
        size = (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big"))
        if size != (image.width, image.height):
            return f"a {size[0]}x{size[1]} PNG where the header says {image.width}x{image.height}"
        if not data.endswith(_PNG_END):
            return "a PNG cut short (no IEND chunk at its end)"
        return None
    if image.mime == "image/jpeg":
        if not data.startswith(b"\xff\xd8\xff"):
            return "not a JPEG"
        if not data.endswith(b"\xff\xd9"):
            return "a JPEG cut short (no end-of-image marker)"
        return None
    return f"an image of type {image.mime[:40]!r}, which socialbench never stores"


def default_render_cache_dir() -> Path:
    """``~/.cache/socialbench/renders``, beside the response cache."""
    return Path.home() / ".cache" / "socialbench" / "renders"


def _library_versions() -> dict[str, str]:
    return {pkg: installed_version(pkg) or "absent" for pkg in ("pillow", "matplotlib")}


def file_digest(path: str | Path) -> str:
    """SHA-256 of a file's bytes (hex)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def render_key(kind: str, params: object, files: Iterable[str | Path | None]) -> str:
    """The cache key of one job: ``kind`` names the job type, ``params`` is any
    JSON-serialisable description of its settings (policy, mode, perturbation, ...), and
    ``files`` are its input files, hashed by content (``None`` entries stand for "absent")."""
    digests = [None if f is None else file_digest(f) for f in files]
    doc = {
        "kind": kind,
        "renderer": RENDERER_VERSION,
        "libraries": _library_versions(),
        "params": params,
        "inputs": digests,
    }
    return json_digest(doc)


def seen_tag(description: object) -> str:
    """The tag of :meth:`RenderCache.mark_seen` for a JSON-serialisable ``description`` of
    what a run sends (benchmark, dataset folder, image settings), with
    :data:`RENDERER_VERSION` and the drawing libraries' versions (a new renderer sees
    nothing)."""
    return json_digest({"renderer": RENDERER_VERSION, "libraries": _library_versions(), "run": description})


def check_render_cache_folder(root: Path) -> None:
    """Refuse a render-cache folder that can never hold a file: ``root`` or one of its parents
    is a file. A folder that exists but cannot be written is accepted (it is read, and
    :meth:`RenderCache.put` skips writing), as is one that does not exist yet."""
    for path in (root, *root.parents):
        if path.exists():
            if not path.is_dir():
                raise StorageError(
                    f"--render-cache {root}: {path} is a file, not a folder; "
                    "fix: choose another --render-cache folder, or --no-render-cache"
                )
            return


class RenderCache:
    """Prepared images on disk, by content key (see the module docstring)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}{_SUFFIX}"

    def get(self, key: str) -> tuple[EncodedImage, ...] | None:
        """The images stored under ``key``, or None: absent, not a regular file, too large,
        or any image not matching its header or not whole (see the module docstring)."""
        try:
            blob = read_regular_bytes(self._path(key), MAX_ENTRY_BYTES)
        except DataError:
            return None
        head, nl, body = blob.partition(b"\n")
        try:
            meta = json.loads(head)
            out = []
            pos = 0
            for m in meta["images"]:
                n = int(m["size"])
                if n < 0:
                    return None
                data = body[pos : pos + n]
                if len(data) != n:
                    return None
                im = EncodedImage(data=data, mime=str(m["mime"]), width=int(m["width"]), height=int(m["height"]))
                # the hash is the one the request fingerprint uses: computed once, here
                if m["sha256"] != im.sha256 or image_problem(im) is not None:
                    return None
                out.append(im)
                pos += n
        except (ValueError, KeyError, TypeError, RecursionError):
            return None
        if not nl or pos != len(body):
            return None
        return tuple(out)

    def has_seen(self, tag: str) -> bool:
        """Whether a run marked ``tag`` (:meth:`mark_seen`): its images were all prepared
        and stored once. Only a hint (files may have changed since): a run uses it to
        decide when to start its image workers, never to skip a lookup."""
        return (self.root / _SEEN / tag).is_file()

    def mark_seen(self, tag: str) -> None:
        """Record that every image of ``tag`` has been prepared and stored (skipped, like
        :meth:`put`, where the cache cannot be written)."""
        try:
            write_bytes_atomic(self.root / _SEEN / tag, b"")
        except OSError:
            return

    def put(self, key: str, images: Sequence[EncodedImage]) -> None:
        """Store ``images`` under ``key`` atomically. A cache that cannot be written (full
        disk, read-only folder) is skipped silently: it only ever saves time."""
        head = json.dumps(
            {
                "images": [
                    {"mime": im.mime, "width": im.width, "height": im.height, "size": len(im.data), "sha256": im.sha256}
                    for im in images
                ]
            },
            separators=(",", ":"),
        ).encode()
        try:
            write_bytes_atomic(self._path(key), b"".join([head, b"\n", *(im.data for im in images)]))
        except OSError:
            return
