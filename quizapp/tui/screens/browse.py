"""Browse: Anki's card browser. A search box (quizapp.store.search's language), a sortable table of
the cards it finds, and keyboard actions on the selected rows (or the highlighted one): suspend,
bury, reset, set due, flag, open, card info, undo.

The screen only renders and forwards: searching runs in a thread worker (exclusive, so a newer
search replaces an older one) and every change goes through quizapp.store.card_ops, one journaled
transaction that `u` undoes. Card text is shown as plain Text, never as markup.

The question column takes the width the fixed columns leave (BrowseTable, on every resize); a drill row
shows the first line of its default variant's prompt (row_labels); a leech is marked LEECH and counted in
the status line (docs/screens.md, "Browse at any width").
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from datetime import datetime, timezone
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.widgets import DataTable, Header, Input, Static
from textual.worker import Worker, WorkerState

from quizapp.practice.cards import card_labels
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.footer import Footer

ROW_LIMIT = 2000  # rows shown; the count line says how many matched
COLUMNS = ("question", "kind", "topic", "due", "ivl", "s", "d", "r", "lapses", "flag")
# Every column has a set width (at least its header's): the table does not shift as results change,
# and no column waits for DataTable's idle-time measuring, whose render cache can keep a row drawn at
# the header's width (S/D/R cut to one character) until something else repaints it. The question
# column takes what the others leave (BrowseTable.fit_question, on every resize), never less than
# WIDTHS["question"]: below that the table scrolls sideways.
WIDTHS = {"question": 28, "kind": 8, "topic": 12, "due": 10, "ivl": 5, "s": 5, "d": 4, "r": 4, "lapses": 3,
          "flag": 1}
SELECTED = "● "  # marks a selected row, before its question
LEECH = "◆ "  # marks a leech (lapsed too often, tagged and suspended), before its question
LEECH_STYLE = "bold yellow"
SORT_OF_COLUMN = {"question": "bank", "kind": "kind", "topic": "topic", "due": "due", "ivl": "ivl", "s": "s",
                  "d": "d", "r": "r", "lapses": "lapses", "flag": "flag"}
SORT_CYCLE = ("bank", "due", "ivl", "s", "d", "r", "lapses", "topic", "flag")
FLAG_STYLES = {1: "red", 2: "dark_orange", 3: "green", 4: "blue"}
LABEL_LIMIT = 300  # characters of a label kept (the cell cuts it to the column with an ellipsis)


def row_labels(bank) -> dict[str, str]:
    """card_id -> its one line in the table (practice.cards.card_labels), except that a drill shows the
    first line of its prompt as its default variant reads (the setup as written, each `vary` field at its
    first choice), rendered like review renders it."""
    from quizapp.content.drills import base_options, fill_prompt
    from quizapp.content.localize import shown
    from quizapp.practice.cards import safe_render
    from quizapp.vocab import CardId, CardKind

    labels = card_labels(bank)
    for q in map(shown, bank.questions):
        for d in q.drills:
            prompt = safe_render(q, fill_prompt(d.prompt, base_options(d)))
            first = next((line.strip() for line in prompt.splitlines() if line.strip()), "")
            if first:
                labels[CardId(q.id, CardKind.DRILL, d.id).format()] = " ".join(first.split())
    return labels


class BrowseTable(DataTable):
    """The card table: its question column widens and narrows with the table (the others are fixed)."""

    def on_resize(self, event: events.Resize) -> None:
        self.fit_question()

    def fit_question(self) -> None:
        """Give the question column the width the fixed columns leave (at least WIDTHS["question"])."""
        if "question" not in self.columns:
            return
        question = self.columns["question"]  # type: ignore[index]
        others = sum(c.get_render_width(self) for k, c in self.columns.items() if k != "question")
        # the gutter of a vertical scrollbar is always kept (browse.tcss), so the width does not change
        # when the rows start to overflow
        room = self.scrollable_content_region.width - others - 2 * self.cell_padding
        width = max(WIDTHS["question"], question.label.cell_len, room)
        if width == question.width:
            return
        question.width = width
        # DataTable has no public "set a column's width": measure the table again and redraw every row
        self._require_update_dimensions = True
        self._clear_caches()
        self.refresh()


class BrowseScreen(QuizScreen[None]):
    """The card browser; `query` is the first search (empty: every card)."""

    CSS_PATH = "browse.tcss"
    BINDINGS = [
        Binding("slash", "focus_search", "Search", id="browse-search"),
        Binding("space", "toggle_select", "Select", id="browse-select"),
        Binding("ctrl+a", "select_all", "All", id="browse-all", show=False),
        Binding("s", "suspend", "Suspend", id="browse-suspend"),
        Binding("b", "bury", "Bury", id="browse-bury"),
        Binding("r", "reset", "Reset", id="browse-reset"),
        Binding("d", "due", "Set due", id="browse-due"),
        Binding("1", "flag(1)", "Flag", id="browse-flag"),
        Binding("2", "flag(2)", "Flag", id="browse-flag", show=False),
        Binding("3", "flag(3)", "Flag", id="browse-flag", show=False),
        Binding("4", "flag(4)", "Flag", id="browse-flag", show=False),
        Binding("0", "flag(0)", "Flag", id="browse-flag", show=False),
        Binding("o", "open", "Open", id="browse-open"),
        Binding("i", "info", "Info", id="browse-info"),
        Binding("t", "sort_next", "Sort", id="browse-sort"),
        Binding("u,ctrl+z", "undo", "Undo", id="browse-undo"),
        Binding("escape", "back", "Back", id="browse-back"),
    ]

    def __init__(self, query: str = "") -> None:
        super().__init__()
        self.initial_query = query
        self.query_text = query
        self.sort = "bank"
        self.descending = False
        self.selected: set[str] = set()
        self.rows: list[Any] = []  # FoundCard, in table order
        self.total = 0
        self._labels: dict[str, str] | None = None
        self._index = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(self.initial_query, id="browse-search-box", placeholder=self.t("browse.search_placeholder"))
        yield Static(Text(""), id="browse-error", classes="-hidden")
        yield Static(Text(""), id="browse-status", classes="muted")
        yield BrowseTable(id="browse-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#browse-table", DataTable)
        for key in COLUMNS:
            header = Text(self.t(f"browse.col.{key}"))
            table.add_column(header, key=key, width=max(WIDTHS[key], header.cell_len))
        table.fit_question()  # type: ignore[attr-defined]
        table.focus()
        self.run_search()

    # --- searching (a thread worker) -----------------------------------------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="browse-search")
    def run_search(self) -> tuple[list, int, str]:
        from quizapp.store.search import find, index_from_bank

        app: Any = self.app
        if self._index is None:
            self._index = index_from_bank(app.bank)
            self._labels = row_labels(app.bank)
        found, total = find(app.store, self.query_text, self._index, sort=self.sort, descending=self.descending,
                            limit=ROW_LIMIT)
        return found, total, self.query_text

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "browse-search":
            return  # QuizScreen's handler (run after this one) sends a failed change to background_failed
        event.prevent_default()  # a search error is shown here, under the box, not as a failure
        event.stop()
        from quizapp.store.search import SearchError

        error = self.query_one("#browse-error", Static)
        if event.state == WorkerState.SUCCESS:
            found, total, _ = event.worker.result
            error.update(Text(""))
            error.set_class(True, "-hidden")
            self._show(found, total)
        elif event.state == WorkerState.ERROR:
            exc = event.worker.error
            if isinstance(exc, SearchError):
                line = self.t("search.error", column=exc.column, reason=self.t(exc.code, **exc.details))
                error.update(Text(line))
                error.set_class(False, "-hidden")
            else:
                self.app.background_failed(self, exc)  # type: ignore[attr-defined]

    def _show(self, found: list, total: int) -> None:
        table = self.query_one("#browse-table", DataTable)
        cursor_key = self._cursor_card()
        table.clear()
        self.rows = found
        self.total = total
        present = {f.card_id for f in found}
        self.selected &= present
        labels = self._labels or {}
        for f in found:
            table.add_row(*self._cells(f, labels), key=f.card_id)
        if cursor_key in present:
            table.move_cursor(row=table.get_row_index(cursor_key))
        self._status()

    def _cells(self, f, labels: dict[str, str]) -> list[Text]:
        label = labels.get(f.card_id, f.card_id)
        style = "dim" if f.suspended else ("italic" if f.buried else "")
        if f.is_new:
            due = self.t("browse.new")
        else:
            due = datetime.fromisoformat(f.due).replace(tzinfo=timezone.utc).astimezone().strftime("%Y-%m-%d")
        if f.suspended:
            due = self.t("browse.suspended")
        elif f.buried:
            due = self.t("browse.buried")
        right = "right"
        return [
            self._question_cell(f, labels),
            Text(f.kind, style=style),
            Text(f.topic, style=style, no_wrap=True, overflow="ellipsis"),
            Text(due, style=style),
            Text("" if f.interval is None else f"{f.interval}d", justify=right),
            Text("" if f.stability is None else f"{f.stability:.1f}", justify=right),
            Text("" if f.difficulty is None else f"{(f.difficulty - 1) / 9:.0%}", justify=right),
            Text("" if f.retrievability is None else f"{f.retrievability:.0%}", justify=right),
            Text(str(f.lapses), justify=right),
            Text(str(f.flag) if f.flag else "", style=FLAG_STYLES.get(f.flag, "")),
        ]

    def _question_cell(self, f, labels: dict[str, str]) -> Text:
        mark = SELECTED if f.card_id in self.selected else ""
        style = "dim" if f.suspended else ("italic" if f.buried else "")
        text = Text(mark, style="bold")
        if f.leech:
            text.append(LEECH, style=LEECH_STYLE)
        text.append(labels.get(f.card_id, f.card_id)[:LABEL_LIMIT], style=style)
        text.no_wrap, text.overflow = True, "ellipsis"
        return text

    def _status(self) -> None:
        direction = " ↓" if self.descending else ""
        status = Text(self.t(
            "browse.count", shown=len(self.rows), total=self.total, sort=self.sort, direction=direction,
            selected=len(self.selected)))
        leeches = sum(1 for f in self.rows if f.leech)
        if leeches:  # the legend of the mark, while a leech is listed
            status.append(" · ")
            status.append(LEECH.strip(), style=LEECH_STYLE)
            status.append(" " + self.t("browse.leech_legend", n=leeches))
        self.query_one("#browse-status", Static).update(status)

    @on(Input.Submitted, "#browse-search-box")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_text = event.value
        self.run_search()
        self.query_one("#browse-table", DataTable).focus()

    @on(DataTable.HeaderSelected, "#browse-table")
    def _header(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        sort = SORT_OF_COLUMN.get(str(event.column_key.value))
        if sort is None:
            return
        self.descending = not self.descending if sort == self.sort else False
        self.sort = sort
        self.run_search()

    @on(DataTable.RowSelected, "#browse-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    # --- which cards an action applies to ------------------------------------------------------------
    def _cursor_card(self) -> str | None:
        table = self.query_one("#browse-table", DataTable)
        if table.row_count == 0:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    def targets(self) -> list[str]:
        """The selected cards in table order, or else the highlighted one."""
        if self.selected:
            return [f.card_id for f in self.rows if f.card_id in self.selected]
        cursor = self._cursor_card()
        return [cursor] if cursor is not None else []

    def _found(self, card_id: str):
        return next((f for f in self.rows if f.card_id == card_id), None)

    # --- actions ---------------------------------------------------------------------------------------
    def action_focus_search(self) -> None:
        self.query_one("#browse-search-box", Input).focus()

    def action_back(self) -> None:
        box = self.query_one("#browse-search-box", Input)
        if box.has_focus:
            self.query_one("#browse-table", DataTable).focus()
        else:
            self.app.pop_screen()

    def action_toggle_select(self) -> None:
        card = self._cursor_card()
        if card is None:
            return
        self.selected ^= {card}
        table = self.query_one("#browse-table", DataTable)
        found = self._found(card)
        if found is not None:
            table.update_cell(card, "question", self._question_cell(found, self._labels or {}))
        if table.cursor_row < table.row_count - 1:
            table.move_cursor(row=table.cursor_row + 1)
        self._status()

    def action_select_all(self) -> None:
        every = {f.card_id for f in self.rows}
        self.selected = set() if self.selected == every else every
        self._show(self.rows, self.total)

    def action_sort_next(self) -> None:
        index = SORT_CYCLE.index(self.sort) if self.sort in SORT_CYCLE else -1
        self.sort = SORT_CYCLE[(index + 1) % len(SORT_CYCLE)]
        self.descending = False
        self.run_search()

    def _apply(self, action: str, ids: list[str], argument: object = None) -> None:
        from quizapp.store import card_ops

        if not ids:
            return
        app: Any = self.app

        def call():
            return card_ops.apply(app.store, action, ids, argument, source="app")

        def done(result) -> None:
            what = self.t(f"cards.action.{result.action}", argument=result.argument)
            if result.changed:
                self.app.notify(self.t("browse.done", what=what, n=len(result.changed)), markup=False)
            else:
                self.app.notify(self.t("browse.unchanged"), markup=False)
            self.run_search()

        self.in_background(call, done)

    def action_suspend(self) -> None:
        ids = self.targets()
        rows = [self._found(c) for c in ids]
        every_suspended = bool(rows) and all(r is not None and r.suspended for r in rows)
        self._apply("unsuspend" if every_suspended else "suspend", ids)

    def action_bury(self) -> None:
        self._apply("bury", self.targets())

    def action_flag(self, flag: int) -> None:
        ids = self.targets()
        rows = [self._found(c) for c in ids]
        if flag and rows and all(r is not None and r.flag == flag for r in rows):
            flag = 0  # pressing a card's own flag again removes it, as in Anki
        self._apply("flag", ids, flag)

    def action_reset(self) -> None:
        from quizapp.tui.screens.browse_dialogs import ResetDialog

        ids = self.targets()
        if not ids:
            return

        def chosen(action: str | None) -> None:
            if action:
                self._apply(action, ids)

        self.app.push_screen(ResetDialog(len(ids)), chosen)

    def action_due(self) -> None:
        from quizapp.store.card_ops import parse_due
        from quizapp.tui.screens.browse_dialogs import DueDialog

        ids = self.targets()
        if not ids:
            return

        def chosen(text: str | None) -> None:
            if text is not None:
                self._apply("due", ids, parse_due(text))

        self.app.push_screen(DueDialog(), chosen)

    def action_open(self) -> None:
        """Show the question as review shows it, as a cram of the targeted cards (the schedule is untouched)."""
        from quizapp.vocab import Mode

        app: Any = self.app
        ids = [c for c in self.targets() if c in (self._labels or {})]
        if not ids:
            if self.targets():
                self.app.notify(self.t("browse.not_in_bank"), markup=False)
            return
        app.open_review(Mode.CRAM, None, ids)

    def action_info(self) -> None:
        from quizapp.store.card_info import card_history
        from quizapp.tui.screens.browse_dialogs import CardInfoDialog

        card = self._cursor_card()
        found = self._found(card) if card else None
        if found is None:
            return
        app: Any = self.app
        self.in_background(lambda: card_history(app.store, card),
                           lambda answers: self.app.push_screen(CardInfoDialog(found, answers)))

    def action_undo(self) -> None:
        app: Any = self.app

        def done(undone) -> None:
            if undone is None:
                self.app.notify(self.t("cards.nothing_to_undo"), markup=False)
            else:
                what = self.t(f"cards.action.{undone.action}", argument=undone.argument)
                self.app.notify(self.t("cards.undone", what=what, n=len(undone.cards)), markup=False)
            self.run_search()

        self.in_background(app.store.undo_operation, done)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("toggle_select", "select_all", "suspend", "bury", "reset", "due", "flag", "open", "info",
                      "sort_next", "undo"):
            return not self.query_one("#browse-search-box", Input).has_focus
        return True

    def palette_commands(self) -> Iterable[SystemCommand]:
        """Every action of the screen, for the command palette (they apply to the selected cards)."""
        help_text = self.t("cmd.browse.action.help")
        entries = [("bind.browse-search", self.action_focus_search), ("bind.browse-suspend", self.action_suspend),
                   ("bind.browse-bury", self.action_bury), ("bind.browse-reset", self.action_reset),
                   ("bind.browse-due", self.action_due), ("bind.browse-open", self.action_open),
                   ("bind.browse-info", self.action_info), ("bind.browse-sort", self.action_sort_next),
                   ("bind.browse-undo", self.action_undo)]
        for key, callback in entries:
            yield SystemCommand(self.t(key), help_text, callback)
        for flag in range(5):
            yield SystemCommand(self.t("cmd.browse.flag", n=flag), help_text, partial(self.action_flag, flag))
