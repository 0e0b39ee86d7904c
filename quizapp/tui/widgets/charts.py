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


SERIES_COLORS = ("blue", "green", "magenta", "cyan", "red", "yellow")  # plotext and rich both know these names


class FigureChart(Vertical):
    """Title, then either a (stacked) bar chart or the same figures as a table (`as_text`).

    A stacked chart's legend is a line above the plot, not plotext's own (which it draws over the bars).
    """

    DEFAULT_CSS = """
    FigureChart {
        height: auto;
    }
    FigureChart > .chart--title {
        text-style: bold;
    }
    FigureChart > .chart--legend {
        height: auto;
    }
    FigureChart.-as-text > .chart--legend {
        display: none;
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
        self._newest_first = False

    def compose(self) -> ComposeResult:
        yield Static(Text(self._title), classes="chart--title")
        yield Static(Text(""), classes="chart--legend")
        yield PlotextPlot()
        yield DataTable(cursor_type="none", zebra_stripes=True)

    def watch_as_text(self, as_text: bool) -> None:
        self.set_class(as_text, "-as-text")

    def show(self, title: str, labels: Sequence[str], series: Sequence[tuple[str, Sequence[float]]],
             label_header: str, tick_every: int = 7, *, anchor: str = "last", newest_first: bool = False) -> None:
        """Plot `series` (name, one value per label) as bars, stacked when there are several; the
        table gets one row per label and one column per series (plus a total when stacked).

        `anchor` is the bar that always gets a date label ("last": today at the end of a history;
        "first": today at the start of a forecast). `newest_first` lists the table's rows from the
        last label back (a history reads from today)."""
        self._title = title
        self._labels = list(labels)
        self._series = [(name, list(values)) for name, values in series]
        self._newest_first = newest_first
        self.query_one(".chart--title", Static).update(Text(title))
        self.query_one(".chart--legend", Static).update(self._legend())
        self._draw(tick_every, anchor)
        self._tabulate(label_header)

    def _legend(self) -> Text:
        legend = Text()
        if len(self._series) > 1:
            for (name, _), color in zip(self._series, SERIES_COLORS):
                legend.append("█ ", style=color)
                legend.append(f"{name}   ")
            legend.rstrip()
        return legend

    def _draw(self, tick_every: int, anchor: str = "last") -> None:
        plot = self.query_one(PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        x = list(range(1, len(self._labels) + 1))
        if x and self._series:
            if len(self._series) == 1:
                plt.bar(x, self._series[0][1], width=0.8, color=SERIES_COLORS[0])
            else:
                plt.stacked_bar(x, [values for _, values in self._series],
                                color=list(SERIES_COLORS[: len(self._series)]), width=0.8)
            top = max((sum(v) for v in zip(*(values for _, values in self._series))), default=0)
            plt.ylim(0, max(top, 1) * 1.05)  # empty days sit on the axis instead of drawing a stub bar
            ticks = tick_positions(len(x), tick_every, anchor)
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
        order = range(len(self._labels) - 1, -1, -1) if self._newest_first else range(len(self._labels))
        for i in order:
            label = self._labels[i]
            cells = [Text(label)]
            values = [values[i] for _, values in self._series]
            cells += [Text(_number(v), justify="right") for v in values]
            if stacked:
                cells.append(Text(_number(sum(values)), justify="right"))
            table.add_row(*cells)

    def figures(self) -> list[tuple[str, list[float]]]:
        """(label, values) per bar, in bar order (the table may list them newest first)."""
        return [(label, [values[i] for _, values in self._series]) for i, label in enumerate(self._labels)]


def tick_positions(count: int, every: int, anchor: str = "last") -> list[int]:
    """Bar positions (1-based) that get a date label: every `every`-th bar counted from the anchor bar
    (today), which always has one: the last bar of a history, the first of a forecast."""
    positions = list(range(1, count + 1))
    return positions[::every] if anchor == "first" else positions[::-1][::every][::-1]


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"
