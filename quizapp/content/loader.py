"""Safe YAML loading that keeps every node's line and column, so each problem names file:line:col.

The file is read by the one bounded reader (quizapp.content.files: regular files only, at most the
size limit + 1 bytes), composed once with PyYAML's C loader into a node tree (marks included),
checked (tags, duplicate keys, depth, the limits below, alias expansion, numbers and dates that
cannot be read), constructed with the safe constructor and validated by the pydantic schema;
pydantic's error locations are mapped back to node marks. Nothing here raises for a bad file: it
becomes a list of Problem.
"""

from __future__ import annotations

import difflib
import functools
import re
import typing
from pathlib import Path

import yaml
from pydantic import BaseModel, ValidationError

from quizapp.content.files import MAX_BYTES, ContentReadError, read_bounded
from quizapp.content.problems import FileProblems, NodeIndex, PathItem, Problem, format_path
from quizapp.content.schema import MAX_DRILLS, Question
from quizapp.content.validate import check_question

_FileProblems = FileProblems
__all__ = ["MAX_DRILLS", "ContentReadError", "NodeIndex", "PathItem", "Problem", "format_path", "load_question_file",
           "load_question_with_index", "parse_document"]

# The limits (docs/content.md, "Limits"); each has its own message at the offending line.
MAX_DEPTH = 20  # nesting levels of mappings and lists
MAX_VALUES = 50_000  # values written in one file (every scalar, list and mapping counts one)
MAX_EXPANDED = 50_000  # values after anchors and aliases are expanded ("billion laughs")
# MAX_DRILLS (drills in one question) comes from the schema, which also gives it to editors
MAX_DIGITS = 40  # digits in one number (int("1" * 5000) is refused by Python; 40 is plenty)
LIST_LIMITS = {("drills",): (MAX_DRILLS, "drills", "drills in one question")}
_PRESCAN_DEPTH = 200  # flow/dash nesting that libyaml itself could not survive is stopped before parsing
_SAFE_TAGS = {
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq", "merge", "timestamp")
}
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _read_text(path: Path, found: _FileProblems) -> str | None:
    try:
        data = read_bounded(path, MAX_BYTES)  # regular files only, never more than the limit + 1 bytes
    except ContentReadError as exc:
        found.add(1, 1, "(file)", exc.reason)
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


def _indentation_hint(text: str, line: int, block_line: int, block_col: int, is_list: bool = False) -> str:
    """Where an indentation slip broke a block, the columns that disagree: '; line 10 starts at column
    4, the line above at column 5 and the block's entries at column 3: line it up with one of them'
    (empty when the line is indented as the block)."""
    lines = text.splitlines()
    if not 0 < line <= len(lines) or not lines[line - 1].strip():
        return ""

    def start(number: int) -> int:
        return len(lines[number - 1]) - len(lines[number - 1].lstrip(" ")) + 1

    starts = start(line)
    if starts == block_col:
        return ""
    if is_list:  # a list item's own keys sit two columns in from its '-'
        if starts == block_col + 2:
            return ""
        return (f"; line {line} starts at column {starts}, but the list's '-' are at column {block_col} and the keys "
                f"of its items at column {block_col + 2}")
    above = next((n for n in range(line - 1, 0, -1) if lines[n - 1].strip()), None)
    if above is not None and above != block_line and start(above) not in (starts, block_col):
        return (f"; line {line} starts at column {starts}, the line above at column {start(above)} and the block's "
                f"entries at column {block_col}: line it up with one of them")
    return f"; line {line} starts at column {starts}, the block's entries at column {block_col}: line it up with them"


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
        message += _indentation_hint(text, line, context_mark.line + 1, context_mark.column + 1,
                                     "collection" in context or "sequence" in context)
    elif context:
        message = f"{context}: {message}"
    found.add(line, col, "(file)", f"invalid YAML: {message}")


