"""A bar chart (textual-plotext) that also holds its figures as a table, for terminals without charts.

The parent sets the data with `show(...)` and flips `as_text`; the widget only draws.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot


class FigureChart(Vertical):
    """Title, then either a (stacked) bar chart or the same figures as a table (`as_text`)."""

    DEFAULT_CSS = """
    FigureChart {
        height: auto;
    }
    FigureChart > .chart--title {
        text-style: bold;
    }
    FigureChart > PlotextPlot {
        height: 12;
    }
    FigureChart > DataTable {
        height: auto;
        max-height: 16;
        display: none;
    }
    FigureChart.-as-text > PlotextPlot {
        display: none;
    }
    FigureChart.-as-text > DataTable {
        display: block;
    }
    """

    as_text: reactive[bool] = reactive(False)

    def __init__(self, title: str = "", *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._title = title
        self._labels: list[str] = []
        self._series: list[tuple[str, list[float]]] = []

    def compose(self) -> ComposeResult:
        yield Static(Text(self._title), classes="chart--title")
        yield PlotextPlot()
        yield DataTable(cursor_type="none", zebra_stripes=True)

    def watch_as_text(self, as_text: bool) -> None:
        self.set_class(as_text, "-as-text")

    def show(self, title: str, labels: Sequence[str], series: Sequence[tuple[str, Sequence[float]]],
             label_header: str, tick_every: int = 7) -> None:
        """Plot `series` (name, one value per label) as bars, stacked when there are several; the
        table gets one row per label and one column per series (plus a total when stacked)."""
        self._title = title
        self._labels = list(labels)
        self._series = [(name, list(values)) for name, values in series]
        self.query_one(".chart--title", Static).update(Text(title))
        self._draw(tick_every)
        self._tabulate(label_header)

    def _draw(self, tick_every: int) -> None:
        plot = self.query_one(PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        x = list(range(1, len(self._labels) + 1))
        if x and self._series:
            if len(self._series) == 1:
                plt.bar(x, self._series[0][1], width=0.8)
            else:
                plt.stacked_bar(x, [values for _, values in self._series], labels=[n for n, _ in self._series],
                                width=0.8)
            top = max((sum(v) for v in zip(*(values for _, values in self._series))), default=0)
            plt.ylim(0, max(top, 1) * 1.05)  # empty days sit on the axis instead of drawing a stub bar
            ticks = x[::-1][::tick_every][::-1]  # always label the last (today / the newest) bar
            plt.xticks(ticks, [self._labels[i - 1] for i in ticks])
        plot.refresh()

    def _tabulate(self, label_header: str) -> None:
        table = self.query_one(DataTable)
        table.clear(columns=True)
        table.add_column(label_header, key="label")
        for name, _ in self._series:
            table.add_column(name, key=f"s-{name}")
        stacked = len(self._series) > 1
        if stacked:
            table.add_column("Σ", key="total")
        for i, label in enumerate(self._labels):
            cells = [Text(label)]
            values = [values[i] for _, values in self._series]
            cells += [Text(_number(v), justify="right") for v in values]
            if stacked:
                cells.append(Text(_number(sum(values)), justify="right"))
            table.add_row(*cells)

    def figures(self) -> list[tuple[str, list[float]]]:
        """(label, values) per bar: what the table shows."""
        return [(label, [values[i] for _, values in self._series]) for i, label in enumerate(self._labels)]


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"
