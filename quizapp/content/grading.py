"""Grading a typed numeric answer against a drill variant: a verdict, the misconception it most
likely comes from, and the FSRS rating to suggest.

correct: within the drill's tolerance; close: within twice it; wrong: further; unparseable: the
quantity parser's reason (no rating is consumed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from quizapp.content.drills import DrillVariant
from quizapp.content.schema import Drill
from quizapp.memory import SetupError, evaluate, mistake_candidates, setup_from_options
from quizapp.memory.quantities import QuantityError, parse_quantity

Verdict = Literal["correct", "close", "wrong", "unparseable"]
RATING = {"correct": 3, "close": 2, "wrong": 1}  # fsrs Rating: Good, Hard, Again


@dataclass(frozen=True)
class Grade:
    verdict: Verdict
    value: float | None  # the answer in base units
    expected: float
    reason: str | None  # why the answer could not be read (unparseable only)
    mistake_id: str | None  # spec section 9 id, or the drill's extra_mistake label
    mistake_label: str | None
    suggested_rating: int | None


def candidate_mistakes(variant: DrillVariant, drill: Drill, lang: str = "en") -> list[tuple[str, str, float]]:
    """(id, label, value) of every misconception for this variant: the drill's own, then the catalogue's.

    The drill's own come first so that, when two give the same value (8x the answer is both
    "bits for bytes" and "counted MHA" for a GQA model with 8 KV groups), the author's label wins.
    """
    out: list[tuple[str, str, float]] = []
    for extra in drill.extra_mistakes:
        try:
            if extra.value is not None:
                value = parse_quantity(str(extra.value), drill.unit).value
            else:
                value = evaluate(setup_from_options({**variant.options, **(extra.setup or {})}), variant.ask)
        except (QuantityError, SetupError):
            continue
        out.append((extra.label, extra.label, float(value)))
    try:
        catalogue = mistake_candidates(variant.setup, variant.ask)  # every value, e.g. ZeRO over N = 2..8
    except SetupError:
        catalogue = []
    for mistake, value in catalogue:
        out.append((mistake.id, mistake.label_zh if lang == "zh" else mistake.label_en, float(value)))
    return out


def _distance(value: float, target: float) -> float:
    if target == 0:
        return abs(value)
    return abs(value - target) / abs(target)


def grade(variant: DrillVariant, drill: Drill, answer: str, lang: str = "en") -> Grade:
    """Grade `answer` (as typed) against `variant`; never raises for any answer text."""
    expected = variant.expected
    try:
        value = parse_quantity(answer, variant.unit).value
    except QuantityError as exc:
        return Grade("unparseable", None, expected, str(exc), None, None, None)
    tolerance = drill.parsed_tolerance
    if tolerance.within(value, expected):
        verdict: Verdict = "correct"
    elif tolerance.within(value, expected, scale=2):
        verdict = "close"
    else:
        verdict = "wrong"
    mistake_id = mistake_label = None
    if verdict != "correct":
        best: tuple[float, str, str] | None = None
        for candidate_id, label, candidate in candidate_mistakes(variant, drill, lang):
            if tolerance.within(candidate, expected):
                continue  # indistinguishable from the right answer: never blame it
            if tolerance.within(value, candidate):
                distance = _distance(value, candidate)
                if best is None or distance < best[0]:
                    best = (distance, candidate_id, label)
        if best is not None:
            _, mistake_id, mistake_label = best
    return Grade(verdict, value, expected, None, mistake_id, mistake_label, RATING[verdict])

