"""The study streak walks back several days per statement; a gap on either side of a window's edge
must end it exactly there (the windows are 4 days, then 32 at a time)."""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import insert

from quizapp.clock import FakeClock
from quizapp.content import CardSpec
from quizapp.store import SchedulerConfig, Store
from quizapp.store.tables import ReviewLog

DAYS = 120


def _studied_days(store: Store, skipped: int | None) -> None:
    """One answer on each of the last DAYS study days (day 0 is today), except day `skipped`."""
    rows = []
    start, _ = store.day_bounds()
    for day in range(DAYS):
        if day != skipped:
            rows.append(dict(card_id="q/question/main", rating=3, reviewed_at=start + timedelta(hours=1),
                             duration_ms=1, mode="cram", prev_state=1, prev_reps=0, card_before="{}",
                             buried_siblings="{}"))
        start = store.day_bounds(start - timedelta(hours=1))[0]  # the study day before
    with store.engine.begin() as conn:
        conn.execute(insert(ReviewLog.__table__), rows)


@pytest.mark.parametrize("zone, rollover", [("Europe/Berlin", 4), ("America/New_York", 0)])
@pytest.mark.parametrize("skipped", [None, 0, 1, 3, 4, 5, 35, 36, 37, 67, 68, 69, 99, 100])
def test_the_streak_ends_at_the_first_day_without_study(tmp_path, zone, rollover, skipped):
    config = SchedulerConfig(tz=ZoneInfo(zone), rollover_hour=rollover, fuzz_seed=1)
    with Store.open(tmp_path / "streak.sqlite3", FakeClock(), config) as store:
        store.sync([CardSpec("q/question/main", "q", "question", "main", "t", 0)])
        _studied_days(store, skipped)
        if skipped is None:
            expected = DAYS
        elif skipped == 0:
            expected = DAYS - 1  # nothing yet today: the streak still counts up to yesterday
        else:
            expected = skipped  # today and the days after it, back to the gap
        assert store.today().streak_days == expected
