"""No SQLite on the UI thread: every store call of the screens that write (review, the mock setup form,
the interview, the debrief) runs in a worker thread. The store's three doors to the database (its
read connection, its write transaction and its engine) are patched to note the thread that uses them."""

from __future__ import annotations

import threading
from contextlib import contextmanager

import pytest
from mock_support import load_tiny_bank

from quizapp.store import Store

SIZE = (100, 40)


@pytest.fixture
def bank(tmp_path):
    return load_tiny_bank(tmp_path / "mock-bank")


class UiThreadCalls(list):
    """The names of the store's doors used on the UI thread; `watching` switches the noting on."""

    def __init__(self) -> None:
        super().__init__()
        self.watching = threading.Event()


@pytest.fixture
def ui_thread_calls(monkeypatch):
    """Store calls made on the UI thread while `watching` is set (the fixtures' own setup is not watched)."""
    calls = UiThreadCalls()
    watching = calls.watching
    ui = threading.main_thread()

    def note(name: str) -> None:
        if watching.is_set() and threading.current_thread() is ui:
            calls.append(name)

    reading, writing = Store.reading, Store._write

    @contextmanager
    def watched_reading(self):
        note("reading")
        with reading(self) as conn:
            yield conn

    @contextmanager
    def watched_write(self):
        note("write")
        with writing(self) as conn:
            yield conn

    engine = Store.engine.fget

    monkeypatch.setattr(Store, "reading", watched_reading)
    monkeypatch.setattr(Store, "_write", watched_write)
    monkeypatch.setattr(Store, "engine", property(lambda self: (note("engine"), engine(self))[1]))
    return calls


async def settle(app, pilot) -> None:
    for _ in range(4):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()


async def test_review_rates_and_undoes_off_the_ui_thread(app_factory, ui_thread_calls):
    from quizapp.tui.screens.review import ReviewScreen

    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        ui_thread_calls.watching.set()
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        assert isinstance(app.screen, ReviewScreen) and app.screen.current is not None
        await pilot.press("ctrl+r")
        await pilot.press("3")
        await settle(app, pilot)
        assert app.screen.tally.reviewed == 1
        if app.screen.in_box:  # a drill's input has the focus; a self-graded card leaves it outside (issue 13)
            await pilot.press("escape")  # leave the box
        await pilot.press("u")  # undo
        await settle(app, pilot)
        assert app.screen.tally.reviewed == 0
        ui_thread_calls.watching.clear()
    assert ui_thread_calls == []


async def test_setup_interview_and_debrief_write_off_the_ui_thread(app_factory, ui_thread_calls, clock):
    from quizapp.tui.screens.debrief import DebriefScreen
    from quizapp.tui.screens.mock import MockScreen
    from quizapp.tui.screens.mock_setup import MockSetupScreen

    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        ui_thread_calls.watching.set()
        await settle(app, pilot)
        await pilot.press("m")
        await settle(app, pilot)
        assert isinstance(app.screen, MockSetupScreen)
        app.screen.query_one("#setup-questions").value = "1"
        app.screen.query_one("#setup-followups").value = "1"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, MockScreen)
        steps = len(app.screen.record.items)
        await pilot.press(*"half a draft")
        clock.advance(6)
        app.screen.tick()  # the periodic draft save
        await settle(app, pilot)
        for _ in range(steps):
            await pilot.press(*("1 GB" if app.screen.item.kind == "drill" else "x"))
            await pilot.press("ctrl+n")
            await settle(app, pilot)
        assert isinstance(app.screen, DebriefScreen)
        app.screen.query_one("#rate-1").press()  # a self-rating
        await settle(app, pilot)
        await pilot.press("a")  # into the schedule
        await settle(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        ui_thread_calls.watching.clear()
    assert ui_thread_calls == []
