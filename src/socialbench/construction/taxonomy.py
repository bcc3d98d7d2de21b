"""The RobotEQ scenario taxonomy: categories -> subcategories (shipped as ``taxonomy.yaml``), read
and checked by :func:`load_taxonomy`, one ``taxonomy.jsonl`` record per subcategory
(:func:`taxonomy_records`)."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import yaml

from socialbench.errors import DataError, Problem
from socialbench.files.yaml_read import load_yaml

__all__ = [
    "Subcategory",
    "Category",
    "Taxonomy",
    "shipped_taxonomy_path",
    "load_taxonomy",
    "taxonomy_records",
    "copy_shipped_taxonomy",
]

_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Subcategory:
    id: str
    name: str
    category_id: str
    category: str  # the category's display name
    role: str = ""
    description: str = ""

    @property
    def role_text(self) -> str:
        """``role`` or a fallback built from the name (``a service robot in: <name>``)."""
        return self.role or f"a service robot in the setting: {self.name}"


@dataclass(frozen=True)
class Category:
    id: str
    name: str
    description: str
    subcategories: tuple[Subcategory, ...]


@dataclass(frozen=True)
class Taxonomy:
    categories: tuple[Category, ...]

    @property
    def subcategories(self) -> tuple[Subcategory, ...]:
        return tuple(s for c in self.categories for s in c.subcategories)


def shipped_taxonomy_path() -> Path:
    """The taxonomy file shipped with socialbench (10 categories, 56 subcategories)."""
    return Path(str(resources.files("socialbench.construction").joinpath("taxonomy.yaml")))


def _text(d: dict[str, object], key: str) -> str:
    v = d.get(key)
    return v.strip() if isinstance(v, str) else ""


def _checked_id_and_name(
    entry: dict[str, object], kind: str, where: str, example_id: str, seen: set[str], file: str, problems: list[Problem]
) -> tuple[str, str]:
    """The ``id`` and ``name`` of a category or subcategory (``kind``) at ``where``; appends a
    problem for an id that is not lowercase-with-dashes or repeats one in ``seen`` (the id is
    added to it) and for a missing name."""
    id_, name = _text(entry, "id"), _text(entry, "name")
    if not _ID.match(id_):
        problems.append(
            Problem(file, f"{where}.id", f"{kind} id {id_!r} is not lowercase-with-dashes", f"use e.g. {example_id}")
        )
    elif id_ in seen:
        problems.append(Problem(file, f"{where}.id", f"duplicate {kind} id {id_!r}", f"give every {kind} its own id"))
    seen.add(id_)
    if not name:
        problems.append(Problem(file, f"{where}.name", f"{kind} has no name", "add a name"))
    return id_, name


def load_taxonomy(path: str | Path | None = None) -> Taxonomy:
    """Read and check a taxonomy YAML file; raise :class:`DataError` with every problem."""
    p = Path(path) if path is not None else shipped_taxonomy_path()
    try:
        doc = load_yaml(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataError.single(p, "", f"cannot read taxonomy: {exc.strerror}", "pass an existing YAML file") from exc
    except yaml.YAMLError as exc:
        raise DataError.single(
            p, "", f"not valid YAML: {exc}", "fix the YAML syntax (quote names with commas or colons)"
        ) from exc
    problems: list[Problem] = []
    f = str(p)
    if not isinstance(doc, dict) or not isinstance(doc.get("categories"), list) or not doc["categories"]:
        raise DataError.single(p, "categories", "no categories list", "add `categories:` with at least one category")
    seen_cat: set[str] = set()
    seen_sub: set[str] = set()
    categories: list[Category] = []
    for i, c in enumerate(doc["categories"]):
        where = f"categories[{i}]"
        if not isinstance(c, dict):
            problems.append(Problem(f, where, "category is not a mapping", "give id, name and subcategories"))
            continue
        cid, cname = _checked_id_and_name(c, "category", where, "retail-hospitality", seen_cat, f, problems)
        subs_raw = c.get("subcategories")
        if not isinstance(subs_raw, list) or not subs_raw:
            problems.append(
                Problem(f, f"{where}.subcategories", "category has no subcategories", "list at least one subcategory")
            )
            subs_raw = []
        subs: list[Subcategory] = []
        for j, s in enumerate(subs_raw):
            sw = f"{where}.subcategories[{j}]"
            if not isinstance(s, dict):
                problems.append(Problem(f, sw, "subcategory is not a mapping", "give id and name"))
                continue
            sid, sname = _checked_id_and_name(s, "subcategory", sw, "bus-station", seen_sub, f, problems)
            subs.append(Subcategory(sid, sname, cid, cname, _text(s, "role"), _text(s, "description")))
        categories.append(Category(cid, cname, _text(c, "description"), tuple(subs)))
    if problems:
        raise DataError(problems)
    return Taxonomy(tuple(categories))


def taxonomy_records(tax: Taxonomy) -> list[dict[str, object]]:
    """One ``taxonomy.jsonl`` record per subcategory."""
    descriptions = {c.id: c.description for c in tax.categories}
    return [
        {
            "id": s.id,
            "subcategory": s.name,
            "category_id": s.category_id,
            "category": s.category,
            "category_description": descriptions.get(s.category_id, ""),
            "role": s.role_text,
            "description": s.description,
        }
        for s in tax.subcategories
    ]


def copy_shipped_taxonomy(dest: str | Path) -> Path:
    """Copy the shipped taxonomy to ``dest`` (a file path) unless it exists; returns it."""
    d = Path(dest)
    if not d.exists():
        d.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shipped_taxonomy_path(), d)
    return d
