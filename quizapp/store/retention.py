"""How well you remember, measured and simulated: Anki's true-retention table, the stability /
difficulty / retrievability distributions, and the workload fsrs-rs's simulator predicts per
desired retention (so a retention can be chosen by the minutes a day it costs).

True retention follows Anki's statistics: answers to cards in the Review state (scheduled modes),
the first answer of each card per study day only, passed = anything but Again, and a card is mature
when the interval it was last given (due - last review before the answer) is at least 21 days.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from sqlalchemy import Float, Integer, and_, case, cast, false, func, literal, select, type_coerce
from sqlalchemy.exc import SQLAlchemyError

from quizapp.store.errors import StoreError, database_error
from quizapp.store.search import retrievability
from quizapp.store.srs_tables import RetentionCut, RetentionDay
from quizapp.store.tables import Card, ReviewLog

if TYPE_CHECKING:
    from quizapp.store.store import Store

MATURE_DAYS = 21
PERIODS = ("today", "yesterday", "week", "month", "year", "all")
RETENTIONS = (0.75, 0.80, 0.85, 0.90, 0.95)  # compared by `quizapp simulate`
STABILITY_BINS = (0, 1, 3, 7, 14, 30, 90, 180, 365)  # days; the last bin is open-ended
SCHEDULED = ("review", "mock")
CARD, LOG = Card.__table__, ReviewLog.__table__
DAYS, CUT = RetentionDay.__table__, RetentionCut.__table__


@dataclass(frozen=True)
class Cell:
    passed: int
    total: int

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None


@dataclass(frozen=True)
class RetentionRow:
    period: str  # PERIODS
    young: Cell
    mature: Cell

    @property
    def total(self) -> Cell:
        return Cell(self.young.passed + self.mature.passed, self.young.total + self.mature.total)


def _day_modifier(store: Store, now: datetime) -> str:
    """An SQLite date() modifier turning stored UTC text into the study day (local, from rollover)."""
    tz = store.config.tz
    local = now.astimezone(tz) if tz is not None else now.astimezone()
    offset = int(local.utcoffset().total_seconds()) - store.config.rollover_hour * 3600
    return f"{offset:+d} seconds"


def _days(expr):
    """SQLite's day number of a time (differences are days, fractional)."""
    return func.julianday(expr, type_=Float)


def _day_counts(conn, modifier: str, lo: datetime | None = None, hi: datetime | None = None) -> list[tuple]:
    """(study day, mature, passed, answers) for the answers reviewed in [lo, hi) (None: unbounded)."""
    # Anki counts a card's first review-state answer of each study day: picked by a GROUP BY (one scan,
    # no window function over the whole history: a year is 200,000 rows), then joined back to its row.
    day_of = func.date(LOG.c.reviewed_at, modifier)
    window = [LOG.c.reviewed_at >= lo] if lo is not None else []
    window += [LOG.c.reviewed_at < hi] if hi is not None else []
    # a few days (lo given): grouping by `card_id || ''` keeps SQLite from walking the whole card
    # index for the GROUP BY, so it takes the reviewed_at index to the days asked for
    card = LOG.c.card_id.op("||")(literal("")) if lo is not None else LOG.c.card_id
    firsts = (select(func.min(LOG.c.id).label("id"))
              .where(LOG.c.mode.in_(SCHEDULED), LOG.c.prev_state == 2, LOG.c.prev_reps > 0, *window)
              .group_by(card, day_of).subquery("firsts"))
    answer = LOG.alias("answer")
    earlier = LOG.alias("earlier")
    # the interval the card was last given: from the stored card_before; only where that lacks it (an
    # imported history), the time since the card's previous scheduled answer (an indexed lookup, which
    # COALESCE evaluates for those rows alone)
    previous = (select(earlier.c.reviewed_at)
                .where(earlier.c.card_id == answer.c.card_id, earlier.c.id < answer.c.id,
                       earlier.c.mode.in_(SCHEDULED))
                .order_by(earlier.c.id.desc()).limit(1).scalar_subquery())
    before = answer.c.card_before
    ranked = (select(func.date(answer.c.reviewed_at, modifier).label("day"), answer.c.rating,
                     func.coalesce(_days(func.json_extract(before, "$.due"))
                                   - _days(func.json_extract(before, "$.last_review")),
                                   _days(answer.c.reviewed_at) - _days(previous), 0, type_=Float).label("ivl"))
              .join_from(firsts, answer, answer.c.id == firsts.c.id).subquery("ranked"))
    mature = type_coerce(ranked.c.ivl >= MATURE_DAYS, Integer).label("mature")
    passed = type_coerce(ranked.c.rating > 1, Integer).label("passed")
    # counted per study day in SQL (a few hundred rows), summed into the periods by the caller
    per_day = select(ranked.c.day, mature, passed, func.count().label("n")).group_by(ranked.c.day, mature, passed)
    return [(day, bool(m), bool(p), int(n)) for day, m, p, n in conn.execute(per_day)]


