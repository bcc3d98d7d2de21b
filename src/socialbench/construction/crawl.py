"""Collecting real photo candidates from a user-configured source (RobotEQ App. B.1,
"candidate query generation" and "multi-source web crawling").

socialbench reaches no network of its own: the user names one source, and only the
addresses that source yields are fetched.

``folder:DIR``
    photos already on disk; a subfolder named after a subcategory id gives its photos that
    subcategory (files directly in ``DIR`` get none).
``urls:FILE``
    one candidate a line: a bare ``http(s)://`` URL, or a JSON object
    ``{"url": ..., "query_id": ..., "license": ..., "page": ...}`` (only ``url`` required);
    blank lines and lines starting with ``#`` are skipped.
``search:URL_TEMPLATE``
    a JSON search API, asked once per query. ``{query}`` in the template is replaced by the
    URL-encoded query text, ``{n}`` by ``--per-query`` (100 when it is 0) and ``{key}`` by the value of the
    environment variable ``--key-env`` (never written to any file). The reply is a JSON
    object; :class:`SearchShape` says where its image list lies (dotted ``results_path``,
    default ``results``) and which fields of each entry hold the image URL, the license and
    the page it came from. An entry may also be a bare URL string.

Queries (:func:`queries_from_taxonomy`) are the paper's three kinds per subcategory: a
first-person (POV) query, a scene-variant query and a staff-role query.

Each candidate is validated before it is kept (:func:`check_image`): HTTP status, the
``Content-Type`` header (when given) must be an image type, the size within
``min_bytes``-``max_bytes`` (``Content-Length`` checked before reading, the body read no
further than ``max_bytes``), the magic bytes JPEG/PNG/WebP, and the bytes must decode with
Pillow. Exact duplicates (SHA-256) are dropped by the stage.
"""

from __future__ import annotations

import hashlib
import io
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from socialbench.construction.images import sniff_mime
from socialbench.errors import UsageError

__all__ = [
    "Candidate",
    "CrawlLimits",
    "Fetched",
    "FetchError",
    "FolderSource",
    "Rejected",
    "SearchShape",
    "SearchSource",
    "UrlListSource",
    "check_image",
    "candidate_id",
    "fetch_url",
    "parse_source",
    "queries_from_taxonomy",
    "search_candidates",
]

QUERY_KINDS = ("pov", "scene", "staff")


