"""The counted study days behind true retention (retention_day): what the app counts once, the
statistics read, and any change to the answers before the cut retires.

Every comparison is against a count from the log itself (the cut removed), so a stale or wrong
table cannot agree with it by accident."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import func, select, update

from quizapp.clock import FakeClock
from quizapp.store import SchedulerConfig, Store, StoreError
from quizapp.store.retention import CUT, DAYS, refresh_counted_days, true_retention
from quizapp.store.search import stored_time
from tests.srs.conftest import UTC
from tests.srs.synthetic import simulate, write

START = datetime(2025, 6, 1, 9, 0, tzinfo=UTC)  # synthetic.simulate's first day
AFTER = START + timedelta(days=60, hours=3)  # the day after its 60 days, at noon


def _from_the_log(store) -> list:
    """True retention counted from the review log alone (the counted days set aside and restored)."""
    with store.engine.begin() as conn:
        saved = conn.execute(select(CUT)).all()
        conn.execute(CUT.delete())
    try:
        return true_retention(store)
    finally:
        with store.engine.begin() as conn:
            if saved:
                conn.execute(CUT.insert(), [row._asdict() for row in saved])


@pytest.fixture
def history(tmp_path):
    clock = FakeClock(start=AFTER)
    with Store.open(tmp_path / "h.sqlite3", clock, SchedulerConfig(tz=UTC)) as store:
        write(store, *simulate(120, 60, seed=5))
        yield store, clock


def test_counted_days_give_the_log_s_figures(history):
    store, _ = history
    expected = _from_the_log(store)
    assert expected[-1].total.total > 500  # a real history: hundreds of review answers
    # 59 of the 60 days hold review answers: the first day only learns new cards
    assert refresh_counted_days(store) == 59
    with store.reading() as conn:
        assert conn.execute(select(func.count()).select_from(DAYS)).scalar() > 60
        assert conn.execute(select(CUT.c.cut)).scalar() == "2025-07-31"  # today, not counted (still going)
    assert true_retention(store) == expected
    assert refresh_counted_days(store) == 0  # nothing new to count the same day


def test_the_counted_days_are_what_is_read(history):
    """A tampered count (the fingerprint still matching) shows: the statistics really read the table."""
    store, _ = history
    refresh_counted_days(store)
    before = true_retention(store)
    with store.engine.begin() as conn:
        conn.execute(update(DAYS).values(answers=DAYS.c.answers + 1000))
    tampered = true_retention(store)
    assert tampered[-1].total.total > before[-1].total.total + 1000


def test_a_new_day_counts_only_the_days_since(history):
    store, clock = history
    refresh_counted_days(store)
    cards = [f"syn{i:05d}/question/main" for i in range(3)]
    with store.engine.begin() as conn:  # review answers on today and the next two days
        for back, card in enumerate(cards):
            when = AFTER + timedelta(days=back)
            conn.exec_driver_sql(
                "INSERT INTO review_log (card_id, rating, reviewed_at, duration_ms, mode, prev_state, prev_reps,"
                " card_before, buried_siblings) VALUES (?, 1, ?, 1000, 'review', 2, 4, '{}', '{}')",
                (card, stored_time(when)))
    clock.advance(timedelta(days=3).total_seconds())
    assert refresh_counted_days(store) == 3  # the three days since, not the whole history again
    assert true_retention(store) == _from_the_log(store)
    assert true_retention(store)[-1].total.total == _from_the_log(store)[-1].total.total


def test_an_answer_removed_before_the_cut_retires_the_counts(history):
    store, _ = history
    refresh_counted_days(store)
    with store.engine.begin() as conn:  # what undo or a history reset does to an old answer
        old = conn.execute(select(func.min(CUT.c.cut))).scalar()
        victim = conn.execute(select(func.min(DAYS.c.day))).scalar()
        assert victim < old
        conn.exec_driver_sql("DELETE FROM review_log WHERE id = (SELECT id FROM review_log"
                             " WHERE prev_state = 2 AND prev_reps > 0 ORDER BY id LIMIT 1)")
    fresh = _from_the_log(store)
    assert true_retention(store) == fresh  # not the stale counts
    assert refresh_counted_days(store) > 50  # counted afresh


def test_another_rollover_hour_counts_afresh(tmp_path):
    path = tmp_path / "r.sqlite3"
    with Store.open(path, FakeClock(start=AFTER), SchedulerConfig(tz=UTC)) as store:
        write(store, *simulate(80, 40, seed=3))
        refresh_counted_days(store)
    with Store.open(path, FakeClock(start=AFTER), SchedulerConfig(tz=UTC, rollover_hour=0)) as store:
        # midnight days: the 04:00 counts do not apply (the synthetic answers at 09:00 stay on their
        # day, but the cut, today's start, moved) and are not read
        assert true_retention(store) == _from_the_log(store)
        assert refresh_counted_days(store) > 0
        with store.reading() as conn:
            assert set(conn.execute(select(DAYS.c.modifier)).scalars()) == {"+0 seconds"}


def test_a_read_only_store_reads_the_counts_and_never_writes_them(tmp_path):
    path = tmp_path / "ro.sqlite3"
    with Store.open(path, FakeClock(start=AFTER), SchedulerConfig(tz=UTC)) as store:
        write(store, *simulate(80, 40, seed=3))
        refresh_counted_days(store)
        expected = true_retention(store)
        with store.engine.begin() as conn:  # a marker only the counted days carry
            conn.execute(update(DAYS).values(answers=DAYS.c.answers * 2))
        marked = true_retention(store)
    assert marked != expected
    with Store.open(path, FakeClock(start=AFTER), SchedulerConfig(tz=UTC), read_only=True) as store:
        assert true_retention(store) == marked
        with pytest.raises(StoreError, match="read-only"):
            refresh_counted_days(store)
