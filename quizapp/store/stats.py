"""Statistics over the review history: SQL aggregates over the card, review_log and mock tables.

Textual-free, so `quizapp stats` and the statistics screen print the same figures. Every figure
reads the time from `store.clock` and cuts days at the store's rollover hour in its time zone
(`Store.day_bounds`), like Anki's statistics. Each function opens its own read transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta, timezone

from sqlalchemy import DateTime, Integer, and_, case, column, func, literal, select, union_all, values
from sqlalchemy.exc import SQLAlchemyError

from quizapp.store.errors import StoreError
from quizapp.store.mock_tables import MockItem
from quizapp.store.tables import Card, ReviewLog
from quizapp.vocab import CardKind, Mode, Rating, State, Verdict

CARD = Card.__table__
LOG = ReviewLog.__table__
MOCK_ITEM = MockItem.__table__

SCHEDULED_MODES = tuple(m for m in Mode if m.scheduled)  # cram answers never move the schedule: retention ignores them
STATES = ("new", "learning", "review", "relearning", "suspended", "leech")
VERDICTS = tuple(Verdict)  # skipped: a mock calculation left unanswered
ALL_TIME = None
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


# --- values handed out ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DayCount:
    """Answers given on one study day, by mode."""

    day: date
    review: int = 0
    cram: int = 0
    mock: int = 0

    @property
    def total(self) -> int:
        return self.review + self.cram + self.mock


@dataclass(frozen=True)
class Retention:
    """True retention: answers to cards in Review state that were not Again, against the target.

    Anki's definition: only reviews of cards that had graduated (Review state) count; learning and
    relearning steps and cram answers do not. `days` None means all time.
    """

    days: int | None
    recalled: int
    total: int
    desired: float

    @property
    def rate(self) -> float | None:
        return self.recalled / self.total if self.total else None


@dataclass(frozen=True)
class ForecastDay:
    """Cards due on one coming study day (day 0 = today, which also holds every overdue card)."""

    day: date
    offset: int
    due: int


@dataclass(frozen=True)
class StateCounts:
    """Cards of one topic by state. new/learning/review/relearning exclude suspended cards;
    `suspended` counts every suspended card (leeches included); `leech` counts leech-tagged cards."""

    topic: str
    new: int = 0
    learning: int = 0
    review: int = 0
    relearning: int = 0
    suspended: int = 0
    leech: int = 0

    @property
    def total(self) -> int:
        return self.new + self.learning + self.review + self.relearning + self.suspended


@dataclass(frozen=True)
class DrillAccuracy:
    """Auto-graded drill answers of one topic. rate = correct / (correct + close + wrong):
    an unparseable answer was never a number and a skipped one (a mock calculation left without an
    answer) was never given, so both are counted but not judged."""

    topic: str
    correct: int = 0
    close: int = 0
    wrong: int = 0
    unparseable: int = 0
    skipped: int = 0

    @property
    def judged(self) -> int:
        return self.correct + self.close + self.wrong

    @property
    def rate(self) -> float | None:
        return self.correct / self.judged if self.judged else None


@dataclass(frozen=True)
class MistakeCount:
    """A misconception and how often the grader recognised it in the user's answers. `mistake_id` is
    the catalogue's id (rendered by quizapp.words where shown) or a question's own extra-mistake label."""

    mistake_id: str
    count: int


@dataclass(frozen=True)
class PointCount:
    """A key point of one card and how often self-graded answers of the window missed it."""

    card_id: str
    point: str
    topic: str
    missed: int
    seen: int


@dataclass(frozen=True)
class Leech:
    """A card that lapsed often enough to be tagged a leech (and, like Anki, suspended)."""

    card_id: str
    question_id: str
    kind: str
    topic: str
    lapses: int
    reps: int
    suspended: bool
    last_review: datetime | None


@dataclass(frozen=True)
class MockScore:
    """One past mock interview as the statistics list it."""

    id: int
    started: datetime
    questions: int
    score: float | None  # percent, None if nothing was rated
    completed: bool
    answered: int
    items: int


@dataclass(frozen=True)
class Statistics:
    """Every figure of the statistics screen and `quizapp stats`, taken at one instant."""

    now: datetime
    today: date
    reviews: tuple[DayCount, ...]  # the last 90 study days, oldest first, today last
    retention: tuple[Retention, ...]  # last 30 days, then all time
    forecast: tuple[ForecastDay, ...]  # today and the next 29 study days
    states: tuple[StateCounts, ...]  # per topic (sorted), then the total under topic ""
    accuracy: tuple[DrillAccuracy, ...]  # per topic (sorted), then the total under topic ""
    mistakes: tuple[MistakeCount, ...]  # most frequent first
    leeches: tuple[Leech, ...]  # most lapses first
    mocks: tuple[MockScore, ...] = field(default=())  # newest first
    mocks_available: bool = True  # False when the mock-interview records cannot be read
    points: tuple[PointCount, ...] = field(default=())  # key points missed most in the last 30 days
    points_90: tuple[PointCount, ...] = field(default=())  # the same over 90 days

    def reviews_last(self, days: int) -> tuple[DayCount, ...]:
        return self.reviews[-days:]


# --- plumbing ------------------------------------------------------------------------------------


def _now(store) -> datetime:
    return store.clock.now().astimezone(timezone.utc)


def _local_date(store, instant: datetime) -> date:
    """The calendar date a study day is named after: the local date at its start (rollover hour)."""
    tz = store.config.tz
    return (instant.astimezone(tz) if tz is not None else instant.astimezone()).date()


def study_days_back(store, count: int, now: datetime | None = None) -> list[tuple[datetime, datetime]]:
    """UTC (start, end) of the last `count` study days, oldest first, the current day last."""
    start, end = store.day_bounds(now or _now(store))
    days = [(start, end)]
    while len(days) < count:
        start, end = store.day_bounds(days[-1][0] - timedelta(hours=1))
        days.append((start, end))
    return days[::-1]


def study_days_ahead(store, count: int, now: datetime | None = None) -> list[tuple[datetime, datetime]]:
    """UTC (start, end) of the current study day and the `count - 1` after it."""
    days = [store.day_bounds(now or _now(store))]
    while len(days) < count:
        days.append(store.day_bounds(days[-1][1] + timedelta(hours=1)))
    return days


def _windows(days: Sequence[tuple[datetime, datetime]]):
    """The day windows as an SQL common table `days(i, lo, hi)` (a VALUES list) to join the history against."""
    table = values(column("i", Integer), column("lo", DateTime), column("hi", DateTime), name="days")
    return table.data([(i, lo, hi) for i, (lo, hi) in enumerate(days)]).cte("days")


# --- the figures ---------------------------------------------------------------------------------


def reviews_per_day(store, days: int = 30) -> list[DayCount]:
    """Answers per study day (every mode) for the last `days` days, oldest first, today last."""
    windows = study_days_back(store, days)
    table = _windows(windows)
    joined = table.join(LOG, and_(LOG.c.reviewed_at >= table.c.lo, LOG.c.reviewed_at < table.c.hi))
    query = select(table.c.i, LOG.c.mode, func.count()).select_from(joined).group_by(table.c.i, LOG.c.mode)
    counts: dict[int, dict[str, int]] = {}
    with store.reading() as conn:
        for i, mode, n in conn.execute(query):
            counts.setdefault(i, {})[mode] = int(n)
    return [
        DayCount(day=_local_date(store, lo), **{m.value: counts.get(i, {}).get(m, 0) for m in Mode})
        for i, (lo, _hi) in enumerate(windows)
    ]


def true_retention(store, days: int | None = 30) -> Retention:
    """Share of Review-state cards recalled (rating above Again) in the last `days` study days
    (None: all time), scheduled answers only (review and mock modes), against desired retention."""
    conditions = [LOG.c.prev_state == State.Review, LOG.c.prev_reps > 0, LOG.c.mode.in_(SCHEDULED_MODES)]
    if days is not None:
        conditions.append(LOG.c.reviewed_at >= study_days_back(store, days)[0][0])
    query = select(func.count(), func.coalesce(func.sum(case((LOG.c.rating > Rating.Again, 1), else_=0)), 0))
    with store.reading() as conn:
        total, recalled = conn.execute(query.where(*conditions)).one()
    return Retention(days=days, recalled=int(recalled), total=int(total), desired=store.config.desired_retention)


def due_forecast(store, days: int = 30) -> list[ForecastDay]:
    """Cards that fall due on each of the next `days` study days (today first, overdue included).

    Counted: cards reviewed at least once, not suspended, still in the bank. New cards are not
    forecast (they come in at the new-cards-per-day limit, not on a date).
    """
    windows = study_days_ahead(store, days)
    table = _windows([(EPOCH, windows[0][1]), *windows[1:]])  # today's window reaches back to every overdue card
    seen = and_(CARD.c.reps > 0, CARD.c.suspended.is_(False), CARD.c.orphaned.is_(False))
    joined = table.join(CARD, and_(seen, CARD.c.due >= table.c.lo, CARD.c.due < table.c.hi))
    query = select(table.c.i, func.count()).select_from(joined).group_by(table.c.i)
    with store.reading() as conn:
        counts = {i: int(n) for i, n in conn.execute(query)}
    return [ForecastDay(day=_local_date(store, lo), offset=i, due=counts.get(i, 0)) for i, (lo, _hi) in enumerate(windows)]


def state_counts(store) -> list[StateCounts]:
    """Cards by state per topic (sorted by topic), then the total over all topics under topic ""."""
    active = CARD.c.suspended.is_(False)

    def count(*conditions):
        return func.coalesce(func.sum(case((and_(*conditions), 1), else_=0)), 0)

    query = (
        select(
            CARD.c.topic,
            count(active, CARD.c.reps == 0),
            count(active, CARD.c.reps > 0, CARD.c.state == State.Learning),
            count(active, CARD.c.reps > 0, CARD.c.state == State.Review),
            count(active, CARD.c.reps > 0, CARD.c.state == State.Relearning),
            count(CARD.c.suspended.is_(True)),
            count(CARD.c.leech.is_(True)),
        )
        .where(CARD.c.orphaned.is_(False))
        .group_by(CARD.c.topic)
        .order_by(CARD.c.topic)
    )
    with store.reading() as conn:
        rows = [StateCounts(topic, *(int(v) for v in rest)) for topic, *rest in conn.execute(query)]
    total = StateCounts("", *(sum(getattr(r, name) for r in rows) for name in STATES))
    return [*rows, total]


def _graded_answers():
    """Every graded drill answer counted as (topic, verdict, mistake, n): the review log's (every mode),
    plus the mock interviews' quick calculations whose rating was not written to the schedule. A
    calculation whose rating was applied is already in the review log (mode mock), so it is not
    counted twice. The log is counted per card first, along the graded-answers index
    (srs_tables.GRADED_ANSWERS_INDEX), and only those groups are joined to their card."""
    per_card = (
        select(LOG.c.card_id, LOG.c.verdict, LOG.c.mistake, func.count().label("n"))
        .where(LOG.c.verdict.in_(VERDICTS))
        .group_by(LOG.c.card_id, LOG.c.verdict, LOG.c.mistake)
        .subquery("per_card")
    )
    logged = (
        select(CARD.c.topic.label("topic"), per_card.c.verdict.label("verdict"), per_card.c.mistake.label("mistake"),
               per_card.c.n.label("n"))
        .select_from(per_card.join(CARD, CARD.c.card_id == per_card.c.card_id))
        .where(CARD.c.kind == CardKind.DRILL)
    )
    mocked = (
        select(MOCK_ITEM.c.topic, MOCK_ITEM.c.verdict, MOCK_ITEM.c.mistake_id, literal(1))
        .where(MOCK_ITEM.c.kind == CardKind.DRILL, MOCK_ITEM.c.verdict.in_(VERDICTS),
               MOCK_ITEM.c.answered_at.is_not(None), MOCK_ITEM.c.applied_rating.is_(None))
    )
    return union_all(logged, mocked).subquery("graded")


def drill_accuracy(store) -> list[DrillAccuracy]:
    """Auto-graded drill answers per topic (review, cram, and mock interviews' quick calculations),
    then the total."""
    graded = _graded_answers()

    def count(verdict: str):
        return func.coalesce(func.sum(case((graded.c.verdict == verdict, graded.c.n), else_=literal(0))), 0)

    query = (
        select(graded.c.topic, *(count(v) for v in VERDICTS))
        .group_by(graded.c.topic)
        .order_by(graded.c.topic)
    )
    with store.reading() as conn:
        rows = [DrillAccuracy(topic, *(int(v) for v in rest)) for topic, *rest in conn.execute(query)]
    total = DrillAccuracy("", *(sum(getattr(r, name) for r in rows) for name in VERDICTS))
    return [*rows, total]


def top_mistakes(store, limit: int = 10) -> list[MistakeCount]:
    """The named misconceptions found most often in drill answers, mock calculations included (ties by id)."""
    graded = _graded_answers()
    n = func.sum(graded.c.n).label("n")
    query = (
        select(graded.c.mistake, n)
        .where(graded.c.mistake.is_not(None), graded.c.mistake != "")
        .group_by(graded.c.mistake)
        .order_by(n.desc(), graded.c.mistake)
        .limit(limit)
    )
    with store.reading() as conn:
        rows = conn.execute(query).all()
    return [MistakeCount(mid, int(count)) for mid, count in rows]


def missed_points(store, days: int = 30, limit: int = 20) -> list[PointCount]:
    """The key points missed most often by answers of the last `days` study days (reviews, cram and
    mocks alike): most misses first, then the most often seen, then by card and point."""
    from quizapp.store.tables import ReviewPoint

    points = ReviewPoint.__table__
    start = study_days_back(store, days)[0][0]
    missed = func.sum(case((points.c.covered.is_(False), 1), else_=0)).label("missed")
    seen = func.count().label("seen")
    query = (
        select(points.c.card_id, points.c.point, CARD.c.topic, missed, seen)
        .select_from(points.join(LOG, LOG.c.id == points.c.review_id).join(CARD, CARD.c.card_id == points.c.card_id))
        .where(LOG.c.reviewed_at >= start)
        .group_by(points.c.card_id, points.c.point, CARD.c.topic)
        .having(missed > 0)
        .order_by(missed.desc(), seen.desc(), points.c.card_id, points.c.point)
        .limit(limit)
    )
    with store.reading() as conn:
        rows = conn.execute(query).all()
    return [PointCount(r.card_id, r.point, r.topic, int(r.missed), int(r.seen)) for r in rows]


def leeches(store) -> list[Leech]:
    """Leech-tagged cards still in the bank, most lapses first."""
    query = (
        select(CARD.c.card_id, CARD.c.question_id, CARD.c.kind, CARD.c.topic, CARD.c.lapses, CARD.c.reps,
               CARD.c.suspended, CARD.c.last_review)
        .where(CARD.c.leech.is_(True), CARD.c.orphaned.is_(False))
        .order_by(CARD.c.lapses.desc(), CARD.c.card_id)
    )
    with store.reading() as conn:
        rows = conn.execute(query).all()
    return [Leech(r.card_id, r.question_id, r.kind, r.topic, int(r.lapses), int(r.reps), bool(r.suspended),
                  _aware(r.last_review)) for r in rows]


def _aware(value: datetime | None) -> datetime | None:
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=timezone.utc)


def mock_scores(store, limit: int | None = 20) -> tuple[list[MockScore], bool]:
    """Past mock interviews, newest first, and whether the mock records could be read at all."""
    from quizapp.store.mock import list_sessions

    try:
        sessions = list_sessions(store, limit=limit)
    except (SQLAlchemyError, StoreError):
        return [], False
    return [
        MockScore(id=s.id, started=_aware(s.date), questions=s.questions, score=s.score, completed=s.completed,
                  answered=s.answered, items=s.items)
        for s in sessions
    ], True


def collect(store) -> Statistics:
    """Every figure at once (one clock reading for the day labels)."""
    now = _now(store)
    mocks, available = mock_scores(store)
    return Statistics(
        now=now,
        today=_local_date(store, store.day_bounds(now)[0]),
        reviews=tuple(reviews_per_day(store, 90)),
        retention=(true_retention(store, 30), true_retention(store, ALL_TIME)),
        forecast=tuple(due_forecast(store, 30)),
        states=tuple(state_counts(store)),
        accuracy=tuple(drill_accuracy(store)),
        mistakes=tuple(top_mistakes(store)),
        leeches=tuple(leeches(store)),
        mocks=tuple(mocks),
        mocks_available=available,
        points=tuple(missed_points(store, 30)),
        points_90=tuple(missed_points(store, 90)),
    )


def to_json(stats: Statistics, days: int = 30) -> dict:
    """The figures as plain JSON values (dates ISO 8601, rates as fractions or null); `points` are
    the key points missed most over the last `days` (30 or 90)."""

    def iso(value):
        return value.isoformat() if value is not None else None

    return {
        "now": iso(stats.now),
        "today": iso(stats.today),
        "reviews_per_day": [
            {"day": iso(d.day), "review": d.review, "cram": d.cram, "mock": d.mock, "total": d.total}
            for d in stats.reviews
        ],
        "reviews_last_30_days": sum(d.total for d in stats.reviews_last(30)),
        "reviews_last_90_days": sum(d.total for d in stats.reviews_last(90)),
        "true_retention": [
            {"days": r.days, "recalled": r.recalled, "total": r.total, "rate": r.rate, "desired": r.desired}
            for r in stats.retention
        ],
        "due_forecast": [{"day": iso(f.day), "offset": f.offset, "due": f.due} for f in stats.forecast],
        "states": [{**asdict(s), "total": s.total} for s in stats.states],
        "drill_accuracy": [{**asdict(a), "judged": a.judged, "rate": a.rate} for a in stats.accuracy],
        "mistakes": [asdict(m) for m in stats.mistakes],
        "leeches": [{**asdict(x), "last_review": iso(x.last_review)} for x in stats.leeches],
        "mock_sessions": [{**asdict(m), "started": iso(m.started)} for m in stats.mocks],
        "points": [{"card_id": p.card_id, "point": p.point, "topic": p.topic, "missed": p.missed, "seen": p.seen}
                   for p in (stats.points_90 if days == 90 else stats.points)],
    }