def queries_from_taxonomy(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Three search queries per ``taxonomy.jsonl`` record (id ``<subcategory id>/<kind>``):
    ``pov`` asks for a first-person view, ``scene`` for the place with people in it,
    ``staff`` for the view of someone working there (a service robot's viewpoint)."""
    out: list[dict[str, Any]] = []
    for r in rows:
        name = str(r.get("subcategory") or r["id"]).strip()
        role = str(r.get("role") or "").strip()
        texts = {
            "pov": f"first person view walking in a {name.lower()} with people",
            "scene": f"{name.lower()} interior crowded with people real photo",
            "staff": f"staff point of view {role.lower()} serving people"
            if role
            else f"staff point of view working in a {name.lower()}",
        }
        for kind in QUERY_KINDS:
            out.append(
                {
                    "id": f"{r['id']}/{kind}",
                    "kind": kind,
                    "query": texts[kind],
                    "subcategory_id": r["id"],
                    "subcategory": r.get("subcategory"),
                    "category": r.get("category"),
                }
            )
    return out


@dataclass(frozen=True)
class Candidate:
    """One image address to fetch, with what is known of where it came from."""

    url: str
    query_id: str | None = None
    query: str | None = None
    category: str | None = None
    subcategory: str | None = None
    license: str | None = None
    page: str | None = None

    @property
    def id(self) -> str:
        return candidate_id(self.url)

    def provenance(self) -> dict[str, str]:
        """The fields a crawl record carries about this candidate (unset ones left out)."""
        keys = ("url", "query_id", "query", "category", "subcategory", "license", "page")
        return {k: getattr(self, k) for k in keys if getattr(self, k) is not None}


def candidate_id(url: str) -> str:
    """The record id of a candidate: ``url-`` and the first 16 hex digits of its SHA-256."""
    return "url-" + hashlib.sha256(url.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class CrawlLimits:
    """What a fetched candidate must satisfy, and how long a request may take."""

    min_bytes: int = 8 * 1024
    max_bytes: int = 20 * 1024 * 1024
    timeout_s: float = 30.0
    user_agent: str = "socialbench-crawl/1"


@dataclass(frozen=True)
class SearchShape:
    """Where a search reply keeps its images: the list at the dotted ``results_path``;
    in each entry (an object, or a bare URL string) the image URL at ``url_field``, and
    optionally a license at ``license_field`` and the page at ``page_field``."""

    results_path: str = "results"
    url_field: str = "url"
    license_field: str = "license"
    page_field: str = "page"


@dataclass(frozen=True)
class FolderSource:
    folder: Path


@dataclass(frozen=True)
class UrlListSource:
    file: Path


@dataclass(frozen=True)
class SearchSource:
    template: str
    shape: SearchShape = field(default_factory=SearchShape)
    key_env: str | None = None


Source = FolderSource | UrlListSource | SearchSource


def parse_source(spec: str, shape: SearchShape = SearchShape(), key_env: str | None = None) -> Source:
    """``folder:DIR``, ``urls:FILE`` or ``search:URL_TEMPLATE`` as a source (checked)."""
    kind, sep, value = spec.partition(":")
    if not sep or not value:
        raise UsageError(f"--source takes folder:DIR, urls:FILE or search:URL_TEMPLATE (got {spec!r})")
    if kind == "folder":
        if not Path(value).is_dir():
            raise UsageError(f"--source folder: no such folder {value}")
        return FolderSource(Path(value))
    if kind == "urls":
        if not Path(value).is_file():
            raise UsageError(f"--source urls: no such file {value}")
        return UrlListSource(Path(value))
    if kind == "search":
        if urllib.parse.urlsplit(value).scheme not in ("http", "https"):
            raise UsageError(f"--source search: the template must be an http(s) URL (got {value!r})")
        if "{query}" not in value:
            raise UsageError("--source search: the template needs a {query} placeholder, e.g. http://host/s?q={query}")
        if "{key}" in value and not key_env:
            raise UsageError("--source search: the template has {key}; name its environment variable with --key-env")
        return SearchSource(value, shape, key_env)
    raise UsageError(f"--source: unknown kind {kind!r}; use folder:DIR, urls:FILE or search:URL_TEMPLATE")


def url_list_candidates(file: Path, queries: Mapping[str, Mapping[str, Any]]) -> list[Candidate]:
    """The candidates of a URL list (see the module doc); a bad line raises a
    :class:`UsageError` naming the file and line."""
    out: list[Candidate] = []
    for n, raw in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        row: dict[str, Any]
        if line.startswith("{"):
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise UsageError(f"{file}:{n}: not valid JSON ({exc.msg})") from exc
            if not isinstance(row, dict) or not isinstance(row.get("url"), str):
                raise UsageError(f'{file}:{n}: a JSON line needs a "url" string')
        else:
            row = {"url": line}
        if urllib.parse.urlsplit(row["url"]).scheme not in ("http", "https"):
            raise UsageError(f"{file}:{n}: only http(s) URLs can be fetched (got {row['url']!r})")
        q = queries.get(str(row.get("query_id") or ""), {})
        out.append(
            Candidate(
                url=row["url"],
                query_id=row.get("query_id"),
                query=q.get("query"),
                category=row.get("category") or q.get("category"),
                subcategory=row.get("subcategory") or q.get("subcategory"),
                license=row.get("license"),
                page=row.get("page"),
            )
        )
    return out


def folder_candidates(folder: Path, subcategories: Mapping[str, Mapping[str, Any]]) -> list[Candidate]:
    """Every file under ``folder`` (sorted) as a ``file:`` candidate; a first-level subfolder
    named after a subcategory id gives that subcategory and its category."""
    out: list[Candidate] = []
    for p in sorted(q for q in folder.rglob("*") if q.is_file() and not q.name.startswith(".")):
        top = p.relative_to(folder).parts[0] if len(p.relative_to(folder).parts) > 1 else ""
        sub = subcategories.get(top, {})
        out.append(
            Candidate(url=p.resolve().as_uri(), category=sub.get("category"), subcategory=sub.get("subcategory"))
        )
    return out


def _at_path(doc: object, dotted: str) -> object:
    for part in [p for p in dotted.split(".") if p]:
        if isinstance(doc, dict) and part in doc:
            doc = doc[part]
        elif isinstance(doc, list) and part.isdigit() and int(part) < len(doc):
            doc = doc[int(part)]
        else:
            raise ValueError(f"the reply has no {dotted!r} (stopped at {part!r})")
    return doc


def search_candidates(reply: object, shape: SearchShape, query: Mapping[str, Any]) -> list[Candidate]:
    """The image candidates of one search reply (entries without an http(s) URL skipped);
    raises ``ValueError`` when the reply has no list at ``shape.results_path``."""
    results = _at_path(reply, shape.results_path)
    if not isinstance(results, list):
        raise ValueError(f"{shape.results_path!r} is not a list")
    out: list[Candidate] = []
    for entry in results:
        url = entry if isinstance(entry, str) else entry.get(shape.url_field) if isinstance(entry, dict) else None
        if not isinstance(url, str) or urllib.parse.urlsplit(url).scheme not in ("http", "https"):
            continue
        meta = entry if isinstance(entry, dict) else {}
        lic, page = meta.get(shape.license_field), meta.get(shape.page_field)
        out.append(
            Candidate(
                url=url,
                query_id=query.get("id"),
                query=query.get("query"),
                category=query.get("category"),
                subcategory=query.get("subcategory"),
                license=str(lic) if lic is not None else None,
                page=str(page) if page is not None else None,
            )
        )
    return out


def search_url(template: str, query: str, n: int, key: str | None) -> str:
    """The template filled in (query URL-encoded; ``n`` 0 asks for 100); with ``key`` None
    the ``{key}`` placeholder stays (the form that is written to files)."""
    url = template.replace("{query}", urllib.parse.quote_plus(query)).replace("{n}", str(n or 100))
    return url if key is None else url.replace("{key}", urllib.parse.quote(key, safe=""))


# --------------------------------------------------------------------------- fetching


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


def fetch_url(url: str, limits: CrawlLimits, headers: Mapping[str, str] | None = None) -> Fetched:
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
    req = urllib.request.Request(url, headers={"User-Agent": limits.user_agent, **(headers or {})})
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
