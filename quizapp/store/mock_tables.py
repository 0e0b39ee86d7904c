"""Tables of the mock-interview history: one `mock_session` row per interview, one `mock_item` per step.

The store's database initialisation imports this module before `create_all` (since schema version 1;
version 2 dropped `mistake_label`, see migrations.py).
Every item row is written when the interview is planned and filled in as each step is answered,
so quitting or a crash keeps what was answered and the session can be resumed from the first
unanswered item. Plain `datetime` columns: SQLModel round-trips them UTC-aware.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel


class MockSession(SQLModel, table=True):
    """One mock interview: the choices it was started with, and how it ended."""

    __tablename__ = "mock_session"

    id: int | None = Field(default=None, primary_key=True)
    started_at: datetime
    finished_at: datetime | None = None  # set when the last item is answered (completed)
    completed: bool = False
    question_count: int
    minutes: float  # per question
    followups: int  # asked per question (at most)
    topics: str = ""  # the chosen topics, newline-separated; empty = all
    seed: int | None = None
    strict: bool = False
    elapsed_s: float = 0.0  # interview time used so far (pauses excluded)
    applied: bool = False  # ratings written into the schedule (mode "mock")


class MockItem(SQLModel, table=True):
    """One step of an interview: a question, one of its follow-ups, or one of its quick calculations."""

    __tablename__ = "mock_item"

    id: int | None = Field(default=None, primary_key=True)
    session_id: int = Field(foreign_key="mock_session.id", index=True)
    position: int  # order in the interview (0-based, across all questions)
    question_index: int  # which question of the interview (0-based)
    kind: str  # a quizapp.vocab.CardKind: question | followup | drill
    card_id: str  # question_id/kind/item_id: the card the rating goes to
    question_id: str
    item_id: str
    topic: str
    prompt: str  # the text that was asked (a drill's concrete variant prompt)
    unit: str | None = None  # drills: the expected answer's unit
    variant_seed: int | None = None  # drills: the seed of the drawn variant
    budget_s: float
    elapsed_s: float = 0.0
    answered_at: datetime | None = None  # None = not reached yet (resume starts here)
    auto_advanced: bool = False  # strict mode moved on when the time ran out
    draft: str = ""
    # drills, graded on the spot (shown only in the debrief)
    verdict: str | None = None  # a quizapp.vocab.Verdict: correct | close | wrong | skipped
    value: float | None = None
    expected: float | None = None
    expected_display: str | None = None
    mistake_id: str | None = None  # the catalogue's id (named by quizapp.words when shown) or an extra mistake's label
    # self-graded items with key points: JSON {point id: covered} (typed answers pre-ticked; schema version 3)
    points: str | None = None
    # the debrief
    rating: int | None = None  # self-rating (drills: the grader's suggestion), fsrs Rating value
    to_schedule: bool | None = None  # None = the default (yes for misses)
    applied_rating: int | None = None  # what was logged into the schedule (mode "mock")
