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
