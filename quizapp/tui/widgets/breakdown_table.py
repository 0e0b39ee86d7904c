"""The calculator's breakdown as a table (term, formula with numbers, GB, GiB, total) plus fit and notes.

Rendering only: the numbers come from `quizapp.memory` (Breakdown, Fit); this widget formats them.
The table is one rich Table in a Static (not a DataTable, whose cells never wrap), so a long formula
and its substituted numbers fold onto more lines within the width instead of being cut off. Every
cell is a rich `Text`, so nothing from the calculator or the YAML is read as markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from quizapp.words import say

if TYPE_CHECKING:
    from quizapp.memory import Breakdown, Fit


def _bytes(value: float, unit: str) -> str:
    from quizapp.memory.quantities import format_bytes

    return format_bytes(value, unit)


def term_note(term: Any, lang: str) -> str:
    """A term's note (or a solution row's) in the app's language (memory gives a code; quizapp.words renders it)."""
    from quizapp.words.calc import render

    return render(term.code if hasattr(term, "code") else term.note, lang)


def render_code(code: Any, lang: str) -> str:
    from quizapp.words.calc import render

    return render(code, lang)


def breakdown_notes(breakdown: Any, lang: str) -> list[str]:
    """The breakdown's general notes (codes from memory) in the app's language."""
    from quizapp.words.calc import render

    return [render(code, lang) for code in breakdown.codes]


def _row_label(name: str, lang: str) -> str:
    for key in (f"term.{name}", f"solution.row.{name}"):
        word = say(key, lang)
        if word != key:
            return word
    return name.replace("_", " ")


_PARTNER = {"GB": "GiB", "GiB": "GB", "MB": "MiB", "MiB": "MB", "KB": "KiB", "KiB": "KB", "TB": "TiB", "TiB": "TB"}


def solution_rich_table(solution: Any, lang: str = "en") -> Table:
    """A drill's worked solution (quizapp.content.solution.WorkedSolution): the memory rows in the
    drill's byte unit and its decimal/binary partner (MB and MiB), the asked row marked with ▶."""
    from quizapp.content.drills import precise
    from quizapp.memory.quantities import unit_of

    byte_unit = solution.unit if unit_of(solution.unit).kind == "bytes" else None
    partner = _PARTNER.get(byte_unit or "")
    table = Table(box=box.SIMPLE, expand=True, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column(Text(say("breakdown.term", lang)), no_wrap=True)
    table.add_column(Text(say("breakdown.formula", lang)), ratio=1, overflow="fold")
    table.add_column(Text(byte_unit or ""), justify="right", no_wrap=True)
    if partner:
        table.add_column(Text(partner), justify="right", no_wrap=True)
    for row in solution.rows:
        style = "bold reverse" if row.asked else ""
        mark = "▶ " if row.asked else "  "
        label = _row_label(row.name, lang) + (f" ({say('solution.asked', lang)})" if row.asked else "")
        formula = f"{row.formula} = {row.substituted}" if row.formula else ""
        cells = [Text(mark + label, style=style), Text(formula), Text(row.shown, style=style)]
        if partner:
            cells.append(Text(precise(row.value, partner), style=style))
        table.add_row(*cells)
    return table


def breakdown_rich_table(breakdown: Breakdown, lang: str = "en") -> Table:
    """Columns term, formula with numbers, GB, GiB; one row per term, the total as the footer.

    The formula column takes the width that is left and folds; the figures never wrap.
    """
    total = breakdown.total
    table = Table(
        box=box.SIMPLE,
        expand=True,
        show_edge=False,
        pad_edge=False,
        show_footer=True,
        header_style="bold",
        footer_style="bold",
    )
    table.add_column(Text(say("breakdown.term", lang)), footer=Text(say("breakdown.total", lang)), no_wrap=True)
    table.add_column(Text(say("breakdown.formula", lang)), ratio=1, overflow="fold")
    table.add_column(Text("GB"), footer=Text(_bytes(total, "GB")), justify="right", no_wrap=True)
    table.add_column(Text("GiB"), footer=Text(_bytes(total, "GiB")), justify="right", no_wrap=True)
    for term in breakdown.terms:
        table.add_row(
            Text(say(f"term.{term.name}", lang)),
            Text(f"{term.formula} = {term.substituted}"),
            Text(_bytes(term.bytes, "GB")),
            Text(_bytes(term.bytes, "GiB")),
        )
    return table


class _TableView(Static):
    """A Static whose content height is measured once per width (a rich Table is costly to measure,
    and the layout asks for the height several times)."""

    def __init__(self, table: Table, *, classes: str | None = None) -> None:
        super().__init__(table, classes=classes)
        self._heights: dict[int, int] = {}

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            height = self._heights[width] = super().get_content_height(container, viewport, width)
        return height


class BreakdownTable(Vertical):
    """Shows one Breakdown (and, when the setup names a GPU, whether it fits)."""

    DEFAULT_CSS = """
    BreakdownTable {
        height: auto;
    }
    BreakdownTable > .breakdown--table {
        height: auto;
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
        solution: Any | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`solution` (a drill's WorkedSolution): rows in the drill's unit with the asked row marked."""
        super().__init__(id=id, classes=classes)
        if getattr(breakdown, "derived", False):  # a derived ask's worked solution given in the breakdown's place
            breakdown, solution, fit = None, breakdown, None
        self.breakdown = breakdown
        self.fit = fit
        self.lang = lang
        self.solution = solution

    def compose(self) -> ComposeResult:
        table = (solution_rich_table(self.solution, self.lang) if self.solution is not None
                 else breakdown_rich_table(self.breakdown, self.lang))
        yield _TableView(table, classes="breakdown--table")
        if getattr(self.solution, "derived", False):  # no memory: the steps' notes and the derivation's
            lines = [f"• {_row_label(r.name, self.lang)}: {term_note(r, self.lang)}" for r in self.solution.rows
                     if r.note and term_note(r, self.lang)]
            lines += [f"• {render_code(code, self.lang)}" for code in self.solution.notes]
            if lines:
                yield Static(Text("\n".join(lines)), classes="breakdown--notes")
            return
        fit = self.fit
        if fit is not None:
            key = "breakdown.fits" if fit.fits else "breakdown.no_fit"
            line = say(key, self.lang, 
                gpu=fit.gpu.name,
                usable=_bytes(fit.usable, "GB"),
                headroom=_bytes(fit.headroom, "GB"),
                total=_bytes(self.breakdown.total, "GB"),
            )
            yield Static(Text(line), classes="breakdown--fit " + ("-fits" if fit.fits else "-no-fit"))
        notes = [
            f"• {say(f'term.{term.name}', self.lang)}: {term_note(term, self.lang)}"
            for term in self.breakdown.terms
            if term_note(term, self.lang)
        ]
        notes += [f"• {note}" for note in breakdown_notes(self.breakdown, self.lang)]
        if notes:
            yield Static(Text("\n".join(notes)), classes="breakdown--notes")
