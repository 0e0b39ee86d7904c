"""Scheduling choices in one immutable value: FSRS settings plus the Anki-style daily rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta, tzinfo

from fsrs.scheduler import DEFAULT_PARAMETERS


@dataclass(frozen=True)
class SchedulerConfig:
    """How cards are scheduled. Defaults follow Anki and py-fsrs.

    fuzz_seed: None draws interval fuzz from OS entropy; an int makes it reproducible (tests).
    tz: the zone whose local `rollover_hour` starts a new day; None = the system's local time.
    learn_ahead: when nothing else is left, a learning card due within this window is shown early
    (Anki's "learn ahead limit").
    """

    desired_retention: float = 0.9
    learning_steps: tuple[timedelta, ...] = (timedelta(minutes=1), timedelta(minutes=10))
    relearning_steps: tuple[timedelta, ...] = (timedelta(minutes=10),)
    maximum_interval: int = 36500  # days
    new_per_day: int = 10
    reviews_per_day: int = 200
    rollover_hour: int = 4
    enable_fuzzing: bool = True
    fuzz_seed: int | None = None
    tz: tzinfo | None = None
    leech_lapses: int = 8
    bury_siblings: bool = True
    learn_ahead: timedelta = timedelta(minutes=20)
    parameters: tuple[float, ...] = field(default=tuple(DEFAULT_PARAMETERS))

    def __post_init__(self) -> None:
        if not 0 < self.desired_retention < 1:
            raise ValueError(f"desired_retention: expected a number between 0 and 1, got {self.desired_retention}")
        if not 0 <= self.rollover_hour <= 23:
            raise ValueError(f"rollover_hour: expected an hour 0..23, got {self.rollover_hour}")
        for name in ("new_per_day", "reviews_per_day"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}: expected a whole number >= 0, got {getattr(self, name)}")
        if self.maximum_interval < 1:
            raise ValueError(f"maximum_interval: expected a number of days >= 1, got {self.maximum_interval}")
        if self.leech_lapses < 1:
            raise ValueError(f"leech_lapses: expected a whole number >= 1, got {self.leech_lapses}")
