"""Snapshots of the Browse screen (the card browser) at 80x24 and 120x40, on the tiny bank with one
answered card, one suspended card and one selected row (FakeClock, tmp database, UTC dates).

Regenerate with `pytest tests/tui/test_browse_snapshots.py --snapshot-update`, then look at the SVGs.
"""

from __future__ import annotations

import time

import pytest

SIZES = [(80, 24), (120, 40)]
ANSWERED = "brackets/question/main"
SUSPENDED = "kv-drill/drill/weights-13b"


@pytest.fixture
def utc(monkeypatch):
    """The due column is a local date: pin the zone so the snapshot reads the same everywhere."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def browse_app(app_factory, store, clock, utc):
    store.review(ANSWERED, 3, duration_ms=1000)
    clock.advance(minutes=1)
    store.review(ANSWERED, 3, duration_ms=1000)
    store.suspend(SUSPENDED)
    return app_factory()


async def settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def open_browse(pilot) -> None:
    await settle(pilot)
    pilot.app.open_browse()
    await settle(pilot)
    # every column has a set width (browse.WIDTHS; the question column's follows the window, set on
    # mount and on every resize), so the rows are not re-measured; a little real time for the search
    # worker's result to be painted, even on a busy machine
    for _ in range(3):
        await pilot.pause(0.1)
    for widget in pilot.app.screen.query("Input"):
        widget.cursor_blink = False


async def open_and_select(pilot) -> None:
    await open_browse(pilot)
    await pilot.press("space")  # selects the first row and moves the cursor to the second
    await settle(pilot)
    for _ in range(3):
        await pilot.pause(0.1)


@pytest.mark.parametrize("size", SIZES)
def test_browse_every_card(snap_compare, browse_app, size):
    assert snap_compare(browse_app, terminal_size=size, run_before=open_browse)


@pytest.mark.parametrize("size", SIZES)
def test_browse_with_a_selected_row(snap_compare, browse_app, size):
    assert snap_compare(browse_app, terminal_size=size, run_before=open_and_select)
