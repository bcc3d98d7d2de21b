"""Every import comes from a declared dependency, and every optional dependency has a tested
range (a lower and an upper bound) in pyproject.toml."""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
CODE = [ROOT / "src", ROOT / "tests", ROOT / "scripts"]


def _pyproject() -> dict:
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {}


def _requirements() -> dict[str, list[Requirement]]:
    """``{"": core requirements, extra: its requirements}`` from pyproject.toml (from the
    installed metadata on Python 3.10, which has no tomllib)."""
    project = _pyproject().get("project")
    if project is not None:
        out = {"": [Requirement(r) for r in project["dependencies"]]}
        out.update({k: [Requirement(r) for r in v] for k, v in project["optional-dependencies"].items()})
        return out
    out = {"": []}
    for text in md.requires("socialbench") or []:
        req = Requirement(text)
        m = re.search(r'extra == "([^"]+)"', str(req.marker or ""))
        req.marker = None
        out.setdefault(m.group(1) if m else "", []).append(req)
    return out


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _imported_modules() -> dict[str, str]:
    """Top-level module of every absolute import (and importorskip / find_spec of a literal
    name) in src/, tests/ and scripts/, with one file that imports it."""
    found: dict[str, str] = {}
    for folder in CODE:
        for path in sorted(folder.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names: list[str] = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                elif (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("importorskip", "find_spec", "import_module")
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                ):
                    names = [node.args[0].value]
                for name in names:
                    found.setdefault(name.split(".")[0], str(path.relative_to(ROOT)))
    return found


def _local_modules() -> set[str]:
    """The project's own package and the helper modules next to the tests and scripts."""
    return {"socialbench", "__future__"} | {p.stem for folder in CODE[1:] for p in folder.rglob("*.py")}


def test_every_imported_package_is_declared() -> None:
    declared = {_normalise(r.name) for reqs in _requirements().values() for r in reqs}
    distributions = md.packages_distributions()
    undeclared = []
    for module, where in sorted(_imported_modules().items()):
        if module in sys.stdlib_module_names or module in _local_modules():
            continue
        dists = {_normalise(d) for d in distributions.get(module, [module])}
        if not dists & declared:
            undeclared.append(f"{module} (imported in {where}; from {', '.join(sorted(dists))})")
    assert undeclared == [], "declare these in pyproject.toml: " + "; ".join(undeclared)


@pytest.mark.parametrize("extra", sorted(k for k in _requirements() if k))
def test_every_optional_dependency_has_a_lower_and_an_upper_bound(extra: str) -> None:
    unbounded = []
    for req in _requirements()[extra]:
        ops = {spec.operator for spec in req.specifier}
        if not (ops & {">=", ">", "~=", "=="} and ops & {"<", "<=", "~=", "=="}):
            unbounded.append(str(req))
    assert unbounded == [], f"extra {extra}: give each a range, e.g. 'name>=1.2,<2': {unbounded}"
