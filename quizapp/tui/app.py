"""The Textual application: holds the dependencies (store, bank, clock, settings), owns navigation
between the screens, and decides once what a failed background call shows.

`make_app` is the one factory the CLI and the tests use; nothing here opens files or databases at
import time. Screens (tui/screens/base.py: QuizScreen) reach the dependencies through `self.app`,
the app's own words through `self.t(key, **args)`, and each other only through the `open_*`
methods below, which import a screen when it is first opened (so no two screens import each other
and Home's first frame does not wait for the others).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App, InvalidThemeError, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from quizapp import heap
from quizapp.vocab import Mode
from quizapp.words import say

if TYPE_CHECKING:
    from quizapp.clock import Clock
    from quizapp.content import Bank
    from quizapp.practice.interview import MockRecord
    from quizapp.practice.tally import SessionSummary
    from quizapp.store import Counts, Store, TodayProgress
    from quizapp.store.store import DayCounts

ANIMATION_LEVELS = ("none", "basic", "full")
DARK_THEME = "textual-dark"
LIGHT_THEME = "textual-light"


@dataclass(frozen=True)
class AppSettings:
    """Everything the app is configured with, fixed for one run.

    lang: "en" | "zh" (the app's own words); content_dirs: the folders the bank was loaded from (used
    to reload after editing); db_path: shown in messages; editor: the command `e` runs (None: $VISUAL,
    $EDITOR, then vi); seed: drill variants' random seed (None: a fresh draw each time; tests fix it);
    theme: a Textual theme name (None: dark); animations: Textual's animation level, "none" unless
    TEXTUAL_ANIMATIONS asks for "basic" or "full" (like Anki, nothing slides: each key's screen is final
    at once, and no animation frame competes with the next key).
    """

    lang: str = "en"
    content_dirs: tuple[Path, ...] = ()
    db_path: Path | None = None
    editor: str | None = None
    seed: int | None = None
    theme: str | None = None
    animations: str = "none"


class QuizApp(App[None]):
    """The practice app. Home is the base screen; review, summary and the others are pushed on it."""

    CSS_PATH = "app.tcss"
    TITLE = "quizapp"
    BINDINGS = [
        Binding("ctrl+t", "toggle_theme", "Theme", id="toggle_theme", show=False),
    ]

    def __init__(self, settings: AppSettings, store: Store, bank: Bank, clock: Clock,
                 first_counts: tuple[dict[str, Counts], TodayProgress, dict[str, DayCounts]] | None = None) -> None:
        super().__init__()
        self.settings = settings
        self.store = store
        self.bank = bank
        self.clock = clock
        self._first_counts = first_counts
        self.animation_level = settings.animations if settings.animations in ANIMATION_LEVELS else "none"
        self.sub_title = self.t("app.subtitle")
        try:
            self.theme = settings.theme or DARK_THEME
        except InvalidThemeError:  # an unknown stored theme name falls back to dark
            self.theme = DARK_THEME

    @property
    def bank(self):
        """The bank with its questions in the current language (content follows the UI language)."""
        from quizapp.content.localize import localized

        self._bank = localized(self._bank, self.settings.lang)  # the same object while the language stays
        return self._bank

    @bank.setter
    def bank(self, bank) -> None:
        from quizapp.content.localize import localized

        self._bank = localized(bank, self.settings.lang)

    def on_mount(self) -> None:
        self.call_after_refresh(self._warm_up)

    def _warm_up(self) -> None:
        """Once Home is on screen: build the bank's questions and import the review screen in the
        background, while the user reads Home, so the first question does not wait for them."""
        bank = self.bank

        def warm_up() -> None:
            try:
                bank.questions  # noqa: B018 - a cached bank builds its models on first use
                import quizapp.content.render  # noqa: F401
                import quizapp.tui.screens.review  # noqa: F401
                import quizapp.tui.widgets.answer_panel  # noqa: F401
                # a drill's worked solution (content.solution and the derive modules under it) and the
                # store's card operations: loaded by the first card otherwise
                import quizapp.content.solution  # noqa: F401
                import quizapp.memory.derive_comm  # noqa: F401
                import quizapp.memory.derive_fit  # noqa: F401
                import quizapp.memory.derive_serving  # noqa: F401
                import quizapp.memory.derive_training  # noqa: F401
                import quizapp.store.card_ops  # noqa: F401
                import quizapp.tui.screens.summary  # noqa: F401
                from quizapp.tui.text_wrap import break_units

                break_units("预热 warm-up 1 个")  # loads the line-break tables and the phrase model

                self.call_from_thread(self._load_review_css)
            finally:  # start-up is over, even if a warm-up step failed: collect from here on
                self.call_from_thread(heap.settle)

        self.run_worker(warm_up, thread=True, group="warm-up", exit_on_error=False)
        self.run_worker(self._count_retention_days, thread=True, group="retention-days", exit_on_error=False)

    def _count_retention_days(self) -> None:
        """Count the study days that are over for true retention (a year of answers is a second of
        SQLite; afterwards only the days since), so the statistics screen and `quizapp stats` read
        them instead. SQLite runs without the GIL, so Home stays responsive."""
        if self.store.read_only:
            return
        from quizapp.store.retention import refresh_counted_days

        refresh_counted_days(self.store)

    def _load_review_css(self) -> None:
        """Read the review screen's stylesheet while Home is idle. Textual reads a screen's CSS_PATH when
        the screen is first shown, and then re-parses and re-applies the whole stylesheet: that was most
        of the time between r and the first question."""
        from quizapp.tui.screens.review import ReviewScreen

        changed = False
        for path in ReviewScreen().css_path:
            if not self.stylesheet.has_source(str(path), ""):
                self.stylesheet.read(path)
                changed = True
        if changed:
            self.stylesheet.reparse()
            self.stylesheet.update(self)

    def take_first_counts(self) -> tuple[dict[str, Counts], TodayProgress, dict[str, DayCounts]] | None:
        """Home's counts as read before the app started (once; later visits read them again)."""
        figures, self._first_counts = self._first_counts, None
        return figures

    # --- words -----------------------------------------------------------------------------------
    def t(self, key: str, **args: object) -> str:
        """The app's own word for `key` in the current language, filled with `args` (quizapp.words)."""
        return say(key, self.settings.lang, **args)

    # --- screens ---------------------------------------------------------------------------------
    # Home is the base of the "home" mode (a mode, not get_default_screen, so its .tcss is loaded).
    MODES = {"home": lambda: _home_screen()}
    DEFAULT_MODE = "home"

    def open_review(self, mode: Mode = Mode.REVIEW, topic: str | None = None,
                    card_ids: list[str] | None = None) -> None:
        """Open a review (or cram) session; replaces a finished/running session rather than stacking."""
        from quizapp.tui.screens.review import ReviewScreen
        from quizapp.tui.screens.summary import SummaryScreen

        screen = ReviewScreen(mode=Mode(mode), topic=topic, card_ids=card_ids)
        if isinstance(self.screen, (ReviewScreen, SummaryScreen)):
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def open_summary(self, summary: SessionSummary) -> None:
        from quizapp.tui.screens.summary import SummaryScreen

        self.switch_screen(SummaryScreen(summary))

    def pick_cram_topic(self) -> None:
        """Ask which topic to cram (a small modal), then start the cram session."""
        from quizapp.tui.screens.topic_picker import ALL_TOPICS, TopicPickerScreen

        def chosen(topic: str | None) -> None:
            if topic is not None:
                self.open_review(Mode.CRAM, None if topic == ALL_TOPICS else topic)

        self.push_screen(TopicPickerScreen(self.bank.topics()), chosen)

    def open_mock_setup(self) -> None:
        from quizapp.tui.screens.mock_setup import MockSetupScreen

        self.push_screen(MockSetupScreen())

    def open_interview(self, record: MockRecord) -> None:
        """The interview replaces the screen that led to it (the setup form or a debrief)."""
        from quizapp.tui.screens.debrief import DebriefScreen
        from quizapp.tui.screens.mock import MockScreen
        from quizapp.tui.screens.mock_setup import MockSetupScreen

        if isinstance(self.screen, (MockSetupScreen, DebriefScreen)):
            self.switch_screen(MockScreen(record))
        else:
            self.push_screen(MockScreen(record))

    def open_debrief(self, record: MockRecord) -> None:
        """The debrief replaces the interview that ended; from the setup form it is pushed over it."""
        from quizapp.tui.screens.debrief import DebriefScreen
        from quizapp.tui.screens.mock import MockScreen

        if isinstance(self.screen, MockScreen):
            self.switch_screen(DebriefScreen(record))
        else:
            self.push_screen(DebriefScreen(record))

    def open_calculator(self) -> None:
        from quizapp.tui.screens.calculator import CalculatorScreen

        self.push_screen(CalculatorScreen())

    def open_stats(self) -> None:
        from quizapp.tui.screens.stats import StatsScreen

        self.push_screen(StatsScreen())

    def open_browse(self, query: str = "") -> None:
        from quizapp.tui.screens.browse import BrowseScreen

        self.push_screen(BrowseScreen(query))

    def open_problems(self) -> None:
        from quizapp.tui.screens.problems import ProblemsScreen

        self.push_screen(ProblemsScreen(list(self.bank.problems)))

    # --- background work ---------------------------------------------------------------------------
    def background_failed(self, screen: Screen | App, error: BaseException | None) -> None:
        """The one place a failed background call is handled. A StoreError or MockError (the database or
        the interview refused) is one line and the screen goes on; anything else is a bug, raised here so
        Textual stops the app with its traceback rather than dressing it up as a database error."""
        from quizapp.practice.interview import MockError
        from quizapp.store import StoreError

        if not isinstance(error, (StoreError, MockError)):
            raise error if error is not None else RuntimeError("a background call failed without an error")
        self.notify(self.t("app.failed", error=error), severity="error", markup=False, timeout=8)
        if screen is not self:
            screen.background_failed(error)  # type: ignore[union-attr]

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.node is self:
            self.background_failed(self, event.worker.error)

    # --- settings that persist -------------------------------------------------------------------
    def action_toggle_theme(self) -> None:
        self.theme = LIGHT_THEME if self.current_theme.dark else DARK_THEME

    def watch_theme(self, theme: str) -> None:
        if self.is_running:
            self._save_setting("theme", theme)

    async def action_toggle_lang(self) -> None:
        """Switch the app's words to the other language, remember it, and redraw from home."""
        lang = "zh" if self.settings.lang == "en" else "en"
        self.settings = replace(self.settings, lang=lang)
        self.sub_title = self.t("app.subtitle")
        self._save_setting("lang", lang)
        while len(self.screen_stack) > 1:
            await self.pop_screen()
        from quizapp.tui.screens.home import HomeScreen

        if isinstance(self.screen, HomeScreen):
            await self.screen.relabel()

    def _save_setting(self, key: str, value: str) -> None:
        """Remember a setting in the database, off the UI thread (a failure: background_failed)."""
        store = self.store
        self.run_worker(lambda: store.set_setting(key, value), thread=True, group="settings", exit_on_error=False)

    # --- command palette -------------------------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(self.t("app.toggle_theme"), self.t("app.toggle_theme.help"), self.action_toggle_theme)
        yield SystemCommand(self.t("app.toggle_lang"), self.t("app.toggle_lang.help"), self.action_toggle_lang)
        commands = getattr(screen, "palette_commands", None)
        if commands is not None:
            yield from commands()
        for topic in self.bank.topics():
            yield SystemCommand(
                self.t("app.review_topic", topic=topic),
                self.t("app.review_topic.help", topic=topic),
                _bind(self.open_review, Mode.REVIEW, topic),
            )
            yield SystemCommand(
                self.t("app.cram_topic", topic=topic),
                self.t("app.cram_topic.help", topic=topic),
                _bind(self.open_review, Mode.CRAM, topic),
            )


def _home_screen() -> Screen:
    from quizapp.tui.screens.home import HomeScreen

    return HomeScreen()


def _bind(function: Any, *args: Any):
    """A zero-argument callback (the palette calls commands without arguments)."""

    def call() -> None:
        function(*args)

    return call


def make_app(settings: AppSettings, store: Store, bank: Bank, clock: Clock,
             first_counts: tuple[dict[str, Counts], TodayProgress, dict[str, DayCounts]] | None = None) -> QuizApp:
    """The one factory the CLI and the tests use to build the app from its dependencies.

    `first_counts` (home.read_home_figures(store)) read before the app starts lets Home appear with its
    real figures in its first frame; without them Home reads them in the background."""
    return QuizApp(settings, store, bank, clock, first_counts)
