"""Where a problem is and how it reads: Problem (file:line:col: path: message), the per-file
collector, and the index from a path such as drills[0].setup to the YAML node's line and column.

Its own module so that the loader and the validator both use it without importing each other.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from pathlib import Path

import yaml

PathItem = typing.Union[str, int]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a question file, where it is and what was expected."""

    file: Path
    line: int
    col: int
    path: str
    message: str
    severity: str = "error"  # "warning": reported, but the question still loads

    def __str__(self) -> str:
        mark = "warning: " if self.severity == "warning" else ""
        return f"{self.file}:{self.line}:{self.col}: {self.path}: {mark}{self.message}"

    def as_json(self) -> dict:
        return {"file": str(self.file), "line": self.line, "col": self.col, "path": self.path, "message": self.message}


def format_path(path: typing.Sequence[PathItem]) -> str:
    """("drills", 0, "setup") -> "drills[0].setup"; the empty path is "(file)"."""
    out = ""
    for item in path:
        out += f"[{item}]" if isinstance(item, int) else (f".{item}" if out else str(item))
    return out or "(file)"


class NodeIndex:
    """Finds the line and column of a path in a composed YAML document."""

    def __init__(self, root: yaml.Node | None, text: str) -> None:
        self.root = root
        self.text = text

    def node(self, path: typing.Sequence[PathItem]) -> yaml.Node | None:
        return self._walk(path)[0]

    def _walk(self, path: typing.Sequence[PathItem]) -> tuple[yaml.Node | None, yaml.Node | None, int]:
        """(deepest node reached, its key node if it is a mapping value, how many path items matched)."""
        node, key_node, matched = self.root, None, 0
        for item in path:
            child = key = None
            if isinstance(node, yaml.MappingNode):
                for k, v in node.value:
                    if isinstance(k, yaml.ScalarNode) and k.value == str(item):
                        child, key = v, k
            elif isinstance(node, yaml.SequenceNode) and isinstance(item, int) and 0 <= item < len(node.value):
                child = node.value[item]
            if child is None:
                break
            node, key_node, matched = child, key, matched + 1
        return node, key_node, matched

    def locate(self, path: typing.Sequence[PathItem], *, key: bool = False) -> tuple[int, int]:
        """1-based (line, col) of the value at `path` (or of its key with key=True); the nearest
        existing ancestor when the path does not exist."""
        node, key_node, matched = self._walk(path)
        if node is None:
            return 1, 1
        target = key_node if key and key_node is not None and matched == len(path) else node
        return target.start_mark.line + 1, target.start_mark.column + 1

    def find_in(self, path: typing.Sequence[PathItem], needle: str, occurrence: int = 0) -> tuple[int, int]:
        """Line and column of `needle` inside the source text of the scalar at `path` (the value's
        start when it cannot be found verbatim, e.g. behind escapes)."""
        node, _, matched = self._walk(path)
        if node is None or matched != len(path):
            return self.locate(path)
        start, end = node.start_mark.index, node.end_mark.index
        source = self.text[start:end]
        index = -1
        for _ in range(occurrence + 1):
            index = source.find(needle, index + 1)
            if index < 0:
                return self.locate(path)
        absolute = start + index
        line = self.text.count("\n", 0, absolute) + 1
        col = absolute - (self.text.rfind("\n", 0, absolute) + 1) + 1
        return line, col


class FileProblems:
    """Collects problems for one file (deduplicated, in file order)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.items: list[Problem] = []

    def add(self, line: int, col: int, path: typing.Sequence[PathItem] | str, message: str,
            severity: str = "error") -> None:
        shown = path if isinstance(path, str) else format_path(path)
        problem = Problem(self.path, line, col, shown, message, severity)
        if problem not in self.items:
            self.items.append(problem)

    def warn(self, line: int, col: int, path: typing.Sequence[PathItem] | str, message: str) -> None:
        """A problem that does not stop the question loading (a user's question without key points)."""
        self.add(line, col, path, message, "warning")

    def errors(self) -> list[Problem]:
        return [p for p in self.items if p.severity == "error"]

    def sorted(self) -> list[Problem]:
        return sorted(self.items, key=lambda p: (p.line, p.col))


_FileProblems = FileProblems  # the name the checkers used before
