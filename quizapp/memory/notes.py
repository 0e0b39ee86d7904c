"""Notes as codes: what a worked solution says, as a key and its arguments, never in a language.

The calculator explains every term (which convention, which assumption). The words themselves live in
quizapp.words (words/calc.py), which renders a `Note` in English or Chinese; memory only says which
note and with which numbers, so the two languages cannot drift apart and memory stays free of words.
"""

from __future__ import annotations


class Note(tuple):
    """A words key and its arguments, `(key, ((name, value), ...))`; an argument may itself be a Note
    (rendered in the same language). The empty key joins the `parts` argument in order (what `+`
    makes). A tuple, so hashing and equality are cheap (breakdowns make dozens of notes)."""

    __slots__ = ()

    def __new__(cls, key: str, args: tuple[tuple[str, object], ...] = ()) -> "Note":
        return super().__new__(cls, (key, args))

    @property
    def key(self) -> str:
        return self[0]

    @property
    def args(self) -> tuple[tuple[str, object], ...]:
        return self[1]

    @property
    def kwargs(self) -> dict[str, object]:
        return dict(self[1])

    @property
    def parts(self) -> tuple["Note | str", ...]:
        if self[0] == "":
            return self[1][0][1] if self[1] else ()  # type: ignore[return-value]
        return (self,)

    def __add__(self, other: "Note") -> "Note":  # type: ignore[override]
        if other is EMPTY:
            return self
        if self is EMPTY:
            return other
        left = self[1][0][1] if self[0] == "" and self[1] else (self,)
        right = other[1][0][1] if other[0] == "" and other[1] else (other,)
        return Note("", (("parts", left + right),))

    def __bool__(self) -> bool:
        return bool(self.parts)

    def __repr__(self) -> str:
        return f"Note({self[0]!r}, {self[1]!r})"


EMPTY = Note("", (("parts", ()),))


def joined(*parts: "Note | str") -> Note:
    """One note made of `parts` in order (what `a + b + c` makes, in one step)."""
    return Note("", (("parts", tuple(p for p in parts if p is not EMPTY)),))


def note(key: str, **args: object) -> Note:
    """The note `key` (a quizapp.words key) with `args` (keyword order kept: call sites are fixed)."""
    return Note(key, tuple(args.items()))

