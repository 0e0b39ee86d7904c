"""The layers point one way: memory <- content <- store <- tui/cli (house-style.md, rule 1)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "quizapp"

# layer -> the quizapp layers and third-party packages it must never import
FORBIDDEN = {
    "memory": {"quizapp.content", "quizapp.store", "quizapp.tui", "quizapp.cli", "textual", "sqlmodel",
               "sqlalchemy", "yaml", "pydantic", "fsrs"},
    "content": {"quizapp.store", "quizapp.tui", "quizapp.cli", "textual", "sqlmodel", "sqlalchemy", "fsrs"},
    "store": {"quizapp.tui", "quizapp.cli", "textual"},
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_module_imports_a_higher_layer(layer):
    bad = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for name in _imports(path):
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN[layer]):
                bad.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_importing_a_layer_loads_nothing_above_it(layer):
    third_party = sorted(f for f in FORBIDDEN[layer] if not f.startswith("quizapp"))
    code = (
        f"import sys, quizapp.{layer}\n"
        f"print(','.join(m for m in {third_party!r} if m in sys.modules))"
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
