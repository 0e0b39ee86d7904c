"""The calculator's breakdown as a table (term, formula with numbers, GB, GiB, total) plus fit and notes.

Rendering only: the numbers come from `quizapp.memory` (Breakdown, Fit); this widget formats them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from quizapp.tui.i18n import t

if TYPE_CHECKING:
    from quizapp.memory import Breakdown, Fit


def _bytes(value: float, unit: str) -> str:
    from quizapp.memory.quantities import format_bytes

    return format_bytes(value, unit)


class BreakdownTable(Vertical):
    """Shows one Breakdown (and, when the setup names a GPU, whether it fits)."""

    DEFAULT_CSS = """
    BreakdownTable {
        height: auto;
    }
    BreakdownTable > DataTable {
        height: auto;
        max-height: 14;
    }
    BreakdownTable > .breakdown--fit {
        margin-top: 1;
        text-style: bold;
    }
    BreakdownTable > .breakdown--fit.-no-fit {
        color: $error;
    }
    BreakdownTable > .breakdown--fit.-fits {
        color: $success;
    }
    BreakdownTable > .breakdown--notes {
        color: $text-muted;
    }
    """

    def __init__(
        self,
        breakdown: Breakdown,
        fit: Fit | None = None,
        *,
        lang: str = "en",
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.breakdown = breakdown
        self.fit = fit
        self.lang = lang

    def compose(self) -> ComposeResult:
        table: DataTable = DataTable(cursor_type="none", zebra_stripes=True)
        yield table
        fit = self.fit
        if fit is not None:
            key = "breakdown.fits" if fit.fits else "breakdown.no_fit"
            line = t(key, self.lang).format(
                gpu=fit.gpu.name,
                usable=_bytes(fit.usable, "GB"),
                headroom=_bytes(fit.headroom, "GB"),
                total=_bytes(self.breakdown.total, "GB"),
            )
            yield Static(Text(line), classes="breakdown--fit " + ("-fits" if fit.fits else "-no-fit"))
        notes = [f"• {t(f'term.{term.name}', self.lang)}: {term.note}" for term in self.breakdown.terms if term.note]
        notes += [f"• {note}" for note in self.breakdown.notes]
        if notes:
            yield Static(Text("\n".join(notes)), classes="breakdown--notes")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column(t("breakdown.term", self.lang), key="term")
        table.add_column("GB", key="gb")
        table.add_column("GiB", key="gib")
        table.add_column(t("breakdown.formula", self.lang), key="formula")
        for term in self.breakdown.terms:
            table.add_row(
                Text(t(f"term.{term.name}", self.lang)),
                Text(_bytes(term.bytes, "GB"), justify="right"),
                Text(_bytes(term.bytes, "GiB"), justify="right"),
                Text(f"{term.formula} = {term.substituted}"),
                key=term.name,
            )
        total = self.breakdown.total
        table.add_row(
            Text(t("breakdown.total", self.lang), style="bold"),
            Text(_bytes(total, "GB"), style="bold", justify="right"),
            Text(_bytes(total, "GiB"), style="bold", justify="right"),
            Text(""),
            key="total",
        )
