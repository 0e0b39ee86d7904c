"""A cache of the validated question bank, so the app starts without parsing YAML or importing pydantic.

`load_bank_cached(dirs, cache_dir)` returns what `load_bank(dirs)` would, from a pickle of plain
values (dicts, strings, numbers) when nothing it depends on changed: the question files found
(path, size, mtime), the folders asked for, and the code that reads and validates them (the
content and memory packages' own files). Otherwise it loads the bank and writes the cache again.

From the cache, `CachedBank` answers what the first screen needs (topics, cards, problems) from
the plain values, and builds the Question models (pydantic, no YAML, no calculator checks: they were
checked when cached) the first time a question is asked for. A cache that cannot be read or written
is ignored: the bank is loaded as usual.

The very first run has no cache yet, and validating the bundled bank takes seconds (YAML, pydantic,
every drill's figures computed). So a wheel ships one (`write_shipped`, run by hatch_build.py when the
wheel is built), keyed by the bytes of the bundled files and of the code rather than by mtimes, which
an install does not keep: when the folders hold only the bundled bank (the user's folder absent or
empty) and the bytes match, the first run reads it, and writes the user's cache from it as usual.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quizapp.content.bank import Bank, CardSpec
from quizapp.vocab import CardKind

if TYPE_CHECKING:
    from quizapp.content.loader import Problem
    from quizapp.content.schema import Question

FORMAT = 2  # bump when the pickled layout changes
_PACKAGE = Path(__file__).resolve().parent.parent
_CODE = ("content", "memory")  # what decides whether a file is valid and what it contains


def _stamp(path: Path) -> tuple[str, int, int]:
    info = path.stat()
    return str(path), info.st_size, info.st_mtime_ns


def fingerprint(dirs: Iterable[Path]) -> tuple[Any, ...] | None:
    """What the cached bank depends on, or None when a file cannot be listed (then: no cache)."""
    from quizapp.content.files import find_question_files

    dirs = tuple(Path(d) for d in dirs)
    try:
        files, skipped = find_question_files(dirs)
        code = sorted(_stamp(p) for name in _CODE for p in (_PACKAGE / name).glob("*.py"))
        return (FORMAT, tuple(str(d) for d in dirs), tuple(_stamp(p) for p in files),
                tuple((str(p), reason) for p, reason in skipped), tuple(code))
    except OSError:
        return None


def cache_file(cache_dir: Path, dirs: Iterable[Path]) -> Path:
    digest = hashlib.sha256("\n".join(str(Path(d).absolute()) for d in dirs).encode()).hexdigest()[:16]
    return cache_dir / f"bank-{digest}.pickle"


def load_bank_cached(dirs: Iterable[Path], cache_dir: Path | None, *, write: bool = True) -> Bank | CachedBank:
    """The bank under `dirs`, from the cache in `cache_dir` when it is current (None: no cache).

    write=False (commands that only read): a stale or missing cache is not rewritten."""
    dirs = tuple(Path(d) for d in dirs)
    key = fingerprint(dirs) if cache_dir is not None else None
    path = cache_file(cache_dir, dirs) if cache_dir is not None else None
    if key is not None and path is not None:
        try:
            with open(path, "rb") as handle:
                stored = pickle.load(handle)
            if stored.get("key") == key:
                return CachedBank(stored)
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, TypeError, ValueError):
            pass  # missing, unreadable or from another version: rebuilt below
    shipped = _from_shipped(dirs, key)
    if shipped is not None:
        if write and path is not None and key is not None:
            _write(path, {**shipped._stored, "key": key})
        return shipped
    from quizapp.content.bank import load_bank

    bank = load_bank(dirs)
    if write and key is not None and path is not None and key == fingerprint(dirs):  # unchanged while it loaded
        _write(path, {"key": key, **as_plain(bank)})
    return bank


def shipped_key(bundled: Path) -> tuple[Any, ...] | None:
    """What a shipped cache of the bundled bank depends on, by content: the question files' relative
    paths and bytes and the bytes of the code that reads them (None: a file or an entry that cannot be read)."""
    from quizapp.content.files import find_question_files

    try:
        files, skipped = find_question_files((bundled,))
        if skipped:
            return None  # an install with a broken bundled folder: validated as usual, with its problems
        digest = hashlib.sha256()
        for file in sorted(files, key=lambda p: p.relative_to(bundled).as_posix()):
            data = file.read_bytes()
            digest.update(f"{file.relative_to(bundled).as_posix()}\0{len(data)}\0".encode())
            digest.update(data)
        for name in _CODE:
            for code in sorted((_PACKAGE / name).glob("*.py")):
                data = code.read_bytes()
                digest.update(f"{name}/{code.name}\0{len(data)}\0".encode())
                digest.update(data)
    except (OSError, ValueError):
        return None
    return (FORMAT, "shipped", digest.hexdigest())


def write_shipped(bundled: Path, out: Path) -> None:
    """Validate the bundled bank under `bundled` and write it to `out` with paths relative to it (for
    the wheel: hatch_build.py). Raises OSError when `out` cannot be written."""
    from quizapp.content.bank import load_bank

    bundled = Path(bundled).resolve()
    key = shipped_key(bundled)
    if key is None:
        raise OSError(f"{bundled}: the bundled bank cannot be read")
    plain = _relative(as_plain(load_bank((bundled,))), bundled)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as handle:
        pickle.dump({"key": key, **plain}, handle, protocol=pickle.HIGHEST_PROTOCOL)


def _from_shipped(dirs: tuple[Path, ...], key: tuple[Any, ...] | None) -> CachedBank | None:
    """The shipped cache, when `dirs` hold exactly the bundled bank's files and their bytes match it."""
    from quizapp.locations import bundled_content_dir, shipped_bank_cache

    shipped = shipped_bank_cache()
    if key is None or not dirs or not shipped.is_file():
        return None
    bundled = bundled_content_dir()
    try:
        if dirs[0].resolve() != bundled.resolve():
            return None
        files, skipped = key[2], key[3]
        if skipped or not all(Path(f).resolve().is_relative_to(bundled.resolve()) for f, _, _ in files):
            return None  # the user's folder has questions: they change the bank
        with open(shipped, "rb") as handle:
            stored = pickle.load(handle)
        if stored.get("key") != shipped_key(bundled):
            return None
        return CachedBank(_absolute(stored, bundled))
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, TypeError, ValueError, IndexError):
        return None


