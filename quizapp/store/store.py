"""The review store: cards and their history in SQLite, scheduled by FSRS with Anki's daily rules.

One Store per open database file. Every review is one BEGIN IMMEDIATE transaction (card row, log
row, sibling burying): it is recorded completely or not at all. Reads are plain transactions, which
in WAL mode never block the writer of another instance.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from fsrs import Rating, State
from sqlalchemy import Boolean, DateTime, Integer, String, and_, bindparam, func, insert, literal_column, or_, select, \
    false, true, type_coerce, update
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from quizapp.clock import Clock
from quizapp.store.config import SETTINGS, SchedulerConfig, SettingError, config_with, setting, setting_from_stored
from quizapp.store.database import copy_database, open_engine, open_read_only_engine
from quizapp.store.days import day_bounds, study_day_start
from quizapp.store.errors import StoreError, database_error
from quizapp.store.new_order import MIXED, OrderCard, mixed_ranks
from quizapp.store.records import CardRow, Counts, SyncReport, TodayProgress
from quizapp.store.scheduling import fuzz_rng, make_scheduler, to_fsrs
from quizapp.store.tables import Card, Meta, ReviewLog, ReviewPoint
from quizapp.vocab import Mode, Verdict

if TYPE_CHECKING:
    from quizapp.content import CardSpec

CARD = Card.__table__
LOG = ReviewLog.__table__
POINTS = ReviewPoint.__table__
META = Meta.__table__

SCHEDULED_MODES = tuple(mode for mode in Mode if mode.scheduled)  # cram never touches the schedule
MAX_DURATION_MS = 60_000  # Anki caps answer time at 60 s
# the columns a review changes; undo writes their stored values back
MUTABLE = ("state", "step", "stability", "difficulty", "due", "last_review", "suspended",
           "buried_until", "leech", "lapses", "reps")
SETTING_PREFIX = "setting:"
NEW_BATCH = 400  # ids per lookup when walking the mixed new-card order (SQLite allows 32766 parameters)


def _stored_type(column):
    """The type that reads or writes `column` exactly as SQLite keeps it, or None where its own type does
    already: a datetime as its UTC text (the form SQLModel's type writes), a boolean as 0/1."""
    if isinstance(getattr(column.type, "impl", column.type), DateTime):
        return String()
    if isinstance(column.type, Boolean):
        return Integer()
    return None


# card column -> the type giving its stored value (the columns whose Python value differs from it)
STORED_TYPES = {c.name: t for c in CARD.c if (t := _stored_type(c)) is not None}


def _stored(column, name: str | None = None):
    """`column` as SQLite keeps it (type_coerce: no conversion by its type), labelled `name`."""
    return type_coerce(column, STORED_TYPES[column.name]).label(name or column.name)


def _stored_bind(name: str, key: str):
    """A bind parameter `key` written to column `name` exactly as given (a value read with _stored)."""
    return type_coerce(bindparam(key), STORED_TYPES[name]) if name in STORED_TYPES else bindparam(key)


# The statements of the hot paths, built once: SQLAlchemy's compiled cache then reuses their SQL.
_AT = CARD.c.due.type  # a bind of a moment compared with a card's datetime columns (converted by the type)
CARD_BY_ID = select(CARD).where(CARD.c.card_id == bindparam("card_id"))
# review(): the card as CardRow wants it and, beside it, its stored values (the log's card_before, for undo)
CARD_FOR_REVIEW = select(CARD, *(_stored(CARD.c[name], "stored_" + name) for name in STORED_TYPES)).where(
    CARD.c.card_id == bindparam("card_id"))
SIBLINGS_TO_BURY = select(CARD.c.card_id, _stored(CARD.c.buried_until)).where(
    CARD.c.question_id == bindparam("question_id"), CARD.c.card_id != bindparam("card_id"),
    CARD.c.orphaned.is_(False), or_(CARD.c.reps == 0, CARD.c.state == int(State.Review)),
    or_(CARD.c.buried_until.is_(None), CARD.c.buried_until < bindparam("end", type_=_AT)))
BURY = (update(CARD).where(CARD.c.card_id.in_(bindparam("ids", expanding=True)))
        .values(buried_until=bindparam("end", type_=_AT))
        .returning(CARD.c.card_id, _stored(CARD.c.buried_until)))  # the stored value set, for undo
UNDO_CARD = update(CARD).where(CARD.c.card_id == bindparam("b_card_id")).values(
    {name: _stored_bind(name, "v_" + name) for name in MUTABLE})
UNBURY = update(CARD).where(
    CARD.c.card_id == bindparam("b_id"), _stored(CARD.c.buried_until) == bindparam("b_set", type_=String()),
).values(buried_until=_stored_bind("buried_until", "b_old"))
# the mixed new-card walk: which of a batch of ids are still new and visible (an expanding IN)
_NEW_IN_BATCH = (CARD.c.card_id.in_(bindparam("ids", expanding=True)), CARD.c.reps == 0,
                 CARD.c.orphaned.is_(False), CARD.c.suspended.is_(False),
                 or_(CARD.c.buried_until.is_(None), CARD.c.buried_until <= bindparam("now", type_=_AT)))
NEW_IN_BATCH = select(CARD.c.card_id).where(*_NEW_IN_BATCH)
NEW_IN_BATCH_OF_TOPIC = select(CARD.c.card_id).where(*_NEW_IN_BATCH, CARD.c.topic == bindparam("topic"))
# a key that changes whenever the card set does (cards are only ever added: count and the newest rowid)
CARD_SET_KEY = select(func.count(), func.max(literal_column("rowid"))).select_from(CARD)
# queue(): the seen cards due before the last listed day ends (the others cannot be listed), and the new
# cards: over every topic, first those among the first NEW_BATCH of the new order (a day of new_per_day new
# cards needs no more), then, only if the walk goes on, every other one. Converting a datetime costs more
# than reading its row, so a new card's due is not read. [0]: every topic, [1]: of bindparam "topic".
_SHOWABLE = (CARD.c.orphaned.is_(False), CARD.c.suspended.is_(False))


def _of_topic(query):
    return query, query.where(CARD.c.topic == bindparam("topic"))


_NEW_COLUMNS = (CARD.c.card_id, CARD.c.question_id, CARD.c.kind, CARD.c.topic, CARD.c.state, CARD.c.buried_until,
                CARD.c.bank_order, CARD.c.reps)
_NEW = select(*_NEW_COLUMNS).where(*_SHOWABLE, CARD.c.reps == 0)
# of one topic: its cards through the topic index, the new ones picked in Python (given reps = 0 too, SQLite
# would walk every new card of the bank through ix_card_new instead)
QUEUE_NEW = (_NEW, select(*_NEW_COLUMNS).where(*_SHOWABLE, CARD.c.topic == bindparam("topic")))
QUEUE_NEW_OF_IDS = _NEW.where(CARD.c.card_id.in_(bindparam("ids", expanding=True)))  # the head of the mixed order
QUEUE_NEW_FIRST = _NEW.order_by(CARD.c.bank_order, CARD.c.card_id).limit(NEW_BATCH)  # the head of the bank order
QUEUE_SEEN = _of_topic(select(
    CARD.c.card_id, CARD.c.question_id, CARD.c.kind, CARD.c.topic, CARD.c.state, CARD.c.reps, CARD.c.due,
    CARD.c.buried_until, CARD.c.bank_order).where(*_SHOWABLE, CARD.c.reps > 0, CARD.c.due < bindparam("end", type_=_AT)))

# _streak(): which of n consecutive study days have an answer, one indexed probe each; day i runs from
# bindparam t<i+1> to t<i> (t0 the end of the newest day, each day ending where the next newer one begins).
# STREAK_WINDOWS: the days asked per statement, the last one repeated (most streaks end within the first).
STREAK_WINDOWS = (4, 32)
_AT_LOG = LOG.c.reviewed_at.type
_BOUNDS = [bindparam(f"t{i}", type_=_AT_LOG) for i in range(max(STREAK_WINDOWS) + 1)]
DAYS_STUDIED = {n: select(*(
    select(LOG.c.id).where(LOG.c.reviewed_at >= _BOUNDS[i + 1], LOG.c.reviewed_at < _BOUNDS[i]).exists().label(f"d{i}")
    for i in range(n))) for n in STREAK_WINDOWS}
_INSERT_META = sqlite_insert(META)
SET_META = _INSERT_META.on_conflict_do_update(index_elements=[META.c.key], set_={"value": _INSERT_META.excluded.value})


def _row(mapping) -> CardRow:
    return CardRow(
        card_id=mapping["card_id"], question_id=mapping["question_id"], kind=mapping["kind"],
        item_id=mapping["item_id"], topic=mapping["topic"], state=mapping["state"], step=mapping["step"],
        stability=mapping["stability"], difficulty=mapping["difficulty"], due=mapping["due"],
        last_review=mapping["last_review"], suspended=bool(mapping["suspended"]),
        buried_until=mapping["buried_until"], leech=bool(mapping["leech"]), lapses=mapping["lapses"],
        reps=mapping["reps"], is_new=mapping["reps"] == 0, bank_order=mapping["bank_order"],
        orphaned=bool(mapping["orphaned"]),
    )


class _QueueRow(NamedTuple):
    card_id: str
    question_id: str
    kind: str
    topic: str
    state: int
    reps: int
    due: datetime
    buried_until: datetime | None
    bank_order: int


class _Rows:
    """A list read in parts as it is walked: iterating it reads the next part only when the parts read so far
    run out (queue() walks the new cards once per day; most days stop within the first part)."""

    def __init__(self, parts: Iterator[list]) -> None:
        self._parts = parts
        self._rows: list = []

    def __iter__(self) -> Iterator:
        i = 0
        while True:
            if i == len(self._rows):
                part = next(self._parts, None)
                if part is None:
                    return
                self._rows.extend(part)
                continue
            yield self._rows[i]
            i += 1


@dataclass(frozen=True)
class QueueEntry:
    """One card of a day's review as it will be shown (Store.queue).

    section: "learning" (due now, or `due` later today), "review", "new". day: 0 today, 1 tomorrow...
    """

    day: int
    section: str
    card_id: str
    kind: str
    topic: str
    due: datetime | None  # None for a new card


@dataclass(frozen=True)
class DayCounts:
    """What today's review will still show, limits and sibling burying applied (Anki's three numbers).

    learning: learning/relearning cards due before the day ends (no limit applies to them);
    review: review-state cards due today, within what is left of reviews_per_day;
    new: new cards, within what is left of new_per_day. Each card counts once, however many
    learning steps it will take. One source for every view that says what is left today (the review
    header reads it; Home and Stats are meant to read the same).
    """

    learning: int
    review: int
    new: int

    @property
    def total(self) -> int:
        return self.learning + self.review + self.new


class Store:
    """Cards, review history and scheduling over one SQLite file. Build it with Store.open()."""

    def __init__(self, engine: Engine, path: Path, clock: Clock, config: SchedulerConfig) -> None:
        self._engine = engine
        self._writer = engine.execution_options(immediate=True)
        self.path = path
        self.clock = clock
        self._use_config(config)
        self._follows_settings = False  # True when config came from the stored settings (Store.open)
        self.read_only = False  # Store.open(..., read_only=True): every write raises StoreError
        self.has_history = True  # False for Store.open_view on a database that does not exist yet
        # Undo is per Store instance, like Anki's per-session undo: a restart starts with nothing to undo.
        self._undo_stack: list[int] = []  # review_log ids written by this Store, newest last
        self._operation_stack: list[int] = []  # card_operation ids (quizapp.store.card_ops), newest last
        # (card-set key, card_id -> mixed rank, card ids in mixed order), rebuilt when the card set changes
        self._ranks: tuple[tuple, dict[str, tuple[float, str]], list[str]] | None = None

    def _use_config(self, config: SchedulerConfig) -> None:
        self.config = config
        self._scheduler = make_scheduler(config)
        self._preview_scheduler = make_scheduler(config, fuzz=False)
        # a topic with its own desired retention (topic_retention) gets its own schedulers: topic over global
        self._topic_schedulers = {
            topic: (make_scheduler(replace(config, desired_retention=r)),
                    make_scheduler(replace(config, desired_retention=r), fuzz=False))
            for topic, r in config.topic_retention}

    def _scheduler_for(self, topic: str, *, preview: bool = False):
        pair = self._topic_schedulers.get(topic)
        if pair is None:
            return self._preview_scheduler if preview else self._scheduler
        return pair[1] if preview else pair[0]

    # --- life cycle ---------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | None, clock: Clock, config: SchedulerConfig | None = None, *,
             read_only: bool = False) -> Store:
        """Open (creating if missing) the database at `path`; None = the platformdirs default.

        config None: the user's stored settings (`quizapp settings`) over SchedulerConfig's defaults.
        An explicit config is used as given and the stored settings are ignored (tests pass one).
        read_only=True (commands that only read): nothing is created, migrated or switched to WAL,
        writes raise StoreError, and a missing or empty file raises NoHistory (a StoreError).
        """
        if path is None:
            from quizapp.locations import default_db_path

            path = default_db_path()
        path = Path(path).expanduser().absolute()
        engine = open_read_only_engine(path) if read_only else open_engine(path)
        store = cls(engine, path, clock, config or SchedulerConfig())
        store.read_only = read_only
        if config is None:
            try:
                store._use_config(config_with(SchedulerConfig(), store.scheduling_settings()))
            except BaseException:
                store.close()
                raise
            store._follows_settings = True
        return store

    @classmethod
    def open_view(cls, path: Path | None, clock: Clock, cards: Sequence[CardSpec],
                  config: SchedulerConfig | None = None) -> Store:
        """A read-only Store that sees what the app would see: the database at `path` (read-only, as
        Store.open(read_only=True)) with `cards` (the bank) synced into its in-memory copy, so cards the
        app has not synced yet show as new cards. No database yet: an empty one in memory, and
        `has_history` is False. The file is never written, created or switched to WAL.
        """
        from quizapp.store.database import NoHistory, empty_engine, set_query_only

        try:
            store = cls.open(path, clock, config, read_only=True)
            store.has_history = True
        except NoHistory:
            if path is None:
                from quizapp.locations import default_db_path

                path = default_db_path()
            store = cls(empty_engine(), Path(path).expanduser().absolute(), clock, config or SchedulerConfig())
            store.has_history = False
        try:
            set_query_only(store._engine, False)
            store.read_only = False
            store.sync(cards)
        except BaseException:
            store.close()
            raise
        finally:
            store.read_only = True
        set_query_only(store._engine, True)
        return store

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def engine(self) -> Engine:
        """The store's engine: the modules beside it run their Core statements on its connections
        (`store.reading()` to read; `engine.execution_options(immediate=True).begin()` to write)."""
        return self._engine

    # --- plumbing -----------------------------------------------------------------------------

    def _fail(self, exc: SQLAlchemyError) -> StoreError:
        return database_error(self.path, exc)

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        if self.read_only:
            raise StoreError(f"{self.path}: opened read-only (by a command that only reads); nothing was changed")
        try:
            with self._writer.begin() as conn:
                yield conn
        except SQLAlchemyError as exc:
            raise self._fail(exc) from None

    def copy_to(self, target: Path) -> None:
        """A consistent copy of the database at `target` (e.g. to try something on it); this file is only read."""
        try:
            copy_database(self._engine, target)
        except (SQLAlchemyError, sqlite3.Error) as exc:
            raise StoreError(f"{self.path}: cannot copy the database to {target}: {exc}") from None

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A read-only connection (statistics and mock history use it too); errors as StoreError."""
        try:
            with self._engine.connect() as conn:
                yield conn
        except SQLAlchemyError as exc:
            raise self._fail(exc) from None

    def _now(self) -> datetime:
        now = self.clock.now()
        if now.tzinfo is None:
            raise StoreError(f"{self.path}: the clock gave a naive datetime; expected UTC-aware")
        return now.astimezone(timezone.utc)

    def day_bounds(self, now: datetime | None = None) -> tuple[datetime, datetime]:
        """UTC start and end of the current study day (rollover_hour local time to the next)."""
        return day_bounds(now or self._now(), self.config.rollover_hour, self.config.tz)

    def study_day_start(self, days: int, now: datetime | None = None) -> datetime:
        """UTC start of the study day `days` after the current one (negative: before), by the calendar."""
        return study_day_start(now or self._now(), self.config.rollover_hour, self.config.tz, days)

    @staticmethod
    def _visible(now: datetime):
        return and_(CARD.c.orphaned.is_(False), CARD.c.suspended.is_(False),
                    or_(CARD.c.buried_until.is_(None), CARD.c.buried_until <= now))

    def _load(self, conn: Connection, card_id: str):
        found = conn.execute(CARD_BY_ID, {"card_id": card_id}).mappings().first()
        if found is None:
            raise StoreError(f"{self.path}: unknown card {card_id!r}")
        return found

    # --- cards ----------------------------------------------------------------------------------

    def sync(self, cards: Sequence[CardSpec]) -> SyncReport:
        """Bring the card table in line with the bank: add new cards, update topic/order, orphan the
        missing, restore returning ones. Nothing is deleted; progress hangs on card_id only."""
        now = self._now()
        specs: dict[str, CardSpec] = {}
        for spec in cards:
            specs.setdefault(spec.card_id, spec)
        with self._write() as conn:
            existing = {
                r.card_id: r
                for r in conn.execute(select(CARD.c.card_id, CARD.c.question_id, CARD.c.kind, CARD.c.item_id,
                                             CARD.c.topic, CARD.c.bank_order, CARD.c.orphaned))
            }
            added, changed, orphan, restored = [], [], [], 0
            for card_id, spec in specs.items():
                old = existing.get(card_id)
                if old is None:
                    added.append(dict(card_id=card_id, question_id=spec.question_id, kind=spec.kind,
                                      item_id=spec.item_id, topic=spec.topic, bank_order=spec.order,
                                      orphaned=False, state=int(State.Learning), step=0, due=now,
                                      suspended=False, leech=False, lapses=0, reps=0, created_at=now))
                    continue
                new = (spec.question_id, spec.kind, spec.item_id, spec.topic, spec.order, False)
                if tuple(old[1:]) != new:
                    restored += bool(old.orphaned)
                    changed.append(dict(b_id=card_id, question_id=spec.question_id, kind=spec.kind,
                                        item_id=spec.item_id, topic=spec.topic, bank_order=spec.order,
                                        orphaned=False))
            orphan = [dict(b_id=cid) for cid, r in existing.items() if cid not in specs and not r.orphaned]
            if added:
                conn.execute(insert(CARD), added)
            if changed:
                conn.execute(
                    update(CARD).where(CARD.c.card_id == bindparam("b_id")).values(
                        question_id=bindparam("question_id"), kind=bindparam("kind"),
                        item_id=bindparam("item_id"), topic=bindparam("topic"),
                        bank_order=bindparam("bank_order"), orphaned=bindparam("orphaned")),
                    changed,
                )
            if orphan:
                conn.execute(update(CARD).where(CARD.c.card_id == bindparam("b_id")).values(orphaned=True), orphan)
        self._ranks = None
        return SyncReport(added=len(added), updated=len(changed) - restored, orphaned=len(orphan),
                          restored=restored, total=len(specs))

    def card(self, card_id: str) -> CardRow:
        """One card (orphaned ones too); StoreError if the id is unknown."""
        with self.reading() as conn:
            return _row(self._load(conn, card_id))

    def cards(self, *, include_orphaned: bool = False) -> list[CardRow]:
        """Every card in bank order (orphaned ones only when asked)."""
        query = select(CARD).order_by(CARD.c.bank_order, CARD.c.card_id)
        if not include_orphaned:
            query = query.where(CARD.c.orphaned.is_(False))
        with self.reading() as conn:
            return [_row(m) for m in conn.execute(query).mappings()]

    # --- the queue ------------------------------------------------------------------------------

    def _done_today(self, conn: Connection, start: datetime) -> tuple[int, int]:
        """(new cards introduced, review cards answered) since `start`, scheduled modes only."""
        scheduled = and_(LOG.c.reviewed_at >= start, LOG.c.mode.in_(SCHEDULED_MODES))
        new_done = func.count().filter(LOG.c.prev_reps == 0)
        reviews_done = func.count().filter(LOG.c.prev_reps > 0, LOG.c.prev_state == int(State.Review))
        row = conn.execute(select(new_done, reviews_done).where(scheduled)).one()
        return int(row[0] or 0), int(row[1] or 0)

    def next_card(self, topic: str | None = None) -> CardRow | None:
        """The card to show now, or None when the day is done.

        Order: learning/relearning cards due now; then review cards due before the next rollover,
        most overdue first (within reviews_per_day); then new cards in the `new_order` (within
        new_per_day); then, if nothing else is left, a learning card due within learn_ahead.
        Suspended, buried and orphaned cards are never shown.
        """
        now = self._now()
        start, end = self.day_bounds(now)
        base = self._visible(now)
        if topic is not None:
            base = and_(base, CARD.c.topic == topic)
        learning = and_(CARD.c.reps > 0, CARD.c.state.in_((int(State.Learning), int(State.Relearning))))
        with self.reading() as conn:
            def first(*conditions, order):
                query = select(CARD).where(base, *conditions).order_by(*order).limit(1)
                return conn.execute(query).mappings().first()

            found = first(learning, CARD.c.due <= now, order=(CARD.c.due, CARD.c.card_id))
            if found is None:
                new_done, reviews_done = self._done_today(conn, start)
                if reviews_done < self.config.reviews_per_day:
                    found = first(CARD.c.reps > 0, CARD.c.state == int(State.Review), CARD.c.due < end,
                                  order=(CARD.c.due, CARD.c.card_id))
                if found is None and new_done < self.config.new_per_day:
                    found = self._first_new(conn, base, now, topic)
                if found is None and self.config.learn_ahead > timedelta(0):
                    found = first(learning, CARD.c.due <= now + self.config.learn_ahead,
                                  order=(CARD.c.due, CARD.c.card_id))
        return _row(found) if found is not None else None

    def _first_new(self, conn: Connection, where, now: datetime, topic: str | None):
        """The new card to introduce next among those matching `where` (visible, of `topic`), in the `new_order`."""
        if self.config.new_order != MIXED:
            query = select(CARD).where(where, CARD.c.reps == 0).order_by(CARD.c.bank_order, CARD.c.card_id).limit(1)
            return conn.execute(query).mappings().first()
        self._mixed_ranks(conn)
        ordered = self._ranks[2]
        # Walk the mixed order in batches, asking which ids are still new and visible (the same conditions
        # as `where`, in one statement built once): a few primary-key lookups instead of reading every new card.
        query, params = (NEW_IN_BATCH, {"now": now}) if topic is None else (NEW_IN_BATCH_OF_TOPIC, {"now": now, "topic": topic})
        for start in range(0, len(ordered), NEW_BATCH):
            batch = ordered[start:start + NEW_BATCH]
            found = set(conn.execute(query, {**params, "ids": batch}).scalars().all())
            if found:
                best = next(cid for cid in batch if cid in found)
                return conn.execute(CARD_BY_ID, {"card_id": best}).mappings().first()
        return None

    def _mixed_ranks(self, conn: Connection) -> dict[str, tuple[float, str]]:
        """card_id -> its key in the mixed order, computed over every card in the bank; cached until
        the card set changes (sync here, or a sync by another window: the cheap key below changes)."""
        key = tuple(conn.execute(CARD_SET_KEY).one())
        if self._ranks is None or self._ranks[0] != key:
            rows = conn.execute(select(CARD.c.card_id, CARD.c.question_id, CARD.c.kind, CARD.c.bank_order)
                                .where(CARD.c.orphaned.is_(False))).all()
            ranks = dict(mixed_ranks(OrderCard(*r) for r in rows))
            self._ranks = (key, ranks, sorted(ranks, key=ranks.__getitem__))
        return self._ranks[1]

    def queue(self, days: int = 1, topic: str | None = None) -> list[QueueEntry]:
        """Today's review as next_card will show it, in order, and with days > 1 the coming days; reads only.

        Today: learning cards due now, reviews due today (most overdue first, within what is left of
        reviews_per_day), new cards in the new_order (within what is left of new_per_day), then
        learning cards due later today. Siblings are skipped as burying will skip them (a second new
        or review card of a question already on the day's list). A coming day lists the reviews due
        by its end that no earlier day listed and the next new_per_day new cards: the cards answered
        before it get intervals that cannot be known yet, so their returns are not listed.
        """
        if days < 1:
            raise StoreError(f"{self.path}: days: expected a whole number >= 1, got {days}")
        now = self._now()
        bounds = [self.day_bounds(now)]
        while len(bounds) < days:
            bounds.append(self.day_bounds(bounds[-1][1] + timedelta(minutes=1)))
        which, of_topic = (0, {}) if topic is None else (1, {"topic": topic})
        learning_states = (int(State.Learning), int(State.Relearning))
        listed: set[str] = set()
        out: list[QueueEntry] = []
        with self.reading() as conn:
            seen = [_QueueRow(*r) for r in conn.execute(QUEUE_SEEN[which], {"end": bounds[-1][1], **of_topic}).all()]
            new_done, reviews_done = self._done_today(conn, bounds[0][0])
            wanted = max(self.config.new_per_day - new_done, 0) + self.config.new_per_day * (days - 1)
            new_rows = _Rows(self._new_in_order(conn, which, of_topic, first=topic is None and wanted < NEW_BATCH))
            review_rows = sorted((r for r in seen if r.state == int(State.Review)), key=lambda r: (r.due, r.card_id))
            learning_rows = sorted((r for r in seen if r.state in learning_states), key=lambda r: (r.due, r.card_id))
            for day, (start, end) in enumerate(bounds):
                if day:
                    new_done = reviews_done = 0
                moment = now if day == 0 else start
                shown_questions: set[str] = set()

                def visible(r) -> bool:
                    return r.card_id not in listed and (r.buried_until is None or r.buried_until <= moment)

                def take(r, section: str, due: datetime | None) -> None:
                    listed.add(r.card_id)
                    shown_questions.add(r.question_id)
                    out.append(QueueEntry(day, section, r.card_id, r.kind, r.topic, due))

                later = []
                if day == 0:
                    for r in learning_rows:
                        if visible(r) and r.due < end:
                            (take(r, "learning", r.due) if r.due <= now else later.append(r))
                room = max(self.config.reviews_per_day - reviews_done, 0)
                for r in review_rows:
                    if room <= 0:
                        break
                    if visible(r) and r.due < end and not (self.config.bury_siblings and r.question_id in shown_questions):
                        take(r, "review", r.due)
                        room -= 1
                room = max(self.config.new_per_day - new_done, 0)
                if room > 0:  # (a day with no room reads no new card)
                    for r in new_rows:
                        if visible(r) and not (self.config.bury_siblings and r.question_id in shown_questions):
                            take(r, "new", None)
                            room -= 1
                            if room <= 0:
                                break
                for r in later:
                    take(r, "learning", r.due)
        return out

    def _new_in_order(self, conn: Connection, which: int, of_topic: dict, first: bool) -> Iterator[list[_QueueRow]]:
        """The showable new cards (of_topic's) in the new_order, in two reads: with `first` (every topic),
        those among the first NEW_BATCH of the order, then, when asked for more, all the others (read and
        sorted at once)."""
        def rows(result) -> list[_QueueRow]:
            return [_QueueRow(cid, qid, kind, t, state, 0, None, buried, order)
                    for cid, qid, kind, t, state, buried, order, reps in result.all() if reps == 0]

        ranks = self._mixed_ranks(conn) if self.config.new_order == MIXED else None
        if not first:
            batch = []
        elif ranks is not None:
            head = self._ranks[2][:NEW_BATCH]
            found = {r.card_id: r for r in rows(conn.execute(QUEUE_NEW_OF_IDS, {"ids": head}))}
            batch = [found[cid] for cid in head if cid in found]
        else:
            batch = rows(conn.execute(QUEUE_NEW_FIRST))
        if ranks is not None:
            key = lambda r: ranks.get(r.card_id, (2.0, r.card_id))  # noqa: E731  (an unranked card last)
        else:
            key = lambda r: (r.bank_order, r.card_id)  # noqa: E731
        yield batch
        # the first read covered the start of the order (the NEW_BATCH lowest ranks of all cards, or the
        # NEW_BATCH first new cards in bank order), so every other new card comes after its cards
        taken = {r.card_id for r in batch}
        yield sorted((r for r in rows(conn.execute(QUEUE_NEW[which], of_topic)) if r.card_id not in taken), key=key)

    def day_counts(self, topic: str | None = None) -> DayCounts:
        """Today's learning / review / new cards still to show, limits and burying applied (see DayCounts)."""
        entries = self.queue(1, topic)
        return DayCounts(learning=sum(e.section == "learning" for e in entries),
                         review=sum(e.section == "review" for e in entries),
                         new=sum(e.section == "new" for e in entries))

    def day_counts_by_topic(self) -> dict[str, DayCounts]:
        """topic -> day_counts(topic) (what reviewing only that topic would show today); key "" is
        day_counts() over all topics. The rows need not add up to the total: each is capped by the limits."""
        with self.reading() as conn:
            topics = list(conn.execute(select(CARD.c.topic).distinct().where(CARD.c.orphaned.is_(False))).scalars())
        result = {topic: self.day_counts(topic) for topic in sorted(topics)}
        result[""] = self.day_counts()
        return result

    def counts(self) -> dict[str, Counts]:
        """topic -> Counts(due today, new, learned); key "" is the total over all topics."""
        now = self._now()
        _, end = self.day_bounds(now)
        visible = self._visible(now)
        query = (
            select(
                CARD.c.topic,
                func.count().filter(visible, CARD.c.reps > 0, CARD.c.due < end),
                func.count().filter(visible, CARD.c.reps == 0),
                func.count().filter(CARD.c.reps > 0),
            )
            .where(CARD.c.orphaned.is_(False))
            .group_by(CARD.c.topic)
        )
        with self.reading() as conn:
            rows = conn.execute(query).all()
        result = {topic: Counts(int(d or 0), int(n or 0), int(l or 0)) for topic, d, n, l in rows}
        result[""] = Counts(sum(c.due for c in result.values()), sum(c.new for c in result.values()),
                            sum(c.learned for c in result.values()))
        return result

    def today(self) -> TodayProgress:
        """Today's new cards and reviews against the limits, and the streak of study days."""
        now = self._now()
        start, end = self.day_bounds(now)
        with self.reading() as conn:
            new_done, reviews_done = self._done_today(conn, start)
            streak = self._streak(conn, now)
            leeches = conn.execute(select(func.count()).select_from(CARD).where(
                CARD.c.leech == true(), CARD.c.suspended == true(), CARD.c.orphaned == false())).scalar_one()
        return TodayProgress(new_done=new_done, reviews_done=reviews_done, new_limit=self.config.new_per_day,
                             review_limit=self.config.reviews_per_day, streak_days=streak,
                             day_start=start, day_end=end, leeches=leeches)

    def _streak(self, conn: Connection, now: datetime) -> int:
        """Consecutive study days (any mode) ending today, or yesterday if nothing is done yet today.

        Walks back a few days per statement (STREAK_WINDOWS), one indexed lookup for each day: a year's
        streak is 13 executions of two statements built once.
        """
        streak = 0
        start, end = self.day_bounds(now)
        today = True
        for window in itertools.count():
            n = STREAK_WINDOWS[min(window, len(STREAK_WINDOWS) - 1)]
            params = {"t0": end}
            for i in range(1, n + 1):
                params[f"t{i}"] = end = start
                start = self.day_bounds(start - timedelta(hours=1))[0]  # the day before
            for studied in conn.execute(DAYS_STUDIED[n], params).one():
                if studied:
                    streak += 1
                elif not today:
                    return streak
                today = False  # nothing yet today: the streak may still end yesterday

    def next_due(self) -> datetime | None:
        """When the next already-seen card becomes due (a buried card counts from its unburying)."""
        effective = func.max(CARD.c.due, func.coalesce(CARD.c.buried_until, CARD.c.due))
        query = select(func.min(effective)).where(
            CARD.c.orphaned.is_(False), CARD.c.suspended.is_(False), CARD.c.reps > 0)
        with self.reading() as conn:
            value = conn.execute(query).scalar()
        return value  # min/max keep the column's type, so this is a UTC-aware datetime (or None)

    def cram(self, topic: str | None = None, card_ids: Sequence[str] | None = None) -> list[str]:
        """Card ids to practise without touching the schedule (answer them with mode="cram").

        card_ids: exactly those, in that order (unknown or orphaned ids -> StoreError). Otherwise
        every unsuspended card (of `topic`, if given), in bank order.
        """
        with self.reading() as conn:
            if card_ids is not None:
                ids = list(dict.fromkeys(card_ids))
                rows = conn.execute(select(CARD.c.card_id, CARD.c.orphaned).where(CARD.c.card_id.in_(ids))).all()
                known = {r.card_id for r in rows if not r.orphaned}
                missing = [cid for cid in ids if cid not in known]
                if missing:
                    raise StoreError(f"{self.path}: unknown card {missing[0]!r}")
                if topic is None:
                    return ids
                in_topic = set(conn.execute(select(CARD.c.card_id).where(CARD.c.topic == topic)).scalars())
                return [cid for cid in ids if cid in in_topic]
            query = select(CARD.c.card_id).where(CARD.c.orphaned.is_(False), CARD.c.suspended.is_(False))
            if topic is not None:
                query = query.where(CARD.c.topic == topic)
            return list(conn.execute(query.order_by(CARD.c.bank_order, CARD.c.card_id)).scalars())

    # --- answering ------------------------------------------------------------------------------

    def preview(self, card_id: str) -> dict[int, timedelta]:
        """Rating (1..4) -> the interval that answer would give now (no fuzz)."""
        now = self._now()
        row = self.card(card_id)
        when = max(now, row.last_review) if row.last_review else now
        card = to_fsrs(row)
        result = {}
        for rating in Rating:
            after, _ = self._scheduler_for(row.topic, preview=True).review_card(card, rating, when)
            result[int(rating)] = after.due - when
        return result

    def review(self, card_id: str, rating: Rating, *, duration_ms: int, mode: Mode = Mode.REVIEW,
               answer: str | None = None, verdict: Verdict | None = None, mistake: str | None = None,
               points: Mapping[str, bool] | None = None,
               also: Callable[[Connection], object] | None = None) -> CardRow:
        """Record one answer in one transaction and return the card as it is now.

        `points` (key point id -> covered) are stored with the answer (review_point).
        `also(conn)`, if given, runs inside that same transaction (a mock interview marks its item as
        applied there, so a crash can never log one rating twice).

        review/mock: FSRS reschedules the card, counts reps and lapses, tags and suspends a leech
        (at leech_lapses lapses, then every half of it more, like Anki) and buries its siblings
        until the next rollover. cram: only the log row is written. A clock earlier than the card's
        last review is clamped to it, so FSRS never sees negative elapsed time.
        """
        try:
            rating = Rating(int(rating))
        except (TypeError, ValueError):
            raise StoreError(f"{self.path}: rating: expected 1 (Again) .. 4 (Easy), got {rating!r}") from None
        try:
            mode = Mode(mode)
        except ValueError:
            raise StoreError(f"{self.path}: mode: expected one of {', '.join(Mode)}, got {mode!r}") from None
        duration = min(max(int(duration_ms), 0), MAX_DURATION_MS)
        now = self._now()
        with self._write() as conn:
            found = conn.execute(CARD_FOR_REVIEW, {"card_id": card_id}).mappings().first()
            if found is None:
                raise StoreError(f"{self.path}: unknown card {card_id!r}")
            row = _row(found)
            # the stored values, in column order (what undo writes back)
            before = {c.name: found["stored_" + c.name] if c.name in STORED_TYPES else found[c.name] for c in CARD.c}
            if row.orphaned:
                raise StoreError(f"{self.path}: card {card_id!r} is no longer in the question bank")
            when = max(now, row.last_review) if row.last_review else now
            buried: dict[str, list] = {}
            result = row
            if mode in SCHEDULED_MODES:
                scheduler = self._scheduler_for(row.topic).with_rng(fuzz_rng(self.config, card_id, row.reps))
                after, _ = scheduler.review_card(to_fsrs(row), rating, when)
                lapses = row.lapses + (row.state == State.Review and rating == Rating.Again)
                threshold = self.config.leech_lapses
                new_leech = lapses > row.lapses and lapses >= threshold and (
                    (lapses - threshold) % max(threshold // 2, 1) == 0)
                changes = dict(state=int(after.state), step=after.step, stability=after.stability,
                               difficulty=after.difficulty, due=after.due, last_review=after.last_review,
                               reps=row.reps + 1, lapses=lapses, leech=row.leech or new_leech,
                               suspended=row.suspended or new_leech)
                conn.execute(update(CARD).where(CARD.c.card_id == card_id).values(**changes))
                result = replace(row, **changes, is_new=False)
                if self.config.bury_siblings:
                    buried = self._bury_siblings(conn, row, now)
            inserted = conn.execute(insert(LOG).values(
                card_id=card_id, rating=int(rating), reviewed_at=when if mode in SCHEDULED_MODES else now,
                duration_ms=duration, mode=mode, answer=answer, verdict=verdict, mistake=mistake,
                prev_state=row.state, prev_reps=row.reps, card_before=json.dumps(before),
                buried_siblings=json.dumps(buried)))
            log_id = inserted.inserted_primary_key[0]
            if points:
                conn.execute(insert(POINTS), [{"review_id": log_id, "card_id": card_id, "point": str(point),
                                               "covered": bool(covered)} for point, covered in points.items()])
            if also is not None:
                also(conn)
        self._undo_stack.append(log_id)
        return result

    def _bury_siblings(self, conn: Connection, row: CardRow, now: datetime) -> dict[str, list]:
        """Bury the new and review-state cards of the same question until the next rollover.

        Learning cards are left alone (burying would break their short steps), as in Anki.
        Returns sibling id -> [stored buried_until before, stored value set], for undo.
        """
        _, end = self.day_bounds(now)
        found = conn.execute(SIBLINGS_TO_BURY, {"question_id": row.question_id, "card_id": row.card_id,
                                                "end": end}).all()
        if not found:
            return {}
        stored_end = dict(conn.execute(BURY, {"ids": [cid for cid, _ in found], "end": end}).all())
        return {cid: [old, stored_end[cid]] for cid, old in found}

    def undo(self) -> str | None:
        """Undo this Store's last answer: the card row gets back its exact stored values, siblings
        are unburied and the log row is deleted. Returns the card id, or None if nothing to undo."""
        while self._undo_stack:
            log_id = self._undo_stack.pop()
            with self._write() as conn:
                log = conn.execute(select(LOG).where(LOG.c.id == log_id)).mappings().first()
                if log is None:
                    continue  # already gone (undone by another window)
                newer = conn.execute(select(LOG.c.id).where(LOG.c.card_id == log["card_id"], LOG.c.id > log_id)
                                     .limit(1)).first()
                if newer is not None:
                    raise StoreError(f"{self.path}: cannot undo: card {log['card_id']!r} was answered again since")
                if log["mode"] in SCHEDULED_MODES:
                    before = json.loads(log["card_before"])
                    conn.execute(UNDO_CARD, {"b_card_id": log["card_id"], **{"v_" + col: before[col] for col in MUTABLE}})
                    siblings = [{"b_id": sibling, "b_old": old, "b_set": new}
                                for sibling, (old, new) in json.loads(log["buried_siblings"]).items()]
                    if siblings:
                        conn.execute(UNBURY, siblings)
                conn.execute(POINTS.delete().where(POINTS.c.review_id == log_id))
                conn.execute(LOG.delete().where(LOG.c.id == log_id))
                return log["card_id"]
        return None

    def undo_operation(self):
        """Undo the newest card operation (suspend, bury, reset, set due, flag: quizapp.store.card_ops)
        of this Store, or else the newest `quizapp cards` change; None if there is none."""
        from quizapp.store.card_ops import undo_last

        return undo_last(self)

    def suspend(self, card_id: str) -> None:
        self._set_suspended(card_id, True)

    def unsuspend(self, card_id: str) -> None:
        """Show the card again; a leech keeps its leech tag (as in Anki)."""
        self._set_suspended(card_id, False)

    def _set_suspended(self, card_id: str, value: bool) -> None:
        with self._write() as conn:
            self._load(conn, card_id)
            conn.execute(update(CARD).where(CARD.c.card_id == card_id).values(suspended=value))

    # --- settings -------------------------------------------------------------------------------

    def get_setting(self, key: str, default=None):
        """A small setting (JSON value) stored in meta, e.g. get_setting("lang", "en")."""
        with self.reading() as conn:
            value = conn.execute(select(META.c.value).where(META.c.key == SETTING_PREFIX + key)).scalar()
        return json.loads(value) if value is not None else default

    def set_setting(self, key: str, value) -> None:
        text = json.dumps(value, ensure_ascii=False)
        with self._write() as conn:
            conn.execute(SET_META, {"key": SETTING_PREFIX + key, "value": text})

    def delete_setting(self, key: str) -> None:
        with self._write() as conn:
            conn.execute(META.delete().where(META.c.key == SETTING_PREFIX + key))

    def stored_settings(self) -> dict[str, object]:
        """Every stored setting as JSON-decoded values, in one read (unreadable JSON is kept as text)."""
        with self.reading() as conn:
            rows = conn.execute(select(META.c.key, META.c.value).where(META.c.key.startswith(SETTING_PREFIX)))
            out: dict[str, object] = {}
            for key, value in rows:
                try:
                    out[key[len(SETTING_PREFIX):]] = json.loads(value)
                except ValueError:
                    out[key[len(SETTING_PREFIX):]] = value
        return out

    def scheduling_settings(self) -> dict[str, object]:
        """The scheduling settings the user changed (key -> value), checked; StoreError for a bad stored one."""
        stored = self.stored_settings()
        values: dict[str, object] = {}
        for key in SETTINGS:
            if key in stored:
                try:
                    values[key] = setting_from_stored(key, stored[key])
                except SettingError as exc:
                    raise StoreError(
                        f"{self.path}: the stored setting {exc}; change it with `quizapp settings {key} VALUE` "
                        f"or `quizapp settings {key} default`"
                    ) from None
        return values

    def set_scheduling_setting(self, key: str, value: object | None) -> None:
        """Store one scheduling setting (a parsed value; None = back to the default).

        SettingError for an unknown key or a value SchedulerConfig refuses. A Store opened without an
        explicit config schedules with the new value at once.
        """
        spec = setting(key)
        if value is None:
            self.delete_setting(spec.key)
        else:
            config_with(SchedulerConfig(), {spec.key: value})  # refuse what SchedulerConfig refuses
            self.set_setting(spec.key, spec.stored(value))
        if self._follows_settings:
            self._use_config(config_with(SchedulerConfig(), self.scheduling_settings()))