_STR, _MAP, _SEQ, _MERGE = (f"tag:yaml.org,2002:{name}" for name in ("str", "map", "seq", "merge"))
_INT, _FLOAT, _TIMESTAMP = (f"tag:yaml.org,2002:{name}" for name in ("int", "float", "timestamp"))


class _TooMany(Exception):
    """A file past MAX_VALUES or MAX_EXPANDED: building stops at `node` with `message`."""

    def __init__(self, node: yaml.Node, path: tuple[PathItem, ...], message: str) -> None:
        super().__init__(message)
        self.node, self.path, self.message = node, path, message


class _Builder:
    """Builds plain Python data from the node tree in one pass while checking tags, duplicate keys,
    nesting depth, the size limits and alias expansion (faster than checking, then running PyYAML's
    constructor)."""

    def __init__(self, loader: yaml.SafeLoader, found: _FileProblems) -> None:
        self.loader = loader
        self.found = found
        self.visited = 0  # values built, aliases expanded
        self.written = 0  # values written in the file (those reached again through an alias are not)
        self.collections: set[int] = set()  # lists and mappings already built: reaching one again is an alias
        self.in_alias = 0  # > 0 while building through an alias
        self.ok = True
        self.merges = False

    def _problem(self, node: yaml.Node, path: tuple[PathItem, ...], message: str) -> None:
        self.found.add(node.start_mark.line + 1, node.start_mark.column + 1, path, message)
        self.ok = False

    def _too_many(self, node: yaml.Node, path: tuple[PathItem, ...]) -> _TooMany:
        if self.written > MAX_VALUES:
            return _TooMany(node, path, f"more than {MAX_VALUES:,} values in this file (the limit); split it into several questions")
        return _TooMany(node, path, f"anchors and aliases expand to more than {MAX_EXPANDED:,} values (the limit); "
                                    "write the repeated parts out or use fewer aliases")

    def _scalar(self, node: yaml.Node, path: tuple[PathItem, ...]) -> object:
        tag = node.tag
        if tag == _STR:
            return node.value
        if tag in (_INT, _FLOAT):
            digits = sum(c.isdigit() for c in node.value)
            if digits > MAX_DIGITS:
                self._problem(node, path, f"a number with {digits:,} digits; the limit is {MAX_DIGITS} digits "
                                          "(put it in quotes if it is text)")
                return None
        try:
            return self.loader.construct_object(node)
        except (ValueError, OverflowError, ArithmeticError, yaml.YAMLError) as exc:
            shown = node.value if len(node.value) <= 40 else node.value[:37] + "..."
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if tag == _TIMESTAMP:
                self._problem(node, path, f"{shown!r} looks like a date but is not a valid one ({reason}); "
                                          "put it in quotes to keep it as text")
            else:
                kind = tag.replace("tag:yaml.org,2002:", "")
                self._problem(node, path, f"{shown!r} cannot be read as {kind} ({reason}); put it in quotes to keep it as text")
            return None

    def build(self, node: yaml.Node, path: tuple[PathItem, ...]) -> object:
        self.visited += 1
        if not self.in_alias:
            self.written += 1
        if self.written > MAX_VALUES or self.visited > MAX_EXPANDED:
            raise self._too_many(node, path)
        if node.__class__ is not yaml.ScalarNode:
            key = id(node)
            if key in self.collections:  # an alias: its values were counted where its anchor is
                self.in_alias += 1
                try:
                    return self._build(node, path)
                finally:
                    self.in_alias -= 1
            self.collections.add(key)
        return self._build(node, path)

    def _build(self, node: yaml.Node, path: tuple[PathItem, ...]) -> object:
        tag = node.tag
        if tag not in _SAFE_TAGS:
            shown = tag.replace("tag:yaml.org,2002:", "!!")
            self._problem(node, path, f"tag {shown} is not allowed; question files are plain data")
            return None
        kind = node.__class__
        if kind is yaml.ScalarNode:
            return self._scalar(node, path)
        if len(path) >= MAX_DEPTH:
            self._problem(node, path, f"nested too deeply (more than {MAX_DEPTH} levels)")
            return None
        if kind is yaml.SequenceNode:
            limit = LIST_LIMITS.get(path)
            if limit is not None and len(node.value) > limit[0]:
                most, noun, rule = limit
                self._problem(node, path, f"{len(node.value):,} {noun}; the limit is {most} {rule}: split it into several")
                return None
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
    except _TooMany as exc:
        found.add(exc.node.start_mark.line + 1, exc.node.start_mark.column + 1, exc.path or "(file)", exc.message)
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


