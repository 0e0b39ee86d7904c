"""The small app behind `quizapp preview FILE`: just the preview screen, no database, no bank.

It offers what screens expect of an app (`settings`, `t`), so PreviewScreen works the same here
as inside the practice app.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from quizapp.tui.app import DARK_THEME, AppSettings
from quizapp.words import say


class PreviewApp(App[None]):
    """Shows one question file and follows its changes on disk."""

    CSS_PATH = "app.tcss"
    TITLE = "quizapp preview"

    def __init__(self, path: Path, settings: AppSettings, poll_seconds: float | None = 0.5) -> None:
        super().__init__()
        self.path = Path(path)
        self.settings = settings
        self.poll_seconds = poll_seconds
        self.theme = settings.theme or DARK_THEME

    def t(self, key: str, **args: object) -> str:
        return say(key, self.settings.lang, **args)

    def on_mount(self) -> None:
        from quizapp.tui.screens.preview import PreviewScreen, display_name

        self.sub_title = display_name(self.path)
        self.push_screen(PreviewScreen(self.path, poll_seconds=self.poll_seconds))


def make_preview_app(path: Path, lang: str = "en", seed: int | None = 0, poll_seconds: float | None = 0.5) -> PreviewApp:
    """The factory `quizapp preview` and the tests use."""
    return PreviewApp(path, AppSettings(lang=lang, seed=seed), poll_seconds)
