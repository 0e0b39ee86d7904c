"""Lists the content files that failed validation (file:line:col: path: message), as a modal."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from quizapp.tui.screens.base import QuizModal

if TYPE_CHECKING:
    from quizapp.content import Problem


class ProblemsScreen(QuizModal[None]):
    """Every Problem on its own line, shown literally (paths and messages may contain brackets)."""

    CSS_PATH = "problems.tcss"
    BINDINGS = [
        Binding("escape", "close", "Back", id="back"),
        Binding("q", "close", "Back", id="back", show=False),
    ]

    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__()
        self.problems = list(problems)

    def compose(self) -> ComposeResult:
        app = self.app
        with Vertical(id="problems"):
            yield Static(Text(app.t("problems.title", count=len(self.problems))), classes="screen-title")
            yield Static(Text(app.t("problems.hint")), classes="muted")
            yield OptionList(*(Option(Text(str(p))) for p in self.problems), id="problem-list")
            yield Button(Text(app.t("problems.close")), id="problems-close", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