def _day_start(day: str, modifier: str) -> datetime:
    """The UTC moment study day `day` begins, under `modifier` (day = date(time + offset))."""
    offset = int(modifier.split()[0])
    return datetime.fromisoformat(day).replace(tzinfo=timezone.utc) - timedelta(seconds=offset)


def _fingerprint(conn, before: datetime) -> tuple[int, int]:
    """(rows, sum of ids) of the review log before `before`: one pass over the reviewed_at index."""
    rows, ids = conn.execute(select(func.count(), func.coalesce(func.sum(LOG.c.id), 0))
                             .where(LOG.c.reviewed_at < before)).one()
    return int(rows), int(ids)


def _counted_days(conn, modifier: str) -> tuple[str, list[tuple]] | None:
    """(cut, the counted days before it) when RetentionDay still matches the log, else None."""
    found = conn.execute(select(CUT.c.cut, CUT.c.answers, CUT.c.id_sum).where(CUT.c.modifier == modifier)).first()
    if found is None or _fingerprint(conn, _day_start(found.cut, modifier)) != (found.answers, found.id_sum):
        return None
    rows = conn.execute(select(DAYS.c.day, DAYS.c.mature, DAYS.c.passed, DAYS.c.answers)
                        .where(DAYS.c.modifier == modifier, DAYS.c.day < found.cut)).all()
    return found.cut, [(day, bool(m), bool(p), int(n)) for day, m, p, n in rows]


def _today(conn, now: datetime, modifier: str) -> str:
    return conn.execute(select(func.date(now.isoformat(sep=" "), modifier))).scalar_one()


def true_retention(store: Store) -> list[RetentionRow]:
    """One row per PERIODS entry (today, yesterday, last 7 days, 30, 365, all time).

    The days the app has counted (refresh_counted_days) are read from retention_day while the log
    before them is unchanged; the rest, at least today, is counted from the log."""
    now = store.clock.now().astimezone(timezone.utc)
    modifier = _day_modifier(store, now)
    with store.reading() as conn:
        today = _today(conn, now, modifier)
        counted = _counted_days(conn, modifier)
        if counted is None:
            rows = _day_counts(conn, modifier)
        else:
            cut, rows = counted
            rows = rows + _day_counts(conn, modifier, lo=_day_start(cut, modifier))
    from datetime import date

    today_day = date.fromisoformat(today)
    first_day = {"today": 0, "yesterday": 1, "week": 6, "month": 29, "year": 364}
    cells = {period: [0, 0, 0, 0] for period in PERIODS}  # young passed, young total, mature passed, mature total
    for day_text, is_mature, is_passed, count in rows:
        back = (today_day - date.fromisoformat(day_text)).days
        for period in PERIODS:
            if period == "all" or (0 <= back <= first_day[period] and (period != "yesterday" or back == 1)):
                cell = cells[period]
                cell[2 * bool(is_mature)] += count * bool(is_passed)
                cell[2 * bool(is_mature) + 1] += count
    return [RetentionRow(period, Cell(yp, yt), Cell(mp, mt)) for period, (yp, yt, mp, mt) in cells.items()]


