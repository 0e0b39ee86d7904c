"""The revealed side of a card: the standard answer, then tabs (worked solution, 答题模板, ...).

Used by review after reveal and by the preview screen. All YAML text goes through Markdown; the
calculator's numbers through BreakdownTable. Tabs are filled lazily: only the active tab's content
is composed, the others when first activated, so a question with many drills reveals quickly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import OptionList, Static, TabbedContent, TabPane
from textual.widgets.option_list import Option

from quizapp.practice.cards import drill_breakdown, gpu_fit, safe_render
from quizapp.words import say
from quizapp.tui.widgets.breakdown_table import BreakdownTable
from quizapp.vocab import CardKind
from quizapp.tui.widgets.prose import Prose

if TYPE_CHECKING:
    from quizapp.content import DrillVariant, Question

TABS = ("solution", "template", "followups", "mistakes", "errata", "reading")
INLINE_DRILLS = 3  # up to this many drills' breakdowns show one under another; more: a list and one


def solution_widgets(result: Any, fit: Any, error: str | None, lang: str) -> list[Widget]:
    """A drill's breakdown table, or the calculator's one-line error."""
    if result is None:
        return [Static(Text(say("breakdown.error", lang, error=error)))]
    return [BreakdownTable(result, fit, lang=lang)]


class DrillSolutions(Vertical):
    """The worked solutions of a question with many drills: a list (id and total per drill) and,
    under it, the breakdown of the highlighted drill only, so twenty drills cost one table."""

    DEFAULT_CSS = """
    DrillSolutions {
        height: auto;
    }
    DrillSolutions > OptionList {
        height: auto;
        max-height: 12;
        margin-bottom: 1;
    }
    DrillSolutions > #drill-solution {
        height: auto;
    }
    """

    def __init__(self, entries: list[tuple[str, Any, Any, str | None]], *, lang: str = "en") -> None:
        """`entries`: (drill id, Breakdown or None, Fit or None, error) per drill."""
        super().__init__(classes="answer--drills")
        self.entries = entries
        self.lang = lang
        self.shown: int | None = None

    def _label(self, drill_id: str, result: Any) -> Text:
        text = Text(drill_id, style="bold")
        if getattr(result, "derived", False):  # a derived ask: its answer
            text.append(f" · {result.answer}")
        elif result is not None:
            from quizapp.memory.quantities import format_bytes

            text.append(f" · {say('breakdown.total', self.lang)} {format_bytes(result.total, 'GB')}")
        return text

    def compose(self) -> ComposeResult:
        yield OptionList(*(Option(self._label(e[0], e[1]), id=e[0]) for e in self.entries))
        yield Vertical(id="drill-solution")

    async def on_mount(self) -> None:
        await self.show(0)

    async def show(self, index: int) -> None:
        """Put the breakdown of drill `index` under the list."""
        if index == self.shown or not 0 <= index < len(self.entries):
            return
        self.shown = index
        drill_id, result, fit, error = self.entries[index]
        holder = self.query_one("#drill-solution", Vertical)
        await holder.remove_children()
        await holder.mount_all(
            [Static(Text(drill_id), classes="answer--drill-title"), *solution_widgets(result, fit, error, self.lang)]
        )

    @on(OptionList.OptionHighlighted)
    async def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        await self.show(event.option_index)


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.strip().splitlines())


class AnswerPanel(Vertical):
    """Standard answer + tabbed details for one card (question, follow-up or drill)."""

    DEFAULT_CSS = """
    AnswerPanel {
        height: auto;
    }
    AnswerPanel > .answer--standard {
        border-left: thick $success;
        padding: 0 1;
        margin: 1 0;
    }
    AnswerPanel TabbedContent {
        height: auto;
    }
    AnswerPanel TabPane {
        height: auto;
        padding: 1 0 0 0;
    }
    AnswerPanel .answer--drill-title {
        text-style: bold;
        margin-top: 1;
    }
    AnswerPanel .answer--none {
        color: $text-muted;
    }
    """

    def __init__(
        self,
        question: Question,
        kind: str = "question",
        item: Any | None = None,
        variant: DrillVariant | None = None,
        *,
        lang: str = "en",
        solutions: dict[str, tuple[Any, Any, str | None]] | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`solutions` (optional): drill id -> (Breakdown or None, Fit or None, error), computed
        beforehand (e.g. in a worker) so the worked-solution tab need not call the calculator."""
        super().__init__(id=id, classes=classes)
        self.question = question
        self.kind = kind
        self.item = item
        self.variant = variant
        self.lang = lang
        self.solutions = solutions
        self.filled: set[str] = set()  # the tabs whose content has been composed
        self._rendered = None

    @property
    def rendered(self):
        """Every prose field of the question rendered once (quizapp.content.render: no raw {{...}})."""
        if self._rendered is None:
            from quizapp.content.render import render_question

            self._rendered = render_question(self.question)
        return self._rendered

    def standard_answer(self) -> str:
        q = self.question
        if self.kind == CardKind.FOLLOWUP and self.item is not None:
            return safe_render(q, self.item.a)
        if self.kind == CardKind.DRILL and self.variant is not None:
            return f"**{say('review.expected', self.lang)}:** `{self.variant.expected_display}`"
        return safe_render(q, q.answer)

    def compose(self) -> ComposeResult:
        yield Prose(self.standard_answer(), classes="answer--standard")
        first = TABS[0]
        with TabbedContent(id="answer-tabs", initial=f"tab-{first}"):
            for name in TABS:
                with TabPane(say(f"tab.{name}", self.lang), id=f"tab-{name}"):
                    if name == first:
                        self.filled.add(name)
                        yield from self.tab_content(name)

    @on(TabbedContent.TabActivated, "#answer-tabs")
    async def _fill_tab(self, event: TabbedContent.TabActivated) -> None:
        """Compose a tab's content the first time it is shown."""
        await self._fill(event.pane)

    async def _fill(self, pane: TabPane) -> None:
        name = (pane.id or "").removeprefix("tab-")
        if name in TABS and name not in self.filled:
            self.filled.add(name)
            await pane.mount_all(self.tab_content(name))

    async def switch_tab(self, step: int) -> None:
        """[ and ]: the next (`step` 1) or previous (-1) tab, wrapping around. Its content is filled now and
        the card scrolls so the tab row sits at the top with the new tab's content under it (on a short
        window the tabs may have been below the fold); the tab row scrolls to keep the active tab shown."""
        tabs = self.query_one("#answer-tabs", TabbedContent)
        panes = [pane for pane in tabs.query(TabPane) if pane.id]
        ids = [pane.id for pane in panes]
        if tabs.active not in ids:
            return
        pane = panes[(ids.index(tabs.active) + step) % len(panes)]
        tabs.active = pane.id or ""
        await self._fill(pane)
        self.call_after_refresh(lambda: tabs.scroll_visible(top=True, animate=False))

    def tab_content(self, name: str) -> list[Widget]:
        """The widgets of one tab (`name` from TABS)."""
        if name == "solution":
            return list(self._solution())
        if name == "template":
            markdown = safe_render(self.question, self.question.template)
        elif name == "followups":
            markdown = self._followups()
        elif name == "mistakes":
            markdown = self._mistakes()
        elif name == "errata":
            markdown = self._errata()
        else:
            markdown = "\n".join(f"- {r}" for r in self.rendered.reading)
        return list(self._markdown_or_none(markdown))

    def _markdown_or_none(self, markdown: str) -> ComposeResult:
        if markdown and markdown.strip():
            yield Prose(markdown)
        else:
            yield Static(Text(say("tab.none", self.lang)), classes="answer--none")

    def _solution(self) -> ComposeResult:
        if self.kind == CardKind.DRILL and self.variant is not None:
            from quizapp.content.solution import worked_solution

            yield BreakdownTable(self.variant.breakdown, gpu_fit(self.variant.breakdown), lang=self.lang,
                                 solution=worked_solution(self.variant))
            return
        drills = list(self.question.drills or [])
        if not drills:
            yield Static(Text(say("tab.none", self.lang)), classes="answer--none")
            return
        entries = []
        for drill in drills:
            if self.solutions is not None and drill.id in self.solutions:
                result, fit, error = self.solutions[drill.id]
            else:
                result, error = drill_breakdown(drill)
                fit = gpu_fit(result) if result is not None else None
            entries.append((drill.id, result, fit, error))
        if len(entries) > INLINE_DRILLS:
            yield DrillSolutions(entries, lang=self.lang)
            return
        for drill_id, result, fit, error in entries:
            yield Static(Text(drill_id), classes="answer--drill-title")
            yield from solution_widgets(result, fit, error, self.lang)

    def _followups(self) -> str:
        parts = []
        for followup in self.rendered.followups:
            parts.append(f"**{followup.q.strip()}**\n\n{followup.a}")
        return "\n\n---\n\n".join(parts)

    def _mistakes(self) -> str:
        lang = self.lang
        parts = []
        for mistake in self.rendered.mistakes:
            lines = [
                f"- ✗ **{say('mistake.wrong', lang)}:** {mistake.wrong}",
                f"  - ✓ **{say('mistake.right', lang)}:** {mistake.right}",
            ]
            if getattr(mistake, "why", None):
                lines.append(f"  - **{say('mistake.why', lang)}:** {mistake.why}")
            parts.append("\n".join(lines))
        return "\n".join(parts)

    def _errata(self) -> str:
        lang = self.lang
        parts = []
        for erratum in self.rendered.errata:
            lines = [
                f"**{say('errata.claim', lang)}:** {erratum.claim}",
                "",
                f"**{say('errata.correct', lang)}:** {erratum.correct}",
            ]
            if getattr(erratum, "why", None):
                lines += ["", f"**{say('mistake.why', lang)}:** {erratum.why}"]
            parts.append("\n".join(lines))
        return "\n\n---\n\n".join(parts)
