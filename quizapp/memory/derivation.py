"""A worked derivation: how an ask that is no memory term comes out of its inputs, step by step.

The memory asks are explained by their breakdown (terms with formula, numbers and a note). Asks of
another kind (speculative decoding, number formats, GPU arithmetic, data pipelines: Part III and the
third bank's extras) are explained by a `Derivation`: the steps that lead to the asked value, each
with its formula in symbols, the same with the numbers put in, the value and a note as a code
(`notes.Note`, rendered in English or Chinese by quizapp.words). The last step is the asked quantity.
Worked solutions (`quizapp drill`, the review's solution tab) print these rows instead of a memory
table, so the solution derives the number the drill asks for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from quizapp.memory.notes import EMPTY, Note


@dataclass(frozen=True)
class Step:
    """One line of a derivation: `name` is an ask or an intermediate quantity (words: solution.row.NAME)."""

    name: str
    value: float
    kind: str  # a quantities kind (bytes, seconds, number, ratio, count, flops, bandwidth, rate)
    formula: str  # symbols, e.g. "(1 − α^(γ+1)) / (1 − α)"
    substituted: str  # the same with numbers, e.g. "(1 − 0.8^5) / (1 − 0.8)"
    note: Note | str = EMPTY
    unit: str = ""  # a display unit for the step when it is not the drill's kind ("tokens"); "" = a readable one


@dataclass(frozen=True)
class Derivation:
    """How `ask` follows from the setup: `steps` in order (the last is the asked value), and `notes`:
    the assumptions and the primary source, as codes."""

    ask: str
    steps: tuple[Step, ...]
    notes: tuple[Note | str, ...] = ()

    @property
    def value(self) -> float:
        return self.steps[-1].value


def num(x: float) -> str:
    """A number as a derivation writes it: 4,096, 0.8, 1.83e9, 3.3616, 2^-149 as 1.4013e-45."""
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15):
        return f"{int(x):,}"
    if not math.isfinite(x):
        return str(x)
    if abs(x) >= 1e15 or abs(x) < 1e-4:
        mantissa, exponent = f"{x:.5g}".split("e") if "e" in f"{x:.5g}" else (f"{x:.5g}", "0")
        return f"{mantissa}e{int(exponent)}"
    if abs(x) >= 1e5:
        return f"{x:,.0f}"  # 31,507,692,308 rather than 3.15077e+10
    return f"{x:,.6g}" if abs(x) >= 1 else f"{x:.6g}"
