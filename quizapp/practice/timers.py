"""Timer arithmetic for mock interviews, read from a monotonic clock and never from counted ticks.

The screen redraws on an interval, but every number it shows is computed here from
`clock.monotonic()`, so a busy machine or a suspended terminal cannot slow the interview down.
No Textual here: the rules (budgets, pause, overtime, strict auto-advance) are unit-tested alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from quizapp.clock import Clock

FOLLOWUP_FRACTION = 1 / 3
"""A follow-up (and a quick calculation) gets a third of its question's time."""


@dataclass(frozen=True)
class TimerReading:
    """One timer at one instant: what the countdown widget renders."""

    budget: float  # seconds
    elapsed: float  # seconds spent while running (pauses excluded)
    paused: bool

    @property
    def remaining(self) -> float:
        return max(0.0, self.budget - self.elapsed)

    @property
    def overtime(self) -> float:
        return max(0.0, self.elapsed - self.budget)

    @property
    def expired(self) -> bool:
        return self.elapsed >= self.budget

    @property
    def fraction_left(self) -> float:
        return 0.0 if self.budget <= 0 else self.remaining / self.budget


class Countdown:
    """A budgeted stopwatch that can pause; elapsed time keeps counting past the budget (overtime)."""

    def __init__(self, clock: Clock, budget: float, *, elapsed: float = 0.0, paused: bool = False) -> None:
        if budget < 0:
            raise ValueError(f"budget must be >= 0 seconds, got {budget}")
        self._clock = clock
        self.budget = float(budget)
        self._banked = float(elapsed)  # time accumulated before the current running stretch
        self._since: float | None = None if paused else clock.monotonic()

    @property
    def paused(self) -> bool:
        return self._since is None

    def elapsed(self) -> float:
        if self._since is None:
            return self._banked
        return self._banked + max(0.0, self._clock.monotonic() - self._since)

    def pause(self) -> None:
        if self._since is not None:
            self._banked = self.elapsed()
            self._since = None

    def resume(self) -> None:
        if self._since is None:
            self._since = self._clock.monotonic()

    def reading(self) -> TimerReading:
        return TimerReading(budget=self.budget, elapsed=self.elapsed(), paused=self.paused)


class InterviewTimers:
    """The two clocks of a mock interview: the current step's and the whole interview's.

    Pause stops both. `strict` means a step whose time is up must be ended by the caller
    (`should_advance`); otherwise the step just runs into overtime.
    """

    def __init__(self, clock: Clock, total_budget: float, *, strict: bool = False,
                 total_elapsed: float = 0.0) -> None:
        self._clock = clock
        self.strict = strict
        self.total = Countdown(clock, total_budget, elapsed=total_elapsed)
        self.step = Countdown(clock, 0.0, paused=True)
        self._paused = False

    @property
    def paused(self) -> bool:
        return self._paused

    def start_step(self, budget: float, *, elapsed: float = 0.0) -> None:
        """Begin timing a step (question, follow-up or calculation) with its own budget.

        `elapsed` is time the step already used before a resume.
        """
        self.step = Countdown(self._clock, budget, elapsed=elapsed, paused=self._paused)

    def end_step(self) -> float:
        """Stop the current step's timer and return the seconds it used."""
        self.step.pause()
        return self.step.elapsed()

    def pause(self) -> None:
        self._paused = True
        self.step.pause()
        self.total.pause()

    def resume(self) -> None:
        self._paused = False
        self.step.resume()
        self.total.resume()

    def toggle_pause(self) -> bool:
        """Pause if running, resume if paused; returns whether it is paused now."""
        if self._paused:
            self.resume()
        else:
            self.pause()
        return self._paused

    def should_advance(self) -> bool:
        """Strict mode: the step's time is up and the interview must move on by itself."""
        return self.strict and not self._paused and self.step.budget > 0 and self.step.reading().expired


def followup_budget(question_budget: float) -> float:
    return question_budget * FOLLOWUP_FRACTION


def format_clock(seconds: float) -> str:
    """`m:ss` (or `h:mm:ss`), rounding remaining time up so 0:00 means time is really up."""
    whole = max(0, math.ceil(seconds - 1e-9))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
