"""The running tally of one review session (what the summary screen shows); no Textual here."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from quizapp.vocab import Mode, Verdict


@dataclass(frozen=True)
class RatedCard:
    """One rating as the session remembers it, so an undo can bring the card back as it was."""

    card_id: str
    verdict: Verdict | None = None
    answer: str | None = None  # what was typed in the answer box
    variant: Any | None = None  # the drill variant shown (content.DrillVariant), not a fresh draw


@dataclass
class SessionTally:
    """Counts what happened in one review or cram session.

    `record` is called once per rating, `unrecord` when that rating is undone, so undo keeps the
    summary honest and gets back what the card showed.
    """

    mode: Mode = Mode.REVIEW
    topic: str | None = None
    started: float = 0.0  # clock.monotonic() at the start
    reviewed: int = 0
    drills: int = 0
    drills_correct: int = 0
    leeches: list[str] = field(default_factory=list)  # cards suspended as leeches by this session's ratings
    set_aside: int = 0  # cards buried or suspended from the review screen
    _log: list[RatedCard] = field(default_factory=list)

    def record(self, card_id: str, verdict: Verdict | None, answer: str | None = None, variant: Any | None = None) -> None:
        """One card rated; `verdict` is the drill grader's verdict (None for self-graded cards);
        `answer` and `variant` are kept for undo."""
        self._log.append(RatedCard(card_id, verdict, answer, variant))
        self.reviewed += 1
        if verdict is not None:
            self.drills += 1
            self.drills_correct += verdict == Verdict.CORRECT

    def unrecord(self, card_id: str) -> RatedCard | None:
        """Forget the most recent rating of `card_id` (after an undo) and return it (None if this
        session did not rate that card)."""
        for index in range(len(self._log) - 1, -1, -1):
            if self._log[index].card_id == card_id:
                rated = self._log.pop(index)
                self.reviewed -= 1
                if rated.verdict is not None:
                    self.drills -= 1
                    self.drills_correct -= rated.verdict == Verdict.CORRECT
                return rated
        return None

    def summary(self, now_monotonic: float, next_due: datetime | None) -> "SessionSummary":
        return SessionSummary(
            mode=self.mode,
            topic=self.topic,
            reviewed=self.reviewed,
            drills=self.drills,
            drills_correct=self.drills_correct,
            seconds=max(now_monotonic - self.started, 0.0),
            next_due=next_due,
            leeches=tuple(self.leeches),
        )


@dataclass(frozen=True)
class SessionSummary:
    """What the summary screen shows at the end of a session."""

    mode: Mode
    topic: str | None
    reviewed: int
    drills: int
    drills_correct: int
    seconds: float
    next_due: datetime | None
    leeches: tuple[str, ...] = ()  # suspended as leeches during the session (Anki announces them too)
