"""Measure the shape of a socialbench source tree (docs/architecture.md's table).

Usage: ``python scripts/code_shape.py [SRC_PACKAGE_DIR]`` (default ``src/socialbench``).
Prints the module count and total lines, median and longest module length in lines, the share
of function signatures whose annotations (``*args``/``**kwargs`` included) mention ``Any``
directly or through a module-level alias of a type that does, the share of imports of socialbench's own
modules that sit inside functions, and the package-level import edges.
"""

from __future__ import annotations

import ast
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def internal_imports(tree: ast.AST, module: str, is_package: bool) -> list[tuple[str, bool]]:
    """(imported socialbench module, inside a function?) for every import in ``tree``."""
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = module.split(".") if is_package else module.split(".")[:-1]
                    base = base[: len(base) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                if target.startswith("socialbench"):
                    found.append((target, in_function))
            elif isinstance(child, ast.Import):
                found.extend((a.name, in_function) for a in child.names if a.name.startswith("socialbench"))
            visit(child, inside)

    visit(tree, False)
    return found


def any_aliases(trees: list[ast.Module]) -> set[str]:
    """Names of module-level type aliases whose definition mentions ``Any`` (``JsonObject =
    dict[str, Any]``): a signature using one mentions ``Any`` as much as one spelling it out."""
    names: set[str] = set()
    for tree in trees:
        for node in tree.body:
            target = node.target if isinstance(node, ast.AnnAssign) else None
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if isinstance(target, ast.Name) and value is not None and not isinstance(value, ast.Call):
                if any(isinstance(n, ast.Name) and n.id == "Any" for n in ast.walk(value)):
                    names.add(target.id)
    return names


def mentions_any(annotation: ast.expr, aliases: set[str]) -> bool:
    """Whether ``annotation`` names ``Any`` or an alias of a type that does."""
    text = ast.unparse(annotation)
    return "Any" in text or any(isinstance(n, ast.Name) and n.id in aliases for n in ast.walk(annotation))


def main(root: Path) -> None:
    lengths: list[int] = []
    signatures = with_any = imports = in_functions = 0
    edges: dict[str, set[str]] = defaultdict(set)
    paths = sorted(root.rglob("*.py"))
    texts = [path.read_text(encoding="utf-8") for path in paths]
    trees = [ast.parse(text) for text in texts]
    aliases = any_aliases(trees)
    for path, text, tree in zip(paths, texts, trees):
        lengths.append(len(text.splitlines()))
        module = module_name(path, root)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                args += [a for a in (node.args.vararg, node.args.kwarg) if a is not None]
                annotations = [a.annotation for a in args if a.annotation is not None]
                if node.returns is not None:
                    annotations.append(node.returns)
                signatures += 1
                with_any += any(mentions_any(a, aliases) for a in annotations)
        for target, in_function in internal_imports(tree, module, path.name == "__init__.py"):
            imports += 1
            in_functions += in_function
            source_pkg, target_pkg = module.split(".")[1:2], target.split(".")[1:2]
            if source_pkg and target_pkg and source_pkg != target_pkg:
                edges[source_pkg[0]].add(target_pkg[0])
    print(f"modules: {len(lengths)}; lines: {sum(lengths)}")
    print(f"median lines per module: {statistics.median(lengths):g}; longest: {max(lengths)}")
    print(f"signatures that mention Any: {with_any}/{signatures} = {with_any / signatures:.0%}")
    print(f"internal imports inside functions: {in_functions}/{imports} = {in_functions / imports:.0%}")
    print("package imports:")
    for source in sorted(edges):
        print(f"  {source} -> {' '.join(sorted(edges[source]))}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "src/socialbench").resolve())
