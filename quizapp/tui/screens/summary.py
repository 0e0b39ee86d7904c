"""The end of a session: cards reviewed, drill accuracy, time spent, next due, and an offer to cram."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from quizapp.practice.tally import SessionSummary
from quizapp.tui.formatting import format_due, format_duration, format_percent
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.footer import Footer
from quizapp.vocab import Mode


class SummaryScreen(QuizScreen[None]):
    CSS_PATH = "summary.tcss"
    AUTO_FOCUS = ""  # nothing focused: Enter goes home, c crams (the buttons are for the mouse and tab)
    BINDINGS = [
        Binding("c", "cram", "Cram", id="cram"),
        Binding("enter,escape", "home", "Home", id="home", key_display="enter"),
        Binding("q", "quit", "Quit", id="quit"),
    ]

    def __init__(self, summary: SessionSummary) -> None:
        super().__init__()
        self.summary = summary

    def lines(self) -> list[str]:
        app = self.app
        s, tr, lang = self.summary, app.t, app.settings.lang
        lines = [tr("summary.reviewed", count=s.reviewed)]
        if s.drills:
            lines.append(
                tr("summary.drills", 
                    correct=s.drills_correct, total=s.drills, percent=format_percent(s.drills_correct, s.drills)
                )
            )
        else:
            lines.append(tr("summary.no_drills"))
        lines.append(tr("summary.time", time=format_duration(s.seconds, lang)))
        if s.leeches:
            lines.append(tr("summary.leeches", n=len(s.leeches), cards=", ".join(s.leeches)))
        if s.next_due is None:
            lines.append(tr("summary.next_due.none"))
        else:
            when = format_due(s.next_due, app.clock.now(), lang)
            lines.append(tr("summary.next_due", when=when) if when else tr("summary.next_due.now"))
        return lines

    def compose(self) -> ComposeResult:
        app = self.app
        title = "summary.title" if self.summary.reviewed else "summary.title.empty"
        with Vertical(id="summary"):
            yield Static(Text(app.t(title)), classes="screen-title")
            if self.summary.topic:
                yield Static(Text(self.summary.topic), classes="muted")
            for index, line in enumerate(self.lines()):
                yield Static(Text(line), classes="summary-line", id=f"summary-line-{index}")
            yield Static(Text(app.t("summary.offer")), classes="muted", id="summary-offer")
            with Horizontal(id="summary-buttons"):
                yield Button(Text(app.t("summary.cram")), id="summary-cram", variant="primary", compact=True)
                yield Button(Text(app.t("summary.home")), id="summary-home", compact=True)
        yield Footer()

    @on(Button.Pressed, "#summary-cram")
    def _cram_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_cram()

    @on(Button.Pressed, "#summary-home")
    def _home_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_home()

    def action_cram(self) -> None:
        app = self.app
        if self.summary.topic:
            app.open_review(Mode.CRAM, self.summary.topic)
        else:
            app.pick_cram_topic()

    def action_home(self) -> None:
        self.app.pop_screen()

    def action_quit(self) -> None:
        self.app.exit()
