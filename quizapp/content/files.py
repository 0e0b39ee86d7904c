"""Finding and reading question files: regular files only, never more than the size limit, and every
entry that cannot be a question file named with its reason instead of silently skipped.

One reader for every path content comes from (validate, the app's bank, preview, show): a FIFO
would block forever and /dev/zero would fill the memory, because `st_size` is 0 for both. So the
kind of file is checked on the open descriptor (opened non-blocking) and at most limit + 1 bytes
are read, whatever the file claims its size is.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

MAX_BYTES = 1024 * 1024  # a question file; the docs' "Limits" section
MAX_PATH = 4096  # characters in a path (Linux PATH_MAX); longer ones are refused before any system call
MAX_NAME = 255  # characters in one path component (NAME_MAX)
QUESTION_SUFFIXES = (".yaml", ".yml")


class ContentReadError(OSError):
    """A content path that cannot be read as a question file; `reason` is one line ("is a FIFO").

    An OSError, so callers that already catch OSError (and show exc.strerror) show the reason.
    """

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(errno.EINVAL, reason, str(path))
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


def _kind(mode: int) -> str | None:
    """The named reason for a file that is not a regular file, or None for a regular one."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a directory"
    if stat.S_ISFIFO(mode):
        return "is a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device"
    if stat.S_ISSOCK(mode):
        return "is a socket"
    return "is not a regular file"


def _os_reason(exc: OSError, path: Path) -> str:
    """The named reason for a failed stat or open."""
    if exc.errno == errno.ELOOP:
        return "symlink loop"
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        if os.path.islink(path):
            return "dangling symlink (its target does not exist)"
        return "no such file or folder"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.ENAMETOOLONG:
        return f"path too long (the limit is {MAX_NAME} characters a name, {MAX_PATH} in all)"
    return f"cannot read: {exc.strerror or exc}"


def path_problem(path: Path) -> str | None:
    """Why `path` is too long to use (over MAX_PATH characters, or a name over MAX_NAME), or None."""
    text = os.fspath(path)
    if len(text) > MAX_PATH:
        return f"path too long ({len(text):,} characters; the limit is {MAX_PATH:,})"
    longest = max((len(part) for part in text.split(os.sep)), default=0)
    if longest > MAX_NAME:
        return f"path too long (a name of {longest:,} characters; the limit is {MAX_NAME} a name)"
    return None


def check_file(path: Path) -> str | None:
    """Why `path` cannot be a question file (a named one-line reason), or None if it is a regular file."""
    too_long = path_problem(path)
    if too_long:
        return too_long
    try:
        info = os.stat(path)
    except OSError as exc:
        return _os_reason(exc, path)
    return _kind(info.st_mode)


def read_bounded(path: Path, limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file `path`, at most `limit`; ContentReadError (with the reason) otherwise.

    Opened with O_NONBLOCK so that a FIFO swapped in after any check cannot block, checked with
    fstat on the descriptor itself, and read in chunks up to limit + 1 bytes: one byte too many is
    enough to know the file is too large.
    """
    too_long = path_problem(path)
    if too_long:
        raise ContentReadError(path, too_long)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise ContentReadError(path, _os_reason(exc, path)) from None
    try:
        info = os.fstat(fd)
        kind = _kind(info.st_mode)
        if kind is not None:
            raise ContentReadError(path, kind)
        if info.st_size > limit:
            raise ContentReadError(path, size_message(info.st_size, limit))
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            try:
                chunk = os.read(fd, min(limit + 1 - total, 1 << 16))
            except OSError as exc:
                raise ContentReadError(path, _os_reason(exc, path)) from None
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise ContentReadError(path, size_message(None, limit))
        return b"".join(chunks)
    finally:
        os.close(fd)


def size_message(size: int | None, limit: int = MAX_BYTES) -> str:
    shown = f"{limit / 2**20:g} MiB" if limit % 2**20 == 0 else f"{limit:,} bytes"
    if size is None:
        return f"file is larger than {shown}; the limit is {shown}"
    return f"file is {size / 2**20:.1f} MiB; the limit is {shown}"


def read_text(path: Path, limit: int = MAX_BYTES) -> str:
    """read_bounded, decoded as UTF-8 with undecodable bytes replaced (for showing a file's source)."""
    return read_bounded(path, limit).decode("utf-8-sig", errors="replace")


def find_question_files(paths: Iterable[Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The question files under `paths`, and every (path, reason) that could not be taken.

    A given file is taken if it is a regular file (whatever its name); a given folder is searched
    recursively for *.yaml / *.yml, following symlinked folders once each. Names starting with "."
    are skipped (.git, editor swap files). Everything else that looks like content is reported, not
    dropped: a *.yaml that is a FIFO, a device, a directory, a dangling symlink or a symlink loop,
    any dangling or looping symlink (it may have been a folder of questions), an unreadable folder.
    A file reached twice (the same path given twice, overlapping folders, a symlink to a file
    already found) is listed once, where it was first reached.
    """
    files: list[Path] = []
    problems: list[tuple[Path, str]] = []
    seen_files: set[tuple[int, int]] = set()
    seen_dirs: set[tuple[int, int]] = set()

    def take(found: Path, info: os.stat_result) -> None:
        key = (info.st_dev, info.st_ino)
        if key not in seen_files:
            seen_files.add(key)
            files.append(found)

    def listing(folder: Path, info: os.stat_result) -> list[os.DirEntry] | None:
        """The folder's entries in name order; None if it was searched already or cannot be listed."""
        key = (info.st_dev, info.st_ino)
        if key in seen_dirs:
            return None  # reached again through a symlink: already searched
        seen_dirs.add(key)
        try:
            with os.scandir(folder) as entries:
                return sorted(entries, key=lambda e: e.name)
        except OSError as exc:
            problems.append((folder, f"cannot list this folder: {_os_reason(exc, folder)}"))
            return None

    def walk(top: Path, info: os.stat_result) -> None:
        """Depth first, in name order, without recursion (a tree thousands of folders deep is fine)."""
        stack = [iter(listing(top, info) or ())]
        while stack:
            entry = next(stack[-1], None)
            if entry is None:
                stack.pop()
                continue
            if entry.name.startswith("."):
                continue
            found = Path(entry.path)
            is_question = entry.name.endswith(QUESTION_SUFFIXES)
            try:
                target = os.stat(found)
            except OSError as exc:
                if is_question or entry.is_symlink():
                    problems.append((found, _os_reason(exc, found)))
                continue
            if stat.S_ISDIR(target.st_mode):
                if is_question:
                    problems.append((found, "is a directory (a folder named like a question file)"))
                stack.append(iter(listing(found, target) or ()))
            elif is_question:
                kind = _kind(target.st_mode)
                if kind is None:
                    take(found, target)
                else:
                    problems.append((found, kind))

    for given in paths:
        path = Path(given)
        reason = path_problem(path)
        if reason:
            problems.append((path, reason))
            continue
        try:
            info = os.stat(path)
        except OSError as exc:
            problems.append((path, _os_reason(exc, path)))
            continue
        if stat.S_ISDIR(info.st_mode):
            walk(path, info)
        elif stat.S_ISREG(info.st_mode):
            take(path, info)
        else:
            problems.append((path, f"{_kind(info.st_mode)}, not a regular file or folder; give a question file or a folder of them"))
    return files, problems
