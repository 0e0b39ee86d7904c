"""The running tally of one review session (what the summary screen shows); no Textual here."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass
class SessionTally:
    """Counts what happened in one review or cram session.

    `record` is called once per rating, `unrecord` when that rating is undone, so undo keeps the
    summary honest.
    """

    mode: str = "review"
    topic: str | None = None
    started: float = 0.0  # clock.monotonic() at the start
    reviewed: int = 0
    drills: int = 0
    drills_correct: int = 0
    _log: list[tuple[str, str | None]] = field(default_factory=list)

    def record(self, card_id: str, verdict: str | None) -> None:
        """One card rated; `verdict` is the drill grader's verdict (None for self-graded cards)."""
        self._log.append((card_id, verdict))
        self.reviewed += 1
        if verdict is not None:
            self.drills += 1
            self.drills_correct += verdict == "correct"

    def unrecord(self, card_id: str) -> None:
        """Forget the most recent rating of `card_id` (after an undo)."""
        for index in range(len(self._log) - 1, -1, -1):
            if self._log[index][0] == card_id:
                _, verdict = self._log.pop(index)
                self.reviewed -= 1
                if verdict is not None:
                    self.drills -= 1
                    self.drills_correct -= verdict == "correct"
                return

    def summary(self, now_monotonic: float, next_due: datetime | None) -> "SessionSummary":
        return SessionSummary(
            mode=self.mode,
            topic=self.topic,
            reviewed=self.reviewed,
            drills=self.drills,
            drills_correct=self.drills_correct,
            seconds=max(now_monotonic - self.started, 0.0),
            next_due=next_due,
        )


@dataclass(frozen=True)
class SessionSummary:
    """What the summary screen shows at the end of a session."""

    mode: str
    topic: str | None
    reviewed: int
    drills: int
    drills_correct: int
    seconds: float
    next_due: datetime | None
