"""What the Store hands out: plain immutable values, no database sessions attached."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class CardRow:
    """A card as the TUI sees it. state: 1 Learning, 2 Review, 3 Relearning; is_new = never reviewed."""

    card_id: str
    question_id: str
    kind: str
    item_id: str
    topic: str
    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None
    suspended: bool
    buried_until: datetime | None
    leech: bool
    lapses: int
    reps: int
    is_new: bool
    bank_order: int = 0
    orphaned: bool = False


@dataclass(frozen=True)
class Counts:
    """Cards of one topic: due before the next rollover, new (never reviewed), learned (reviewed at least once).

    due and new count only cards that can be shown (not suspended, buried or orphaned) and are not
    capped by the daily limits; TodayProgress says how much of the limits is left.
    """

    due: int
    new: int
    learned: int


@dataclass(frozen=True)
class TodayProgress:
    """The current day (from one rollover to the next): what was done against the limits."""

    new_done: int
    reviews_done: int
    new_limit: int
    review_limit: int
    streak_days: int
    day_start: datetime | None = None
    day_end: datetime | None = None
    leeches: int = 0  # leeches waiting, suspended (Anki's "leech" tag): rewrite them, then unsuspend


@dataclass(frozen=True)
class SyncReport:
    """What a start-up sync changed: cards added, metadata updated, orphaned, and back from orphanhood."""

    added: int
    updated: int
    orphaned: int
    restored: int
    total: int  # cards in the bank given to sync
