"""Line breaking for mixed Chinese and English prose: where a line may end, and how full each line is.

Textual wraps at spaces, so a Chinese paragraph is one long "word": lines break early or fold inside a
number. Here the break opportunities are Unicode's (UAX #14, via `uniseg`: no line starts with a
closing mark, a Latin word or identifier stays whole), tailored in two ways: between two Chinese
characters a line breaks only between phrases (BudouX's model, so 字节 or 分钟 stay whole), and never
right after a number (so 40 分钟 or 2 字节/参数 keep the number with its unit). Lines are then filled
greedily to the width in terminal cells. Pure functions, no Textual: the Prose widget calls them.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from rich.cells import cell_len


def is_cjk(char: str) -> bool:
    """A wide letter (Han, kana, Hangul, full-width forms), not punctuation or a symbol."""
    return unicodedata.east_asian_width(char) in ("W", "F") and unicodedata.category(char).startswith("L")


def is_wide(char: str) -> bool:
    """Wide or full-width (letters and punctuation alike): where a soft line break joins without a space."""
    return unicodedata.east_asian_width(char) in ("W", "F")


@lru_cache(maxsize=1)
def _phrase_parser():
    import budoux

    return budoux.load_default_simplified_chinese_parser()


def _phrase_boundaries(text: str) -> set[int]:
    offsets, position = set(), 0
    for phrase in _phrase_parser().parse(text):
        position += len(phrase)
        offsets.add(position)
    return offsets


# units that follow a number in the bank's English and Chinese prose (a Chinese word after a number is
# its unit or counter: 40 分钟, 2 字节, 8 张卡)
_UNIT = re.compile(r"(?:[KMGTPE]i?B|B|bytes?|[mμu]?s|ns|min|h|%|x|×|tokens?|[KMGTPE]?FLOPs?|FLOP/B|[KMGT]B/s|"
                   r"Gb/s|Gbps|GT/s|[GM]Hz|W|bits?|GPUs?|params?)(?![A-Za-z])")


def _after_number(text: str, offset: int) -> bool:
    """The line would end with a number (and at most one space) before its unit: keep them together."""
    before = text[:offset].rstrip(" ")
    if len(text[:offset]) - len(before) > 1 or not before:
        return False
    if not (before[-1].isdigit() or (before[-1] in "%.," and len(before) > 1 and before[-2].isdigit())):
        return False
    after = text[offset:]
    return bool(after) and (is_cjk(after[0]) or _UNIT.match(after) is not None)


@lru_cache(maxsize=2048)
def break_units(text: str) -> tuple[str, ...]:
    """`text` cut into the pieces a line may not break inside (their concatenation is `text`)."""
    from uniseg.linebreak import line_break_units

    candidates = list(line_break_units(text))
    phrases = _phrase_boundaries(text) if any(is_cjk(c) for c in text) else set()
    units: list[str] = []
    offset = 0
    for piece in candidates:
        if units:
            between_cjk = is_cjk(text[offset - 1]) and is_cjk(text[offset])
            if (between_cjk and offset not in phrases) or _after_number(text, offset):
                units[-1] += piece
                offset += len(piece)
                continue
        units.append(piece)
        offset += len(piece)
    return tuple(units)


def wrap_offsets(text: str, width: int) -> list[int]:
    """Offsets in `text` (one line, no newline) where lines start, filled greedily to `width` cells.

    A piece wider than the whole width is folded at the cell boundary, as Textual folds a long word.
    """
    if width <= 0:
        return []
    offsets: list[int] = []
    used = 0  # cells on the current line
    position = 0
    for unit in break_units(text):
        visible = cell_len(unit.rstrip(" "))
        if used and used + visible > width:
            offsets.append(position)
            used = 0
        if visible > width:  # fold it
            for char in unit:
                size = cell_len(char)
                if used + size > width and char != " ":
                    offsets.append(position)
                    used = 0
                used += size
                position += 1
            continue
        used += cell_len(unit)
        position += len(unit)
    return offsets


def wrap_lines(text: str, width: int) -> list[str]:
    """`text` as the lines wrap_offsets makes, trailing spaces dropped (a test and debugging view)."""
    cuts = [0, *wrap_offsets(text, width), len(text)]
    return [text[a:b].rstrip(" ") for a, b in zip(cuts, cuts[1:])]
