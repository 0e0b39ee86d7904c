"""Timer arithmetic of the mock interview: budgets, pause, overtime and strict mode on a fake clock."""

from __future__ import annotations

import pytest

from quizapp.clock import FakeClock
from quizapp.practice.timers import Countdown, InterviewTimers, followup_budget, format_clock


def test_countdown_counts_clock_time_not_calls():
    clock = FakeClock()
    timer = Countdown(clock, 300)
    clock.advance(42.5)
    for _ in range(1000):  # reading many times must not move time (no tick counting)
        timer.reading()
    reading = timer.reading()
    assert reading.elapsed == pytest.approx(42.5)
    assert reading.remaining == pytest.approx(257.5)
    assert reading.overtime == 0
    assert not reading.expired


def test_a_long_suspension_counts_in_full():
    clock = FakeClock()
    timer = Countdown(clock, 60)
    clock.advance(hours=2)  # e.g. the terminal was suspended with ctrl+z
    assert timer.reading().overtime == pytest.approx(2 * 3600 - 60)


def test_overtime_counts_past_zero():
    clock = FakeClock()
    timer = Countdown(clock, 30)
    clock.advance(30)
    assert timer.reading().expired
    assert timer.reading().remaining == 0
    clock.advance(12)
    assert timer.reading().overtime == pytest.approx(12)


def test_pause_stops_time_and_resume_continues():
    clock = FakeClock()
    timer = Countdown(clock, 100)
    clock.advance(10)
    timer.pause()
    clock.advance(500)
    assert timer.paused
    assert timer.elapsed() == pytest.approx(10)
    timer.resume()
    clock.advance(5)
    assert timer.elapsed() == pytest.approx(15)
    timer.pause()
    timer.pause()  # idempotent
    timer.resume()
    timer.resume()
    clock.advance(1)
    assert timer.elapsed() == pytest.approx(16)


def test_resumed_timer_starts_from_what_was_used():
    clock = FakeClock()
    timer = Countdown(clock, 100, elapsed=70)
    clock.advance(40)
    assert timer.reading().overtime == pytest.approx(10)


def test_negative_budget_rejected():
    with pytest.raises(ValueError):
        Countdown(FakeClock(), -1)


def test_interview_pause_stops_both_timers():
    clock = FakeClock()
    timers = InterviewTimers(clock, total_budget=600)
    timers.start_step(300)
    clock.advance(20)
    assert timers.toggle_pause() is True
    clock.advance(1000)
    assert timers.step.elapsed() == pytest.approx(20)
    assert timers.total.elapsed() == pytest.approx(20)
    # a step started while paused stays paused until resume
    assert timers.end_step() == pytest.approx(20)
    timers.start_step(100)
    clock.advance(50)
    assert timers.step.elapsed() == 0
    assert timers.toggle_pause() is False
    clock.advance(7)
    assert timers.step.elapsed() == pytest.approx(7)
    assert timers.total.elapsed() == pytest.approx(27)


def test_strict_mode_advances_only_when_step_time_is_up():
    clock = FakeClock()
    strict = InterviewTimers(clock, 100, strict=True)
    relaxed = InterviewTimers(clock, 100, strict=False)
    for timers in (strict, relaxed):
        timers.start_step(30)
    clock.advance(29.9)
    assert not strict.should_advance()
    clock.advance(0.1)
    assert strict.should_advance()
    assert not relaxed.should_advance()
    strict.pause()
    assert not strict.should_advance()  # paused: nothing moves


def test_followup_budget_is_a_third():
    assert followup_budget(300) == pytest.approx(100)
    assert followup_budget(30) == pytest.approx(10)


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0, "0:00"), (0.2, "0:01"), (59.01, "1:00"), (60, "1:00"), (61, "1:01"), (300, "5:00"), (3600, "1:00:00")],
)
def test_format_clock(seconds, shown):
    assert format_clock(seconds) == shown
