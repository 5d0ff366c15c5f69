"""The floor plan of `bot/` in figures: what a reshape measures before and after.

    .venv/bin/python scripts/floor_plan.py [--root bot]

Prints the floors (each package under its floor, with its modules; the modules at the root),
the largest package by modules, lines per package, the surface modules that import `bot.store`,
the files that touch slack_sdk's `WebClient` or `slack_errors`, the longest public parameter
lists, and the import cycles among `bot` modules (function-local and type-only imports included: a cycle hidden by
them is still a cycle to the reader).
"""

from __future__ import annotations

import argparse
import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

SURFACES = ("bot.slack", "bot.cli", "bot.http", "bot.jobs")
# The floors of docs/architecture.md, top down: each package of bot/ is on one.
FLOORS = {
    "composition": ("wiring",),
    "surfaces": ("cli", "slack", "http", "jobs"),
    # In import order: each imports only features listed below it (docs/architecture.md).
    "features": (
        "workspaces",
        "eval",
        "questions",
        "unfurls",
        "watches",
        "releases",
        "digests",
        "cards",
        "access",
        "spending",
        "channels",
    ),
    "ports, models, core": ("ports", "models", "core"),
    "adapters": ("sources", "llm", "store", "queue", "render"),
    "beside them": ("ops", "words"),
}


def modules(root: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, tree: ast.Module, known: set[str]) -> Iterator[str]:
    package = name if name in known and _is_package(name, known) else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            for alias in node.names:
                yield f"{base}.{alias.name}"


def _is_package(name: str, known: set[str]) -> bool:
    return any(other.startswith(name + ".") for other in known)


def graph(found: dict[str, Path]) -> dict[str, set[str]]:
    known = set(found)
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in found.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for target in imports(name, tree, known):
            if target in known and target != name and not name.startswith(target + "."):
                edges[name].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def parameter_counts(found: dict[str, Path]) -> list[tuple[int, str]]:
    counts: list[tuple[int, str]] = []
    for name, path in found.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_")) or (
                isinstance(node, ast.FunctionDef) and node.name == "__init__"
            ):
                args = node.args
                every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
                count = len([arg for arg in every if arg.arg not in ("self", "cls")])
                counts.append((count, f"{name}.{node.name}"))
    return sorted(counts, reverse=True)


def package_modules(root: Path) -> dict[str, int]:
    """Modules (`*.py`, `__init__` included) directly in each package under `root`, by its path
    below `root` ("slack/listeners"); "" is the root itself."""
    return {
        folder.relative_to(root).as_posix() if folder != root else "": len(list(folder.glob("*.py")))
        for folder in sorted({root, *(path.parent for path in root.rglob("*.py"))})
    }


def print_floors(root: Path) -> None:
    counts = package_modules(root)
    print("floors (modules per package):")
    placed: set[str] = set()
    for floor, packages in FLOORS.items():
        print(f"  {floor}")
        for package in packages:
            inner = sorted(name for name in counts if name == package or name.startswith(package + "/"))
            placed.update(inner)
            print("    " + ", ".join(f"{name}/ {counts[name]}" for name in inner))
    others = sorted(name for name in counts if name and name not in placed)
    if others:
        print("  on no floor: " + ", ".join(f"{name}/ {counts[name]}" for name in others))
    root_modules = sorted(path.name for path in root.glob("*.py"))
    print(f"modules at the root: {len(root_modules)} ({', '.join(root_modules)})")
    largest = max((name for name in counts if name), key=lambda name: counts[name])
    print(f"largest package by modules: {largest}/ {counts[largest]}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", type=Path, default=Path("bot"))
    args = parser.parse_args()
    found = modules(args.root)
    edges = graph(found)
    print_floors(args.root)
    lines: dict[str, int] = defaultdict(int)
    for name, path in found.items():
        package = ".".join(name.split(".")[:2]) if name.count(".") >= 2 or _is_package(name, set(found)) else name
        lines[package] += len(path.read_text(encoding="utf-8").splitlines())
    print("lines by package:")
    for package, count in sorted(lines.items(), key=lambda item: -item[1]):
        print(f"  {count:6d}  {package}")
    store_pairs = sorted(
        (name, target)
        for name, targets in edges.items()
        if name.startswith(SURFACES)
        for target in targets
        if target.startswith("bot.store")
    )
    print(f"surface → store imports: {len(store_pairs)} pairs in {len({name for name, _ in store_pairs})} modules")
    for name, target in store_pairs:
        print(f"  {name} → {target}")
    for word in ("WebClient", "slack_errors"):
        files = sorted(name for name, path in found.items() if word in path.read_text(encoding="utf-8"))
        print(f"files naming {word}: {len(files)}")
        for name in files:
            print(f"  {name}")
    counts = parameter_counts(found)
    print(f"public functions with more than 6 parameters: {sum(1 for count, _ in counts if count > 6)}")
    for count, name in counts[:10]:
        print(f"  {count:3d}  {name}")
    found_cycles = cycles(edges)
    print(f"import cycles: {len(found_cycles)}")
    for component in found_cycles:
        print(f"  {len(component)} modules: {', '.join(component[:12])}{' …' if len(component) > 12 else ''}")


if __name__ == "__main__":
    main()
