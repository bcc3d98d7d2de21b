"""Imports run one way down the layers of socialbench (issue 12; the table in LAYERS below).

Every module under src/socialbench is parsed with ``ast``; every ``import`` and ``from ...
import`` counts, at any depth: inside functions (lazy imports) and under ``if
TYPE_CHECKING:`` too, since a lazy or type-only import is still a dependency. Only imports of
socialbench's own modules are considered. A *package* here is a top-level part of
socialbench (``runner``, ``benchmarks``, ``cli``, ``types``, ...).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

#: Top to bottom: a package may import packages of its own layer or of a layer below it.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("commands and test support", frozenset({"__main__", "cli", "command_index", "inspect_tasks", "sweep", "testing"})),
    ("readers and writers of run folders and datasets", frozenset({"report", "construction", "export"})),
    ("runner", frozenset({"runner"})),
    ("benchmarks", frozenset({"benchmarks"})),
    ("solvers and the scene simulator", frozenset({"solving", "simulation"})),
    (
        "generic providers, pure functions, geometry",
        frozenset({"models", "prompting", "metrics", "navigation", "vision", "recording"}),
    ),
    (
        "low-level value types, formats and file access",
        frozenset({"__init__", "types", "errors", "messages", "records", "files", "versions"}),
    ),
)
LOW_LEVEL = LAYERS[-1][1]


@dataclass(frozen=True)
class Import:
    """One import of a socialbench module by another."""

    source: str  # importing module, e.g. "socialbench.runner.run"
    target: str  # imported module, e.g. "socialbench.benchmarks.base"
    where: str  # "src/socialbench/runner/run.py:27"

    def __str__(self) -> str:
        return f"{self.where} imports {self.target}"


def package_of(module: str) -> str:
    """The top-level package of a module: "socialbench.runner.run" -> "runner";
    "socialbench.cli" -> "cli"; "socialbench" (its __init__) -> "__init__"."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer_of(package: str) -> int | None:
    """Index of the package's layer in LAYERS (0 is the top), or None when it has none."""
    for i, (_, members) in enumerate(LAYERS):
        if package in members:
            return i
    return None


@cache
def modules() -> dict[str, Path]:
    """Module name -> file, for every module under src/socialbench."""
    out = {}
    for path in sorted((SRC / "socialbench").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The socialbench module that an import of ``name`` loads (the longest known prefix)."""
    if name != "socialbench" and not name.startswith("socialbench."):
        return None
    while name not in known and "." in name:
        name = name.rpartition(".")[0]
    return name if name in known else None


@cache
def imports() -> tuple[Import, ...]:
    """Every import of one socialbench module by another, at any depth of every file."""
    known = modules()
    found = []
    for module, path in known.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                # `from pkg import mod` imports the module pkg.mod when there is one
                names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
            where = f"{path.relative_to(SRC.parent)}:{getattr(node, 'lineno', 0)}"
            for name in names:
                target = _resolve(name, known)
                if target is not None and target != module:
                    found.append(Import(module, target, where))
    return tuple(dict.fromkeys(found))  # one entry for `from m import a, b` (same target, same line)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def _describe_cycles(cycles: list[list[str]], key: str) -> str:
    """Each cycle, with the imports that close it."""
    lines = []
    for members in cycles:
        inside = set(members)
        lines.append(" <-> ".join(members) + ":")
        for imp in imports():
            src, dst = (
                (package_of(imp.source), package_of(imp.target)) if key == "package" else (imp.source, imp.target)
            )
            if src in inside and dst in inside and src != dst:
                lines.append(f"    {imp}")
    return "\n".join(lines)


def _violations(allowed: Callable[[str], bool], packages: set[str]) -> list[Import]:
    """Imports from a module of ``packages`` of a package that ``allowed`` refuses."""
    return [imp for imp in imports() if package_of(imp.source) in packages and not allowed(package_of(imp.target))]


def test_every_package_has_a_layer() -> None:
    unplaced = sorted({package_of(m) for m in modules()} - set().union(*(members for _, members in LAYERS)))
    assert unplaced == [], f"place these packages in a layer of LAYERS (tests/test_architecture.py): {unplaced}"


def test_no_package_import_cycle() -> None:
    edges: dict[str, set[str]] = defaultdict(set)
    for imp in imports():
        if package_of(imp.source) != package_of(imp.target):
            edges[package_of(imp.source)].add(package_of(imp.target))
    cycles = _cycles(edges)
    assert cycles == [], "packages that import each other:\n" + _describe_cycles(cycles, "package")


def test_no_module_import_cycle() -> None:
    edges: dict[str, set[str]] = defaultdict(set)
    for imp in imports():
        edges[imp.source].add(imp.target)
    cycles = _cycles(edges)
    assert cycles == [], "modules that import each other:\n" + _describe_cycles(cycles, "module")


def test_benchmarks_never_import_runner_report_or_cli() -> None:
    bad = _violations(lambda p: p not in {"runner", "report", "cli"}, {"benchmarks"})
    assert bad == [], "benchmarks/ must not import runner/, report/ or cli:\n" + "\n".join(map(str, bad))


def test_models_never_import_benchmarks_runner_or_navigation() -> None:
    bad = _violations(lambda p: p not in {"benchmarks", "runner", "navigation"}, {"models"})
    assert bad == [], "models/ must not import benchmarks/, runner/ or navigation/:\n" + "\n".join(map(str, bad))


def test_metrics_import_only_low_level_modules() -> None:
    bad = _violations(lambda p: p in LOW_LEVEL or p == "metrics", {"metrics"})
    assert bad == [], f"metrics/ may import only {sorted(LOW_LEVEL)} of socialbench:\n" + "\n".join(map(str, bad))


def test_only_main_imports_the_command_line() -> None:
    """``cli`` is the top of the command line: ``__main__`` hands it every command line, and
    nothing else calls it (a command of its own layer, such as ``sweep``, uses what eval does
    through the runner, :mod:`socialbench.runner.prepare`). Tests drive it through
    ``cli.main``; no module of ``testing`` needs it."""
    bad = _violations(lambda p: p != "cli", {package_of(m) for m in modules()} - {"__main__", "cli"})
    assert bad == [], "only socialbench.__main__ may import socialbench.cli:\n" + "\n".join(map(str, bad))


def test_no_package_imports_a_higher_layer() -> None:
    bad = []
    for imp in imports():
        src, dst = layer_of(package_of(imp.source)), layer_of(package_of(imp.target))
        if src is not None and dst is not None and dst < src:
            bad.append(f"{imp} ({LAYERS[src][0]} -> {LAYERS[dst][0]})")
    assert bad == [], "imports that run up the layers:\n" + "\n".join(bad)


def test_cycle_finder_reports_each_cycle_once_with_its_members() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "e"}, "e": {"d"}, "f": {"f", "a"}}
    assert _cycles(edges) == [["a", "b", "c"], ["d", "e"]]
