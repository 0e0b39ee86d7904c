"""Anki's day: it starts at a local hour (default 04:00), not at midnight, so late study counts as 'today'."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone, tzinfo


def _at_hour(day: date, hour: int, tz: tzinfo | None) -> datetime:
    if tz is None:  # the system's local time, with its own DST rules for that date
        return datetime.combine(day, time(hour)).astimezone(timezone.utc)
    return datetime.combine(day, time(hour), tzinfo=tz).astimezone(timezone.utc)


MAX_DAY_OFFSET = 365_000  # a thousand years of study days: further than any card is due


def _study_date(now: datetime, rollover_hour: int, tz: tzinfo | None) -> date:
    local = now.astimezone(tz) if tz is not None else now.astimezone()
    return local.date() if local.hour >= rollover_hour else local.date() - timedelta(days=1)


def day_bounds(now: datetime, rollover_hour: int, tz: tzinfo | None) -> tuple[datetime, datetime]:
    """The UTC start (inclusive) and end (exclusive) of the study day containing `now`."""
    day = _study_date(now, rollover_hour, tz)
    return _at_hour(day, rollover_hour, tz), _at_hour(day + timedelta(days=1), rollover_hour, tz)


def study_day_start(now: datetime, rollover_hour: int, tz: tzinfo | None, days: int) -> datetime:
    """The UTC start of the study day `days` after the one containing `now` (negative: before it).

    Counted on the calendar, not in 24-hour steps: across a DST change a study day is 23 or 25 hours,
    and "three days ago" still starts at the rollover hour. `days` is clamped to a thousand years
    either way (no card is due further off), so any number a search may hold has a start."""
    days = max(-MAX_DAY_OFFSET, min(MAX_DAY_OFFSET, days))
    return _at_hour(_study_date(now, rollover_hour, tz) + timedelta(days=days), rollover_hour, tz)

