"""Time as a dependency: the app asks a Clock, tests pass a FakeClock they move by hand."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current instant, UTC-aware (tzinfo is timezone.utc, as fsrs requires)."""

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin that never goes backwards (timers use this)."""


class SystemClock:
    """The real clock."""

    def now(self) -> datetime:
        return datetime.now(timezone.utc)

    def monotonic(self) -> float:
        return time.monotonic()


@dataclass
class FakeClock:
    """A clock for tests: starts at `start`, moves only when `advance` is called."""

    start: datetime = field(default_factory=lambda: datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc))
    offset: float = 0.0

    def now(self) -> datetime:
        return self.start + timedelta(seconds=self.offset)

    def monotonic(self) -> float:
        return 1000.0 + self.offset

    def advance(self, seconds: float = 0.0, **delta: float) -> None:
        self.offset += seconds + timedelta(**delta).total_seconds()
