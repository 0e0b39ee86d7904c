"""The tables the card browser and the optimizer add: flags, the card-operation journal, imported history.

They sit beside the review tables rather than in them, so no schema migration is needed: Store.open
creates missing tables on every read-write open (SQLModel's create_all), and readers treat a missing
table as empty (a database opened read-only before it was ever opened by this version).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, text
from sqlmodel import Field, SQLModel

from quizapp.store.tables import ReviewLog


class CardFlag(SQLModel, table=True):
    """A coloured flag (1..4, Anki's red, orange, green, blue) on a card; no row = no flag."""

    __tablename__ = "card_flag"

    card_id: str = Field(primary_key=True, foreign_key="card.card_id")
    flag: int


class CardOperation(SQLModel, table=True):
    """One browser or `quizapp cards` change (suspend, bury, reset, set due, flag) with what it replaced.

    `changes` is JSON: {card_id: {"before": {column: stored}, "after": {...}, "flag": [before, after],
    "logs": [deleted review_log rows]}}; undo writes "before" back when the cards still hold "after".
    """

    __tablename__ = "card_operation"

    id: int | None = Field(default=None, primary_key=True)
    at: datetime
    source: str  # app | cli
    action: str  # suspend | unsuspend | bury | reset | reset_history | due | flag
    argument: str = ""  # the due spec or the flag number
    cards: int  # cards changed
    changes: str  # JSON, see above
    undone: bool = False


class ImportedReview(SQLModel, table=True):
    """A review from another tool's history (`quizapp import revlog`): used for optimizing only.

    Columns are those of the srs-benchmark / fsrs-optimizer revlog CSV; the card ids are the other
    tool's and never match a quizapp card.
    """

    __tablename__ = "imported_review"
    __table_args__ = (Index("ix_imported_review_card", "card_id", "review_time"),)

    id: int | None = Field(default=None, primary_key=True)
    card_id: int
    review_time: int  # ms since the epoch (UTC)
    review_rating: int  # 1..4
    review_state: int  # 0 New, 1 Learning, 2 Review, 3 Relearning
    review_duration: int  # ms
    source: str  # the file's name


# `mistake:ID` looks for each card's last wrong answer: a partial, covering index of the wrong answers
# makes that one pass over them. New databases get it with their tables; an existing one needs a
# migration with the same definition (CREATE INDEX IF NOT EXISTS ... WHERE verdict = 'wrong').
WRONG_ANSWERS_INDEX = Index("ix_review_log_wrong", ReviewLog.__table__.c.card_id, ReviewLog.__table__.c.id,
                            ReviewLog.__table__.c.mistake, sqlite_where=text("verdict = 'wrong'"))

# The statistics' drill accuracy and top mistakes count every graded answer per card: a partial,
# covering index of the graded answers makes that an index walk per drill card instead of a table
# row per answer (a year of answers: 145 ms -> 40 ms). Schema version 4 (migrations.py) adds it to an
# existing file with the same definition.
GRADED_ANSWERS_INDEX = Index("ix_review_log_graded", ReviewLog.__table__.c.card_id, ReviewLog.__table__.c.verdict,
                             ReviewLog.__table__.c.mistake, sqlite_where=text("verdict IS NOT NULL"))


class RetentionDay(SQLModel, table=True):
    """True retention counted per study day, for days that are over (retention.py): the statistics
    read these instead of re-counting a year of answers. `modifier` is the study-day offset the days
    were counted with (the time zone and rollover hour of the moment), so a changed setting or a DST
    change counts afresh. Only the app writes it; a reader that finds it stale counts from the log."""

    __tablename__ = "retention_day"

    modifier: str = Field(primary_key=True)  # SQLite date() modifier, e.g. "+3600 seconds"
    day: str = Field(primary_key=True)  # YYYY-MM-DD, a study day
    mature: bool = Field(primary_key=True)
    passed: bool = Field(primary_key=True)
    answers: int


class RetentionCut(SQLModel, table=True):
    """Where RetentionDay's counts end for a modifier: every study day before `cut` is counted, and
    `answers`/`id_sum` fingerprint the review_log rows before the cut's start (any deleted or added
    answer there, by undo or a history reset, changes them and retires the counts)."""

    __tablename__ = "retention_cut"

    modifier: str = Field(primary_key=True)
    cut: str  # YYYY-MM-DD: the first study day not counted
    answers: int  # review_log rows reviewed before the cut's start
    id_sum: int  # the sum of their ids
