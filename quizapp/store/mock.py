"""Mock-interview records: the `mock_session` and `mock_item` rows, read and written (persistence only).

What an interview decides (drawing, planning, grading, scoring, which ratings go to the schedule) is
`quizapp.practice.interview`'s; this module stores what it decided and hands rows back as frozen
values. SQLAlchemy Core on the tables, like the rest of the store. Every write is one IMMEDIATE
transaction; a database failure is a one-line StoreError naming the file. No language is stored: a
drill's misconception is kept as its id and named when shown.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from datetime import datetime

from sqlalchemy import and_, case, func, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from quizapp.store.errors import database_error
from quizapp.store.mock_tables import MockItem, MockSession
from quizapp.store.tables import Card
from quizapp.vocab import CardKind, Rating, Verdict

SESSION = MockSession.__table__
ITEM = MockItem.__table__
CARD = Card.__table__

POINTS = {Rating.Again: 0.0, Rating.Hard: 0.5, Rating.Good: 1.0, Rating.Easy: 1.0}
"""A rated item's share of the score (percent of the rated items' points). Declared beside the tables
because the history's scores are computed in SQL from it."""

BLANK = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
"""Every character `str.isspace()` accepts (ASCII, NBSP, the ideographic space U+3000...): a draft made only
of these is no answer. `draft.strip(BLANK)` is `draft.strip()`, and SQL's `trim(draft, BLANK)` is the same
test, so the history's "answered" count agrees with `quizapp.practice.interview.is_answered`."""


@dataclass(frozen=True)
class PlannedItem:
    """One step of an interview as planned, before it is stored."""

    question_index: int
    kind: CardKind
    card_id: str
    question_id: str
    item_id: str
    topic: str
    prompt: str
    budget_s: float
    unit: str | None = None
    variant_seed: int | None = None
    expected: float | None = None
    expected_display: str | None = None


@dataclass(frozen=True)
class StoredSession:
    """A `mock_session` row."""

    id: int
    started_at: datetime
    finished_at: datetime | None
    completed: bool
    question_count: int
    minutes: float
    followups: int
    topics: tuple[str, ...]
    seed: int | None
    strict: bool
    elapsed_s: float
    applied: bool


@dataclass(frozen=True)
class StoredItem:
    """A `mock_item` row: one asked step, what was answered and how it was rated."""

    id: int
    session_id: int
    position: int
    question_index: int
    kind: CardKind
    card_id: str
    question_id: str
    item_id: str
    topic: str
    prompt: str
    unit: str | None
    variant_seed: int | None
    budget_s: float
    elapsed_s: float
    answered_at: datetime | None
    auto_advanced: bool
    draft: str
    verdict: Verdict | None
    value: float | None
    expected: float | None
    expected_display: str | None
    mistake_id: str | None
    rating: Rating | None
    to_schedule: bool | None
    applied_rating: Rating | None
    points: dict[str, bool] | None = None  # key point id -> ticked (self-graded items with key points)


@dataclass(frozen=True)
class GradedAnswer:
    """What grading a quick calculation decided, stored with the answer."""

    verdict: Verdict
    rating: Rating
    value: float | None = None
    expected: float | None = None
    expected_display: str | None = None
    mistake_id: str | None = None


@dataclass(frozen=True)
class StoredInterview:
    """A session, its items in interview order, and which of their cards were never reviewed."""

    session: StoredSession
    items: tuple[StoredItem, ...]
    new_cards: frozenset[str]


@dataclass(frozen=True)
class MockSessionSummary:
    """One past session as the statistics screen, the setup form and `quizapp stats` list it."""

    id: int
    date: datetime  # started, UTC
    questions: int
    score: float | None  # percent of the rated items' POINTS, None if nothing rated
    completed: bool
    answered: int  # items answered with something in them (a blank draft is no answer)
    items: int
    elapsed_s: float
    minutes: float


# --- plumbing ------------------------------------------------------------------------------------


@contextmanager
def _writing(store) -> Iterator[Connection]:
    """One IMMEDIATE write transaction on the store's database; failures as StoreError."""
    try:
        with store.engine.execution_options(immediate=True).begin() as conn:
            yield conn
    except SQLAlchemyError as exc:
        raise database_error(store.path, exc) from None


def _session_row(row) -> StoredSession:
    values = dict(row)
    values["topics"] = tuple(t for t in (values["topics"] or "").split("\n") if t)
    return StoredSession(**{f.name: values[f.name] for f in fields(StoredSession)})


