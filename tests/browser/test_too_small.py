"""A window under 80x24 (terminal or browser) shows one line asking to enlarge it, over every screen;
back at 80x24 the screen is as it was, and the line takes no clicks (quizapp/tui/widgets/too_small.py)."""

from __future__ import annotations

from pathlib import Path

from quizapp.tui.widgets.too_small import TooSmall

QUESTION = """\
id: small-one
title: "Small window: is this readable?"
topic: small
lang: en
answer: |
  Only from 80x24 up.
"""


def _app(tmp_path: Path):
    from quizapp.clock import FakeClock
    from quizapp.content import load_bank
    from quizapp.store import Store
    from quizapp.tui.app import AppSettings, make_app

    (tmp_path / "bank" / "small").mkdir(parents=True)
    (tmp_path / "bank" / "small" / "small-one.yaml").write_text(QUESTION, encoding="utf-8")
    bank = load_bank([tmp_path / "bank"])
    clock = FakeClock()
    store = Store.open(tmp_path / "db.sqlite3", clock)
    store.sync(bank.cards())
    settings = AppSettings(lang="en", content_dirs=(tmp_path / "bank",), db_path=tmp_path / "db.sqlite3",
                           editor=None, seed=0, theme=None)
    return make_app(settings, store, bank, clock), store


def _notice(app) -> TooSmall:
    return app.screen.query_one(TooSmall)


async def test_a_small_window_asks_to_be_enlarged(tmp_path: Path):
    app, store = _app(tmp_path)
    try:
        async with app.run_test(size=(70, 20)) as pilot:
            await pilot.pause()
            assert _notice(app).visible
            assert "Please enlarge the window to at least 80x24 (now 70x20)" in str(_notice(app).render())
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            assert not _notice(app).visible
            await pilot.press("r")  # review: a screen pushed later has the notice too
            await pilot.pause(0.5)
            assert type(app.screen).__name__ == "ReviewScreen" and not _notice(app).visible
            await pilot.resize_terminal(100, 23)
            await pilot.pause()
            assert _notice(app).visible and "(now 100x23)" in str(_notice(app).render())
            await pilot.resize_terminal(100, 30)
            await pilot.pause()
            assert not _notice(app).visible
    finally:
        store.close()
