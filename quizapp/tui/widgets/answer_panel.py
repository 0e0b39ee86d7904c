"""The revealed side of a card: the standard answer, then tabs (worked solution, 答题模板, ...).

Used by review after reveal and by the preview screen. All YAML text goes through Markdown; the
calculator's numbers through BreakdownTable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Markdown, Static, TabbedContent, TabPane

from quizapp.tui.cards import drill_breakdown, gpu_fit, safe_render
from quizapp.tui.i18n import t
from quizapp.tui.widgets.breakdown_table import BreakdownTable

if TYPE_CHECKING:
    from quizapp.content import DrillVariant, Question

TABS = ("solution", "template", "followups", "mistakes", "errata", "reading")


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
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.question = question
        self.kind = kind
        self.item = item
        self.variant = variant
        self.lang = lang

    def standard_answer(self) -> str:
        q = self.question
        if self.kind == "followup" and self.item is not None:
            return safe_render(q, self.item.a)
        if self.kind == "drill" and self.variant is not None:
            return f"**{t('review.expected', self.lang)}:** `{self.variant.expected_display}`"
        return safe_render(q, q.answer)

    def compose(self) -> ComposeResult:
        yield Markdown(self.standard_answer(), classes="answer--standard")
        with TabbedContent(id="answer-tabs"):
            with TabPane(t("tab.solution", self.lang), id="tab-solution"):
                yield from self._solution()
            with TabPane(t("tab.template", self.lang), id="tab-template"):
                yield from self._markdown_or_none(safe_render(self.question, self.question.template))
            with TabPane(t("tab.followups", self.lang), id="tab-followups"):
                yield from self._markdown_or_none(self._followups())
            with TabPane(t("tab.mistakes", self.lang), id="tab-mistakes"):
                yield from self._markdown_or_none(self._mistakes())
            with TabPane(t("tab.errata", self.lang), id="tab-errata"):
                yield from self._markdown_or_none(self._errata())
            with TabPane(t("tab.reading", self.lang), id="tab-reading"):
                yield from self._markdown_or_none("\n".join(f"- {r}" for r in self.question.reading or []))

    def _markdown_or_none(self, markdown: str) -> ComposeResult:
        if markdown and markdown.strip():
            yield Markdown(markdown)
        else:
            yield Static(Text(t("tab.none", self.lang)), classes="answer--none")

    def _solution(self) -> ComposeResult:
        if self.kind == "drill" and self.variant is not None:
            yield BreakdownTable(self.variant.breakdown, gpu_fit(self.variant.breakdown), lang=self.lang)
            return
        drills = list(self.question.drills or [])
        if not drills:
            yield Static(Text(t("tab.none", self.lang)), classes="answer--none")
            return
        for drill in drills:
            yield Static(Text(drill.id), classes="answer--drill-title")
            result, error = drill_breakdown(drill)
            if result is None:
                yield Static(Text(t("breakdown.error", self.lang).format(error=error)))
            else:
                yield BreakdownTable(result, gpu_fit(result), lang=self.lang)

    def _followups(self) -> str:
        parts = []
        for followup in self.question.followups or []:
            parts.append(f"**{followup.q.strip()}**\n\n{safe_render(self.question, followup.a)}")
        return "\n\n---\n\n".join(parts)

    def _mistakes(self) -> str:
        lang = self.lang
        parts = []
        for mistake in self.question.mistakes or []:
            lines = [
                f"- ✗ **{t('mistake.wrong', lang)}:** {mistake.wrong}",
                f"  - ✓ **{t('mistake.right', lang)}:** {mistake.right}",
            ]
            if getattr(mistake, "why", None):
                lines.append(f"  - **{t('mistake.why', lang)}:** {mistake.why}")
            parts.append("\n".join(lines))
        return "\n".join(parts)

    def _errata(self) -> str:
        lang = self.lang
        parts = []
        for erratum in self.question.errata or []:
            lines = [
                f"**{t('errata.claim', lang)}:** {erratum.claim}",
                "",
                f"**{t('errata.correct', lang)}:** {safe_render(self.question, erratum.correct)}",
            ]
            if getattr(erratum, "why", None):
                lines += ["", f"**{t('mistake.why', lang)}:** {erratum.why}"]
            parts.append("\n".join(lines))
        return "\n\n---\n\n".join(parts)
