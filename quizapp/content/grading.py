"""Grading a typed numeric answer against a drill variant: a verdict, the misconception it most
likely comes from, and the FSRS rating to suggest.

correct: within the drill's tolerance, or of the value under a convention the drill accepts (spec
section 19: the verdict names it and shows the drill's own value beside it); close: within twice it;
wrong: further; unparseable: the quantity parser's reason (no rating is consumed). For a percentage, a
bare number of at most 1 is the fraction (0.375 is 37.5 %). When two misconceptions give the same
value, both are named.
"""

from __future__ import annotations

import re
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
    convention: str | None = None  # the accepted convention the answer matched (expected is still the drill's)
    convention_value: float | None = None  # what the answer should be under that convention
    also_mistakes: tuple[str, ...] = ()  # other misconceptions that give the same value as mistake_id

    @property
    def mistake_ids(self) -> tuple[str, ...]:
        return ((self.mistake_id,) if self.mistake_id else ()) + self.also_mistakes


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


_BARE_NUMBER = re.compile(r"\s*(?:about|around|roughly|approximately|approx\.?|~|≈|约|大约|大概)?\s*"
                          r"([0-9]*\.?[0-9]+)\s*[.。]?\s*")


def read_answer(answer: str, unit: str) -> float:
    """The answer in base units (QuantityError for junk). In a percentage drill a bare number of at
    most 1 is a fraction (0.375 = 37.5 %), above 1 a percent (37.5), as section 19 says."""
    from quizapp.memory.quantities import unit_of

    quantity = parse_quantity(answer, unit)
    if unit_of(unit).kind == "ratio":
        import unicodedata

        bare = _BARE_NUMBER.fullmatch(unicodedata.normalize("NFKC", answer))
        if bare is not None and float(bare.group(1)) <= 1:
            return float(bare.group(1))
    return quantity.value


def accepted_values(variant: DrillVariant, drill: Drill) -> list[tuple[str, float]]:
    """(convention, value) for every convention the drill accepts that changes its value."""
    from quizapp.memory.conventions import convention_value

    out = []
    for name in drill.accept:
        value = convention_value(variant.options, variant.ask, name, accepted=True)
        if value is not None:
            out.append((name, value))
    return out


def grade(variant: DrillVariant, drill: Drill, answer: str) -> Grade:
    """Grade `answer` (as typed) against `variant`; never raises for any answer text."""
    expected = variant.expected
    try:
        value = read_answer(answer, variant.unit)
    except QuantityError as exc:
        return Grade(Verdict.UNPARSEABLE, None, expected, str(exc), None, None)
    tolerance = drill.parsed_tolerance
    accepted = [(name, under) for name, under in accepted_values(variant, drill) if tolerance.within(value, under)]
    if accepted:  # the nearest accepted convention, named when it is nearer than the drill's own value
        name, under = min(accepted, key=lambda a: _distance(value, a[1]))
        if not tolerance.within(value, expected) or _distance(value, under) < _distance(value, expected):
            return Grade(Verdict.CORRECT, value, expected, None, None, Verdict.CORRECT.suggested_rating, name, under)
    if tolerance.within(value, expected):
        return Grade(Verdict.CORRECT, value, expected, None, None, Verdict.CORRECT.suggested_rating)
    verdict = Verdict.CLOSE if tolerance.within(value, expected, scale=2) else Verdict.WRONG
    matches: list[tuple[float, str, float]] = []
    for candidate_id, candidate in candidate_mistakes(variant, drill):
        if tolerance.within(candidate, expected):
            continue  # indistinguishable from the right answer: never blame it
        if tolerance.within(value, candidate):
            matches.append((_distance(value, candidate), candidate_id, candidate))
    if not matches:
        return Grade(verdict, value, expected, None, None, verdict.suggested_rating)
    best_distance, best_id, best_value = min(matches, key=lambda m: m[0])
    # Another misconception whose value the grader cannot tell apart from the best one's is named too.
    also = tuple(dict.fromkeys(cid for _, cid, v in matches
                               if cid != best_id and tolerance.within(v, best_value) and tolerance.within(best_value, v)))
    return Grade(verdict, value, expected, None, best_id, verdict.suggested_rating, also_mistakes=also)

