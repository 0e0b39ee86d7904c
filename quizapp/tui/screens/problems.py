"""Lists the content files that failed validation (file:line:col: path: message), as a modal."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option


class ProblemsScreen(ModalScreen[None]):
    """Every Problem on its own line, shown literally (paths and messages may contain brackets)."""

    CSS_PATH = "problems.tcss"
    BINDINGS = [
        Binding("escape", "close", "Back", id="back"),
        Binding("q", "close", "Back", id="back", show=False),
    ]

    def __init__(self, problems: list[Any]) -> None:
        super().__init__()
        self.problems = list(problems)

    def compose(self) -> ComposeResult:
        app: Any = self.app
        with Vertical(id="problems"):
            yield Static(Text(app.t("problems.title").format(count=len(self.problems))), classes="screen-title")
            yield Static(Text(app.t("problems.hint")), classes="muted")
            yield OptionList(*(Option(Text(str(p))) for p in self.problems), id="problem-list")
            yield Button(Text(app.t("problems.close")), id="problems-close", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
