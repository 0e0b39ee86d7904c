"""Home, the problems modal, the command palette's entries, i18n and the pure helpers behind them."""

from __future__ import annotations

from datetime import timedelta

from textual.widgets import DataTable

from quizapp.tui.formatting import format_duration, format_interval, format_percent
from quizapp.words import say
from quizapp.practice.tally import SessionTally


async def settle(app, pilot) -> None:
    for _ in range(3):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()


async def test_home_counts_match_the_store(app_factory, store, bank):
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#topics", DataTable)
        counts = store.counts()
        for topic in bank.topics():
            row = [str(cell) for cell in table.get_row(topic)]
            c, d = counts[topic], store.day_counts(topic)
            assert row == [topic, str(d.learning), str(d.review), str(d.new), str(c.learned)]
        d = store.day_counts()
        assert [str(x) for x in table.get_row("__all__")][1:] == [str(d.learning), str(d.review), str(d.new), str(counts[""].learned)]


async def test_problems_banner_and_modal_list_file_and_line(app_factory, broken_bank_dir):
    from quizapp.content import load_bank

    bank = load_bank([broken_bank_dir])
    app = app_factory(bank=bank)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        banner = app.screen.query_one("#problems-banner")
        assert banner.display and str(len(bank.problems)) in str(banner.render())
        await pilot.press("p")
        await pilot.pause()
        from quizapp.tui.screens.problems import ProblemsScreen

        assert isinstance(app.screen, ProblemsScreen)
        shown = [str(o.prompt) for o in app.screen.query_one("#problem-list").options]
        assert shown == [str(p) for p in bank.problems]
        assert all("broken.yaml:" in line for line in shown)
        await pilot.press("escape")
        assert not isinstance(app.screen, ProblemsScreen)


async def test_no_problems_means_no_banner_and_no_p_key(app_factory):
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert not app.screen.query_one("#problems-banner").display
        assert not app.screen.check_action("problems", ())


async def test_home_keys_open_their_screens_through_the_app(app_factory):
    from quizapp.tui.screens.mock_setup import MockSetupScreen
    from quizapp.tui.screens.stats import StatsScreen

    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        home = app.screen
        for key, screen_class in (("s", StatsScreen), ("m", MockSetupScreen)):
            await pilot.press(key)
            await settle(app, pilot)
            assert isinstance(app.screen, screen_class)
            await pilot.press("escape")
            await settle(app, pilot)
            assert app.screen is home


async def test_palette_offers_topic_jumps_and_screen_actions(app_factory, bank):
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for topic in bank.topics():
            assert f"Review topic: {topic}" in titles
        assert "Start review" in titles and "Cram a topic" in titles
        jump = next(c for c in app.get_system_commands(app.screen) if c.title == "Review topic: inference")
        jump.callback()
        await settle(app, pilot)
        assert app.screen.topic == "inference" and app.screen.current.question.topic == "inference"


async def test_footer_and_buttons_in_chinese(app_factory):
    app = app_factory(lang="zh")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        descriptions = {b.binding.description for b in app.screen.active_bindings.values()}
        assert {"复习", "突击", "退出"} <= descriptions


def test_rating_words_in_chinese():
    assert [say(f"rating.{r}", "zh") for r in (1, 2, 3, 4)] == ["重来", "困难", "良好", "简单"]
    assert say("no.such.key", "zh") == "no.such.key"


def test_interval_and_duration_formatting():
    assert format_interval(timedelta(seconds=30)) == "<1m"
    assert format_interval(timedelta(minutes=10)) == "10m"
    assert format_interval(timedelta(minutes=5, seconds=30)) == "5.5m"
    assert format_interval(timedelta(days=8)) == "8d"
    assert format_interval(timedelta(days=8), "zh") == "8天"
    assert format_interval(timedelta(days=400)) == "1.1y"
    assert format_duration(95) == "1m 35s"
    assert format_percent(1, 3) == "33%" and format_percent(0, 0) == "–"


def test_tally_counts_drills_and_forgets_undone_ratings():
    tally = SessionTally(started=10.0)
    tally.record("a/question/main", None)
    tally.record("a/drill/x", "correct")
    tally.record("b/drill/y", "wrong")
    tally.unrecord("b/drill/y")
    summary = tally.summary(70.0, None)
    assert (summary.reviewed, summary.drills, summary.drills_correct, summary.seconds) == (2, 1, 1, 60.0)


async def test_home_heading_is_not_repeated_and_number_headers_align_right(app_factory):
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        heading = str(app.screen.query_one(".screen-title").render()).strip()
        progress = str(app.screen.query_one("#today").render()).strip()
        assert not progress.startswith(heading)  # not "Today" over "Today: ..."
        table = app.screen.query_one("#topics", DataTable)
        columns = {str(key.value): column for key, column in table.columns.items()}
        assert all(columns[k].label.justify == "right" for k in ("learning", "review", "new", "learned"))
        numbers = table.get_row("__all__")[1:]
        assert all(cell.justify == "right" for cell in numbers)  # the figures under them


async def test_cram_picker_has_a_footer_with_escape(app_factory):
    from textual.widgets import Footer

    from quizapp.tui.screens.topic_picker import TopicPickerScreen

    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, TopicPickerScreen)
        assert app.screen.query(Footer)
        shown = {k for k, a in app.screen.active_bindings.items() if a.binding.show}
        assert "escape" in shown
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, TopicPickerScreen)


def test_animations_are_off_unless_asked_for(app_factory):
    from dataclasses import replace

    app = app_factory()
    assert app.animation_level == "none"  # like Anki: nothing slides, no frame competes with the next key
    asked = type(app)(replace(app.settings, animations="full"), app.store, app.bank, app.clock)
    assert asked.animation_level == "full"
    unknown = type(app)(replace(app.settings, animations="fast"), app.store, app.bank, app.clock)
    assert unknown.animation_level == "none"


async def test_counts_that_arrive_while_home_is_rebuilt_in_another_language_are_dropped(app_factory, store, monkeypatch):
    """Switching language pops to Home (whose resume starts a read) and rebuilds it; a read that lands
    between the old widgets' removal and the new ones' mounting must not fail, and fresh counts follow."""
    from quizapp.tui.screens.home import HomeScreen, read_home_figures

    app = app_factory(lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        home = app.screen
        compose = HomeScreen.compose
        landed = []

        def compose_after_a_read_lands(self):
            # recompose has removed the old widgets and not yet mounted the new: the worst moment
            landed.append(self.query("#today").first() if self.query("#today") else None)
            self._show_counts(read_home_figures(store))
            yield from compose(self)

        monkeypatch.setattr(HomeScreen, "compose", compose_after_a_read_lands)
        await app.action_toggle_lang()
        await settle(app, pilot)
        assert landed == [None]  # the read did land with no widget to show it in
        assert app.screen is home and app.settings.lang == "zh"
        today = str(home.query_one("#today").render())
        assert today != say("home.loading", "zh")  # the read after the rebuild showed the counts
        table = home.query_one("#topics", DataTable)
        assert [str(c) for c in table.get_row("__all__")][0] == say("home.total", "zh")
