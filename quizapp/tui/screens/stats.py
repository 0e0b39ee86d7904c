"""Statistics: activity, retention, the due forecast, cards by state, drill accuracy, mistakes, leeches, mocks.

Every figure comes from quizapp.store.stats (SQL, no Textual), read in a worker thread; this screen
only lays them out. Charts can be switched to their figures as text (`t`), so the screen works in any
terminal.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Header, Static, TabbedContent, TabPane

from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.charts import FigureChart
from quizapp.tui.widgets.footer import Footer
from quizapp.tui.widgets.memory_panel import MemoryPanel  # SRS: true retention, S/D/R distributions
from quizapp.vocab import CardId, CardKind, Mode, Verdict

RANGES = (30, 90)


def _percent(rate: float | None) -> str:
    return "—" if rate is None else f"{rate:.1%}"


class StatsScreen(QuizScreen[None]):
    """The statistics of the open database (read-only)."""

    CSS_PATH = "stats.tcss"
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="back"),
        Binding("t", "toggle_text", "Text/Chart", id="toggle_text"),
        Binding("d", "toggle_range", "30/90 days", id="toggle_range"),
        Binding("r", "refresh", "Refresh", id="refresh"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.figures: Any = None
        self.days = RANGES[0]
        self.as_text = False

    def _t(self, key: str, **args: object) -> str:
        return self.app.t(key, **args)  # type: ignore[attr-defined]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text(self._t("stats.title")), classes="screen-title")
        yield Static(Text(self._t("stats.loading")), id="stats-status")
        with TabbedContent(id="stats-tabs"):
            with TabPane(self._t("stats.tab.activity"), id="tab-activity"):
                with VerticalScroll():
                    yield Static(Text(""), id="today-left")  # as the review header and Home count
                    yield Static(Text(""), id="reviews-summary")
                    yield Static(Text(""), id="retention")
                    yield FigureChart(id="reviews-chart")
                    yield Static(Text(""), id="forecast-summary")
                    yield FigureChart(id="forecast-chart")
            with TabPane(self._t("stats.tab.cards"), id="tab-cards"):
                with VerticalScroll():
                    yield Static(Text(self._t("stats.states.title")), classes="stats-subtitle")
                    yield DataTable(id="states-table", cursor_type="none", zebra_stripes=True)
                    yield Static(Text(self._t("stats.leeches.title")), classes="stats-subtitle")
                    yield DataTable(id="leeches-table", cursor_type="none", zebra_stripes=True)
                    yield MemoryPanel(id="memory-panel")
            with TabPane(self._t("stats.tab.drills"), id="tab-drills"):
                with VerticalScroll():
                    yield Static(Text(self._t("stats.accuracy.title")), classes="stats-subtitle")
                    yield DataTable(id="accuracy-table", cursor_type="none", zebra_stripes=True)
                    yield Static(Text(self._t("stats.mistakes.title")), classes="stats-subtitle")
                    yield DataTable(id="mistakes-table", cursor_type="none", zebra_stripes=True)
                    yield Static(Text(self._t("stats.points.title", n=self.days)), id="points-title",
                                 classes="stats-subtitle")
                    yield DataTable(id="points-table", cursor_type="none", zebra_stripes=True)
            with TabPane(self._t("stats.tab.mocks"), id="tab-mocks"):
                with VerticalScroll():
                    yield Static(Text(self._t("stats.mocks.title")), classes="stats-subtitle")
                    yield DataTable(id="mocks-table", cursor_type="none", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.load()

    # --- loading (a worker: SQL off the UI thread) ----------------------------------------------------
    def load(self) -> None:
        from quizapp.store import stats

        store = self.app.store
        self.in_background(lambda: (stats.collect(store), store.day_counts(), store.today()), self._show_all)

    def _show_all(self, figures: Any) -> None:
        collected, left, today = figures
        self.query_one("#today-left", Static).update(Text(self._t(
            "stats.today.left", learning=left.learning, review=left.review, new=left.new,
            new_done=today.new_done, new_limit=today.new_limit,
            reviews_done=today.reviews_done, review_limit=today.review_limit)))
        self.show_figures(collected)

    def background_failed(self, error: BaseException) -> None:
        self.query_one("#stats-status", Static).update(Text(self._t("stats.error", error=error)))

    def action_refresh(self) -> None:
        self.load()

    def action_toggle_text(self) -> None:
        self.as_text = not self.as_text
        for chart in self.query(FigureChart):
            chart.as_text = self.as_text

    def action_toggle_range(self) -> None:
        self.days = RANGES[(RANGES.index(self.days) + 1) % len(RANGES)]
        if self.figures is not None:
            self._show_reviews(self.figures)
            self._show_points(self.figures)

    # --- showing -------------------------------------------------------------------------------------
    def show_figures(self, figures: Any) -> None:
        self.figures = figures
        self.query_one("#stats-status", Static).display = False
        self._show_reviews(figures)
        self._show_retention(figures)
        self._show_forecast(figures)
        self._show_states(figures)
        self._show_leeches(figures)
        self._show_accuracy(figures)
        self._show_mistakes(figures)
        self._show_points(figures)
        self._show_mocks(figures)

    def _show_reviews(self, figures: Any) -> None:
        days = figures.reviews_last(self.days)
        studied = sum(1 for d in days if d.total)
        summary = self._t("stats.reviews.summary", 
            today=figures.reviews[-1].total, month=sum(d.total for d in figures.reviews_last(30)),
            quarter=sum(d.total for d in figures.reviews_last(90)), studied=studied, days=self.days)
        self.query_one("#reviews-summary", Static).update(Text(summary))
        series = [(self._t(f"stats.col.{mode}"), [getattr(d, mode) for d in days]) for mode in (m.value for m in Mode)]
        self.query_one("#reviews-chart", FigureChart).show(
            self._t("stats.reviews.title", n=self.days), [d.day.strftime("%m-%d") for d in days], series,
            self._t("stats.col.day"), tick_every=7 if self.days <= 30 else 14, newest_first=True)

    def _show_retention(self, figures: Any) -> None:
        month, forever = figures.retention

        def rate(r: Any) -> str:
            return self._t("stats.retention.rate", rate=_percent(r.rate), recalled=r.recalled, total=r.total)

        line = self._t("stats.retention", month=rate(month), all=rate(forever), desired=f"{month.desired:.0%}")
        widget = self.query_one("#retention", Static)
        widget.update(Text(line))
        widget.set_class(month.rate is not None and month.rate < month.desired, "-below")

    def _show_forecast(self, figures: Any) -> None:
        forecast = figures.forecast
        summary = self._t("stats.forecast.summary", 
            today=forecast[0].due, tomorrow=forecast[1].due if len(forecast) > 1 else 0,
            week=sum(f.due for f in forecast[:7]), month=sum(f.due for f in forecast))
        self.query_one("#forecast-summary", Static).update(Text(summary))
        self.query_one("#forecast-chart", FigureChart).show(
            self._t("stats.forecast.title"), [f.day.strftime("%m-%d") for f in forecast],
            [(self._t("stats.col.due"), [f.due for f in forecast])], self._t("stats.col.day"), anchor="first")

    def _table(self, selector: str, headers: list[str]) -> DataTable:
        table = self.query_one(selector, DataTable)
        table.clear(columns=True)
        for i, header in enumerate(headers):
            table.add_column(header, key=f"c{i}")
        return table

    def _topic(self, topic: str) -> Text:
        return Text(topic, style="") if topic else Text(self._t("stats.all_topics"), style="bold")

    def _show_states(self, figures: Any) -> None:
        names = ("new", "learning", "review", "relearning", "suspended", "leech", "total")
        table = self._table("#states-table", [self._t("stats.col.topic")] + [self._t(f"stats.col.{n}") for n in names])
        for row in figures.states:
            table.add_row(self._topic(row.topic), *(Text(str(getattr(row, n)), justify="right") for n in names))

    def _show_leeches(self, figures: Any) -> None:
        app: Any = self.app
        table = self._table("#leeches-table", [self._t(f"stats.col.{n}") for n in ("card", "topic", "lapses", "suspended")])
        if not figures.leeches:
            table.add_row(Text(self._t("stats.none")), Text(""), Text(""), Text(""))
        for leech in figures.leeches:
            question = app.bank.question(leech.question_id)
            title = question.title if question is not None else leech.question_id
            label = title if leech.kind == CardKind.QUESTION else f"{title} · {leech.kind} {CardId.parse(leech.card_id).item_id}"
            table.add_row(Text(label), Text(leech.topic), Text(str(leech.lapses), justify="right"),
                          Text(self._t("stats.yes" if leech.suspended else "stats.no")))

    def _show_accuracy(self, figures: Any) -> None:
        names = tuple(v.value for v in Verdict)
        table = self._table("#accuracy-table", [self._t("stats.col.topic")]
                            + [self._t(f"stats.col.{n}") for n in (*names, "accuracy")])
        for row in figures.accuracy:
            table.add_row(self._topic(row.topic), *(Text(str(getattr(row, n)), justify="right") for n in names),
                          Text(_percent(row.rate), justify="right"))

    def _show_mistakes(self, figures: Any) -> None:
        table = self._table("#mistakes-table", [self._t("stats.col.mistake"), self._t("stats.col.times")])
        if not figures.mistakes:
            table.add_row(Text(self._t("stats.none")), Text(""))
        for mistake in figures.mistakes:
            table.add_row(Text(self._t(mistake.mistake_id)), Text(str(mistake.count), justify="right"))

    def _show_points(self, figures: Any) -> None:
        """The key points missed most in the chosen range (30 or 90 days), per card and topic."""
        self.query_one("#points-title", Static).update(Text(self._t("stats.points.title", n=self.days)))
        table = self._table("#points-table", [self._t("stats.col.card"), self._t("stats.col.point"),
                                              self._t("stats.col.topic"), self._t("stats.col.missed")])
        points = figures.points_90 if self.days == 90 else figures.points
        if not points:
            table.add_row(Text(self._t("stats.none")), Text(""), Text(""), Text(""))
        for point in points:
            table.add_row(Text(point.card_id), Text(point.point), self._topic(point.topic),
                          Text(f"{point.missed}/{point.seen}", justify="right"))

    def _show_mocks(self, figures: Any) -> None:
        names = ("date", "questions", "answered", "score", "completed")
        table = self._table("#mocks-table", [self._t(f"stats.col.{n}") for n in names])
        if not figures.mocks_available:
            table.add_row(Text(self._t("stats.mocks.unavailable")), *(Text("") for _ in names[1:]))
            return
        if not figures.mocks:
            table.add_row(Text(self._t("stats.none")), *(Text("") for _ in names[1:]))
        tz = self.app.store.config.tz
        for mock in figures.mocks:
            started = mock.started.astimezone(tz) if tz is not None else mock.started.astimezone()
            score = "—" if mock.score is None else f"{mock.score:.0f}%"
            table.add_row(Text(started.strftime("%Y-%m-%d %H:%M")), Text(str(mock.questions), justify="right"),
                          Text(f"{mock.answered}/{mock.items}", justify="right"), Text(score, justify="right"),
                          Text(self._t("stats.yes" if mock.completed else "stats.no")))
