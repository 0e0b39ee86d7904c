"""The review tables (card, review_log, meta) as SQLModel classes; docs/database.md describes each column.

Datetime columns are plain `datetime` fields: SQLModel stores them as UTC text and returns them
UTC-aware, which fsrs requires (an explicit DateTime(timezone=True) column would come back naive).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index
from sqlmodel import Field, SQLModel


class Card(SQLModel, table=True):
    """One reviewable item (a question, a follow-up or a drill) and its FSRS memory state."""

    __tablename__ = "card"
    __table_args__ = (
        Index("ix_card_queue", "state", "due"),  # learning due now, reviews due today
        Index("ix_card_new", "reps", "bank_order"),  # new cards in bank order
    )

    card_id: str = Field(primary_key=True)  # f"{question_id}/{kind}/{item_id}"
    question_id: str = Field(index=True)
    kind: str  # question | followup | drill
    item_id: str
    topic: str = Field(index=True)
    bank_order: int = 0
    orphaned: bool = False  # its YAML is gone; kept with its history, not shown
    # FSRS state (fsrs.Card): state 1 Learning, 2 Review, 3 Relearning; a new card is Learning, step 0
    state: int = 1
    step: int | None = 0
    stability: float | None = None
    difficulty: float | None = None
    due: datetime
    last_review: datetime | None = None
    # Anki-style flags and counters
    suspended: bool = False
    buried_until: datetime | None = None
    leech: bool = False
    lapses: int = 0
    reps: int = 0  # scheduled reviews (review and mock modes); 0 = new
    created_at: datetime


class ReviewLog(SQLModel, table=True):
    """One answer, append-only. Undo deletes the row it undoes; nothing else changes a row."""

    __tablename__ = "review_log"
    __table_args__ = (Index("ix_review_log_card", "card_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    card_id: str = Field(foreign_key="card.card_id")
    rating: int  # 1 Again, 2 Hard, 3 Good, 4 Easy
    reviewed_at: datetime = Field(index=True)  # UTC
    duration_ms: int  # capped at 60000, like Anki
    mode: str  # review | cram | mock
    answer: str | None = None
    verdict: str | None = None  # correct | close | wrong | unparseable (auto-graded drills)
    mistake: str | None = None  # diagnosed misconception id
    prev_state: int  # the card's state before this answer
    prev_reps: int  # 0 = the card was new
    card_before: str  # JSON: the card row's stored values before the answer (undo restores them)
    buried_siblings: str = "{}"  # JSON: sibling card_id -> [buried_until before, buried_until set]


class ReviewPoint(SQLModel, table=True):
    """One key point of a self-graded answer: whether the answer covered it (ticked in review or the
    debrief). Written with its review_log row, deleted with it by undo (schema version 3)."""

    __tablename__ = "review_point"
    __table_args__ = (
        Index("ix_review_point_review", "review_id"),
        Index("ix_review_point_missed", "point", "covered", "card_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    review_id: int = Field(foreign_key="review_log.id")
    card_id: str  # the review's card (denormalised: statistics and `missed:` group by it)
    point: str  # the key point's id (quizapp.content.schema.KeyPoint.id)
    covered: bool


class Meta(SQLModel, table=True):
    """Key/value facts about the file: schema_version, and settings under "setting:<name>" (JSON)."""

    __tablename__ = "meta"

    key: str = Field(primary_key=True)
    value: str
