"""The Browse screen's modals: set a due date, confirm a reset (keep or delete the history), card info."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Input, Static

from quizapp.tui.screens.base import QuizModal


class DueDialog(QuizModal[str | None]):
    """Ask for a due spec (`0`, `3`, `3-7`); dismissed with the text, or None on Esc."""

    DEFAULT_CSS = """
    DueDialog { align: center middle; }
    DueDialog > Vertical { width: 70; height: auto; border: round $primary; background: $panel; padding: 1 2; }
    DueDialog #due-error { color: $error; height: auto; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="browse-cancel")]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.t("browse.due_prompt")))
            yield Input(id="due-input", placeholder="3-7")
            yield Static(Text(""), id="due-error")

    def on_mount(self) -> None:
        self.query_one("#due-input", Input).focus()

    @on(Input.Submitted, "#due-input")
    def _submitted(self, event: Input.Submitted) -> None:
        from quizapp.store.card_ops import DueSpecError, parse_due

        event.stop()
        try:
            parse_due(event.value)
        except DueSpecError:
            self.query_one("#due-error", Static).update(Text(self.t("cards.bad_due", value=event.value)))
            return
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ResetDialog(QuizModal[str | None]):
    """Confirm a reset: `k` keeps the history ("reset"), `d` deletes it ("reset_history"), Esc cancels."""

    DEFAULT_CSS = """
    ResetDialog { align: center middle; }
    ResetDialog > Static { width: 70; height: auto; border: round $warning; background: $panel; padding: 1 2; }
    """
    BINDINGS = [
        Binding("k", "choose('reset')", "Keep history", id="browse-keep"),
        Binding("d", "choose('reset_history')", "Delete history", id="browse-delete"),
        Binding("escape", "choose('')", "Cancel", id="browse-cancel"),
    ]

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def compose(self) -> ComposeResult:
        yield Static(Text(self.t("browse.reset_prompt", n=self.count)))

    def action_choose(self, action: str) -> None:
        self.dismiss(action or None)


class CardInfoDialog(QuizModal[None]):
    """Every answer of one card: date, mode, rating, interval, and the FSRS state after it."""

    DEFAULT_CSS = """
    CardInfoDialog { align: center middle; }
    CardInfoDialog > Vertical { width: 96%; height: 90%; border: round $primary; background: $panel; padding: 0 1; }
    CardInfoDialog DataTable { height: 1fr; }
    """
    BINDINGS = [Binding("escape,i,q", "close", "Close", id="browse-close")]

    def __init__(self, card: Any, answers: list) -> None:
        super().__init__()
        self.card = card
        self.answers = answers

    def compose(self) -> ComposeResult:
        c = self.card
        fmt = _number
        with Vertical():
            yield Static(Text(self.t("browse.info_title", card=c.card_id)))
            yield Static(Text(self.t(
                "browse.info.header", reps=c.reps, lapses=c.lapses,
                state=self.t("srs.state.new") if c.reps == 0 else self.t(f"srs.state.{c.state}"),
                s=fmt(c.stability, 1), d=fmt(None if c.difficulty is None else (c.difficulty - 1) / 9 * 100, 0, "%"),
                r=fmt(None if c.retrievability is None else c.retrievability * 100, 0, "%"), due=c.due[:16])))
            yield DataTable(id="info-table", zebra_stripes=True, cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one("#info-table", DataTable)
        for key in ("date", "mode", "rating", "ivl", "state", "s", "d"):
            table.add_column(self.t(f"browse.info.col.{key}"), key=key)
        if not self.answers:
            table.add_row(Text(self.t("browse.info.none")), *(Text("") for _ in range(6)))
        for a in self.answers:
            table.add_row(
                Text(a.reviewed_at.astimezone().strftime("%Y-%m-%d %H:%M")),
                Text(a.mode),
                Text(self.t(f"srs.rating.{a.rating}")),
                Text(_interval(a.interval_days)),
                Text("" if a.state is None else self.t(f"srs.state.{a.state}")),
                Text(_number(a.stability, 2)),
                Text(_number(a.difficulty, 2)),
            )
        table.focus()

    def action_close(self) -> None:
        self.dismiss(None)


def _number(value: float | None, digits: int, suffix: str = "") -> str:
    return "—" if value is None else f"{value:.{digits}f}{suffix}"


def _interval(days: float | None) -> str:
    if days is None:
        return "—"
    if days < 1:
        minutes = days * 24 * 60
        return f"{minutes:.0f}m" if minutes < 60 else f"{minutes / 60:.1f}h"
    return f"{days:.0f}d"


__all__ = ["CardInfoDialog", "DueDialog", "ResetDialog"]
