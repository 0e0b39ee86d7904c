"""Again / Hard / Good / Easy buttons with the next interval on each; posts `RatingBar.Rated`."""

from __future__ import annotations

from datetime import timedelta

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button

from quizapp.tui.formatting import format_interval
from quizapp.vocab import Rating
from quizapp.words import say

RATINGS = tuple(Rating)  # Again, Hard, Good, Easy: keys 1-4
_VARIANTS = {Rating.Again: "error", Rating.Hard: "warning", Rating.Good: "success", Rating.Easy: "primary"}


class RatingBar(Horizontal):
    """Four rating buttons. The parent sets intervals and the suggestion; clicks come back as messages."""

    DEFAULT_CSS = """
    RatingBar {
        height: auto;
        width: 100%;
        align-horizontal: center;
    }
    RatingBar Button {
        width: 1fr;
        min-width: 10;
        margin: 0 1;
    }
    RatingBar Button.-suggested {
        text-style: bold reverse;
    }
    """

    class Rated(Message):
        """The user chose a rating with the mouse or Enter on a button."""

        def __init__(self, rating: Rating) -> None:
            super().__init__()
            self.rating = rating

    def __init__(self, lang: str = "en", *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.lang = lang
        self._intervals: dict[Rating, timedelta] = {}
        self.suggested: Rating | None = None

    def compose(self) -> ComposeResult:
        for rating in RATINGS:
            yield Button(self._label(rating), id=f"rate-{rating.value}", variant=_VARIANTS[rating], compact=True)

    def _label(self, rating: Rating) -> Text:
        text = Text(f"{rating.value} {say(f'rating.{rating.value}', self.lang)}")
        interval = self._intervals.get(rating)
        if interval is not None:
            text.append(f" {format_interval(interval, self.lang)}", style="dim")
        return text

    def set_intervals(self, intervals: dict[Rating, timedelta]) -> None:
        """Show the next interval each rating would give (empty dict: no intervals, e.g. in cram)."""
        self._intervals = dict(intervals)
        for rating in RATINGS:
            self.query_one(f"#rate-{rating.value}", Button).label = self._label(rating)

    def suggest(self, rating: Rating | None) -> None:
        """Mark (and focus) the grader's suggestion, so Enter accepts it."""
        self.suggested = rating
        for value in RATINGS:
            button = self.query_one(f"#rate-{value.value}", Button)
            button.set_class(value == rating, "-suggested")
            if value == rating:
                button.focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id and event.button.id.startswith("rate-"):
            self.post_message(self.Rated(Rating(int(event.button.id.removeprefix("rate-")))))
