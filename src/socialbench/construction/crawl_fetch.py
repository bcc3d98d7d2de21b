"""Fetching one photo candidate and validating it (RobotEQ App. B.1, :func:`check_image`): HTTP
status, ``Content-Type``, size (the body read no further than ``max_bytes``), magic bytes and a
Pillow decode."""

from __future__ import annotations

import io
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from socialbench.construction.images import sniff_mime

__all__ = ["CrawlLimits", "FetchError", "Rejected", "Fetched", "fetch_url", "check_image"]


@dataclass(frozen=True)
class CrawlLimits:
    """What a fetched candidate must satisfy, and how long a request may take."""

    min_bytes: int = 8 * 1024
    max_bytes: int = 20 * 1024 * 1024
    timeout_s: float = 30.0
    user_agent: str = "socialbench-crawl/1"


class FetchError(Exception):
    """The candidate could not be fetched this time (network, timeout, 5xx, 408, 429):
    recorded as a failure and retried by the next run."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class Rejected(Exception):
    """The candidate was fetched (or refused by the server for good) and is not a usable
    photo: ``reason`` is one of ``http_status``, ``content_type``, ``size``, ``mime``,
    ``undecodable``. Recorded and not fetched again."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class Fetched:
    """The bytes of a candidate and the ``Content-Type`` its server sent (None for files)."""

    data: bytes
    content_type: str | None


_RETRYABLE_STATUS = {408, 425, 429}


def _read_limited(stream: io.BufferedIOBase, limit: int) -> bytes:  # a file or an HTTP response
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise Rejected("size", f"more than {limit} bytes")
    return bytes(data)


def fetch_url(url: str, limits: CrawlLimits) -> Fetched:
    """GET ``url`` (``http``, ``https`` or ``file``) reading at most ``limits.max_bytes``."""
    scheme = urllib.parse.urlsplit(url).scheme
    if scheme == "file":
        path = Path(urllib.request.url2pathname(urllib.parse.urlsplit(url).path))
        try:
            size = path.stat().st_size
            if size > limits.max_bytes:
                raise Rejected("size", f"{size} bytes, allowed {limits.min_bytes}-{limits.max_bytes}")
            with open(path, "rb") as fh:
                return Fetched(_read_limited(fh, limits.max_bytes), None)
        except OSError as exc:
            raise FetchError("io_error", f"{type(exc).__name__}: {exc}") from exc
    if scheme not in ("http", "https"):
        raise Rejected("http_status", f"unsupported URL scheme {scheme!r}")
    req = urllib.request.Request(url, headers={"User-Agent": limits.user_agent})
    try:
        with urllib.request.urlopen(req, timeout=limits.timeout_s) as resp:  # noqa: S310 (scheme checked)
            final = urllib.parse.urlsplit(resp.geturl()).scheme
            if final not in ("http", "https"):
                raise Rejected("http_status", f"redirected to a {final!r} URL")
            length = resp.headers.get("Content-Length")
            if length and length.isdigit() and int(length) > limits.max_bytes:
                raise Rejected("size", f"Content-Length {length}, allowed {limits.min_bytes}-{limits.max_bytes}")
            return Fetched(_read_limited(resp, limits.max_bytes), resp.headers.get("Content-Type"))
    except urllib.error.HTTPError as exc:
        if exc.code >= 500 or exc.code in _RETRYABLE_STATUS:
            raise FetchError("http_error", f"HTTP {exc.code} {exc.reason}") from exc
        raise Rejected("http_status", f"HTTP {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        kind = "timeout" if isinstance(reason, TimeoutError) or isinstance(exc, TimeoutError) else "network_error"
        raise FetchError(kind, f"{type(exc).__name__}: {reason}") from exc


def check_image(fetched: Fetched, limits: CrawlLimits) -> tuple[str, int, int]:
    """(mime, width, height) of a fetched photo, or :class:`Rejected` with the first check
    it fails (content type, size, magic bytes, Pillow decode)."""
    from PIL import Image

    ctype = (fetched.content_type or "").split(";")[0].strip().lower()
    if ctype and not ctype.startswith("image/"):
        raise Rejected("content_type", f"Content-Type {ctype}")
    size = len(fetched.data)
    if not limits.min_bytes <= size <= limits.max_bytes:
        raise Rejected("size", f"{size} bytes, allowed {limits.min_bytes}-{limits.max_bytes}")
    mime = sniff_mime(fetched.data[:16])
    if mime is None:
        raise Rejected("mime", "not JPEG, PNG or WebP by its magic bytes")
    try:
        with Image.open(io.BytesIO(fetched.data)) as img:
            img.load()
            return mime, img.width, img.height
    except Exception as exc:  # Pillow raises many types for broken files
        raise Rejected("undecodable", f"{type(exc).__name__}: {exc}"[:200]) from exc
