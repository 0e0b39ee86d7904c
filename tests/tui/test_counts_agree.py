"""Issue 13, counts that agree: the review header, Home and Stats show the same learning / review / new
numbers for one database (Store.day_counts: limits and sibling burying applied), each with its label."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from textual.widgets import DataTable

from quizapp.words import say


@pytest.fixture
def scheduler_config(scheduler_config):
    # small limits, so that the capped numbers differ from the raw due / new counts
    return replace(scheduler_config, new_per_day=2, reviews_per_day=2, bury_siblings=False)


def make_history(store, clock) -> None:
    """One day of Good answers (review cards), then, days later, one Again (a relearning card)."""
    for _ in range(30):
        card = store.next_card()
        if card is None:
            break
        store.review(card.card_id, 3, duration_ms=5000)
        clock.advance(minutes=11)
    clock.advance(days=20)
    card = store.next_card()
    assert card is not None and not card.is_new
    store.review(card.card_id, 1, duration_ms=5000)


async def settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _text(widget) -> str:
    return str(widget.render())


async def test_header_home_and_stats_show_the_same_counts(app_factory, store, clock):
    from quizapp.tui.screens.review import ReviewScreen
    from quizapp.tui.screens.stats import StatsScreen

    make_history(store, clock)
    left = store.day_counts()
    raw = store.counts()[""]
    assert left.learning > 0 and left.review > 0 and left.new > 0  # all three numbers are exercised
    assert raw.new > left.new  # the new-card limit is applied (raw would say more)

    app = app_factory()
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(pilot)
        # Home: the total row and its caption
        table = app.screen.query_one("#topics", DataTable)
        total = [str(cell) for cell in table.get_row("__all__")][1:4]
        assert total == [str(left.learning), str(left.review), str(left.new)]
        assert _text(app.screen.query_one("#topics-caption")) == say("home.table.caption", "en")
        for topic in app.bank.topics():  # each topic's row: what reviewing only that topic shows
            d = store.day_counts(topic)
            assert [str(c) for c in table.get_row(topic)][1:4] == [str(d.learning), str(d.review), str(d.new)]

        # Stats: the "left today" line
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)
        line = _text(app.screen.query_one("#today-left"))
        assert line.startswith("Left today, limits applied")
        found = dict(re.findall(r"(learning|review|new) (\d+)", line.split("·  done")[0].split(" · done")[0]))
        assert found == {"learning": str(left.learning), "review": str(left.review), "new": str(left.new)}
        await pilot.press("escape")
        await settle(pilot)

        # the review header: due = learning + review, new
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        header = _text(app.screen.query_one("#progress"))
        due, new = re.match(r"Due (\d+) · new (\d+)", header).groups()
        assert (int(due), int(new)) == (left.learning + left.review, left.new)
