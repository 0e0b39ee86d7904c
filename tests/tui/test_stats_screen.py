"""The statistics screen over a seeded history: snapshot, the text toggle, and the figures it shows."""

from __future__ import annotations

from quizapp.store import stats
from quizapp.tui.screens.stats import StatsScreen
from quizapp.tui.widgets.charts import FigureChart, tick_positions


def seed_history(store, clock, days: int = 12) -> None:
    """Answer whatever is due each day for `days` days (drills right, then wrong with a named mistake)."""
    for day in range(days):
        for _ in range(20):
            card = store.next_card()
            if card is None:
                break
            if card.kind == "drill":
                right = day % 3 != 1
                store.review(card.card_id, 3 if right else 1, duration_ms=8000,
                             verdict="correct" if right else "wrong", mistake=None if right else "no-master")
            else:
                store.review(card.card_id, 1 if day % 4 == 3 else 3, duration_ms=12000)
            clock.advance(minutes=11)
        if day % 5 == 2:
            store.review(store.cards()[0].card_id, 3, duration_ms=3000, mode="cram")
        clock.advance(days=1)


async def settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    for _ in range(3):
        await pilot.pause()


async def open_stats(pilot) -> StatsScreen:
    pilot.app.push_screen(StatsScreen())
    await settle(pilot)
    return pilot.app.screen


def test_stats_snapshot_with_history(snap_compare, app_factory, store, clock):
    seed_history(store, clock)
    assert snap_compare(app_factory(), terminal_size=(80, 24), run_before=open_stats)


def test_stats_snapshot_figures_as_text(snap_compare, app_factory, store, clock):
    seed_history(store, clock)

    async def run_before(pilot) -> None:
        await open_stats(pilot)
        await pilot.press("t")
        await pilot.pause()

    assert snap_compare(app_factory(), terminal_size=(100, 32), run_before=run_before)


async def test_screen_shows_the_store_figures_and_toggles_text(app_factory, store, clock):
    seed_history(store, clock)
    expected = stats.collect(store)
    app = app_factory()
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await open_stats(pilot)
        assert isinstance(screen, StatsScreen)
        chart = screen.query_one("#reviews-chart", FigureChart)
        assert [label for label, _ in chart.figures()] == [d.day.strftime("%m-%d") for d in expected.reviews_last(30)]
        assert [sum(values) for _, values in chart.figures()] == [d.total for d in expected.reviews_last(30)]
        forecast = screen.query_one("#forecast-chart", FigureChart)
        assert [values[0] for _, values in forecast.figures()] == [f.due for f in expected.forecast]
        month = expected.retention[0]
        assert f"({month.recalled}/{month.total})" in str(screen.query_one("#retention").content)
        states = screen.query_one("#states-table")
        assert states.row_count == len(expected.states)

        legend = str(chart.query_one(".chart--legend").content)
        assert all(word in legend for word in ("Review", "Cram", "Mock"))  # beside the chart, not over the bars

        await pilot.press("t")
        await pilot.pause()
        assert all(c.as_text for c in screen.query(FigureChart))
        rows = chart.query_one("DataTable")
        first, last = rows.get_row_at(0)[0], rows.get_row_at(rows.row_count - 1)[0]
        assert (str(first), str(last)) == (expected.reviews[-1].day.strftime("%m-%d"),
                                          expected.reviews_last(30)[0].day.strftime("%m-%d"))  # newest first
        due = forecast.query_one("DataTable")
        assert str(due.get_row_at(0)[0]) == expected.forecast[0].day.strftime("%m-%d")  # a forecast: today first
        await pilot.press("d")
        await pilot.pause()
        assert len(chart.figures()) == 90
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, StatsScreen)


async def test_home_s_opens_statistics(app_factory):
    app = app_factory()
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)


def test_today_always_has_a_date_label():
    assert tick_positions(30, 7) == [2, 9, 16, 23, 30]  # a history: today is the last bar
    assert tick_positions(30, 7, anchor="first") == [1, 8, 15, 22, 29]  # a forecast: today is the first
    assert tick_positions(1, 7, anchor="first") == [1] and tick_positions(0, 7) == []


async def test_the_app_counts_finished_days_for_true_retention(app_factory, store, clock, query_db):
    """Home counts the study days that are over into retention_day in the background, and the
    statistics' true-retention table then reads them: the same figures as a count from the log."""
    from quizapp.store.retention import DAYS, true_retention

    seed_history(store, clock)
    assert query_db("SELECT count(*) FROM retention_cut") == [(0,)]
    from_the_log = true_retention(store)
    app = app_factory()
    async with app.run_test() as pilot:
        await settle(pilot)
    today = store.day_bounds()[0].date().isoformat()  # the study day (UTC, from 04:00)
    assert query_db("SELECT cut FROM retention_cut") == [(today,)]
    days = query_db("SELECT count(DISTINCT day) FROM retention_day")[0][0]
    assert 8 <= days <= 11  # the seeded days with review answers, today excluded
    assert true_retention(store) == from_the_log
    with store.engine.begin() as conn:  # the counts, not the log, are what is read now
        conn.execute(DAYS.update().values(answers=DAYS.c.answers + 100))
    assert true_retention(store)[-1].total.total >= from_the_log[-1].total.total + 100
