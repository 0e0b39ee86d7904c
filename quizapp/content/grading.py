"""Grading a typed numeric answer against a drill variant: a verdict, the misconception it most
likely comes from, and the FSRS rating to suggest.

correct: within the drill's tolerance; close: within twice it; wrong: further; unparseable: the
quantity parser's reason (no rating is consumed).
"""

from __future__ import annotations

from dataclasses import dataclass
from quizapp.content.drills import DrillVariant
from quizapp.content.schema import Drill
from quizapp.memory import SetupError, evaluate, mistake_candidates, setup_from_options
from quizapp.memory.quantities import QuantityError, parse_quantity
from quizapp.vocab import Rating, Verdict


@dataclass(frozen=True)
class Grade:
    verdict: Verdict
    value: float | None  # the answer in base units
    expected: float
    reason: str | None  # why the answer could not be read (unparseable only)
    mistake_id: str | None  # spec section 9 id (named by quizapp.words), or the drill's extra_mistake label
    suggested_rating: Rating | None  # Verdict.suggested_rating: Good, Hard, Again; None if unreadable


def candidate_mistakes(variant: DrillVariant, drill: Drill) -> list[tuple[str, float]]:
    """(id, value) of every misconception for this variant: the drill's own, then the catalogue's.

    The drill's own come first so that, when two give the same value (8x the answer is both
    "bits for bytes" and "counted MHA" for a GQA model with 8 KV groups), the author's label wins.
    A drill's own mistake has its label (the author's words) as its id; a catalogue mistake has its
    id, which the caller names with quizapp.words.say(id, lang).
    """
    out: list[tuple[str, float]] = []
    for extra in drill.extra_mistakes:
        try:
            if extra.value is not None:
                value = parse_quantity(str(extra.value), drill.unit).value
            else:
                value = evaluate(setup_from_options({**variant.options, **(extra.setup or {})}), variant.ask)
        except (QuantityError, SetupError):
            continue
        out.append((extra.label, float(value)))
    try:
        catalogue = mistake_candidates(variant.setup, variant.ask)  # every value, e.g. ZeRO over N = 2..8
    except SetupError:
        catalogue = []
    for mistake, value in catalogue:
        out.append((mistake.id, float(value)))
    return out


def _distance(value: float, target: float) -> float:
    if target == 0:
        return abs(value)
    return abs(value - target) / abs(target)


def grade(variant: DrillVariant, drill: Drill, answer: str) -> Grade:
    """Grade `answer` (as typed) against `variant`; never raises for any answer text."""
    expected = variant.expected
    try:
        value = parse_quantity(answer, variant.unit).value
    except QuantityError as exc:
        return Grade(Verdict.UNPARSEABLE, None, expected, str(exc), None, None)
    tolerance = drill.parsed_tolerance
    if tolerance.within(value, expected):
        verdict = Verdict.CORRECT
    elif tolerance.within(value, expected, scale=2):
        verdict = Verdict.CLOSE
    else:
        verdict = Verdict.WRONG
    mistake_id = None
    if verdict is not Verdict.CORRECT:
        best: tuple[float, str] | None = None
        for candidate_id, candidate in candidate_mistakes(variant, drill):
            if tolerance.within(candidate, expected):
                continue  # indistinguishable from the right answer: never blame it
            if tolerance.within(value, candidate):
                distance = _distance(value, candidate)
                if best is None or distance < best[0]:
                    best = (distance, candidate_id)
        if best is not None:
            _, mistake_id = best
    return Grade(verdict, value, expected, None, mistake_id, verdict.suggested_rating)

