"""Author preview: one question file rendered exactly as review shows it, re-rendered when the file changes.

The widgets are review's own (QuestionView, AnswerPanel with its tabs and BreakdownTable). A file
with problems shows them inline, under the line each one names, instead of the question; saving a
fixed file clears them. The file is polled (mtime and size) with set_interval.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Header, Static

from quizapp.tui.bindings import localize_bindings

POLL_SECONDS = 0.5


def file_signature(path: Path) -> tuple[int, int] | None:
    """What changes when the file is saved (mtime in ns, size); None if it cannot be read."""
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def display_name(path: Path) -> str:
    """The path relative to the working folder when it is inside it, else just the file name."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return path.name


def annotated_source(source: str, problems: list[Any]) -> Text:
    """The file with line numbers and, under each line a problem names, a caret at its column and the message."""
    by_line: dict[int, list[Any]] = {}
    for problem in problems:
        by_line.setdefault(max(int(problem.line), 1), []).append(problem)
    lines = source.splitlines() or [""]
    width = len(str(len(lines)))
    text = Text()
    for number, line in enumerate(lines, start=1):
        flagged = number in by_line
        text.append(f"{number:>{width}} │ ", style="bold red" if flagged else "dim")
        text.append(line + "\n")
        for problem in by_line.get(number, []):
            text.append(" " * (width + 3 + max(int(problem.col), 1) - 1), style="dim")
            text.append("^\n", style="bold red")
            text.append(" " * (width + 3), style="dim")
            text.append(f"{problem.line}:{problem.col} {problem.path}: {problem.message}\n", style="red")
    beyond = [p for n, ps in by_line.items() if n > len(lines) for p in ps]
    for problem in beyond:
        text.append(f"{problem.line}:{problem.col} {problem.path}: {problem.message}\n", style="red")
    text.rstrip()
    return text


class PreviewScreen(Screen[None]):
    """Preview of one question file for its author."""

    CSS_PATH = "preview.tcss"
    BINDINGS = [
        Binding("space", "toggle_reveal", "Reveal/hide", id="toggle_reveal"),
        Binding("r", "reload", "Reload", id="reload"),
        Binding("escape", "back", "Back", id="back"),
    ]

    def __init__(self, path: Path, poll_seconds: float | None = POLL_SECONDS) -> None:
        super().__init__()
        self.path = Path(path)
        self.poll_seconds = poll_seconds
        self.revealed = True
        self.question: Any = None
        self.problems: list[Any] = []
        self._signature: tuple[int, int] | None = None

    def _t(self, key: str) -> str:
        return self.app.t(key)  # type: ignore[attr-defined]

    @property
    def lang(self) -> str:
        settings = getattr(self.app, "settings", None)
        return getattr(settings, "lang", "en")

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text(""), id="preview-status")
        yield VerticalScroll(id="preview-body")
        yield Footer()

    async def on_mount(self) -> None:
        localize_bindings(self, self.lang)
        self.refresh_bindings()
        await self.reload()
        if self.poll_seconds:
            self.set_interval(self.poll_seconds, self.check_for_changes)

    # --- watching ------------------------------------------------------------------------------------
    async def check_for_changes(self) -> bool:
        """Re-render if the file changed on disk since the last render; True if it did."""
        if file_signature(self.path) == self._signature:
            return False
        await self.reload()
        return True

    async def action_reload(self) -> None:
        await self.reload()

    async def action_toggle_reveal(self) -> None:
        self.revealed = not self.revealed
        await self._show_file()

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()

    async def reload(self) -> None:
        from quizapp.content import load_question_file

        self._signature = file_signature(self.path)
        try:
            self.path.read_bytes()  # a missing or unreadable file is one line, not a traceback
        except OSError as exc:
            self.question, self.problems = None, []
            await self._show_file(unreadable=exc.strerror or str(exc))
            return
        self.question, self.problems = load_question_file(self.path)
        await self._show_file()

    # --- rendering -----------------------------------------------------------------------------------
    async def _show_file(self, unreadable: str | None = None) -> None:
        status = self.query_one("#preview-status", Static)
        name = display_name(self.path)
        if unreadable is not None:
            status.update(Text(self._t("preview.unreadable").format(file=name, error=unreadable)))
            status.set_class(True, "-problems")
            widgets: list[Widget] = []
        elif self.question is None or self.problems:
            status.update(Text(self._t("preview.problems").format(file=name, count=len(self.problems))))
            status.set_class(True, "-problems")
            widgets = self._problem_widgets()
        else:
            status.update(Text(self._t("preview.watching").format(file=name)))
            status.set_class(False, "-problems")
            widgets = self._question_widgets(self.question)
        body = self.query_one("#preview-body", VerticalScroll)
        await body.remove_children()
        await body.mount_all(widgets)

    def _problem_widgets(self) -> list[Widget]:
        try:
            source = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            source = ""
        return [
            Static(Text(self._t("preview.source")), classes="preview-heading"),
            Static(annotated_source(source, self.problems), id="preview-source"),
        ]

    def _question_widgets(self, question: Any) -> list[Widget]:
        from quizapp.content import draw_variant
        from quizapp.tui.widgets.answer_panel import AnswerPanel
        from quizapp.tui.widgets.question_view import QuestionView

        lang = self.lang
        seed = getattr(getattr(self.app, "settings", None), "seed", None)
        widgets: list[Widget] = [QuestionView(question, lang=lang, classes="preview-card")]
        if not self.revealed:
            widgets.append(Static(Text(self._t("preview.hidden")), classes="preview-hint"))
            return widgets
        widgets.append(AnswerPanel(question, lang=lang))
        for followup in question.followups:
            widgets.append(Static(Text(self._t("preview.followup").format(id=followup.id)), classes="preview-heading"))
            widgets.append(QuestionView(question, "followup", followup, lang=lang, classes="preview-card"))
            widgets.append(AnswerPanel(question, "followup", followup, lang=lang))
        for drill in question.drills:
            try:
                variant = draw_variant(question, drill, 0 if seed is None else seed)
            except Exception as exc:  # noqa: BLE001 - shown to the author, never a crash
                widgets.append(Static(Text(self._t("preview.drill_error").format(id=drill.id, error=exc)),
                                      classes="preview-heading -error"))
                continue
            widgets.append(Static(Text(self._t("preview.drill").format(id=drill.id)), classes="preview-heading"))
            widgets.append(QuestionView(question, "drill", drill, variant, lang=lang, classes="preview-card"))
            widgets.append(AnswerPanel(question, "drill", drill, variant, lang=lang))
        return widgets
