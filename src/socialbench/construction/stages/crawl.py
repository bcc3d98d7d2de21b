"""The ``crawl`` stage of ``socialbench build``: fetch real photo candidates from the user's
source into ``<work>/crawl/`` for the ``real-images`` filters (queries, records and files:
docs/build.md, "crawl")."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from socialbench.construction.crawl import Candidate, queries_from_taxonomy
from socialbench.construction.crawl_fetch import CrawlLimits, FetchError, Rejected, check_image, fetch_url
from socialbench.construction.crawl_sources import (
    FolderSource,
    SearchSource,
    Source,
    UrlListSource,
    folder_candidates,
    search_candidates,
    search_url,
    url_list_candidates,
)
from socialbench.construction.images import IMAGE_EXT
from socialbench.construction.jsonl import read_jsonl, write_jsonl
from socialbench.construction.stage_output import StageOutput
from socialbench.construction.stage_summary import StageSummary
from socialbench.construction.stages.common import StageRun, rel
from socialbench.errors import UsageError

__all__ = ["CrawlOptions", "crawl_stage", "crawl_provenance"]


@dataclass(frozen=True)
class CrawlOptions:
    """How many photos to keep per query (0: no limit), the fetch limits and where the
    queries are (default ``<work>/crawl_queries.jsonl``)."""

    per_query: int = 20
    limits: CrawlLimits = CrawlLimits()
    queries: Path | None = None


def _queries(work: Path, given: Path | None, needed: bool) -> list[dict[str, Any]]:
    """The query records: ``given``, else ``crawl_queries.jsonl``, else written there from
    ``taxonomy.jsonl`` (a search source needs one of them)."""
    if given is not None:
        if not given.is_file():
            raise UsageError(f"--queries: no such file {given}")
        rows = read_jsonl(given)
        for n, q in enumerate(rows, start=1):
            if not isinstance(q.get("query"), str) or not q["query"].strip():
                raise UsageError(f'{given}:{n}: a query record needs a non-empty "query" string')
        return rows
    path = work / "crawl_queries.jsonl"
    if path.is_file():
        return read_jsonl(path)
    taxonomy = work / "taxonomy.jsonl"
    if taxonomy.is_file():
        rows = queries_from_taxonomy(read_jsonl(taxonomy))
        write_jsonl(path, rows)
        return rows
    if needed:
        raise UsageError(
            f"a search source needs queries: run `socialbench build taxonomy -w {work}` first, or give --queries FILE"
        )
    return []


def _search(
    source: SearchSource, queries: list[dict[str, Any]], opts: CrawlOptions, store: StageOutput
) -> list[Candidate]:
    """The candidates of every query: stored replies reused, the others asked now (a
    failed query is recorded in ``store``'s failures and retried by the next run)."""
    key = os.environ.get(source.key_env, "") if source.key_env else None
    if source.key_env and not key:
        raise UsageError(f"--key-env {source.key_env}: the environment variable is not set")
    out: list[Candidate] = []
    stored = {r["id"]: r for r in store.records()}
    for q in queries:
        if q["id"] not in stored:
            shown = search_url(source.template, q["query"], opts.per_query, None)
            try:
                fetched = fetch_url(search_url(source.template, q["query"], opts.per_query, key), opts.limits)
                reply = json.loads(fetched.data.decode("utf-8"))
                found = search_candidates(reply, source.shape, q)
            except FetchError as exc:
                store.fail(q["id"], exc.kind, str(exc), url=shown)
                continue
            except Rejected as exc:  # e.g. HTTP 403 for a wrong key: asked again by the next run
                store.fail(q["id"], f"search_{exc.reason}", exc.detail, url=shown)
                continue
            except ValueError as exc:  # not JSON / no list at the results path
                store.fail(q["id"], "bad_reply", str(exc)[:500], url=shown)
                continue
            stored[q["id"]] = {"id": q["id"], "url": shown, "candidates": [c.provenance() for c in found]}
            store.write(stored[q["id"]])
        out += [Candidate(**c) for c in stored[q["id"]]["candidates"]]
    return out


def crawl_stage(work: Path, source: Source, opts: CrawlOptions) -> StageRun:
    """Fetch, validate and deduplicate the candidates of ``source`` into ``<work>/crawl``;
    candidates already in ``crawl.jsonl`` are skipped (those that failed are tried again)."""
    queries = _queries(work, opts.queries, isinstance(source, SearchSource))
    by_query = {q["id"]: q for q in queries}
    outputs: list[StageOutput] = []
    if isinstance(source, FolderSource):
        taxonomy = work / "taxonomy.jsonl"
        subs = {r["id"]: r for r in read_jsonl(taxonomy)} if taxonomy.is_file() else {}
        candidates = folder_candidates(source.folder, subs)
        label = f"folder:{source.folder}"
    elif isinstance(source, UrlListSource):
        candidates = url_list_candidates(source.file, by_query)
        label = f"urls:{source.file}"
    else:
        store = StageOutput(work / "crawl_search.jsonl", "crawl-search")
        outputs.append(store)
        candidates = _search(source, queries, opts, store)
        label = f"search:{source.template}"

    out = StageOutput(work / "crawl.jsonl", "crawl")
    outputs.insert(0, out)
    folder = work / "crawl"
    folder.mkdir(parents=True, exist_ok=True)
    previous = out.records()
    seen = {r["sha256"]: r["url"] for r in previous if r.get("status") == "kept"}
    kept_for: dict[str, int] = {}
    for r in previous:
        if r.get("status") == "kept" and r.get("query_id"):
            kept_for[r["query_id"]] = kept_for.get(r["query_id"], 0) + 1
    summary = StageSummary(stage="crawl", input=label, output="crawl.jsonl", n_in=len(candidates))
    tried: set[str] = set()
    for c in candidates:
        if c.id in tried:  # the same URL twice (e.g. found by two queries) is fetched once
            continue
        tried.add(c.id)
        if c.id in out.done:
            summary.n_skipped += 1
            continue
        if opts.per_query and c.query_id and kept_for.get(c.query_id, 0) >= opts.per_query:
            continue
        record: dict[str, Any] = {"id": c.id, **c.provenance()}
        try:
            fetched = fetch_url(c.url, opts.limits)
            mime, width, height = check_image(fetched, opts.limits)
        except FetchError as exc:
            out.fail(c.id, exc.kind, str(exc), url=c.url)
            continue
        except Rejected as exc:
            out.write({**record, "status": "rejected", "reason": exc.reason, "detail": exc.detail})
            summary.removed[exc.reason] = summary.removed.get(exc.reason, 0) + 1
            continue
        sha = hashlib.sha256(fetched.data).hexdigest()
        if sha in seen:
            out.write({**record, "status": "rejected", "reason": "duplicate", "detail": f"same SHA-256 as {seen[sha]}"})
            summary.removed["duplicate"] = summary.removed.get("duplicate", 0) + 1
            continue
        target = folder / f"{sha[:16]}{IMAGE_EXT[mime]}"
        target.write_bytes(fetched.data)
        seen[sha] = c.url
        if c.query_id:
            kept_for[c.query_id] = kept_for.get(c.query_id, 0) + 1
        out.write(
            {
                **record,
                "status": "kept",
                "image": rel(work, target),
                "sha256": sha,
                "mime": mime,
                "bytes": len(fetched.data),
                "width": width,
                "height": height,
            }
        )
    summary.n_new = out.written
    summary.n_out = len(out.done)
    n_kept = sum(1 for r in out.records() if r.get("status") == "kept")
    messages = [
        f"{n_kept} photo(s) in {folder}; filter them with: socialbench build real-images -w {work} {folder}",
    ]
    return StageRun(summary, outputs, messages=messages)


def crawl_provenance(work: Path) -> dict[str, dict[str, Any]]:
    """SHA-256 -> the provenance of each kept crawl photo (``source_url``, ``query_id``,
    ``query``, ``category``, ``subcategory``, ``license``, ``page``); empty without a crawl."""
    path = work / "crawl.jsonl"
    if not path.is_file():
        return {}
    out: dict[str, dict[str, Any]] = {}
    for r in read_jsonl(path):
        if r.get("status") != "kept":
            continue
        prov = {k: r[k] for k in ("query_id", "query", "category", "subcategory", "license", "page") if r.get(k)}
        out[r["sha256"]] = {"source_url": r["url"], **prov}
    return out
