"""A countdown readout: renders a `TimerReading` (computed from the clock in quizapp.store.countdown).

It does no arithmetic of its own beyond formatting: the parent sets `reading` on every refresh.
"""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from quizapp.practice.timers import TimerReading, format_clock


class CountdownDisplay(Static):
    """`label 3:42`; red `label +0:12` once the budget is spent; a paused marker while paused."""

    DEFAULT_CSS = """
    CountdownDisplay {
        width: auto;
        height: 1;
        padding: 0 1;
        color: $text;
        background: $boost;
        text-style: bold;
    }
    CountdownDisplay.-low { color: $text-warning; }
    CountdownDisplay.-overtime { color: $text-error; background: $error-muted; }
    CountdownDisplay.-paused { color: $text-muted; text-style: bold italic; }
    """

    reading: reactive[TimerReading | None] = reactive(None)

    def __init__(self, label: str, paused_text: str = "paused", overtime_text: str = "overtime", **kwargs) -> None:
        super().__init__("", **kwargs)
        self.label = label
        self.paused_text = paused_text
        self.overtime_text = overtime_text

    def watch_reading(self, reading: TimerReading | None) -> None:
        overtime = reading is not None and reading.expired and reading.budget > 0
        self.set_class(overtime, "-overtime")
        self.set_class(reading is not None and reading.paused, "-paused")
        self.set_class(not overtime and reading is not None and reading.fraction_left < 0.2, "-low")
        self.update(self.text_for(reading))

    def text_for(self, reading: TimerReading | None) -> Text:
        if reading is None:
            return Text(f"{self.label} --:--")
        if reading.expired and reading.budget > 0:
            shown = f"+{format_clock(reading.overtime)} {self.overtime_text}"
        else:
            shown = format_clock(reading.remaining)
        text = Text(f"{self.label} {shown}")
        if reading.paused:
            text.append(f" ‖ {self.paused_text}")
        return text