def refresh_counted_days(store: Store) -> int:
    """Count the study days that are over into retention_day (the app runs it in the background), so
    the statistics do not re-count a year of answers: only the days since the last count, or every
    day when the log before the last count changed or the study-day offset moved. Returns the number
    of days written. Other offsets' counts are dropped."""
    if store.read_only:
        raise StoreError(f"{store.path}: opened read-only (by a command that only reads); nothing was changed")
    now = store.clock.now().astimezone(timezone.utc)
    modifier = _day_modifier(store, now)
    try:
        return _refresh(store.engine, now, modifier)
    except SQLAlchemyError as exc:
        raise database_error(store.path, exc) from None


def _refresh(engine, now: datetime, modifier: str) -> int:
    with engine.execution_options(immediate=True).begin() as conn:
        today = _today(conn, now, modifier)
        counted = _counted_days(conn, modifier)
        if counted is not None and counted[0] >= today:
            return 0
        conn.execute(DAYS.delete().where(DAYS.c.modifier != modifier))
        conn.execute(CUT.delete())
        if counted is None:
            conn.execute(DAYS.delete())
            lo = None
        else:
            lo = _day_start(counted[0], modifier)
        hi = _day_start(today, modifier)
        rows = _day_counts(conn, modifier, lo=lo, hi=hi)
        if rows:
            conn.execute(DAYS.insert(), [dict(modifier=modifier, day=day, mature=m, passed=p, answers=n)
                                         for day, m, p, n in rows])
        answers, id_sum = _fingerprint(conn, hi)
        conn.execute(CUT.insert().values(modifier=modifier, cut=today, answers=answers, id_sum=id_sum))
    return len({row[0] for row in rows})


@dataclass(frozen=True)
class Distributions:
    """Cards answered at least once (not orphaned), counted per bin: (label, count) in bin order."""

    stability: list[tuple[str, int]]
    difficulty: list[tuple[str, int]]
    retrievability: list[tuple[str, int]]


def _bin_labels(edges) -> list[str]:
    labels = [f"{a:g}-{b:g}" for a, b in zip(edges, edges[1:])]
    return labels + [f"{edges[-1]:g}+"]


def distributions(store: Store) -> Distributions:
    """Stability in days (STABILITY_BINS), difficulty (Anki's 0-100 %: (D - 1) / 9) and R now, in tenths."""
    c = CARD.c
    s_bin = case(*((c.stability < b, i - 1) for i, b in enumerate(STABILITY_BINS) if i),
                 else_=len(STABILITY_BINS) - 1)
    d_bin = func.min(9, func.max(0, cast((c.difficulty - 1) / 9.0 * 10, Integer)))
    r_bin = func.min(9, func.max(0, cast(retrievability(store.config.parameters, store.clock.now()) * 10, Integer)))
    statement = (select(s_bin, d_bin, r_bin)
                 .where(c.orphaned == false(), c.reps > 0, c.stability.is_not(None)))
    s_counts = [0] * len(STABILITY_BINS)
    d_counts = [0] * 10
    r_counts = [0] * 10
    with store.reading() as conn:
        for s_bin, d_bin, r_bin in conn.execute(statement):
            s_counts[s_bin] += 1
            if d_bin is not None:
                d_counts[d_bin] += 1
            if r_bin is not None:
                r_counts[r_bin] += 1
    tenths = [f"{10 * i}-{10 * (i + 1)}%" for i in range(10)]
    return Distributions(stability=list(zip(_bin_labels(STABILITY_BINS), s_counts)),
                         difficulty=list(zip(tenths, d_counts)), retrievability=list(zip(tenths, r_counts)))


