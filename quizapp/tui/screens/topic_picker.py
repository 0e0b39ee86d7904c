"""A small modal that asks which topic to cram; dismisses with the topic, ALL_TOPICS, or None.

Its footer shows escape (back), so the way out is visible.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from quizapp.tui.screens.base import QuizModal
from quizapp.tui.widgets.footer import Footer

ALL_TOPICS = "\x00all"


class TopicPickerScreen(QuizModal[str | None]):
    CSS_PATH = "topic_picker.tcss"
    BINDINGS = [Binding("escape", "cancel", "Back", id="back")]

    def __init__(self, topics: list[str]) -> None:
        super().__init__()
        self.topics = list(topics)

    def compose(self) -> ComposeResult:
        app = self.app
        with Vertical(id="picker"):
            yield Static(Text(app.t("picker.title")), classes="screen-title")
            options = [Option(Text(app.t("picker.all")), id=ALL_TOPICS)]
            options += [Option(Text(topic), id=topic) for topic in self.topics]
            yield OptionList(*options, id="picker-topics")
        yield Footer()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