def _one_text_branch(errors: list[dict]) -> list[dict]:
    """A text field is a string or {en, zh}: pydantic reports a bad value once per branch. Keep the
    branch the author meant: {en, zh} when the mapping's keys are en/zh, else the string's (whose
    message explains the ': ' trap)."""
    def split(loc: tuple) -> tuple[int, str] | None:
        for i, item in enumerate(loc):
            if isinstance(item, str) and ("LangText" in item or item in ("str", "constrained-str")):
                return i, "lang" if "LangText" in item else "str"
        return None

    meant: dict[tuple, str] = {}
    for e in errors:
        found = split(tuple(e["loc"]))
        if found is not None and found[1] == "str":
            value = e.get("input")
            keys = set(value) if isinstance(value, dict) else None
            meant[tuple(e["loc"])[:found[0]]] = "lang" if keys and keys <= {"en", "zh"} else "str"
    kept = []
    for e in errors:
        found = split(tuple(e["loc"]))
        if found is None or meant.get(tuple(e["loc"])[:found[0]], found[1]) == found[1]:
            kept.append(e)
    return kept


def _validation_problems(error: ValidationError, index: NodeIndex, found: _FileProblems) -> None:
    seen_paths: set[tuple[PathItem, ...]] = set()
    errors = _one_text_branch(error.errors(include_url=False))
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
            allowed = [n for n in (model.model_fields if model else ()) if n not in ("source_path", "fallback")]
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
    """One question file -> (the question, or None if it has any problem; its problems). Warnings
    (quizapp.content.problems.FileProblems.warn) are left out: `validate` reports them."""
    question, problems, _ = load_question_with_index(path)
    return question, [p for p in problems if p.severity == "error"]


def load_question_with_index(path: Path, calc=None, complete: bool | None = None, *, authoring: bool = True
                             ) -> tuple[Question | None, list[Problem], NodeIndex | None]:
    """As load_question_file, with the node index (for later cross-file problems); `calc` is a
    validate.Calculator shared by one bank load. complete: hold the file to the bundled bank's rules
    (both languages, key points); None: when it lies in the bundled bank's folder. Warnings are in
    the problems too; only errors keep the question from loading."""
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
        for internal in ("source_path", "fallback"):
            if internal in data:
                found.add(*index.locate((internal,), key=True), (internal,), unknown_key_message(internal, []))
        try:
            question = Question.model_validate(data)
        except ValidationError as exc:
            _validation_problems(exc, index, found)
            return None, found.sorted(), index
        question = question.model_copy(update={"source_path": path})
        check_question(question, index, found, calc, in_bundled_bank(path) if complete is None else complete,
                       authoring=authoring)
    except Exception as exc:  # a bug in a checker must not stop the other files loading
        found.add(1, 1, "(file)", f"internal error while checking this file: {type(exc).__name__}: {exc}")
        return None, found.sorted(), None
    problems = found.sorted()
    return (None if found.errors() else question), problems, index


def in_bundled_bank(path: Path) -> bool:
    """Whether `path` is a file of the bank shipped with quizapp (held to its rules: both languages,
    key points), not a user's own question."""
    try:
        return path.resolve().is_relative_to(_bundled_root())
    except (OSError, RuntimeError):
        return False


@functools.lru_cache(maxsize=1)
def _bundled_root() -> Path:
    """The bundled bank's folder, resolved once (it does not move while quizapp runs)."""
    from quizapp.locations import bundled_content_dir

    return bundled_content_dir().resolve()
