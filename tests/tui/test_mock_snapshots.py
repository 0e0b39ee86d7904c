"""Snapshots of the mock interview: the interview with its timer running and in overtime, and the debrief.

Plain `def` tests (snap_compare runs its own event loop). Times come from a FakeClock moved by hand.
"""

from __future__ import annotations

import time

import pytest
from mock_support import load_tiny_bank

from quizapp.content import draw_variant
from quizapp.practice import interview as mock_store
from quizapp.practice.interview import MockOptions


@pytest.fixture
def bank(tmp_path):
    return load_tiny_bank(tmp_path / "mock-bank")


@pytest.fixture(autouse=True)
def _utc(monkeypatch):
    """The debrief shows local dates: pin the zone so the snapshot is the same everywhere."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def interview(app_factory, store, bank, clock, seconds: float, options: MockOptions):
    from quizapp.tui.screens.mock import MockScreen

    record = mock_store.start_session(store, bank, options)

    async def run_before(pilot) -> None:
        app = pilot.app
        app.push_screen(MockScreen(record))
        await pilot.pause()
        await pilot.press(*"Weights 2 + grads 2 + master 4 + m,v 8 = 16 bytes [per param]")
        clock.advance(seconds)
        app.screen.tick()
        await pilot.pause()

    return app_factory(), run_before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_interview_timer_running(snap_compare, app_factory, store, bank, clock, size):
    app, run_before = interview(app_factory, store, bank, clock, 83,
                                MockOptions(questions=2, minutes=5, followups=2, seed=3, topics=("t-one",)))
    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_interview_overtime(snap_compare, app_factory, store, bank, clock):
    app, run_before = interview(app_factory, store, bank, clock, 5 * 60 + 42,
                                MockOptions(questions=2, minutes=5, followups=2, seed=3, topics=("t-one",)))
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def finished_session(store, bank, clock) -> int:
    """A two-question interview answered and partly rated, as the debrief shows it."""
    record = mock_store.start_session(store, bank, MockOptions(questions=2, minutes=2, followups=2, seed=0))
    assert [i.kind for i in record.items][:4] == ["question", "followup", "followup", "drill"]
    total = 0.0
    for step, item in enumerate(record.items):
        seconds = 150 if step == 0 else 25 + step
        clock.advance(seconds)
        total += seconds
        if item.kind == "drill":
            question = bank.question(item.question_id)
            variant = draw_variant(question, question.drill(item.item_id), item.variant_seed)
            text = f"{variant.expected / 1e9 * 16 / 12:.0f} GB"  # a wrong answer
        else:
            text = f"My draft for step {step}: [b]not markup[/b]"
        mock_store.record_answer(store, bank, item.id, text, seconds, total)
    ratings = [1, 3, 2, 4, 3, 3]
    for item, rating in zip([i for i in record.items if i.kind != "drill"], ratings):
        mock_store.rate_item(store, item.id, rating)
    return record.session.id


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_debrief(snap_compare, app_factory, store, bank, clock, size):
    from quizapp.tui.screens.debrief import DebriefScreen

    session_id = finished_session(store, bank, clock)

    async def run_before(pilot) -> None:
        pilot.app.push_screen(DebriefScreen(mock_store.load_session(store, session_id)))
        await pilot.pause()

    assert snap_compare(app_factory(), terminal_size=size, run_before=run_before)