# --- the workload simulator (fsrs-rs) -------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    retention: float
    days: int
    reviews_per_day: list[int]  # reviews + first answers of new cards, each day
    minutes_per_day: list[float]
    memorized: float  # expected cards remembered at the end (sum of R)

    @property
    def mean_reviews(self) -> float:
        return sum(self.reviews_per_day) / self.days

    @property
    def mean_minutes(self) -> float:
        return sum(self.minutes_per_day) / self.days


def _rating_probabilities(store: Store):
    """(first-answer probabilities Again..Easy, review pass probabilities Hard..Easy) from the history,
    each None below 50 answers (fsrs-rs's defaults, from Anki users, are used then)."""
    with store.reading() as conn:
        scheduled = LOG.c.mode.in_(SCHEDULED)
        first = dict(conn.execute(select(LOG.c.rating, func.count()).where(scheduled, LOG.c.prev_reps == 0)
                                  .group_by(LOG.c.rating)).all())
        passes = dict(conn.execute(select(LOG.c.rating, func.count())
                                   .where(scheduled, LOG.c.prev_state == 2, LOG.c.prev_reps > 0, LOG.c.rating > 1)
                                   .group_by(LOG.c.rating)).all())
    n_first, n_pass = sum(first.values()), sum(passes.values())
    first_p = [first.get(r, 0) / n_first for r in (1, 2, 3, 4)] if n_first >= 50 else None
    pass_p = [passes.get(r, 0) / n_pass for r in (2, 3, 4)] if n_pass >= 50 else None
    return first_p, pass_p


def deck_size(store: Store) -> int:
    """How many cards the collection has (those whose YAML is gone are not counted)."""
    with store.reading() as conn:
        return int(conn.execute(select(func.count()).select_from(CARD).where(CARD.c.orphaned == false())).scalar())


def simulate_workload(store: Store, days: int, retentions, *, seed: int = 42) -> list[Workload]:
    """The expected daily workload of the collection (its card count, from new, at the daily limits)
    at each desired retention, with the current FSRS parameters (fsrs-rs's simulator)."""
    from fsrs_rs_python import default_simulator_config, simulate

    config = default_simulator_config()
    config.deck_size = deck_size(store)
    config.learn_span = int(days)
    config.learn_limit = store.config.new_per_day
    config.review_limit = store.config.reviews_per_day
    config.max_ivl = float(store.config.maximum_interval)
    config.learning_step_count = len(store.config.learning_steps)
    config.relearning_step_count = len(store.config.relearning_steps)
    first_p, pass_p = _rating_probabilities(store)
    if first_p is not None and all(p > 0 for p in first_p):
        config.first_rating_prob = first_p
    if pass_p is not None and all(p > 0 for p in pass_p):
        config.review_rating_prob = pass_p
    out = []
    for retention in retentions:
        result = simulate(list(store.config.parameters), float(retention), config, seed)
        reviews = [r + n for r, n in zip(result.review_cnt_per_day, result.learn_cnt_per_day)]
        out.append(Workload(retention=float(retention), days=days, reviews_per_day=reviews,
                            minutes_per_day=[c / 60 for c in result.cost_per_day],
                            memorized=float(result.memorized_cnt_per_day[-1]) if result.memorized_cnt_per_day else 0.0))
    return out


def to_json(store: Store) -> dict:
    """The true-retention table and the distributions as plain data (for `quizapp stats --json`)."""
    def cell(c: Cell) -> dict:
        return {"passed": c.passed, "total": c.total, "rate": c.rate}

    dists = distributions(store)
    return {
        "true_retention_table": [{"period": r.period, "young": cell(r.young), "mature": cell(r.mature),
                                  "total": cell(r.total)} for r in true_retention(store)],
        "distributions": {name: [{"bin": label, "cards": n} for label, n in getattr(dists, name)]
                          for name in ("stability", "difficulty", "retrievability")},
    }
