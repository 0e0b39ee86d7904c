"""The key points of a revealed self-graded card: ticked where the typed answer (or the user) covered
them, with the words that covered each, and the rating the coverage suggests. Renders a
practice.checklist.Checklist; the screen forwards the toggle keys."""

from __future__ import annotations

from rich.text import Text
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from quizapp.practice.checklist import TOGGLE_KEYS, Checklist
from quizapp.words import say


def checklist_text(checklist: Checklist, lang: str, keys: bool = True, missed_first: bool = False) -> Text:
    """"Key points: 3 of 5 covered · suggested: Hard", then one line per point (plain text, never markup)."""
    text = Text()
    text.append(say("points.title", lang, covered=checklist.covered, total=checklist.total,
                    rating=say(f"rating.{checklist.suggested}", lang)), style="bold")
    keyed = {p.id: key for p, key in zip(checklist.points, TOGGLE_KEYS)}
    for point in (checklist.missed_first() if missed_first else checklist.points):
        ticked = checklist.ticked[point.id]
        text.append("\n")
        if keys:
            text.append(f"{keyed.get(point.id, ' ')} ", style="dim")
        text.append("✓ " if ticked else "✗ ", style="bold green" if ticked else "bold red")
        text.append(point.text)
        if point.must:
            text.append(say("points.must", lang), style="bold")
        if ticked and point.covered and point.by:
            text.append("  " + say("points.by", lang, words=point.by), style="dim")
    return text


class PointChecklist(Static):
    """The checklist of the card on screen; `show(checklist)` redraws it after a toggle."""

    DEFAULT_CSS = """
    PointChecklist {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $accent;
    }
    """

    def __init__(self, checklist: Checklist, lang: str, *, keys: bool = True, missed_first: bool = False,
                 id: str | None = None, classes: str | None = None) -> None:
        self.checklist = checklist
        self.lang = lang
        self.keys = keys
        self.missed_first = missed_first
        super().__init__(checklist_text(checklist, lang, keys, missed_first), id=id, classes=classes)

    def show(self, checklist: Checklist) -> None:
        self.checklist = checklist
        self.update(checklist_text(checklist, self.lang, self.keys, self.missed_first))


class PointTicks(Vertical):
    """A debrief item's key points as check boxes, the missed ones first, under a line with the
    coverage and the rating it suggests; a toggle is posted up (the screen stores it)."""

    DEFAULT_CSS = """
    PointTicks {
        height: auto;
        margin: 1 0 0 0;
    }
    PointTicks > TickBox {
        height: auto;
    }
    """

    class Toggled(Message):
        def __init__(self, item_id: int, point: str, value: bool) -> None:
            super().__init__()
            self.item_id = item_id
            self.point = point
            self.value = value

    def __init__(self, item_id: int, checklist: Checklist, lang: str, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.item_id = item_id
        self.checklist = checklist
        self.lang = lang

    def compose(self):
        from quizapp.tui.widgets.tick import TickBox

        yield Static(self._header(), classes="points-header")
        for point in self.checklist.missed_first():
            label = point.text + (say("points.must", self.lang) if point.must else "")
            box = TickBox(Text(label), self.checklist.ticked[point.id], compact=True, name=point.id)
            yield box

    def _header(self) -> Text:
        c = self.checklist
        return Text(say("points.title", self.lang, covered=c.covered, total=c.total,
                        rating=say(f"rating.{c.suggested}", self.lang)), style="bold")

    def show(self, checklist: Checklist) -> None:
        self.checklist = checklist
        self.query_one(".points-header", Static).update(self._header())

    def on_checkbox_changed(self, event) -> None:
        event.stop()
        self.checklist.ticked[event.checkbox.name] = event.value
        self.query_one(".points-header", Static).update(self._header())
        self.post_message(self.Toggled(self.item_id, event.checkbox.name, event.value))
