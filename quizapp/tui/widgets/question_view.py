"""A question, follow-up or drill exactly as review shows it (also used by the preview screen).

Bodies are Markdown (YAML text is never Textual markup); the meta line is plain rich Text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from quizapp.words import say
from quizapp.vocab import CardKind
from quizapp.tui.widgets.prose import Prose

if TYPE_CHECKING:
    from quizapp.content import DrillVariant, Question


def fallback_note(question: Any, lang: str) -> str | None:
    """"shown in Chinese: no English text yet" for a question written in the other language only."""
    fallback = tuple(getattr(question, "fallback", None) or ())
    if not fallback:
        return None
    return say("content.fallback" if "title" in fallback else "content.fallback.some", lang)


class QuestionView(Vertical):
    """Meta line (kind, topic, tags), the parent question for a follow-up, then the body.

    `kind` is "question", "followup" or "drill"; `item` is the Followup or Drill for those kinds;
    `variant` is the drawn DrillVariant for a drill (its prompt is the concrete one).
    """

    DEFAULT_CSS = """
    QuestionView {
        height: auto;
    }
    QuestionView > .question--meta {
        color: $text-muted;
    }
    QuestionView > .question--parent-label {
        color: $text-muted;
        margin-top: 1;
    }
    QuestionView > .question--parent {
        border-left: thick $secondary;
        padding: 0 1;
        color: $text-muted;
    }
    QuestionView > Markdown {
        margin: 0;
        padding: 0;
    }
    QuestionView > .question--body {
        margin-top: 1;
    }
    QuestionView > .question--title MarkdownParagraph {
        text-style: bold;
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
        show_parent: bool = True,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`show_parent=False` leaves out the parent question above a follow-up or drill (the preview
        shows it once at the top)."""
        super().__init__(id=id, classes=classes)
        self.question = question
        self.kind = kind
        self.item = item
        self.variant = variant
        self.lang = lang
        self.show_parent = show_parent

    def meta_text(self) -> Text:
        """"[drill] topic · tag, tag · ★3" as plain text (brackets are literal)."""
        q = self.question
        text = Text()
        text.append(f"[{say(f'kind.{self.kind}', self.lang)}]", style="bold")
        text.append(" · ")
        text.append(q.topic)
        tags = list(getattr(q, "tags", None) or [])
        if tags:
            text.append(f" · {say('review.tags', self.lang)}: {', '.join(tags)}")
        difficulty = getattr(q, "difficulty", None)
        if difficulty:
            text.append(f" · {'★' * int(difficulty)}")
        note = fallback_note(q, self.lang)
        if note:
            text.append(f" · {note}", style="italic")
        return text

    def body_markdown(self) -> str:
        from quizapp.practice.cards import safe_render

        if self.kind == CardKind.FOLLOWUP and self.item is not None:
            return safe_render(self.question, self.item.q)
        if self.kind == CardKind.DRILL:
            if self.variant is not None:
                from quizapp.content.render import typeset

                return typeset(self.variant.prompt, self.question.lang)
            if self.item is not None:
                return self.item.prompt
        return safe_render(self.question, self.question.title)

    def compose(self) -> ComposeResult:
        yield Static(self.meta_text(), classes="question--meta")
        if self.kind in ("followup", "drill") and self.show_parent:
            label = "review.parent" if self.kind == CardKind.FOLLOWUP else "review.parent.drill"
            yield Static(Text(say(label, self.lang)), classes="question--parent-label")
            from quizapp.practice.cards import safe_render

            yield Prose(safe_render(self.question, self.question.title), classes="question--parent")
        title_class = " question--title" if self.kind == CardKind.QUESTION else ""
        yield Prose(self.body_markdown(), classes="question--body" + title_class)
