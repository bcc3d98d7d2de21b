"""Image policy: load, resize, (perturb,) encode — once per image.

The policy is part of a run's identity (recorded in run.json) and of the cache key (through
the encoded bytes). Encoding is CPU work: during a run it happens in worker processes
(:mod:`socialbench.vision.prepare`), so the event loop keeps serving model calls.
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from PIL import Image

from socialbench.errors import DataError
from socialbench.types import EncodedImage

Transform = Callable[[Image.Image], Image.Image]


@dataclass(frozen=True)
class ImagePolicy:
    """How images are prepared before they are sent to a model.

    ``max_side``: longest side in pixels after resizing (aspect ratio kept; never upscaled);
    0 keeps the original size. ``format``: "JPEG" or "PNG". ``quality``: JPEG quality.
    """

    max_side: int = 768
    format: str = "JPEG"
    quality: int = 90

    def describe(self) -> dict[str, object]:
        return asdict(self)


def prepare_image(img: Image.Image, policy: ImagePolicy, transform: Transform | None = None) -> EncodedImage:
    """Apply ``transform`` (e.g. a perturbation), resize and encode one image."""
    img = img.convert("RGB")
    if transform is not None:
        img = transform(img).convert("RGB")
    if policy.max_side and max(img.size) > policy.max_side:
        scale = policy.max_side / max(img.size)
        size = (max(1, round(img.width * scale)), max(1, round(img.height * scale)))
        img = img.resize(size, Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    if policy.format.upper() == "PNG":
        img.save(buf, format="PNG", optimize=False)
        mime = "image/png"
    else:
        img.save(buf, format="JPEG", quality=policy.quality, optimize=False)
        mime = "image/jpeg"
    return EncodedImage(data=buf.getvalue(), mime=mime, width=img.width, height=img.height)


class ImageEncoder:
    """Encodes image files under a policy with a bounded in-memory LRU cache.

    The cache key is (path, modification time, size), so each image is decoded, resized and
    encoded once per run even when many questions share it.
    """

    def __init__(self, policy: ImagePolicy, transform: Transform | None = None, capacity: int = 256):
        self.policy = policy
        self.transform = transform
        self.capacity = capacity
        self._cache: OrderedDict[tuple[str, float, int], EncodedImage] = OrderedDict()
        self._lock = threading.Lock()
        self.encoded = 0  # how many images were actually encoded (not served from cache)

    def encode(self, path: str | Path) -> EncodedImage:
        p = Path(path)
        try:
            st = p.stat()
        except OSError as exc:
            raise DataError.single(
                p, "image", f"cannot read image: {exc.strerror}", "check the dataset folder is complete"
            ) from exc
        key = (str(p), st.st_mtime, st.st_size)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        try:
            with Image.open(p) as img:
                img.load()
                enc = prepare_image(img, self.policy, self.transform)
        except (OSError, ValueError) as exc:
            raise DataError.single(
                p, "image", f"cannot decode image: {exc}", "replace the file with a valid PNG or JPEG"
            ) from exc
        with self._lock:
            self.encoded += 1
            self._cache[key] = enc
            if len(self._cache) > self.capacity:
                self._cache.popitem(last=False)
        return enc

    def encode_many(self, paths: Sequence[str | Path]) -> tuple[EncodedImage, ...]:
        return tuple(self.encode(p) for p in paths)
