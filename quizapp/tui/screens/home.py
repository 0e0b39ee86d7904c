"""Home: today's counts per topic, progress against the limits, streak, and the way into everything."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import Worker, WorkerState

from quizapp.tui.bindings import localize_bindings

ALL = ""  # the row key (and Store.counts key) of the all-topics total


class HomeScreen(Screen[None]):
    """Due/new/learned per topic; Enter on a row reviews that topic (the first row: all topics)."""

    CSS_PATH = "home.tcss"
    BINDINGS = [
        Binding("r", "review", "Review", id="review"),
        Binding("enter", "review", "Review", id="review", show=False),
        Binding("c", "cram", "Cram", id="cram"),
        Binding("m", "mock", "Mock", id="mock"),
        Binding("k", "calculator", "Calculator", id="calculator"),
        Binding("s", "stats", "Stats", id="stats"),
        Binding("p", "problems", "Problems", id="problems"),
        Binding("q", "quit", "Quit", id="quit"),
    ]

    def compose(self) -> ComposeResult:
        app: Any = self.app
        yield Header()
        with Vertical(id="home-body"):
            problems = len(app.bank.problems)
            yield Static(
                Text(app.t("home.problems").format(count=problems)),
                id="problems-banner",
                classes="banner",
            ).set_class(problems == 0, "-hidden")
            yield Static(Text(app.t("home.title")), classes="screen-title")  # "Today", then its figures
            yield Static(Text(app.t("home.loading")), id="today")
            yield Static(Text(""), id="streak")
            yield DataTable(id="topics", cursor_type="row", zebra_stripes=True)
            yield Static(Text(""), id="home-note", classes="muted")
            yield Static(Text(app.t("home.hint")), id="home-hint", classes="muted")
        yield Footer()

    def on_mount(self) -> None:
        app: Any = self.app
        localize_bindings(self, app.settings.lang)
        self.refresh_bindings()
        table = self.query_one("#topics", DataTable)
        # Fixed widths (from the bank's topics, known now): the table does not change shape when the
        # counts arrive from the worker.
        names = [app.t("home.topic"), app.t("home.total"), *app.bank.topics()]
        table.add_column(app.t("home.topic"), key="topic", width=max(cell_len(n) for n in names))
        for key in ("due", "new", "learned"):
            label = app.t(f"home.{key}")
            # Right-aligned like the numbers under it.
            table.add_column(Text(label, justify="right"), key=key, width=max(cell_len(label), 5))
        self.refresh_counts()

    def on_screen_resume(self) -> None:
        self.refresh_counts()

    # --- data ------------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="home-counts")
    def refresh_counts(self) -> tuple[dict, Any]:
        store = self.app.store  # type: ignore[attr-defined]
        return store.counts(), store.today()

    @on(Worker.StateChanged)
    def _counts_loaded(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "home-counts":
            return
        app: Any = self.app
        if event.state == WorkerState.SUCCESS:
            counts, today = event.worker.result
            self._show(counts, today)
        elif event.state == WorkerState.ERROR:
            self.query_one("#today", Static).update(
                Text(app.t("app.db_error").format(error=event.worker.error))
            )

    def _show(self, counts: dict, today: Any) -> None:
        app: Any = self.app
        self.query_one("#today", Static).update(
            Text(
                app.t("home.progress").format(
                    new_done=today.new_done,
                    new_limit=today.new_limit,
                    reviews_done=today.reviews_done,
                    review_limit=today.review_limit,
                )
            )
        )
        self.query_one("#streak", Static).update(Text(app.t("home.streak").format(days=today.streak_days)))
        table = self.query_one("#topics", DataTable)
        cursor = table.cursor_row
        table.clear()
        topics = sorted(set(app.bank.topics()) | {k for k in counts if k != ALL})
        rows = [(ALL, app.t("home.total"))] + [(topic, topic) for topic in topics]
        for key, label in rows:
            c = counts.get(key)
            due, new, learned = (c.due, c.new, c.learned) if c is not None else (0, 0, 0)
            style = "bold" if key == ALL else ""
            table.add_row(
                Text(label, style=style),
                *(Text(str(n), style=style, justify="right") for n in (due, new, learned)),
                key=key or "__all__",
            )
        table.move_cursor(row=min(cursor, table.row_count - 1))
        total = counts.get(ALL)
        note = self.query_one("#home-note", Static)
        if not app.bank.questions:
            note.update(Text(app.t("home.empty")))
        elif total is not None and total.due == 0 and total.new == 0:
            note.update(Text(app.t("home.nothing_due")))
        else:
            note.update(Text(""))

    # --- actions ---------------------------------------------------------------------------------
    def _highlighted_topic(self) -> str | None:
        table = self.query_one("#topics", DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return None if key in (None, "__all__") else key

    @on(DataTable.RowSelected, "#topics")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value
        self.app.start_review("review", None if key == "__all__" else key)  # type: ignore[attr-defined]

    def action_review(self) -> None:
        self.app.start_review("review", None)  # type: ignore[attr-defined]

    def action_cram(self) -> None:
        self.app.pick_cram_topic()  # type: ignore[attr-defined]

    def action_mock(self) -> None:
        self.app.open_optional_screen("mock_setup", "MockSetupScreen", "what.mock")  # type: ignore[attr-defined]

    def action_calculator(self) -> None:
        self.app.open_optional_screen("calculator", "CalculatorScreen", "what.calculator")  # type: ignore[attr-defined]

    def action_stats(self) -> None:
        self.app.open_optional_screen("stats", "StatsScreen", "what.stats")  # type: ignore[attr-defined]

    def action_problems(self) -> None:
        from quizapp.tui.screens.problems import ProblemsScreen

        self.app.push_screen(ProblemsScreen(list(self.app.bank.problems)))  # type: ignore[attr-defined]

    def action_quit(self) -> None:
        self.app.exit()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "problems":
            return bool(self.app.bank.problems)  # type: ignore[attr-defined]
        return True

    def palette_commands(self) -> Iterable[SystemCommand]:
        app: Any = self.app
        entries = [
            ("cmd.review", self.action_review),
            ("cmd.cram", self.action_cram),
            ("cmd.mock", self.action_mock),
            ("cmd.calculator", self.action_calculator),
            ("cmd.stats", self.action_stats),
        ]
        if app.bank.problems:
            entries.append(("cmd.problems", self.action_problems))
        for key, callback in entries:
            yield SystemCommand(app.t(key), app.t(f"{key}.help"), callback)
