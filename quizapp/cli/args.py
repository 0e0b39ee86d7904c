"""Checked command-line values: argparse `type=` functions for numbers, paths and text, and the one
way CLI errors show text a user (or a script) typed.

A bad value is a one-line argparse error naming the flag (`quizapp: error: argument --seed: ...`,
exit 2), never a traceback from int() or the file system. Untrusted text in any message goes through
`quote` (or `printable` for a whole message): control characters such as ESC are shown escaped, so
an argument like $'\\e[2J' cannot clear or retitle the terminal, and very long values are cut.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable
from pathlib import Path

SHOWN = 60  # characters of an echoed value shown before it is cut
MAX_DIGITS = 18  # digits in a whole-number argument (int64 range; int() of 5,000 digits raises)
MAX_PATH = 4096  # characters in a path argument (Linux PATH_MAX)
MAX_NAME = 255  # characters in one path component (NAME_MAX)
MAX_TEXT = 1000  # characters in a free-text argument (an answer, a topic)


def _escape(char: str) -> str:
    code = ord(char)
    if char == "\x1b":
        return "\\e"
    if code < 0x100:
        return {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(char, f"\\x{code:02x}")
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: object) -> str:
    """`text` with every non-printable character (ESC, other controls, bidi overrides) escaped."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escape(c) for c in text)


def quote(text: object, limit: int = SHOWN) -> str:
    """Untrusted text for an error message: in quotes, escaped (see `printable`), cut at `limit` characters."""
    text = str(text)
    shown = printable(text[:limit])
    more = f"… ({len(text):,} characters)" if len(text) > limit else ""
    return f"'{shown}'{more}"


def _fail(expected: str, value: str) -> argparse.ArgumentTypeError:
    return argparse.ArgumentTypeError(f"expected {expected}, got {quote(value)}")


def whole_number(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """A `type=` for an integer in [low, high] (either bound optional), at most MAX_DIGITS digits."""
    if low is not None and high is not None:
        expected = f"a whole number from {low:,} to {high:,}"
    elif low is not None:
        expected = f"a whole number >= {low:,}"
    else:
        expected = "a whole number"

    def parse(text: str) -> int:
        cleaned = text.strip().replace("_", "").replace(",", "")
        if not re.fullmatch(r"[+-]?[0-9]{1,%d}" % MAX_DIGITS, cleaned):
            raise _fail(expected, text)
        value = int(cleaned)
        if (low is not None and value < low) or (high is not None and value > high):
            raise _fail(expected, text)
        return value

    parse.__name__ = "whole number"
    return parse


def real_number(low: float | None = None, high: float | None = None) -> Callable[[str], float]:
    """A `type=` for a finite decimal number in [low, high] (either bound optional)."""
    import math

    expected = "a number" + (f" from {low:g} to {high:g}" if low is not None and high is not None else
                             f" >= {low:g}" if low is not None else "")

    def parse(text: str) -> float:
        cleaned = text.strip()
        if len(cleaned) > 40 or not re.fullmatch(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?", cleaned):
            raise _fail(expected, text)
        value = float(cleaned)
        if not math.isfinite(value) or (low is not None and value < low) or (high is not None and value > high):
            raise _fail(expected, text)
        return value

    parse.__name__ = "number"
    return parse


def path_problem(text: str) -> str | None:
    """Why `text` cannot be a path on this system (empty, a NUL byte, too long), or None."""
    if not text:
        return "expected a path, got an empty value"
    if "\x00" in text:
        return f"a path cannot contain a NUL character, got {quote(text)}"
    if len(text) > MAX_PATH:
        return f"path too long ({len(text):,} characters; the limit is {MAX_PATH:,}), got {quote(text)}"
    longest = max(len(part) for part in text.split(os.sep))
    if longest > MAX_NAME:
        return f"path too long (a name of {longest:,} characters; the limit is {MAX_NAME}), got {quote(text)}"
    return None


def path(text: str) -> Path:
    """A `type=` for a file or folder path: not empty, no NUL, within the system's length limits."""
    problem = path_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return Path(text)


path.__name__ = "path"


def text(limit: int = MAX_TEXT, what: str = "text") -> Callable[[str], str]:
    """A `type=` for free text of at most `limit` characters (no NUL)."""

    def parse(value: str) -> str:
        if len(value) > limit:
            raise argparse.ArgumentTypeError(f"{what} too long ({len(value):,} characters; the limit is {limit:,})")
        if "\x00" in value:
            raise argparse.ArgumentTypeError(f"{what} cannot contain a NUL character")
        return value

    parse.__name__ = what
    return parse


def env_path(name: str, value: str) -> Path:
    """A path from the environment variable `name`, checked like a path argument; ValueError names the variable."""
    problem = path_problem(value)
    if problem:
        raise ValueError(f"{name}: {problem}")
    return Path(value)
