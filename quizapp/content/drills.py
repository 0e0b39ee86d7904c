"""Numeric drills made concrete: draw a variant, compute its expected value with the calculator, and
render `{{drill}}` / `{{drill.term}}` references in prose, so no number in an answer is typed by hand.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from quizapp.content.schema import Drill, Question, Scalar
from quizapp.memory import ASKS, Breakdown, Setup, SetupError, breakdown, evaluate, setup_from_options, solution_setup
from quizapp.memory.asks import count_noun
from quizapp.memory.quantities import format_quantity, sensible_unit, unit_of

REFERENCE = re.compile(r"\{\{([^{}]*)\}\}")


@dataclass(frozen=True)
class DrillVariant:
    """One concrete drill: the drawn setup, its filled prompt and the calculator's answer."""

    question_id: str
    drill_id: str
    prompt: str
    setup: Setup
    ask: str
    unit: str
    expected: float  # base units (bytes, count, seconds, fraction, number)
    expected_display: str
    breakdown: Breakdown  # at the answer: for max_batch/max_seq/max_params, the solved value put back
    options: dict  # the calculator inputs as written (setup + drawn vary choices)
    # how the asked value follows from the inputs, for an ask that is no memory term (kernels, the extra
    # asks: quizapp.memory.derivation.Derivation); None when the breakdown explains it
    derivation: object | None = None


def reference_terms() -> tuple[str, ...]:
    """Names allowed after the dot in `{{drill.term}}`: anything the calculator can be asked."""
    return tuple(ASKS)


def base_options(drill: Drill) -> dict[str, Scalar]:
    """The drill's setup without drawing: vary fields missing from `setup` take their first choice."""
    options = dict(drill.setup)
    for field, choices in drill.vary.items():
        options.setdefault(field, choices[0])
    return options


def _display_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):  # shape [4096, 4096, 4096], chain [[1, 1], [2, 1]]: as written in YAML
        return "[" + ", ".join(_display_value(v) for v in value) + "]"
    return str(value)


def fill_prompt(prompt: str, options: dict[str, Scalar]) -> str:
    """Fill `{field}` placeholders from the drawn setup (values as written in YAML)."""
    return prompt.format_map({k: _display_value(v) for k, v in options.items()})


def draw_variant(question: Question, drill: Drill, seed: int | None) -> DrillVariant:
    """A concrete variant: each `vary` field drawn with random.Random(seed) (None: a fresh draw)."""
    from quizapp.content.localize import is_bilingual, shown

    if is_bilingual(question):  # as loaded: shown in its own language
        question = shown(question)
        drill = question.drill(drill.id) or drill
    rng = random.Random(seed)
    options = dict(drill.setup)
    for field in sorted(drill.vary):
        options[field] = rng.choice(drill.vary[field])
    setup = setup_from_options(options)
    expected = float(evaluate(setup, drill.ask))
    from quizapp.memory.asks import derive

    derivation = derive(setup, drill.ask)
    return DrillVariant(
        question_id=question.id,
        drill_id=drill.id,
        prompt=fill_prompt(drill.prompt, options),
        setup=setup,
        ask=drill.ask,
        unit=drill.unit,
        expected=expected,
        expected_display=precise(expected, drill.unit, count_noun(drill.ask)),
        breakdown=breakdown(solution_setup(setup, drill.ask, expected)),
        options=options,
        derivation=derivation,
    )


def reference_value(question: Question, drill_id: str, term: str | None) -> str:
    """The text a `{{drill_id}}` / `{{drill_id.term}}` reference stands for (base setup, no vary).

    The drill's own ask is shown in the drill's unit; another term is shown in the drill's unit when
    it is of the same kind, otherwise in a readable unit for its size.
    """
    drill = question.drill(drill_id)
    if drill is None:
        raise KeyError(drill_id)
    setup = setup_from_options(base_options(drill))
    ask = term or drill.ask
    value = float(evaluate(setup, ask))
    kind = ASKS.get(ask, "number")
    unit_kind = unit_of(drill.unit).kind
    if unit_kind == kind or (kind == "number" and unit_kind == "ratio" and ask == drill.ask):
        unit = drill.unit
    else:
        unit = sensible_unit(value, kind)
    return precise(value, unit, count_noun(ask))


SIGNIFICANT = 3  # at least this many significant digits in a shown value ("0.128 MB", not "0.13 MB")
MAX_DIGITS = 8


def shown_digits(shown: float) -> int:
    """Decimals for SIGNIFICANT significant digits (at least 2): 112 -> 2, 0.128 -> 3, 0.00421 -> 5."""
    import math

    if shown == 0 or not math.isfinite(shown):
        return 2
    return min(max(2, SIGNIFICANT - 1 - math.floor(math.log10(abs(shown)))), MAX_DIGITS)


def precise(value: float, unit: str, noun: str = "params") -> str:
    """`value` (base units) in `unit` with at least three significant digits: "0.128 MB", "112.00 GB";
    `noun`: what a count in K/M/B/T counts ("2.50T tokens")."""
    return format_quantity(value, unit, shown_digits(value / unit_of(unit).scale), noun)


def render_text(question: Question, text: str | None) -> str:
    """`text` with every `{{drill}}` / `{{drill.term}}` replaced by the calculator's value and unit.

    A reference that cannot be rendered (only possible in a file that failed validation) is left as
    written, so a view never crashes on it.
    """
    if not text:
        return text or ""
    if not isinstance(text, str):  # an {en, zh} field of a question as loaded: its own language
        from quizapp.content.localize import text_in

        text = text_in(text, question.lang, question.lang)[0] or ""

    def substitute(match: re.Match[str]) -> str:
        inner = match.group(1).strip()
        drill_id, _, term = inner.partition(".")
        try:
            return reference_value(question, drill_id, term or None)
        except (KeyError, SetupError, ValueError):
            return match.group(0)

    return REFERENCE.sub(substitute, text)
