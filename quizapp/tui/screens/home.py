"""Home: today's counts per topic, progress against the limits, streak, and the way into everything."""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Header, Static

from quizapp.store.records import Counts, TodayProgress
from quizapp.store.store import DayCounts
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.footer import Footer
from quizapp.vocab import Mode

ALL = ""  # the row key (and Store.counts key) of the all-topics total
COLUMNS = ("learning", "review", "new", "learned")  # words home.<column>


def read_home_figures(store) -> tuple[dict[str, Counts], TodayProgress, dict[str, DayCounts]]:
    """What Home shows, read in one go (before the app starts, or in a worker): Learned per topic,
    today's progress against the limits, and what is left today per topic as the review header counts it."""
    return store.counts(), store.today(), store.day_counts_by_topic()


class HomeScreen(QuizScreen[None]):
    """Due/new/learned per topic; Enter on a row reviews that topic (the first row: all topics)."""

    CSS_PATH = "home.tcss"
    _rebuilding = False  # True while relabel recomposes: the widgets are gone until it ends
    BINDINGS = [
        Binding("r", "review", "Review", id="review"),
        Binding("enter", "review", "Review", id="review", show=False),
        Binding("c", "cram", "Cram", id="cram"),
        Binding("m", "mock", "Mock", id="mock"),
        Binding("k", "calculator", "Calculator", id="calculator"),
        Binding("s", "stats", "Stats", id="stats"),
        Binding("b", "browse", "Browse", id="browse"),  # SRS
        Binding("p", "problems", "Problems", id="problems"),
        Binding("q", "quit", "Quit", id="quit"),
    ]

    def compose(self) -> ComposeResult:
        app = self.app
        yield Header()
        with Vertical(id="home-body"):
            problems = len(app.bank.problems)
            yield Static(
                Text(app.t("home.problems", n=problems)),
                id="problems-banner",
                classes="banner",
            ).set_class(problems == 0, "-hidden")
            yield Static(Text(app.t("home.title")), classes="screen-title")  # "Today", then its figures
            yield Static(Text(app.t("home.loading")), id="today")
            yield Static(Text(""), id="streak")
            overridden = len(getattr(app.bank, "overridden", ()))
            yield Static(
                Text(app.t("home.overridden", n=overridden)), id="overridden", classes="muted"
            ).set_class(overridden == 0, "-hidden")
            yield Static(Text(app.t("home.table.caption")), id="topics-caption", classes="muted")
            yield self._topics_table()
            yield Static(Text(""), id="home-note", classes="muted")
            yield Static(Text(app.t("home.hint")), id="home-hint", classes="muted")
        yield Footer(compact=True)  # all eight keys fit 80 columns, in Chinese too

    def _topics_table(self) -> DataTable:
        app = self.app
        table: DataTable = DataTable(id="topics", cursor_type="row", zebra_stripes=True)
        # Fixed widths (from the bank's topics, known now): the table does not change shape when the
        # counts arrive from the worker.
        names = [app.t("home.topic"), app.t("home.total"), *app.bank.topics()]
        table.add_column(app.t("home.topic"), key="topic", width=max(cell_len(n) for n in names))
        for key in COLUMNS:
            label = app.t(f"home.{key}")
            # Right-aligned like the numbers under it.
            table.add_column(Text(label, justify="right"), key=key, width=max(cell_len(label), 5))
        return table

    def on_mount(self) -> None:
        figures = self.app.take_first_counts()
        if figures is not None:  # read before the app started: Home appears with its real counts
            self.show_counts(*figures)
        else:
            self.refresh_counts()

    async def relabel(self) -> None:
        """Build the screen again in the app's (new) language, with fresh counts."""
        self._rebuilding = True  # counts read before (on resume) may arrive while no widget is there
        try:
            await self.recompose()
        finally:
            self._rebuilding = False
        self.refresh_counts()

    def on_screen_resume(self) -> None:
        self.refresh_counts()

    # --- data ------------------------------------------------------------------------------------
    def refresh_counts(self) -> None:
        store = self.app.store
        self.in_background(lambda: read_home_figures(store), self._show_counts)

    def _show_counts(self, figures: tuple[dict[str, Counts], TodayProgress, dict[str, DayCounts]]) -> None:
        if self._rebuilding:  # dropped: the read that follows the rebuild shows them
            return
        self.show_counts(*figures)

    def show_counts(self, counts: dict[str, Counts], today: TodayProgress, left: dict[str, DayCounts]) -> None:
        """counts gives Learned; left (Store.day_counts per topic, as the review header counts) the rest."""
        app = self.app
        self.query_one("#today", Static).update(
            Text(
                app.t("home.progress", 
                    new_done=today.new_done,
                    new_limit=today.new_limit,
                    reviews_done=today.reviews_done,
                    review_limit=today.review_limit,
                )
            )
        )
        streak = app.t("home.streak", n=today.streak_days)
        if today.leeches:
            streak += " · " + app.t("home.leeches", n=today.leeches)
        self.query_one("#streak", Static).update(Text(streak))
        table = self.query_one("#topics", DataTable)
        cursor = table.cursor_row
        table.clear()
        topics = sorted(set(app.bank.topics()) | {k for k in counts if k != ALL})
        rows = [(ALL, app.t("home.total"))] + [(topic, topic) for topic in topics]
        for key, label in rows:
            c = counts.get(key)
            d = left.get(key, DayCounts(0, 0, 0))
            figures = (d.learning, d.review, d.new, c.learned if c is not None else 0)
            style = "bold" if key == ALL else ""
            table.add_row(
                Text(label, style=style),
                *(Text(str(n), style=style, justify="right") for n in figures),
                key=key or "__all__",
            )
        table.move_cursor(row=min(cursor, table.row_count - 1))
        total = left.get(ALL)
        note = self.query_one("#home-note", Static)
        if not app.bank.topics():  # (topics: known without building the questions)
            note.update(Text(app.t("home.empty")))
        elif total is not None and total.total == 0:
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
        self.app.open_review(Mode.REVIEW, None if key == "__all__" else key)

    def action_review(self) -> None:
        self.app.open_review(Mode.REVIEW, None)

    def action_cram(self) -> None:
        self.app.pick_cram_topic()

    def action_mock(self) -> None:
        self.app.open_mock_setup()

    def action_calculator(self) -> None:
        self.app.open_calculator()

    def action_stats(self) -> None:
        self.app.open_stats()

    def action_browse(self) -> None:
        self.app.open_browse()

    def action_problems(self) -> None:
        self.app.open_problems()

    def action_quit(self) -> None:
        self.app.exit()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "problems":
            return bool(self.app.bank.problems)
        return True

    def palette_commands(self) -> Iterable[SystemCommand]:
        app = self.app
        entries = [
            ("cmd.review", self.action_review),
            ("cmd.cram", self.action_cram),
            ("cmd.mock", self.action_mock),
            ("cmd.calculator", self.action_calculator),
            ("cmd.stats", self.action_stats),
            ("cmd.browse", self.action_browse),
        ]
        if app.bank.problems:
            entries.append(("cmd.problems", self.action_problems))
        for key, callback in entries:
            yield SystemCommand(app.t(key), app.t(f"{key}.help"), callback)
