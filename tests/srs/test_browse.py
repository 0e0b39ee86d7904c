"""The Browse screen driven with Pilot, asserting on database rows: search, select, suspend and undo
(a bulk suspend too), flag, bury, reset, set due, card info, a malformed search's error line."""

from __future__ import annotations

import sqlite3
from datetime import timezone

import pytest

from quizapp.clock import FakeClock
from quizapp.content import load_bank
from quizapp.store import SchedulerConfig, Store
from quizapp.tui.app import AppSettings, make_app
from tests.tui.conftest import FILES, write_bank

Q, FU, DR = "single-gpu/question/main", "single-gpu/followup/rtx4090", "single-gpu/drill/adamw-7b"
BR, KV, KVD = "brackets/question/main", "kv-drill/question/main", "kv-drill/drill/weights-13b"
EVERY = {Q, FU, DR, BR, KV, KVD}


@pytest.fixture
def browse_env(tmp_path):
    bank = load_bank([write_bank(tmp_path / "bank", FILES)])
    db = tmp_path / "browse.sqlite3"
    clock = FakeClock()
    store = Store.open(db, clock, SchedulerConfig(fuzz_seed=0, tz=timezone.utc))
    store.sync(bank.cards())
    store.review(BR, 3, duration_ms=1000)  # one answered card: it has a state and a log row
    clock.advance(minutes=1)
    store.review(BR, 3, duration_ms=1000)
    app = make_app(AppSettings(lang="en", db_path=db, seed=7), store, bank, clock)

    def rows(sql, *params):
        conn = sqlite3.connect(db)
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    yield app, rows
    store.close()


async def _settle(pilot):
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _shown(app) -> list[str]:
    from quizapp.tui.screens.browse import BrowseScreen

    screen = app.screen
    assert isinstance(screen, BrowseScreen)
    return [f.card_id for f in screen.rows]


async def _search(pilot, text: str) -> None:
    await pilot.press("slash")
    box = pilot.app.screen.query_one("#browse-search-box")
    box.value = ""
    await pilot.press(*list(text) if text else [])
    await pilot.press("enter")
    await _settle(pilot)


async def test_b_opens_browse_and_lists_every_card(browse_env):
    app, _ = browse_env
    async with app.run_test(size=(120, 30)) as pilot:
        await _settle(pilot)
        await pilot.press("b")
        await _settle(pilot)
        assert set(_shown(app)) == EVERY
        await _search(pilot, "topic:inference kind:drill")
        assert _shown(app) == [KVD]
        await _search(pilot, "list[int]")  # free text with brackets: not markup
        assert _shown(app) == [BR]


async def test_select_two_rows_suspend_then_undo(browse_env):
    app, rows = browse_env
    async with app.run_test(size=(120, 30)) as pilot:
        await _settle(pilot)
        app.open_browse("topic:llm-training")
        await _settle(pilot)
        assert _shown(app) == [Q, FU, DR]
        await pilot.press("space", "space")  # selects Q, then FU (the cursor moves down)
        await pilot.press("s")
        await _settle(pilot)
        assert rows("SELECT card_id FROM card WHERE suspended = 1 ORDER BY card_id") == sorted([(Q,), (FU,)])
        await pilot.press("u")
        await _settle(pilot)
        assert rows("SELECT count(*) FROM card WHERE suspended = 1") == [(0,)]


async def test_bulk_suspend_of_everything_shown_and_its_undo(browse_env):
    app, rows = browse_env
    before = rows("SELECT * FROM card ORDER BY card_id")
    async with app.run_test(size=(120, 30)) as pilot:
        await _settle(pilot)
        app.open_browse()
        await _settle(pilot)
        await pilot.press("ctrl+a", "s")
        await _settle(pilot)
        assert rows("SELECT count(*) FROM card WHERE suspended = 1") == [(6,)]
        assert rows("SELECT action, cards FROM card_operation") == [("suspend", 6)]
        await pilot.press("s")  # all suspended: s unsuspends
        await _settle(pilot)
        assert rows("SELECT count(*) FROM card WHERE suspended = 1") == [(0,)]
        await pilot.press("u")  # undo the unsuspend: suspended again
        await _settle(pilot)
        assert rows("SELECT count(*) FROM card WHERE suspended = 1") == [(6,)]
        await pilot.press("u")  # undo the bulk suspend: every row as it was
        await _settle(pilot)
    assert rows("SELECT * FROM card ORDER BY card_id") == before


