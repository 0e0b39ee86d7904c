"""The Textual application: holds the dependencies (store, bank, clock, settings) and the screen stack.

`make_app` is the one factory the CLI and the tests use; nothing here opens files or databases at
import time. Screens reach the dependencies through `self.app.store`, `self.app.bank`, `self.app.clock`
and `self.app.settings`, and the app's own words through `self.app.t(key)`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from quizapp.tui.i18n import t

if TYPE_CHECKING:
    from quizapp.clock import Clock
    from quizapp.content import Bank
    from quizapp.store import Store

DARK_THEME = "textual-dark"
LIGHT_THEME = "textual-light"


@dataclass(frozen=True)
class AppSettings:
    """Everything the app is configured with, fixed for one run.

    lang: "en" | "zh" (the app's own words); content_dirs: the folders the bank was loaded from (used
    to reload after editing); db_path: shown in messages; editor: the command `e` runs (None: $VISUAL,
    $EDITOR, then vi); seed: drill variants' random seed (None: a fresh draw each time; tests fix it);
    theme: a Textual theme name (None: dark).
    """

    lang: str = "en"
    content_dirs: tuple[Path, ...] = ()
    db_path: Path | None = None
    editor: str | None = None
    seed: int | None = None
    theme: str | None = None


class QuizApp(App[None]):
    """The practice app. Home is the base screen; review, summary and the others are pushed on it."""

    CSS_PATH = "app.tcss"
    TITLE = "quizapp"
    BINDINGS = [
        Binding("ctrl+t", "toggle_theme", "Theme", id="toggle_theme", show=False),
    ]

    def __init__(self, settings: AppSettings, store: Store, bank: Bank, clock: Clock) -> None:
        super().__init__()
        self.settings = settings
        self.store = store
        self.bank = bank
        self.clock = clock
        self.sub_title = self.t("app.subtitle")
        try:
            self.theme = settings.theme or DARK_THEME
        except Exception:  # noqa: BLE001 - an unknown stored theme name falls back to dark
            self.theme = DARK_THEME

    # --- words -----------------------------------------------------------------------------------
    def t(self, key: str) -> str:
        """The app's own word for `key` in the current language."""
        return t(key, self.settings.lang)

    # --- screens ---------------------------------------------------------------------------------
    # Home is the base of the "home" mode (a mode, not get_default_screen, so its .tcss is loaded).
    MODES = {"home": lambda: _home_screen()}
    DEFAULT_MODE = "home"

    def start_review(self, mode: str = "review", topic: str | None = None, card_ids: list[str] | None = None) -> None:
        """Open a review (or cram) session; replaces a finished/running session rather than stacking."""
        from quizapp.tui.screens.review import ReviewScreen
        from quizapp.tui.screens.summary import SummaryScreen

        screen = ReviewScreen(mode=mode, topic=topic, card_ids=card_ids)
        if isinstance(self.screen, (ReviewScreen, SummaryScreen)):
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def pick_cram_topic(self) -> None:
        """Ask which topic to cram (a small modal), then start the cram session."""
        from quizapp.tui.screens.topic_picker import ALL_TOPICS, TopicPickerScreen

        def chosen(topic: str | None) -> None:
            if topic is not None:
                self.start_review("cram", None if topic == ALL_TOPICS else topic)

        self.push_screen(TopicPickerScreen(self.bank.topics()), chosen)

    def open_optional_screen(self, module: str, name: str, what_key: str) -> None:
        """Push a screen built by another issue, imported only now; a notice if it is not there yet."""
        import importlib

        try:
            screen_class = getattr(importlib.import_module(f"quizapp.tui.screens.{module}"), name)
        except (ImportError, AttributeError):
            self.notify(self.t("app.not_available").format(what=self.t(what_key)), severity="warning", markup=False)
            return
        self.push_screen(screen_class())

    # --- settings that persist -------------------------------------------------------------------
    def action_toggle_theme(self) -> None:
        self.theme = LIGHT_THEME if self.current_theme.dark else DARK_THEME

    def watch_theme(self, theme: str) -> None:
        if self.is_running:
            self._save_setting("theme", theme)

    def action_toggle_lang(self) -> None:
        """Switch the app's words to the other language, remember it, and redraw from home."""
        lang = "zh" if self.settings.lang == "en" else "en"
        self.settings = replace(self.settings, lang=lang)
        self.sub_title = self.t("app.subtitle")
        self._save_setting("lang", lang)
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.switch_screen(_home_screen())

    def _save_setting(self, key: str, value: str) -> None:
        setter = getattr(self.store, "set_setting", None)
        if setter is None:
            return

        def save() -> None:
            try:
                setter(key, value)
            except Exception as exc:  # noqa: BLE001 - a setting we could not save is not fatal
                self.call_from_thread(
                    self.notify, self.t("app.db_error").format(error=exc), severity="warning", markup=False
                )

        self.run_worker(save, thread=True, group="settings", exit_on_error=False)

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
                self.t("app.review_topic").format(topic=topic),
                self.t("app.review_topic.help").format(topic=topic),
                _bind(self.start_review, "review", topic),
            )
            yield SystemCommand(
                self.t("app.cram_topic").format(topic=topic),
                self.t("app.cram_topic.help").format(topic=topic),
                _bind(self.start_review, "cram", topic),
            )


def _home_screen() -> Screen:
    from quizapp.tui.screens.home import HomeScreen

    return HomeScreen()


def _bind(function: Any, *args: Any):
    """A zero-argument callback (the palette calls commands without arguments)."""

    def call() -> None:
        function(*args)

    return call


def make_app(settings: AppSettings, store: Store, bank: Bank, clock: Clock) -> QuizApp:
    """The one factory the CLI and the tests use to build the app from its dependencies."""
    return QuizApp(settings, store, bank, clock)
