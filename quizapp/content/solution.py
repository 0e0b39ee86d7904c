"""A drill's worked solution as data, in the drill's own unit, with the asked row marked; and numbers
printed with enough digits to tell two values apart.

Why: a drill asked in MB showed its term as "0.00 GB" and graded "0.13 MB vs 0.13 MB" for 0.128 vs
0.131. The view (review's solution tab, `quizapp drill`) only lays these rows out.
"""

from __future__ import annotations

from dataclasses import dataclass

from quizapp.content.drills import MAX_DIGITS, DrillVariant, precise
from quizapp.content.drills import shown_digits as _digits
from quizapp.memory import ASKS
from quizapp.memory.asks import count_noun
from quizapp.memory.quantities import format_quantity, sensible_unit, unit_of

SUM_ROWS = ("model_states", "total", "cpu")  # rows after the terms: sums of them


@dataclass(frozen=True)
class SolutionRow:
    """One line of the worked solution. `shown` is in the drill's unit when the row is of its kind."""

    name: str  # a breakdown term (weights, kv_cache, ...), a sum (model_states, total, cpu) or the ask
    value: float  # base units (bytes for terms and sums)
    shown: str
    formula: str = ""
    substituted: str = ""
    note: object = ""  # the term's note as memory's code (a Note, or a plain str): rendered by the view
    asked: bool = False


@dataclass(frozen=True)
class WorkedSolution:
    ask: str
    unit: str
    rows: tuple[SolutionRow, ...]  # the terms, the sums, and the ask itself when it is neither
    answer: str  # the asked quantity in the drill's unit, precise enough to compare with an answer
    # a derived ask (no memory term: kernels, the extra asks): the rows are its steps, `notes` its
    # assumption and source lines (codes, rendered by the view), and no memory table or GPU fit applies
    derived: bool = False
    notes: tuple = ()

    @property
    def asked_row(self) -> SolutionRow:
        return next(r for r in self.rows if r.asked)


def distinguishable(value: float, other: float, unit: str) -> tuple[str, str]:
    """Both values in `unit`, with as many digits as it takes for different values to read differently.

    0.128e6 and 0.131e6 bytes in MB -> ("0.128 MB", "0.131 MB"), never ("0.13 MB", "0.13 MB").
    """
    scale = unit_of(unit).scale
    digits = max(_digits(value / scale), _digits(other / scale))
    a, b = format_quantity(value, unit, digits), format_quantity(other, unit, digits)
    while a == b and value != other and digits < MAX_DIGITS:
        digits += 1
        a, b = format_quantity(value, unit, digits), format_quantity(other, unit, digits)
    return a, b


def worked_solution(variant: DrillVariant) -> WorkedSolution:
    """The variant's breakdown as rows in the drill's unit (byte asks) or GB, the asked row marked."""
    unit = variant.unit
    ask_kind = ASKS.get(variant.ask, unit_of(unit).kind)
    if getattr(variant, "derivation", None) is not None:
        return _derived_solution(variant)
    b = variant.breakdown
    bytes_unit = unit if unit_of(unit).kind == "bytes" else sensible_unit(max(float(b.total), 1.0), "bytes")

    rows = [SolutionRow(t.name, float(t.bytes), precise(float(t.bytes), bytes_unit), t.formula, t.substituted,
                        t.code, asked=t.name == variant.ask) for t in b.terms]
    for name in SUM_ROWS:
        value = float(getattr(b, name, 0) or 0)
        if name == "cpu" and value == 0 and variant.ask != "cpu":
            continue
        rows.append(SolutionRow(name, value, precise(value, bytes_unit), asked=name == variant.ask))
    if not any(r.asked for r in rows):
        shown_unit = unit if unit_of(unit).kind in (ask_kind, "ratio", "number") else sensible_unit(variant.expected, ask_kind)
        rows.append(SolutionRow(variant.ask, variant.expected, precise(variant.expected, shown_unit, count_noun(variant.ask)),
                                asked=True))
    else:  # the breakdown's own value for the asked row, in the drill's unit
        rows = [r if not r.asked else SolutionRow(r.name, r.value, precise(r.value, unit), r.formula, r.substituted,
                                                   r.note, True) for r in rows]
    return WorkedSolution(variant.ask, unit, tuple(rows), precise(variant.expected, unit, count_noun(variant.ask)))


def step_unit(value: float, kind: str, drill_unit: str, preferred: str = "") -> str:
    """The unit a derivation step is shown in: the drill's when the step is of its kind, else the step's
    own (`preferred`, e.g. tokens), else a readable one ("count" for a small count: no "params")."""
    if unit_of(drill_unit).kind == kind:
        return drill_unit
    if preferred:
        return preferred
    if kind == "count" and abs(value) < 1e6:
        return "count"
    return sensible_unit(value, kind)


def _derived_solution(variant: DrillVariant) -> WorkedSolution:
    return derived_solution(variant.derivation, variant.ask, variant.unit, variant.expected)


def derived_solution(derivation, ask: str, unit: str, expected: float | None = None) -> WorkedSolution:
    """A derived ask's steps as rows (formula, numbers, value), the last one the asked quantity in `unit`."""
    steps = derivation.steps
    expected = float(derivation.value) if expected is None else expected
    rows = []
    for i, step in enumerate(steps):
        asked = i == len(steps) - 1
        value = expected if asked else float(step.value)
        shown_unit = unit if asked else step_unit(value, step.kind, unit, getattr(step, "unit", ""))
        noun = count_noun(ask) if asked else (getattr(step, "unit", "") or "params")
        rows.append(SolutionRow(ask if asked else step.name, value, precise(value, shown_unit, noun), step.formula,
                                step.substituted, step.note, asked))
    return WorkedSolution(ask, unit, tuple(rows), precise(expected, unit, count_noun(ask)), derived=True,
                          notes=tuple(derivation.notes))


def base_solution(drill, setup) -> WorkedSolution | None:
    """The worked solution of a drill's base setup when its ask is derived (no memory term), else None."""
    from quizapp.memory.asks import derive

    derivation = derive(setup, drill.ask)
    return None if derivation is None else derived_solution(derivation, drill.ask, drill.unit)
