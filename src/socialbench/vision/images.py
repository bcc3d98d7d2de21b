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


#: How :attr:`ImagePolicy.size` resizes: Pillow's antialiased Lanczos, or OpenCV's bilinear
#: (``cv2.INTER_LINEAR``, no antialiasing; :func:`socialbench.vision.resize.resize_linear`).
RESAMPLERS = ("lanczos", "opencv-linear")


@dataclass(frozen=True)
class ImagePolicy:
    """How images are prepared before they are sent to a model.

    ``max_side``: longest side in pixels after resizing (aspect ratio kept; never upscaled);
    0 keeps the original size. ``size``: (width, height) every image is resized to exactly,
    aspect ratio not kept (squashed), up or down; it replaces ``max_side``. ``resample``: the
    filter of a ``size`` resize (:data:`RESAMPLERS`; a ``max_side`` resize is Lanczos).
    ``format``: "JPEG" or "PNG". ``quality``: JPEG quality (Pillow, 4:2:0 chroma, standard
    tables, no Huffman optimisation: at one quality the same encoder settings as OpenCV's
    ``imencode``).
    """

    max_side: int = 768
    format: str = "JPEG"
    quality: int = 90
    size: tuple[int, int] | None = None
    resample: str = "lanczos"

    def __post_init__(self) -> None:
        if self.size is not None:  # run.json gives a list; an exact size has no longest side
            object.__setattr__(self, "size", (int(self.size[0]), int(self.size[1])))
            object.__setattr__(self, "max_side", 0)
        if self.resample not in RESAMPLERS:
            raise ValueError(f"resample must be one of {', '.join(RESAMPLERS)} (got {self.resample!r})")

    def describe(self) -> dict[str, object]:
        """The policy as run.json records it. ``size`` and ``resample`` appear only when set,
        so the record (and every render-cache key) of a ``max_side`` policy is as before."""
        out = asdict(self)
        if self.size is None:
            del out["size"]
        else:
            out["size"] = list(self.size)
        if self.resample == "lanczos":
            del out["resample"]
        return out

    def label(self) -> str:
        """The policy in words, as the report's notes say it.

        >>> ImagePolicy(size=(512, 512), quality=95, resample="opencv-linear", max_side=0).label()
        '512×512 (squashed, OpenCV bilinear), JPEG quality 95'
        >>> ImagePolicy().label()
        'longest side 768 px (aspect kept), JPEG quality 90'
        """
        if self.size is not None:
            how = "OpenCV bilinear" if self.resample == "opencv-linear" else "Lanczos"
            shape = f"{self.size[0]}×{self.size[1]} (squashed, {how})"
        elif self.max_side:
            shape = f"longest side {self.max_side} px (aspect kept)"
        else:
            shape = "full size"
        enc = "PNG" if self.format.upper() == "PNG" else f"JPEG quality {self.quality}"
        return f"{shape}, {enc}"


def _resized(img: Image.Image, policy: ImagePolicy) -> Image.Image:
    """``img`` at the policy's size (see :class:`ImagePolicy`)."""
    if policy.size is not None:
        if img.size == policy.size:
            return img
        if policy.resample == "opencv-linear":
            from socialbench.vision.resize import resize_linear

            return resize_linear(img, policy.size)
        return img.resize(policy.size, Image.Resampling.LANCZOS)
    if policy.max_side and max(img.size) > policy.max_side:
        scale = policy.max_side / max(img.size)
        size = (max(1, round(img.width * scale)), max(1, round(img.height * scale)))
        return img.resize(size, Image.Resampling.LANCZOS)
    return img


def prepare_image(img: Image.Image, policy: ImagePolicy, transform: Transform | None = None) -> EncodedImage:
    """Apply ``transform`` (e.g. a perturbation), resize and encode one image."""
    img = img.convert("RGB")
    if transform is not None:
        img = transform(img).convert("RGB")
    img = _resized(img, policy)
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
