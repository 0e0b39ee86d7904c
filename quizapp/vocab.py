"""The words every layer shares for what a card is and what happened to it, declared once.

Ratings and memory states are fsrs's own enums (the scheduler is the authority on them); verdicts,
modes and card kinds are `StrEnum`s, so they are stored and compared as the plain strings the
database has always held ("correct", "cram", "drill"). A card id is `question_id/kind/item_id`;
`CardId` is the one place that builds and reads that text.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from fsrs import Rating, State

__all__ = ["MAIN_ITEM", "CardId", "CardKind", "Mode", "Rating", "State", "Verdict"]


class Verdict(StrEnum):
    """How a typed calculation answer was graded. SKIPPED: a mock step left without a readable answer."""

    CORRECT = "correct"
    CLOSE = "close"
    WRONG = "wrong"
    UNPARSEABLE = "unparseable"
    SKIPPED = "skipped"

    @property
    def suggested_rating(self) -> Rating | None:
        """The rating the grader suggests (None while the answer cannot be read: retype it)."""
        return _SUGGESTED.get(self)

    @property
    def graded(self) -> bool:
        """Whether a number was read and compared (correct, close or wrong)."""
        return self in (Verdict.CORRECT, Verdict.CLOSE, Verdict.WRONG)


_SUGGESTED = {Verdict.CORRECT: Rating.Good, Verdict.CLOSE: Rating.Hard, Verdict.WRONG: Rating.Again,
              Verdict.SKIPPED: Rating.Again}


class Mode(StrEnum):
    """Why a card was answered. Cram practises without moving the schedule."""

    REVIEW = "review"
    CRAM = "cram"
    MOCK = "mock"

    @property
    def scheduled(self) -> bool:
        return self is not Mode.CRAM


class CardKind(StrEnum):
    QUESTION = "question"
    FOLLOWUP = "followup"
    DRILL = "drill"


MAIN_ITEM = "main"
"""The item id of a question's own card (`<question>/question/main`)."""


@dataclass(frozen=True, order=True)
class CardId:
    """`question_id/kind/item_id`, the key every card's history hangs on (ids never contain "/")."""

    question_id: str
    kind: CardKind
    item_id: str

    @classmethod
    def question(cls, question_id: str) -> CardId:
        return cls(question_id, CardKind.QUESTION, MAIN_ITEM)

    def format(self) -> str:
        return f"{self.question_id}/{self.kind.value}/{self.item_id}"

    __str__ = format

    @classmethod
    def parse(cls, text: str) -> CardId:
        """The parts of a stored card id; ValueError naming the text when it is not one."""
        parts = text.rsplit("/", 2)
        if len(parts) != 3 or not all(parts):
            raise ValueError(f"card id: expected question/kind/item, got {text!r}")
        question_id, kind, item_id = parts
        try:
            return cls(question_id, CardKind(kind), item_id)
        except ValueError:
            raise ValueError(f"card id: unknown kind {kind!r} in {text!r}") from None
