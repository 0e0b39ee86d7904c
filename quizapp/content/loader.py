"""Safe YAML loading that keeps every node's line and column, so each problem names file:line:col.

The file is composed once with PyYAML's C loader into a node tree (marks included), checked (tags,
duplicate keys, depth, alias expansion), constructed with the safe constructor and validated by the
pydantic schema; pydantic's error locations are mapped back to node marks. Nothing here raises for a
bad file: it becomes a list of Problem.
"""

from __future__ import annotations

import difflib
import re
import typing
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel, ValidationError

from quizapp.content.schema import Question

MAX_BYTES = 1024 * 1024
MAX_DEPTH = 20
MAX_NODES = 50_000
_PRESCAN_DEPTH = 200  # flow/dash nesting that libyaml itself could not survive is stopped before parsing
_SAFE_TAGS = {
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq", "merge", "timestamp")
}
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

PathItem = typing.Union[str, int]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a question file, where it is and what was expected."""

    file: Path
    line: int
    col: int
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.path}: {self.message}"

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


class _FileProblems:
    """Collects problems for one file (deduplicated, in file order)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.items: list[Problem] = []

    def add(self, line: int, col: int, path: typing.Sequence[PathItem] | str, message: str) -> None:
        shown = path if isinstance(path, str) else format_path(path)
        problem = Problem(self.path, line, col, shown, message)
        if problem not in self.items:
            self.items.append(problem)

    def sorted(self) -> list[Problem]:
        return sorted(self.items, key=lambda p: (p.line, p.col))


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _read_text(path: Path, found: _FileProblems) -> str | None:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            found.add(1, 1, "(file)", f"file is {size / MAX_BYTES:.1f} MiB; the limit is 1 MiB")
            return None
        data = path.read_bytes()
    except OSError as exc:
        found.add(1, 1, "(file)", f"cannot read: {exc.strerror or exc}")
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = len(data[data.rfind(b"\n", 0, exc.start) + 1 : exc.start].decode("utf-8", "replace")) + 1
        found.add(line, col, "(file)", f"not UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8")
        return None
    if not text.strip():
        found.add(1, 1, "(file)", "empty file; a question needs at least id, title, topic and answer")
        return None
    return text


def _prescan_depth(text: str, found: _FileProblems) -> bool:
    """Stop pathological nesting before libyaml recurses into it (it would crash the process)."""
    dashes = re.search(r"(?:[-?][ \t]+){%d}" % _PRESCAN_DEPTH, text)
    if dashes:
        found.add(*_position(text, dashes.start()), "(file)", f"nested too deeply (more than {MAX_DEPTH} levels)")
        return False
    if text.count("[") + text.count("{") < _PRESCAN_DEPTH:
        return True
    depth = 0
    for index, char in enumerate(text):
        if char in "[{":
            depth += 1
            if depth > _PRESCAN_DEPTH:
                found.add(*_position(text, index), "(file)", f"nested too deeply (more than {MAX_DEPTH} levels)")
                return False
        elif char in "]}" and depth:
            depth -= 1
    return True


def _leading_tab(text: str, line: int) -> int | None:
    lines = text.splitlines()
    if 0 < line <= len(lines):
        match = re.match(r"[ ]*\t", lines[line - 1])
        if match:
            return match.end()
    return None


def _yaml_problem(text: str, exc: yaml.YAMLError, found: _FileProblems) -> None:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    tab = _leading_tab(text, line)
    if tab is not None:
        found.add(line, tab, "(file)", "tab used for indentation; YAML needs spaces")
        return
    message = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and context_mark is not None and context_mark is not mark:
        message += f" ({context} that starts at line {context_mark.line + 1}, column {context_mark.column + 1})"
    elif context:
        message = f"{context}: {message}"
    found.add(line, col, "(file)", f"invalid YAML: {message}")


_STR, _MAP, _SEQ, _MERGE = (f"tag:yaml.org,2002:{name}" for name in ("str", "map", "seq", "merge"))


class _TooManyNodes(Exception):
    pass