async def test_flag_bury_due_and_reset(browse_env):
    app, rows = browse_env
    async with app.run_test(size=(120, 30)) as pilot:
        await _settle(pilot)
        app.open_browse("closing")
        await _settle(pilot)
        assert _shown(app) == [BR]
        await pilot.press("2")
        await _settle(pilot)
        assert rows("SELECT card_id, flag FROM card_flag") == [(BR, 2)]
        await pilot.press("2")  # its own flag again: removed
        await _settle(pilot)
        assert rows("SELECT count(*) FROM card_flag") == [(0,)]
        await pilot.press("b")
        await _settle(pilot)
        assert rows("SELECT buried_until FROM card WHERE card_id = ?", BR) == [("2026-11-30 04:00:00.000000",)]
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("3", "enter")
        await _settle(pilot)
        assert rows("SELECT due, buried_until FROM card WHERE card_id = ?", BR) == [("2026-12-02 04:00:00.000000", None)]
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("k")  # keep the history
        await _settle(pilot)
        assert rows("SELECT reps, stability FROM card WHERE card_id = ?", BR) == [(0, None)]
        assert rows("SELECT count(*) FROM review_log WHERE card_id = ?", BR) == [(2,)]
        await pilot.press("u")
        await _settle(pilot)
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("d")  # delete the history
        await _settle(pilot)
        assert rows("SELECT count(*) FROM review_log WHERE card_id = ?", BR) == [(0,)]
        await pilot.press("u")
        await _settle(pilot)
        assert rows("SELECT count(*) FROM review_log WHERE card_id = ?", BR) == [(2,)]
        assert rows("SELECT reps FROM card WHERE card_id = ?", BR) == [(2,)]


async def test_card_info_lists_every_answer_with_its_state(browse_env):
    from textual.widgets import DataTable

    from quizapp.tui.screens.browse_dialogs import CardInfoDialog

    app, rows = browse_env
    async with app.run_test(size=(120, 30)) as pilot:
        await _settle(pilot)
        app.open_browse("closing")
        await _settle(pilot)
        await pilot.press("i")
        await _settle(pilot)
        assert isinstance(app.screen, CardInfoDialog)
        table = app.screen.query_one("#info-table", DataTable)
        assert table.row_count == len(rows("SELECT id FROM review_log WHERE card_id = ?", BR)) == 2
        stability = rows("SELECT stability FROM card WHERE card_id = ?", BR)[0][0]
        assert str(table.get_row_at(1)[5]) == f"{stability:.2f}"  # the state after the last answer
        assert [str(c) for c in table.get_row_at(0)][2] == "Good"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, CardInfoDialog)


async def test_a_malformed_search_shows_one_line_naming_the_column(browse_env):
    from textual.widgets import Static

    app, _ = browse_env
    async with app.run_test(size=(120, 30)) as pilot:
        await _settle(pilot)
        app.open_browse()
        await _settle(pilot)
        await _search(pilot, "topic:x (kind:drill")
        error = app.screen.query_one("#browse-error", Static)
        assert not error.has_class("-hidden")
        assert str(error.render()) == "search, column 9: this '(' is never closed"
        assert set(_shown(app)) == EVERY  # the last good result stays


async def test_open_shows_the_card_in_a_cram_review(browse_env):
    from quizapp.tui.screens.review import ReviewScreen

    app, rows = browse_env
    async with app.run_test(size=(120, 30)) as pilot:
        await _settle(pilot)
        app.open_browse("kind:followup")
        await _settle(pilot)
        await pilot.press("o")
        await _settle(pilot)
        assert isinstance(app.screen, ReviewScreen) and app.screen.mode == "cram"
