"""The revealed answer's tabs at 80x24, in English and Chinese (issue #22): the whole tab row fits the
screen, and `[` / `]` move the active tab and bring its content into view (on a short window the tabs
start below the fold). Pilot tests check regions; snapshots show the row after `]`.
"""

from __future__ import annotations

import pytest
from textual.widgets import Tab, TabbedContent, TabPane, Tabs

from quizapp.tui.widgets.answer_panel import TABS

NARROW = (80, 24)
LANGS = ["en", "zh"]
CARDS = ["single-gpu/question/main", "single-gpu/drill/adamw-7b", "brackets/question/main"]


async def settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def revealed(pilot, card_id: str) -> TabbedContent:
    from quizapp.tui.screens.review import ReviewScreen

    await settle(pilot)
    pilot.app.open_review("cram", card_ids=[card_id])
    await settle(pilot)
    assert isinstance(pilot.app.screen, ReviewScreen)
    if "/drill/" in card_id:
        pilot.app.screen.query_one("#drill-input").value = "108 GB"
        await pilot.press("enter")
    else:
        await pilot.press("ctrl+r")
    await settle(pilot)
    for widget in pilot.app.screen.query("Input, TextArea"):
        widget.cursor_blink = False
    return pilot.app.screen.query_one("#answer-tabs", TabbedContent)


def inside(outer, inner) -> bool:
    return inner.width > 0 and inner.height > 0 and outer.contains_region(inner)


def check_in_view(screen, tabs: TabbedContent) -> None:
    """Every tab inside the screen; the tab row, the active tab and its content inside the card area."""
    area = screen.query_one("#card-area").region
    for tab in tabs.query(Tab):
        assert inside(screen.region, tab.region), (str(tab.label), tab.region)
    row = tabs.query_one(Tabs)
    active = row.active_tab
    assert active is not None and inside(area, active.region) and inside(area, row.region)
    pane = tabs.get_pane(tabs.active)
    shown = area.intersection(pane.region)
    below_row = area.bottom - row.region.bottom  # what the card area can show under the tab row
    assert shown.height >= min(pane.region.height, below_row), (tabs.active, pane.region, area)
    assert pane.children, tabs.active  # filled when shown (tabs are composed lazily)


@pytest.mark.parametrize("card_id", CARDS)
@pytest.mark.parametrize("lang", LANGS)
async def test_narrow_brackets_move_the_tab_and_keep_it_in_view(app_factory, lang, card_id):
    app = app_factory(lang=lang)
    async with app.run_test(size=NARROW) as pilot:
        tabs = await revealed(pilot, card_id)
        screen = app.screen
        order = [f"tab-{name}" for name in TABS]
        assert [p.id for p in tabs.query(TabPane)] == order
        assert tabs.active == order[0]
        for tab in tabs.query(Tab):  # the whole row fits at 80 columns, before any key
            assert inside(screen.region, tab.region), (str(tab.label), tab.region)
        for step in range(1, len(order) + 2):  # ] through every tab and around to the second again
            await pilot.press("right_square_bracket")
            await settle(pilot)
            assert tabs.active == order[step % len(order)]
            check_in_view(screen, tabs)
        for step in range(len(order) + 1):  # [ back, past the first to the last
            await pilot.press("left_square_bracket")
            await settle(pilot)
            assert tabs.active == order[(1 - step - 1) % len(order)]
            check_in_view(screen, tabs)


@pytest.mark.parametrize("lang", LANGS)
def test_narrow_review_tabs_after_bracket(snap_compare, app_factory, lang):
    async def run_before(pilot) -> None:
        await revealed(pilot, "single-gpu/question/main")
        await pilot.press("right_square_bracket", "right_square_bracket")  # to the follow-ups
        await settle(pilot)

    assert snap_compare(app_factory(lang=lang), terminal_size=NARROW, run_before=run_before)
