"""FSRS glue: a Scheduler whose fuzz is reproducible without touching the `random` module's global state.

py-fsrs draws interval fuzz from `random.random()` (module-global). SeededScheduler overrides only
`_get_fuzzed_interval`, keeping the package's formula (FUZZ_RANGES) but drawing from its own
`random.Random`. The Store gives each review a Random seeded from (fuzz_seed, card_id, reps), so a
review, undone and redone, gets the same interval, and tests are deterministic.
"""

from __future__ import annotations

from copy import copy
from datetime import timedelta
from random import Random

from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler, State
from fsrs.scheduler import FUZZ_RANGES

from quizapp.store.config import SchedulerConfig


class SeededScheduler(Scheduler):
    """fsrs.Scheduler with fuzz drawn from `self.rng` (the package's own fuzz range formula)."""

    rng: Random

    def with_rng(self, rng: Random) -> SeededScheduler:
        clone = copy(self)
        clone.rng = rng
        return clone

    def _get_fuzzed_interval(self, *, interval: timedelta) -> timedelta:
        # Same arithmetic as fsrs.Scheduler._get_fuzzed_interval (6.3.x); only the random source differs.
        interval_days = interval.days
        if interval_days < 2.5:
            return interval
        delta = 1.0
        for fuzz_range in FUZZ_RANGES:
            delta += fuzz_range["factor"] * max(
                min(float(interval_days), fuzz_range["end"]) - fuzz_range["start"], 0.0
            )
        min_ivl = max(2, round(interval_days - delta))
        max_ivl = min(round(interval_days + delta), self.maximum_interval)
        min_ivl = min(min_ivl, max_ivl)
        rng = getattr(self, "rng", None) or Random()
        fuzzed = rng.random() * (max_ivl - min_ivl + 1) + min_ivl
        return timedelta(days=min(round(fuzzed), self.maximum_interval))


def make_scheduler(config: SchedulerConfig, *, fuzz: bool | None = None) -> SeededScheduler:
    """The scheduler for `config`; fuzz=False gives the preview scheduler (no randomness)."""
    return SeededScheduler(
        parameters=config.parameters,
        desired_retention=config.desired_retention,
        learning_steps=config.learning_steps,
        relearning_steps=config.relearning_steps,
        maximum_interval=config.maximum_interval,
        enable_fuzzing=config.enable_fuzzing if fuzz is None else fuzz,
    )


def fuzz_rng(config: SchedulerConfig, card_id: str, reps: int) -> Random:
    """The fuzz source for one review: reproducible when config.fuzz_seed is set, else OS entropy."""
    if config.fuzz_seed is None:
        return Random()
    return Random(f"{config.fuzz_seed}/{card_id}/{reps}")


def to_fsrs(row) -> FsrsCard:
    """An fsrs.Card from a card row (anything with the FSRS column attributes)."""
    return FsrsCard(
        card_id=0,  # an explicit id: fsrs would otherwise sleep 1 ms to make one
        state=State(row.state),
        step=row.step,
        stability=row.stability,
        difficulty=row.difficulty,
        due=row.due,
        last_review=row.last_review,
    )


__all__ = ["Rating", "SeededScheduler", "fuzz_rng", "make_scheduler", "to_fsrs"]
