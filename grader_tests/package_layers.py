"""The import structure of ``grader`` and ``solutions``: who imports whom, by part of the package.

``python -m grader_tests.package_layers`` prints the counts (modules, folders, imports across
folders, imports against the layer order, cycles); ``test_package_layers.py`` holds the rules.

The layers, from the ground up: a part may import its own layer and the ones below it, never one
above (an import inside a function counts the same as one at the top).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from grader_tests.checkout import REPO_ROOT

LAYERS: list[set[str]] = [
    {"grader.settings", "grader.state_folders", "grader.root_trust", "grader.course", "grader.course_imports",
     "grader.course_folders", "grader.console", "grader.fonts",
     "grader.code_version", "grader.kernel_side", "grader.service_policy", "grader.formats", "grader.language",
     "solutions"},
    {"grader.pages", "grader.sandbox", "grader.checks", "grader.probe", "grader.policy"},
    {"grader.grading"},
    {"grader.notebook_cells", "grader.release", "grader.validation", "grader.authoring", "grader.similarity",
     "grader.reporting", "grader.lti"},
    {"grader.scheduling"},
    {"grader.service"},
    {"grader.demo", "grader.hub", "grader.doctor"},
    {"grader.cli"},
]


@dataclass(frozen=True)
class Import:
    importer: str  # dotted module name
    imported: str  # dotted module name (the longest that is a module of the project)


def modules(root: Path = REPO_ROOT) -> dict[str, Path]:
    """Dotted name -> file, for every module of ``grader`` and ``solutions``."""
    found = {}
    for package in ("grader", "solutions"):
        for path in (root / package).rglob("*.py"):
            name = ".".join(path.relative_to(root).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imports(root: Path = REPO_ROOT) -> list[Import]:
    """Every import of one project module by another (each pair once)."""
    known = modules(root)
    pairs = set()
    for name, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
            elif isinstance(node, ast.ImportFrom) and node.level:
                package = name if path.name == "__init__.py" else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{node.module}" if node.module else package
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            for target in targets[:-1] if isinstance(node, ast.ImportFrom) else targets:
                resolved = _project_module(target, known) or (
                    _project_module(targets[-1], known) if isinstance(node, ast.ImportFrom) else None)
                if resolved and resolved != name:
                    pairs.add(Import(name, resolved))
    return sorted(pairs, key=lambda i: (i.importer, i.imported))


def _project_module(dotted: str, known: dict[str, Path]) -> str | None:
    while dotted and dotted not in known:
        dotted = dotted.rpartition(".")[0]
    return dotted or None


def part_of(module: str) -> str:
    """The part (a key of ``LAYERS``) a module belongs to: the longest prefix named there."""
    names = sorted({p for layer in LAYERS for p in layer}, key=len, reverse=True)
    for part in names:
        if module == part or module.startswith(part + "."):
            return part
    raise KeyError(f"{module} is in no layer of grader_tests/package_layers.py; add its part there")


def layer_of(module: str) -> int:
    part = part_of(module)
    return next(i for i, layer in enumerate(LAYERS) if part in layer)


def upward_imports(found: list[Import]) -> list[Import]:
    """Imports of a part from a higher layer."""
    return [i for i in found if layer_of(i.imported) > layer_of(i.importer)]


def cycles(found: list[Import]) -> list[list[str]]:
    """Groups of two or more modules that import each other in a loop (strongly connected components)."""
    graph: dict[str, set[str]] = {}
    for i in found:
        graph.setdefault(i.importer, set()).add(i.imported)
        graph.setdefault(i.imported, set())
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def summary(root: Path = REPO_ROOT) -> str:
    known, found = modules(root), imports(root)
    folders = {path.parent for path in known.values()}
    across = [i for i in found if known[i.importer].parent != known[i.imported].parent]
    flat = [n for n, p in known.items() if p.parent == root / "grader" and p.name != "__init__.py"]
    return (f"{len(known)} modules in {len(folders)} folders ({len(flat)} directly in grader/); "
            f"{len(found)} imports between modules, {len(across)} across folders; "
            f"{len(upward_imports(found))} against the layer order; {len(cycles(found))} cycles")


if __name__ == "__main__":
    print(summary())
