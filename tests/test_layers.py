"""The layers point one way: memory <- content <- store <- practice <- tui/cli (house-style.md, rule 1),
and no two of quizapp's modules import each other, however indirectly."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "quizapp"

# layer -> the quizapp layers and third-party packages it must never import (imports only a type checker
# reads, under `if TYPE_CHECKING:`, do not count: they never run)
FORBIDDEN = {
    "memory": {"quizapp.content", "quizapp.store", "quizapp.practice", "quizapp.tui", "quizapp.cli",
               "quizapp.words", "textual", "sqlmodel", "sqlalchemy", "yaml", "pydantic", "fsrs"},
    "content": {"quizapp.store", "quizapp.practice", "quizapp.tui", "quizapp.cli", "quizapp.words", "textual",
                "sqlmodel", "sqlalchemy"},
    "store": {"quizapp.content", "quizapp.practice", "quizapp.tui", "quizapp.cli", "quizapp.words", "textual"},
    "practice": {"quizapp.tui", "quizapp.cli", "textual", "sqlmodel", "sqlalchemy"},
}
# the third-party packages importing the layer (every module of it) must not load
NOT_LOADED = {
    "memory": ("textual", "sqlmodel", "sqlalchemy", "yaml", "pydantic", "fsrs"),
    "content": ("textual", "sqlmodel", "sqlalchemy"),
    "store": ("textual",),
    "practice": ("textual",),  # it drives the store, which is SQL: only its own modules stay SQL-free
}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST):
    """Every import statement that can run (anywhere in the module, functions included)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in _import_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_module_imports_a_higher_layer(layer):
    bad = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        where = str(path.relative_to(PACKAGE))
        for name in _imports(path):
            for forbidden in FORBIDDEN[layer]:
                if (name == forbidden or name.startswith(forbidden + ".")):
                    bad.append(f"{where} imports {name}")
    assert not bad, "\n".join(sorted(set(bad)))


@pytest.mark.parametrize("layer", sorted(NOT_LOADED))
def test_importing_a_layer_loads_nothing_above_it(layer):
    modules = sorted(
        "quizapp." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
        for path in (PACKAGE / layer).rglob("*.py")
    )
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        f"print(','.join(m for m in {NOT_LOADED[layer]!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"quizapp.{layer} pulled in {out.stdout.strip()}"


def test_building_the_cli_parser_stays_light():
    """Building the parser (and a subcommand's arguments) must not pull in textual or sqlmodel."""
    code = (
        "import sys; from quizapp.cli import build_parser; build_parser()\n"
        "print(','.join(m for m in ('textual', 'sqlmodel', 'sqlalchemy', 'fsrs') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# --- no import cycles --------------------------------------------------------------------------------


def _module_name(path: Path) -> str:
    parts = ("quizapp", *path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """quizapp module -> the quizapp modules it imports (at import time or later, in a function: either
    way each needs the other). `from package import name` is an edge to the submodule when `name` is
    one, else to the package itself."""
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        edges: set[str] = set()
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in _import_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in paths else base for a in node.names]
            edges.update(t for t in targets if t in paths and t != module)
        graph[module] = edges
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_among_quizapps_modules():
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)