class _Builder:
    """Builds plain Python data from the node tree in one pass while checking tags, duplicate keys,
    nesting depth and alias expansion (faster than checking, then running PyYAML's constructor)."""

    def __init__(self, loader: yaml.SafeLoader, found: _FileProblems) -> None:
        self.loader = loader
        self.found = found
        self.visited = 0
        self.ok = True
        self.merges = False

    def _problem(self, node: yaml.Node, path: tuple[PathItem, ...], message: str) -> None:
        self.found.add(node.start_mark.line + 1, node.start_mark.column + 1, path, message)
        self.ok = False

    def build(self, node: yaml.Node, path: tuple[PathItem, ...]) -> object:
        self.visited += 1
        if self.visited > MAX_NODES:
            raise _TooManyNodes
        tag = node.tag
        if tag not in _SAFE_TAGS:
            shown = tag.replace("tag:yaml.org,2002:", "!!")
            self._problem(node, path, f"tag {shown} is not allowed; question files are plain data")
            return None
        kind = node.__class__
        if kind is yaml.ScalarNode:
            return node.value if tag == _STR else self.loader.construct_object(node)
        if len(path) >= MAX_DEPTH:
            self._problem(node, path, f"nested too deeply (more than {MAX_DEPTH} levels)")
            return None
        if kind is yaml.SequenceNode:
            return [self.build(child, path + (i,)) for i, child in enumerate(node.value)]
        out: dict = {}
        first: dict[str, yaml.Node] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                self.merges = True
                self.build(value_node, path)
                continue
            if key_node.__class__ is not yaml.ScalarNode:
                self._problem(key_node, path, "a key must be plain text, not a list or mapping")
                continue
            key = self.build(key_node, path)
            if key_node.value in first:
                line = first[key_node.value].start_mark.line + 1
                self._problem(key_node, path + (key_node.value,), f"duplicate key {key_node.value!r} (first at line {line})")
                continue
            first[key_node.value] = key_node
            out[key] = self.build(value_node, path + (str(key),))
        return out


def _build_document(loader: yaml.SafeLoader, root: yaml.Node, found: _FileProblems) -> tuple[bool, object]:
    """(ok, data) for the composed document; problems go to `found`."""
    builder = _Builder(loader, found)
    try:
        data = builder.build(root, ())
    except _TooManyNodes:
        found.add(1, 1, "(file)", f"more than {MAX_NODES} values (anchors and aliases expand too far)")
        return False, None
    if not builder.ok:
        return False, None
    if builder.merges:  # `<<: *defaults` merge keys: let PyYAML's safe constructor apply them
        data = loader.construct_document(root)
    return True, data


def _describe(value: object) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"text {shown!r}"
    return f"{type(value).__name__} {value!r}"


def _model_at(path: typing.Sequence[PathItem]) -> type[BaseModel] | None:
    """The pydantic model that owns the mapping at `path` (for did-you-mean on unknown keys)."""
    current: object = Question
    for item in path:
        if isinstance(item, int):
            continue  # list items: the list's annotation already named their model
        if not (isinstance(current, type) and issubclass(current, BaseModel)) or item not in current.model_fields:
            return None
        annotation = current.model_fields[item].annotation
        models = [a for a in (annotation, *typing.get_args(annotation)) if isinstance(a, type) and issubclass(a, BaseModel)]
        current = models[0] if models else None
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def unknown_key_message(key: str, allowed: typing.Iterable[str]) -> str:
    choices = sorted(allowed)
    close = difflib.get_close_matches(key, choices, n=1, cutoff=0.6)
    if close:
        return f"unknown key {key!r}; did you mean {close[0]!r}?"
    return f"unknown key {key!r}; expected one of: {', '.join(choices)}"