def _relative(plain: dict[str, Any], root: Path) -> dict[str, Any]:
    """`plain` (as_plain) with its paths under `root` written relative to it, so it can move."""
    def rel(path: str | None) -> str | None:
        return Path(path).relative_to(root).as_posix() if path else path

    return {**plain,
            "questions": [(fields, rel(source)) for fields, source in plain["questions"]],
            "problems": [(rel(f), *rest) for f, *rest in plain["problems"]],
            "warnings": [(rel(f), *rest) for f, *rest in plain["warnings"]]}


def _absolute(plain: dict[str, Any], root: Path) -> dict[str, Any]:
    """The inverse of _relative, under the folder the bundled bank is in now."""
    def absolute(path: str | None) -> str | None:
        return str(root / path) if path else path

    return {**plain,
            "questions": [(fields, absolute(source)) for fields, source in plain["questions"]],
            "problems": [(absolute(f), *rest) for f, *rest in plain["problems"]],
            "warnings": [(absolute(f), *rest) for f, *rest in plain["warnings"]]}


def as_plain(bank: Bank) -> dict[str, Any]:
    """The bank as plain values: the questions' validated fields, its cards and problems."""
    return {
        "questions": [(q.model_dump(mode="python"), str(q.source_path) if q.source_path else None)
                      for q in bank.questions],
        "cards": [(c.card_id, c.question_id, c.kind.value, c.item_id, c.topic, c.order) for c in bank.cards()],
        "problems": [(str(p.file), p.line, p.col, p.path, p.message) for p in bank.problems],
        "warnings": [(str(p.file), p.line, p.col, p.path, p.message) for p in bank.warnings],
        "overridden": tuple(bank.overridden),
    }


def _write(path: Path, data: dict[str, Any]) -> None:
    """Write atomically (a temporary file renamed over the old one); a failure leaves no cache."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".bank-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                pickle.dump(data, out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass


class CachedBank:
    """A Bank read from the cache: the same questions, cards and problems, its models built on first use."""

    def __init__(self, stored: dict[str, Any]) -> None:
        self._stored = stored
        self._questions: tuple[Question, ...] | None = None
        self._problems: tuple[Problem, ...] | None = None
        self.overridden: tuple[str, ...] = tuple(stored["overridden"])

    @property
    def questions(self) -> tuple[Question, ...]:
        if self._questions is None:
            from quizapp.content.schema import Question

            built = []
            for fields, source in self._stored["questions"]:
                question = Question.model_validate(fields)
                built.append(question.model_copy(update={"source_path": Path(source) if source else None}))
            self._questions = tuple(built)
        return self._questions

    @property
    def problems(self) -> tuple[Problem, ...]:
        if self._problems is None:
            if self._stored["problems"]:
                from quizapp.content.problems import Problem

                self._problems = tuple(Problem(Path(f), line, col, where, message)
                                       for f, line, col, where, message in self._stored["problems"])
            else:
                self._problems = ()
        return self._problems

    @property
    def warnings(self) -> tuple[Problem, ...]:
        from quizapp.content.problems import Problem

        return tuple(Problem(Path(f), line, col, where, message, "warning")
                     for f, line, col, where, message in self._stored.get("warnings", ()))

    def question(self, question_id: str) -> Question | None:
        return next((q for q in self.questions if q.id == question_id), None)

    def topics(self) -> list[str]:
        return sorted({fields["topic"] for fields, _ in self._stored["questions"]})

    def cards(self) -> list[CardSpec]:
        return [CardSpec(card_id, question_id, CardKind(kind), item_id, topic, order)
                for card_id, question_id, kind, item_id, topic, order in self._stored["cards"]]
