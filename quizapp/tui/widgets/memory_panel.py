"""The statistics screen's memory panel: Anki's true-retention table and the stability / difficulty /
retrievability distributions (quizapp.store.retention), loaded in its own thread worker.

Self-contained (its own CSS and loading), so the screen that shows it only yields it.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static
from textual.worker import Worker, WorkerState

BAR = 24  # cells of the longest distribution bar


class MemoryPanel(Vertical):
    """True retention by period (young / mature / total) and three distributions as text bars."""

    DEFAULT_CSS = """
    MemoryPanel { height: auto; }
    MemoryPanel .memory-title { text-style: bold; margin-top: 1; }
    MemoryPanel DataTable { height: auto; max-height: 12; }
    MemoryPanel .memory-bars { height: auto; }
    """

    def _t(self, key: str, **args: object) -> str:
        return self.app.t(key, **args)  # type: ignore[attr-defined]

    def compose(self) -> ComposeResult:
        yield Static(Text(self._t("retention.title")), classes="memory-title")
        yield DataTable(id="true-retention", cursor_type="none", zebra_stripes=True)
        yield Static(Text(self._t("retention.distributions")), classes="memory-title")
        yield Static(Text(""), id="memory-distributions", classes="memory-bars")

    def on_mount(self) -> None:
        table = self.query_one("#true-retention", DataTable)
        for key in ("period", "young", "mature", "total"):
            table.add_column(self._t(f"retention.col.{key}"), key=key)
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="memory-panel")
    def load(self) -> tuple[Any, Any]:
        from quizapp.store.retention import distributions, true_retention

        store = self.app.store  # type: ignore[attr-defined]
        return true_retention(store), distributions(store)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "memory-panel":
            return
        event.stop()
        if event.state == WorkerState.SUCCESS:
            rows, dists = event.worker.result
            self._show(rows, dists)
        elif event.state == WorkerState.ERROR:
            self.query_one("#memory-distributions", Static).update(
                Text(self._t("app.db_error", error=event.worker.error)))

    def _cell(self, cell) -> Text:
        if not cell.total:
            return Text("—", justify="right")
        return Text(self._t("retention.cell", rate=f"{cell.rate:.1%}", passed=cell.passed, total=cell.total),
                    justify="right")

    def _show(self, rows, dists) -> None:
        table = self.query_one("#true-retention", DataTable)
        table.clear()
        for row in rows:
            table.add_row(Text(self._t(f"retention.period.{row.period}")), self._cell(row.young),
                          self._cell(row.mature), self._cell(row.total))
        lines: list[str] = []
        for key, bins in (("s", dists.stability), ("d", dists.difficulty), ("r", dists.retrievability)):
            lines.append(self._t(f"retention.dist.{key}"))
            top = max((n for _, n in bins), default=0) or 1
            width = max(len(label) for label, _ in bins)
            for label, n in bins:
                lines.append(f"  {label:>{width}} {'█' * round(BAR * n / top):<{BAR}} {n}")
        self.query_one("#memory-distributions", Static).update(Text("\n".join(lines)))
