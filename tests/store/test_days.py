"""Study-day bounds are UTC instants whatever the process's time zone (mutmut survivors in store/days.py)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from quizapp.store.days import day_bounds


@pytest.fixture
def shanghai_process(monkeypatch):
    """The process's local zone is UTC+8 (as for a user in China), restored afterwards."""
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("tz", [None, ZoneInfo("America/New_York")], ids=["system-zone", "new-york"])
def test_bounds_are_utc_whatever_the_process_zone(shanghai_process, tz):
    # kills `.astimezone(timezone.utc)` -> `.astimezone(None)` in _at_hour: the same instant, but in the
    # process's zone, which the store then writes and compares as text
    start, end = day_bounds(datetime(2026, 12, 2, 6, 0, tzinfo=UTC), 4, tz)
    assert start.tzinfo is timezone.utc and end.tzinfo is timezone.utc
    assert end - start == timedelta(days=1)


def test_the_system_zone_sets_the_rollover(shanghai_process):
    # 06:00 UTC is 14:00 in Shanghai: the study day began at 04:00 local = 20:00 UTC the day before
    start, end = day_bounds(datetime(2026, 12, 2, 6, 0, tzinfo=UTC), 4, None)
    assert (start, end) == (datetime(2026, 12, 1, 20, 0, tzinfo=UTC), datetime(2026, 12, 2, 20, 0, tzinfo=UTC))


def test_study_day_start_counts_calendar_days_across_dst_changes():
    from zoneinfo import ZoneInfo

    from quizapp.store.days import study_day_start

    ny = ZoneInfo("America/New_York")
    now = datetime(2026, 10, 31, 12, 0, tzinfo=timezone.utc)  # 08:00 EDT: the study day 10-31
    # 10-31 04:00 EDT = 08:00 UTC; 11-02 04:00 EST = 09:00 UTC (fell back 11-01); 10-30 04:00 EDT = 08:00 UTC
    assert study_day_start(now, 4, ny, 0) == datetime(2026, 10, 31, 8, 0, tzinfo=timezone.utc)
    assert study_day_start(now, 4, ny, 2) == datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)
    assert study_day_start(now, 4, ny, -1) == datetime(2026, 10, 30, 8, 0, tzinfo=timezone.utc)
    early = datetime(2026, 10, 31, 7, 0, tzinfo=timezone.utc)  # 03:00 EDT: still the study day 10-30
    assert study_day_start(early, 4, ny, 1) == datetime(2026, 10, 31, 8, 0, tzinfo=timezone.utc)


def test_study_day_start_clamps_a_search_number_no_calendar_holds():
    from quizapp.store.days import MAX_DAY_OFFSET, study_day_start

    now = datetime(2026, 10, 31, 12, 0, tzinfo=timezone.utc)
    far = study_day_start(now, 4, timezone.utc, 10**12)  # prop:due>1000000000000 must not overflow
    assert far == study_day_start(now, 4, timezone.utc, MAX_DAY_OFFSET)
    assert far.year > 3000 and study_day_start(now, 4, timezone.utc, -10**12).year < 1100