def _item_row(row) -> StoredItem:
    values = {f.name: row[f.name] for f in fields(StoredItem)}
    values["kind"] = CardKind(values["kind"])
    for name, kind in (("verdict", Verdict), ("rating", Rating), ("applied_rating", Rating)):
        if values[name] is not None:
            values[name] = kind(values[name])
    values["points"] = _points(values["points"])
    return StoredItem(**values)


def _points(stored: str | None) -> dict[str, bool] | None:
    if not stored:
        return None
    try:
        data = json.loads(stored)
    except ValueError:
        return None
    return {str(k): bool(v) for k, v in data.items()} if isinstance(data, dict) else None


# --- writing -------------------------------------------------------------------------------------


def create_session(store, *, started_at: datetime, question_count: int, minutes: float, followups: int,
                   topics: Sequence[str], seed: int | None, strict: bool, items: Sequence[PlannedItem]) -> int:
    """Store a planned session with all its (unanswered) items; returns the session id."""
    with _writing(store) as conn:
        session_id = conn.execute(insert(SESSION).values(
            started_at=started_at, question_count=question_count, minutes=minutes, followups=followups,
            topics="\n".join(topics), seed=seed, strict=strict, completed=False, elapsed_s=0.0, applied=False,
        )).inserted_primary_key[0]
        if items:
            conn.execute(insert(ITEM), [
                {**{f.name: getattr(item, f.name) for f in fields(PlannedItem)}, "session_id": session_id,
                 "position": position, "elapsed_s": 0.0, "auto_advanced": False, "draft": ""}
                for position, item in enumerate(items)
            ])
    return session_id


def save_draft(store, item_id: int, draft: str, elapsed_s: float, session_elapsed_s: float) -> None:
    """Keep a draft in progress without marking the item answered."""
    with _writing(store) as conn:
        conn.execute(update(ITEM).where(ITEM.c.id == item_id).values(draft=draft, elapsed_s=elapsed_s))
        conn.execute(update(SESSION).where(SESSION.c.id == select(ITEM.c.session_id).where(ITEM.c.id == item_id)
                                           .scalar_subquery()).values(elapsed_s=session_elapsed_s))


def record_answer(store, item_id: int, *, draft: str, elapsed_s: float, session_elapsed_s: float,
                  auto_advanced: bool, graded: GradedAnswer | None = None,
                  points: Mapping[str, bool] | None = None, rating: Rating | None = None) -> StoredItem | None:
    """Store one answered step (None if there is no such item); the last one answered completes the session.
    `points`: a self-graded item's key points as the answer covered them; `rating`: one set for it
    already (strict mode takes the coverage's suggestion)."""
    now = store.clock.now()
    with _writing(store) as conn:
        session_id = conn.execute(select(ITEM.c.session_id).where(ITEM.c.id == item_id)).scalar()
        if session_id is None:
            return None
        values = dict(draft=draft, elapsed_s=elapsed_s, auto_advanced=auto_advanced, answered_at=now)
        if graded is not None:
            values.update(verdict=graded.verdict, rating=graded.rating, value=graded.value,
                          expected=graded.expected, expected_display=graded.expected_display,
                          mistake_id=graded.mistake_id)
        if points is not None:
            values["points"] = json.dumps(dict(points))
        if rating is not None:
            values["rating"] = rating
        conn.execute(update(ITEM).where(ITEM.c.id == item_id).values(**values))
        conn.execute(update(SESSION).where(SESSION.c.id == session_id).values(elapsed_s=session_elapsed_s))
        remaining = conn.execute(select(ITEM.c.id).where(ITEM.c.session_id == session_id,
                                                         ITEM.c.answered_at.is_(None)).limit(1)).first()
        if remaining is None:
            conn.execute(update(SESSION).where(SESSION.c.id == session_id).values(completed=True, finished_at=now))
        return _item_row(conn.execute(select(ITEM).where(ITEM.c.id == item_id)).mappings().one())


def finish_session(store, session_id: int, session_elapsed_s: float | None = None) -> None:
    """Mark the session complete even if items were left (the user ended the interview early)."""
    values: dict[str, object] = {"completed": True,
                                 "finished_at": func.coalesce(SESSION.c.finished_at, store.clock.now())}
    if session_elapsed_s is not None:
        values["elapsed_s"] = session_elapsed_s
    with _writing(store) as conn:
        conn.execute(update(SESSION).where(SESSION.c.id == session_id).values(**values))


def set_rating(store, item_id: int, rating: Rating) -> None:
    with _writing(store) as conn:
        conn.execute(update(ITEM).where(ITEM.c.id == item_id).values(rating=rating))


