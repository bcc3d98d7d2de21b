"""Real photo candidates from a user-configured source (RobotEQ App. B.1): the search queries
(:func:`queries_from_taxonomy`, the paper's POV, scene and staff kinds per subcategory) and
the :class:`Candidate` s the sources of :mod:`~socialbench.construction.crawl_sources` yield."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["QUERY_KINDS", "Candidate", "candidate_id", "queries_from_taxonomy"]

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
