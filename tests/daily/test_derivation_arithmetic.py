"""Every worked-solution step shows arithmetic that computes the value it states: for each bundled
drill (its default variant), each derived step's `substituted` text, read as arithmetic (× · ÷ −,
^ and ², ⌊⌋ and ⌈⌉, thousands commas), evaluates to the step's value. So a slip in a derivation,
a wrong intermediate value or a formula that does not match its numbers, fails here even where the
last step still equals the calculator's answer (tests/daily/test_solution_every_ask.py).

Not read as arithmetic, and so left out: comparisons (the fits / does not fit pair of an inverse
solve, "≤", ">") and statements of the setup ("N = 14", "b = 1, s = 8,192"). A time in days
("/ 86,400") is compared with the step's value in seconds over 86,400."""

from __future__ import annotations

import math
import re

from quizapp.content import draw_variant, load_bank
from quizapp.locations import bundled_content_dir

_FUNCTIONS = {"min": min, "max": max, "ceil": math.ceil, "floor": math.floor, "sqrt": math.sqrt}
_NAME = re.compile(r"[A-Za-z_]+")
_NUMBER_EXPONENT = re.compile(r"(?<=\d)e[+-]?\d")


def arithmetic(text: str) -> str:
    """The shown text as a Python expression."""
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text.strip().lstrip("≈").strip())
    for shown, python in (("×", "*"), ("·", "*"), ("÷", "/"), ("−", "-"), ("²", "**2"), ("^", "**"),
                          ("⌊", "floor("), ("⌋", ")"), ("⌈", "ceil("), ("⌉", ")")):
        text = text.replace(shown, python)
    return text


def evaluable(expression: str) -> bool:
    names = set(_NAME.findall(_NUMBER_EXPONENT.sub("", expression)))
    return bool(expression) and names <= set(_FUNCTIONS)


def steps_of_the_bank():
    bank = load_bank([bundled_content_dir()])
    for question in bank.questions:
        for drill in question.drills:
            variant = draw_variant(question, drill, 0)
            if variant.derivation is not None:
                for step in variant.derivation.steps:
                    yield f"{question.id}/{drill.id}/{step.name}", step


def test_arithmetic_reads_the_shown_notation():
    assert eval(arithmetic("⌈9,337 / 4,096⌉"), {"__builtins__": {}}, _FUNCTIONS) == 3
    assert eval(arithmetic("(2 − 2^(1−3)) · 2^(15 − 7)"), {"__builtins__": {}}, _FUNCTIONS) == 448
    assert eval(arithmetic("4 × 131,072² × 128 / 2"), {"__builtins__": {}}, _FUNCTIONS) == 4 * 131072**2 * 64
    assert eval(arithmetic("max(0 / 9.894e+14, 3,670,016 / 3.35e+12)"), {"__builtins__": {}},
                _FUNCTIONS) == 3670016 / 3.35e12
    assert arithmetic("327,680 / min(4, 8)") == "327680 / min(4, 8)"  # a list's comma stays
    assert not evaluable(arithmetic("N")) and not evaluable(arithmetic("127 (fits) and 128 (does not)"))


def test_every_derived_step_computes_the_value_it_states():
    checked, wrong = 0, []
    for where, step in steps_of_the_bank():
        if any(sign in step.substituted for sign in "≤≥<>"):
            continue
        parts = [arithmetic(part) for part in step.substituted.split("=")]
        expected = step.value
        if step.kind == "seconds" and step.substituted.rstrip().endswith("/ 86,400"):
            expected = step.value / 86_400  # shown in days
        if not all(evaluable(part) for part in parts):
            continue  # a statement of the setup, not arithmetic
        values = [eval(part, {"__builtins__": {}}, _FUNCTIONS) for part in parts]
        checked += 1
        if not all(math.isclose(v, expected, rel_tol=5e-3, abs_tol=1e-12) for v in values):
            wrong.append((where, step.substituted, step.value, values))
    assert not wrong, wrong[:10]
    assert checked > 2_000  # 2,573 steps of the bundled drills, 2026-12-02: the check has not gone vacuous
