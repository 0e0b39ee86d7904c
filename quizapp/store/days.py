"""Anki's day: it starts at a local hour (default 04:00), not at midnight, so late study counts as 'today'."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone, tzinfo


def _at_hour(day: date, hour: int, tz: tzinfo | None) -> datetime:
    if tz is None:  # the system's local time, with its own DST rules for that date
        return datetime.combine(day, time(hour)).astimezone(timezone.utc)
    return datetime.combine(day, time(hour), tzinfo=tz).astimezone(timezone.utc)


def day_bounds(now: datetime, rollover_hour: int, tz: tzinfo | None) -> tuple[datetime, datetime]:
    """The UTC start (inclusive) and end (exclusive) of the study day containing `now`."""
    local = now.astimezone(tz) if tz is not None else now.astimezone()
    day = local.date() if local.hour >= rollover_hour else local.date() - timedelta(days=1)
    return _at_hour(day, rollover_hour, tz), _at_hour(day + timedelta(days=1), rollover_hour, tz)