def _validation_problems(error: ValidationError, index: NodeIndex, found: _FileProblems) -> None:
    seen_paths: set[tuple[PathItem, ...]] = set()
    errors = error.errors(include_url=False)
    # A misspelt key is reported once, as unknown with a did-you-mean, not also as a missing key.
    missing = {tuple(e["loc"]) for e in errors if e["type"] == "missing"}
    misspelt: set[tuple[PathItem, ...]] = set()
    for e in errors:
        if e["type"] == "extra_forbidden":
            loc = tuple(e["loc"])
            names = [m[-1] for m in missing if m[:-1] == loc[:-1]]
            close = difflib.get_close_matches(str(loc[-1]), [str(n) for n in names], n=1, cutoff=0.6)
            if close:
                misspelt.add(loc[:-1] + (close[0],))
    for item in errors:
        if item["type"] == "missing" and tuple(item["loc"]) in misspelt:
            continue
        loc = tuple(item["loc"])
        node, _, matched = index._walk(loc)
        kind = item["type"]
        if kind == "extra_forbidden":
            key = loc[-1]
            model = _model_at(loc[:-1])
            allowed = [n for n in (model.model_fields if model else ()) if n != "source_path"]
            line, col = index.locate(loc, key=True)
            found.add(line, col, loc, unknown_key_message(str(key), allowed))
            continue
        if kind == "missing":
            line, col = index.locate(loc[:-1])
            found.add(line, col, loc, f"missing required key {loc[-1]!r}")
            continue
        # Union members add their own names to the location ("str", "int"...): cut back to the node.
        real = loc[:matched] if matched < len(loc) and kind != "missing" else loc
        if real in seen_paths:
            continue
        seen_paths.add(real)
        message = item["msg"].removeprefix("Value error, ")
        if kind.endswith("_type") or kind.endswith("_parsing") or kind in ("string_too_short",):
            message = f"{message}, got {_describe(item.get('input'))}"
            if kind == "string_type" and isinstance(item.get("input"), dict) and len(item["input"]) == 1:
                message += " (text containing ': ' becomes a key: value pair; put the text in quotes)"
        line, col = index.locate(real)
        found.add(line, col, real, message)


def parse_document(path: Path, found: _FileProblems) -> tuple[object, NodeIndex] | None:
    """Read, check and construct one YAML file; None (with problems recorded) if it cannot be."""
    text = _read_text(path, found)
    if text is None or not _prescan_depth(text, found):
        return None
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            found.add(1, 1, "(file)", "empty file; a question needs at least id, title, topic and answer")
            return None
        ok, data = _build_document(loader, root, found)
        if not ok:
            return None
    except yaml.YAMLError as exc:
        _yaml_problem(text, exc, found)
        return None
    finally:
        loader.dispose()
    return data, NodeIndex(root, text)


def load_question_file(path: Path) -> tuple[Question | None, list[Problem]]:
    """One question file -> (the question, or None if it has any problem; its problems)."""
    question, problems, _ = load_question_with_index(path)
    return question, problems


def load_question_with_index(path: Path, calc=None) -> tuple[Question | None, list[Problem], NodeIndex | None]:
    """As load_question_file, with the node index (for later cross-file problems); `calc` is a
    validate.Calculator shared by one bank load."""
    found = _FileProblems(path)
    try:
        parsed = parse_document(path, found)
        if parsed is None:
            return None, found.sorted(), None
        data, index = parsed
        if not isinstance(data, dict):
            line, col = index.locate(())
            found.add(line, col, "(file)", f"expected a mapping of question fields (id, title, ...), got {_describe(data)}")
            return None, found.sorted(), index
        if "source_path" in data:
            found.add(*index.locate(("source_path",), key=True), ("source_path",), unknown_key_message("source_path", []))
        try:
            question = Question.model_validate(data)
        except ValidationError as exc:
            _validation_problems(exc, index, found)
            return None, found.sorted(), index
        question = question.model_copy(update={"source_path": path})
        from quizapp.content.validate import check_question

        check_question(question, index, found, calc)
    except Exception as exc:  # a bug in a checker must not stop the other files loading
        found.add(1, 1, "(file)", f"internal error while checking this file: {type(exc).__name__}: {exc}")
        return None, found.sorted(), None
    problems = found.sorted()
    return (None if problems else question), problems, index
