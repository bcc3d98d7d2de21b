"""The sources of real photo candidates (RobotEQ App. B.1 "multi-source web crawling"):
``folder:DIR``, ``urls:FILE`` and ``search:URL_TEMPLATE`` (formats: docs/build.md, "crawl"); the
user names one, and only the addresses it yields are fetched."""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from socialbench.construction.crawl import Candidate
from socialbench.errors import UsageError

__all__ = [
    "SearchShape",
    "FolderSource",
    "UrlListSource",
    "SearchSource",
    "Source",
    "parse_source",
    "url_list_candidates",
    "folder_candidates",
    "search_candidates",
    "search_url",
]


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
    """The candidates of a URL list (blank lines and ``#`` lines skipped); a bad line raises a
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