def set_points(store, item_id: int, points: Mapping[str, bool], rating: Rating | None = None) -> None:
    """The debrief's ticks of a self-graded item (and, in strict mode, the rating they suggest)."""
    values: dict[str, object] = {"points": json.dumps(dict(points))}
    if rating is not None:
        values["rating"] = rating
    with _writing(store) as conn:
        conn.execute(update(ITEM).where(ITEM.c.id == item_id).values(**values))


def set_to_schedule(store, item_id: int, chosen: bool) -> None:
    with _writing(store) as conn:
        conn.execute(update(ITEM).where(ITEM.c.id == item_id).values(to_schedule=chosen))


def mark_applied(item_id: int, rating: Rating) -> Callable[[Connection], object]:
    """The write that marks an item's rating as logged: give it to `Store.review(also=...)`, so the log
    row and the mark are one transaction and a crash can never log one rating twice."""
    statement = update(ITEM).where(ITEM.c.id == item_id).values(applied_rating=rating)
    return lambda conn: conn.execute(statement)


def mark_session_applied(store, session_id: int) -> None:
    with _writing(store) as conn:
        conn.execute(update(SESSION).where(SESSION.c.id == session_id).values(applied=True))


# --- reading -------------------------------------------------------------------------------------


def load(store, session_id: int) -> StoredInterview | None:
    """A stored session with its items (None if there is no such session)."""
    with store.reading() as conn:
        row = conn.execute(select(SESSION).where(SESSION.c.id == session_id)).mappings().first()
        if row is None:
            return None
        items = tuple(_item_row(r) for r in conn.execute(
            select(ITEM).where(ITEM.c.session_id == session_id).order_by(ITEM.c.position)).mappings())
        ids = {item.card_id for item in items}
        new = frozenset(conn.execute(select(CARD.c.card_id).where(CARD.c.card_id.in_(ids), CARD.c.reps == 0))
                        .scalars()) if ids else frozenset()
    return StoredInterview(_session_row(row), items, new)


def load_item(store, item_id: int) -> StoredItem | None:
    with store.reading() as conn:
        row = conn.execute(select(ITEM).where(ITEM.c.id == item_id)).mappings().first()
    return _item_row(row) if row is not None else None


def _score_column():
    points = case(*((ITEM.c.rating == int(r), p) for r, p in POINTS.items()), else_=None)
    return 100.0 * func.avg(points)


def _answered_column():
    """1 for an item answered with something in it (not only blanks), else NULL: count() counts it."""
    return case((and_(ITEM.c.answered_at.is_not(None), func.trim(ITEM.c.draft, BLANK) != ""), 1), else_=None)


def list_sessions(store, limit: int | None = None) -> list[MockSessionSummary]:
    """Past sessions, newest first, with their score and how many items were answered (not blank)."""
    per_session = (
        select(ITEM.c.session_id, _score_column().label("score"), func.count().label("items"),
               func.count(_answered_column()).label("answered"))
        .group_by(ITEM.c.session_id)
        .subquery()
    )
    query = (
        select(SESSION, per_session.c.score, per_session.c["items"], per_session.c.answered)
        .outerjoin(per_session, per_session.c.session_id == SESSION.c.id)
        .order_by(SESSION.c.started_at.desc(), SESSION.c.id.desc())
    )
    if limit is not None:
        query = query.limit(limit)
    with store.reading() as conn:
        rows = conn.execute(query).mappings().all()
    return [
        MockSessionSummary(id=r["id"], date=r["started_at"], questions=r["question_count"], score=r["score"],
                           completed=bool(r["completed"]), answered=int(r["answered"] or 0),
                           items=int(r["items"] or 0), elapsed_s=r["elapsed_s"], minutes=r["minutes"])
        for r in rows
    ]


def latest_incomplete(store) -> int | None:
    """The newest session left unfinished (what `quizapp mock --resume` and the setup form offer)."""
    query = (select(SESSION.c.id).where(SESSION.c.completed.is_(False))
             .order_by(SESSION.c.started_at.desc(), SESSION.c.id.desc()).limit(1))
    with store.reading() as conn:
        return conn.execute(query).scalar()


def load_session_row(store, session_id: int) -> StoredSession | None:
    """One session's row alone (its settings: strict, topics...), without its items."""
    with store.reading() as conn:
        row = conn.execute(select(SESSION).where(SESSION.c.id == session_id)).mappings().first()
    return _session_row(row) if row is not None else None
