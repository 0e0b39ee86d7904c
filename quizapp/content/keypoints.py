"""Key points: what an interviewer listens for in a spoken answer, and which of them a typed answer
covers. Deterministic and explainable, no model: the answer is normalised (NFKC, case, Markdown
emphasis, whitespace), each point's aliases (regular expressions, English and Chinese alike, whatever
the UI language) are searched in it, and a point with a `number` also needs a quantity within its
drill's tolerance. Each covered point says which words covered it.

The suggested rating (docs/content.md, "Key points"): every must-have point and at least 80 % of
the points: Good; at least 50 %: Hard; less: Again. An empty answer covers nothing.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from quizapp.content.schema import KeyPoint, Question
from quizapp.memory import SetupError, evaluate, setup_from_options
from quizapp.memory.quantities import QuantityError, parse_quantity, unit_of
from quizapp.vocab import Rating

GOOD_COVERAGE = 0.8
HARD_COVERAGE = 0.5
QUESTION_POINTS = (3, 7)  # how many key points a question of the bundled bank has
FOLLOWUP_POINTS = (2, 4)  # and each of its follow-ups

_EMPHASIS = re.compile(r"[*`]")
# A number as written in prose: 1,234.5 / 4.7e10 / 2 x 10^9; what follows it may be its unit.
_NUMBER = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][+-]?\d+)?(?:\s*[x×*]\s*10\^[+-]?\d+)?")
_TAIL = 24  # characters after a number searched for its unit
_UNIT_TAIL = re.compile(r"[ ]?(?:[A-Za-z%µμ/]+(?: [A-Za-z/]+){0,2}|[\u4e00-\u9fff]{1,3})")


def normalise(text: str) -> str:
    """The text aliases are searched in: NFKC (full-width forms to ASCII), no Markdown emphasis marks
    or backticks, case-folded, every run of whitespace one space."""
    text = unicodedata.normalize("NFKC", text or "")
    text = _EMPHASIS.sub("", text)
    return " ".join(text.casefold().split())


@lru_cache(maxsize=4096)
def compiled(pattern: str) -> re.Pattern[str]:
    """An alias as a regular expression (re.error for a bad one; the validator reports it)."""
    return re.compile(pattern)


@dataclass(frozen=True)
class PointResult:
    id: str
    text: str
    must: bool
    covered: bool
    by: str | None  # the words (or the quantity) of the answer that covered it


@dataclass(frozen=True)
class Coverage:
    points: tuple[PointResult, ...]

    @property
    def covered(self) -> int:
        return sum(p.covered for p in self.points)

    @property
    def total(self) -> int:
        return len(self.points)

    @property
    def fraction(self) -> float:
        return self.covered / self.total if self.points else 0.0

    @property
    def musts_covered(self) -> bool:
        return all(p.covered for p in self.points if p.must)

    @property
    def suggested(self) -> Rating:
        return suggested_rating(self.fraction, self.musts_covered)

    def as_json(self, card_id: str) -> dict:
        return {
            "card_id": card_id,
            "points": [{"id": p.id, "text": p.text, "must": p.must, "covered": p.covered, "by": p.by} for p in self.points],
            "covered": self.covered,
            "total": self.total,
            "coverage": round(self.fraction, 4),
            "suggested": self.suggested.name.lower(),
        }


def suggested_rating(fraction: float, musts_covered: bool) -> Rating:
    """Good for every must-have point and >= 80 %, Hard for >= 50 %, else Again."""
    if musts_covered and fraction >= GOOD_COVERAGE:
        return Rating.Good
    if fraction >= HARD_COVERAGE:
        return Rating.Hard
    return Rating.Again


def point_value(question: Question, point: KeyPoint) -> tuple[float, object] | None:
    """(the expected value in base units, the drill) of a point's number; None if it has none or its
    drill cannot be computed (the validator reports that)."""
    if point.number is None:
        return None
    drill = question.drill(point.number.drill)
    if drill is None:
        return None
    from quizapp.content.drills import base_options

    options = tuple(sorted((k, type(v).__name__, v) for k, v in base_options(drill).items()))
    value = _value(options, point.number.term or drill.ask)
    return None if value is None else (value, drill)


@lru_cache(maxsize=1024)
def _value(options: tuple, ask: str) -> float | None:
    """The calculator's value of `ask` for a drill's setup (remembered: a bank asks for the same ones)."""
    try:
        return float(evaluate(setup_from_options({k: v for k, _, v in options}), ask))
    except (SetupError, ValueError, KeyError):
        return None


def quantities(text: str, unit: str) -> list[tuple[float, str]]:
    """Every quantity written in `text` that reads as the kind of `unit`, with the words it was read
    from: "42.95GB", "about 40 GiB", "60 sequences" (a count), "1.4 trillion tokens"."""
    expected = unit_of(unit)
    text = unicodedata.normalize("NFKC", text or "")
    found: list[tuple[float, str]] = []
    for match in _NUMBER.finditer(text):
        number = match.group(0)
        tail = text[match.end(): match.end() + _TAIL]
        read = _read(number, tail, unit, expected.kind)
        if read is not None:
            found.append(read)
    return found


def _unit_candidates(tail: str) -> list[str]:
    """The starts of `tail` that may be a unit, longest first: up to three Latin words ("tokens per
    second", "B params", "GB") or up to three CJK characters ("万亿", "条序列", "字节")."""
    match = _UNIT_TAIL.match(tail)
    if match is None:
        return []
    text = match.group(0)
    if text.strip() and "\u4e00" <= text.strip()[0] <= "\u9fff":
        stripped = text.strip()
        lead = text[: len(text) - len(text.lstrip())]
        return [lead + stripped[:n] for n in range(len(stripped), 0, -1)]
    words = text.split(" ")
    lead = " " if text.startswith(" ") else ""
    words = [w for w in words if w]
    return [lead + " ".join(words[:n]) for n in range(len(words), 0, -1)]


def _read(number: str, tail: str, unit: str, kind: str) -> tuple[float, str] | None:
    """The longest reading of `number` + a unit at the start of `tail` as a quantity; a unit of another
    kind means the number is not this kind of quantity; no unit at all, the drill's unit."""
    for candidate in _unit_candidates(tail):
        piece = number + candidate
        try:
            quantity = parse_quantity(piece, None)
        except QuantityError:
            continue
        if quantity.kind == kind or (kind == "number" and quantity.kind == "ratio"):
            return quantity.value, piece.strip()
        return None
    try:
        quantity = parse_quantity(number, unit)
    except QuantityError:
        return None
    value = quantity.value
    if kind == "ratio" and float(number.replace(",", "")) <= 1:
        value = float(number.replace(",", ""))  # a bare 0.375 for a percentage is the fraction itself
    return value, number


def _alias_hit(point: KeyPoint, normalised: str) -> str | None:
    if point.match is None:
        return None
    for pattern in point.match.patterns():
        try:
            hit = compiled(pattern).search(normalised)
        except re.error:
            continue
        if hit is not None:
            return hit.group(0) or pattern
    return None


def _number_hit(question: Question, point: KeyPoint, text: str, read: dict) -> str | None:
    wanted = point_value(question, point)
    if wanted is None:
        return None
    value, drill = wanted
    unit = drill.unit
    if point.number.term:
        from quizapp.memory import ASKS
        from quizapp.memory.quantities import sensible_unit

        kind = ASKS.get(point.number.term, "number")
        if unit_of(unit).kind != kind:
            unit = sensible_unit(value, kind)
    tolerance = drill.parsed_tolerance
    if unit not in read:  # the answer's quantities of this unit's kind, read once per answer
        read[unit] = quantities(text, unit)
    for found, words in read[unit]:
        if tolerance.within(found, value):
            return words
    return None


def cover(question: Question, points: list[KeyPoint] | tuple[KeyPoint, ...], answer: str) -> Coverage:
    """Which of `points` the answer covers (aliases in either language, numbers in any unit)."""
    normalised = normalise(answer)
    read: dict[str, list[tuple[float, str]]] = {}
    results = []
    for point in points:
        by_words = _alias_hit(point, normalised) if point.match is not None else ""
        by_number = _number_hit(question, point, answer, read) if point.number is not None else ""
        covered = by_words is not None and by_number is not None and bool(normalised)
        by = " / ".join(part for part in (by_words, by_number) if part) if covered else None
        text = point.text if isinstance(point.text, str) else (point.text.en or point.text.zh or "")
        results.append(PointResult(point.id, text, point.must, covered, by))
    return Coverage(tuple(results))


def points_of(question: Question, item_id: str | None) -> list[KeyPoint]:
    """The key points of the question (item None or "main") or of its follow-up `item_id`."""
    if item_id in (None, "", "main"):
        return list(question.key_points)
    followup = next((f for f in question.followups if f.id == item_id), None)
    return list(followup.key_points) if followup is not None else []
