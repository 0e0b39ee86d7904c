"""Author preview: one question file rendered exactly as review shows it, re-rendered when the file changes.

The widgets are review's own (QuestionView, AnswerPanel with its lazily filled tabs, BreakdownTable).
Each drill gets a compact section (its prompt, expected value and breakdown) rather than a whole
AnswerPanel, so a file with twenty drills renders in well under a second. Parsing the file and the
calculator's work run in a thread worker (`PreviewModel`); the UI thread only mounts widgets. A file
with problems shows them inline, under the line each one names, instead of the question; saving a
fixed file clears them. The file is polled (mtime and size) with set_interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Header, Static
from textual.worker import get_current_worker

from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.footer import Footer

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


CONTEXT_LINES = 3  # lines shown above the first problem when the preview scrolls to it


def first_problem_line(problems: list[Any]) -> int:
    return min((max(int(p.line), 1) for p in problems), default=1)


def annotated_source(source: str, problems: list[Any], first: int = 1, last: int | None = None) -> Text:
    """The file with line numbers and, under each line a problem names, a caret at its column and the
    message; only lines first..last (1-based, inclusive) when given, numbered as in the file."""
    by_line: dict[int, list[Any]] = {}
    for problem in problems:
        by_line.setdefault(max(int(problem.line), 1), []).append(problem)
    lines = source.splitlines() or [""]
    width = len(str(len(lines)))
    last = len(lines) if last is None else last
    text = Text()
    for number, line in enumerate(lines, start=1):
        if not first <= number <= last:
            continue
        flagged = number in by_line
        text.append(f"{number:>{width}} │ ", style="bold red" if flagged else "dim")
        text.append(line + "\n")
        for problem in by_line.get(number, []):
            # the caret under the problem's character: columns count characters, the screen counts cells
            # (a CJK character is two cells wide)
            before = cell_len(line[:max(int(problem.col), 1) - 1].expandtabs(8))
            text.append(" " * (width + 3 + before), style="dim")
            text.append("^\n", style="bold red")
            text.append(" " * (width + 3), style="dim")
            text.append(f"{problem.line}:{problem.col} {problem.path}: {problem.message}\n", style="red")
    beyond = [p for n, ps in by_line.items() if n > len(lines) for p in ps] if last >= len(lines) else []
    for problem in beyond:
        text.append(f"{problem.line}:{problem.col} {problem.path}: {problem.message}\n", style="red")
    text.rstrip()
    return text


@dataclass(frozen=True)
class DrillPreview:
    """One drill as the preview shows it: the drawn variant and the fit of its breakdown, or the error."""

    drill: Any
    variant: Any | None = None
    fit: Any | None = None
    error: str | None = None


@dataclass(frozen=True)
class PreviewModel:
    """Everything computed from the file (off the UI thread): what `_show_model` mounts."""

    question: Any | None = None
    problems: list[Any] = field(default_factory=list)
    unreadable: str | None = None
    source: str = ""
    drills: list[DrillPreview] = field(default_factory=list)
    solutions: dict[str, tuple[Any, Any, str | None]] = field(default_factory=dict)


def build_preview_model(path: Path, seed: int | None, lang: str = "zh") -> PreviewModel:
    """Parse the file, draw each drill's variant and compute every breakdown (no Textual work); the
    question is shown in `lang` (the other language where the file has only that one)."""
    from quizapp.content import draw_variant, load_question_file
    from quizapp.content.localize import localize
    from quizapp.content.files import read_text
    from quizapp.practice.cards import drill_breakdown, gpu_fit

    try:
        source = read_text(path)  # validate's bounded reader: regular files only, at most 1 MiB + 1 byte
    except OSError as exc:  # a missing or unreadable file, a FIFO, a device: one line (validate's reason)
        return PreviewModel(unreadable=exc.strerror or str(exc))
    question, found = load_question_file(path)
    problems = [p for p in found if p.severity == "error"]  # warnings do not stop the preview
    if question is None or problems:
        return PreviewModel(question, problems, source=source)
    question = localize(question, lang)
    drills: list[DrillPreview] = []
    solutions: dict[str, tuple[Any, Any, str | None]] = {}
    for drill in question.drills:
        result, error = drill_breakdown(drill)
        solutions[drill.id] = (result, gpu_fit(result) if result is not None else None, error)
        try:
            variant = draw_variant(question, drill, 0 if seed is None else seed)
        except ValueError as exc:  # SetupError, QuantityError: shown to the author, never a crash
            drills.append(DrillPreview(drill, error=str(exc)))
            continue
        drills.append(DrillPreview(drill, variant, gpu_fit(variant.breakdown)))
    return PreviewModel(question, [], source=source, drills=drills, solutions=solutions)


class PreviewScreen(QuizScreen[None]):
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
        self.model = PreviewModel()
        self._signature: tuple[int, int] | None = None

    @property
    def question(self) -> Any:
        return self.model.question

    @property
    def problems(self) -> list[Any]:
        return self.model.problems

    def _t(self, key: str, **args: object) -> str:
        return self.app.t(key, **args)  # type: ignore[attr-defined]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text(""), id="preview-status")
        yield VerticalScroll(id="preview-body")
        yield Footer()

    def on_mount(self) -> None:
        self.reload()
        if self.poll_seconds:
            self.set_interval(self.poll_seconds, self.check_for_changes)

    # --- watching ------------------------------------------------------------------------------------
    def check_for_changes(self) -> bool:
        """Start a re-render if the file changed on disk since the last one; True if it did."""
        if file_signature(self.path) == self._signature:
            return False
        self.reload()
        return True

    def action_reload(self) -> None:
        self.reload()

    async def action_toggle_reveal(self) -> None:
        self.revealed = not self.revealed
        await self._show_model(self.model)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()

    def reload(self) -> None:
        """Read the file again and re-render it (the reading and computing happen in a thread)."""
        self._signature = file_signature(self.path)
        seed = self.app.settings.seed
        self._load(self.path, seed, self.app.settings.lang)

    @work(thread=True, exclusive=True, exit_on_error=False, group="preview-load")
    def _load(self, path: Path, seed: int | None, lang: str) -> None:
        try:
            model = build_preview_model(path, seed, lang)
        except (OSError, ValueError) as exc:  # an unreadable file or a bad value: one line for the author
            model = PreviewModel(unreadable=str(exc))
        if not get_current_worker().is_cancelled:  # a newer render replaced this one
            self.app.call_from_thread(self._show_model, model)

    # --- rendering -----------------------------------------------------------------------------------
    async def _show_model(self, model: PreviewModel) -> None:
        self.model = model
        status = self.query_one("#preview-status", Static)
        name = display_name(self.path)
        if model.unreadable is not None:
            status.update(Text(self._t("preview.unreadable", file=name, error=model.unreadable)))
            status.set_class(True, "-problems")
            widgets: list[Widget] = []
        elif model.question is None or model.problems:
            status.update(Text(self._t("preview.problems", file=name, n=len(model.problems))))
            status.set_class(True, "-problems")
            widgets = self._problem_widgets(model)
        else:
            status.update(Text(self._t("preview.watching", file=name)))
            status.set_class(False, "-problems")
            widgets = self._question_widgets(model)
        body = self.query_one("#preview-body", VerticalScroll)
        with self.app.batch_update():
            await body.remove_children()
            await body.mount_all(widgets)
        if model.problems:
            self.call_after_refresh(self._scroll_to_first_problem)

    def _problem_widgets(self, model: PreviewModel) -> list[Widget]:
        """The heading and the annotated file, split a few lines above the first problem so the screen
        can scroll there (`_scroll_to_first_problem`): a long file's error is in view at once."""
        split = first_problem_line(model.problems) - CONTEXT_LINES
        widgets: list[Widget] = [Static(Text(self._t("preview.source")), classes="preview-heading")]
        if split > 1:
            widgets.append(Static(annotated_source(model.source, model.problems, 1, split - 1),
                                  id="preview-source-above"))
        widgets.append(Static(annotated_source(model.source, model.problems, max(split, 1)), id="preview-source"))
        return widgets

    def _scroll_to_first_problem(self) -> None:
        found = self.query("#preview-source")
        if found and self.query("#preview-source-above"):
            self.query_one("#preview-body", VerticalScroll).scroll_to_widget(found.first(), top=True, animate=False)

    def _question_widgets(self, model: PreviewModel) -> list[Widget]:
        from quizapp.tui.widgets.answer_panel import AnswerPanel
        from quizapp.tui.widgets.breakdown_table import BreakdownTable
        from quizapp.tui.widgets.question_view import QuestionView

        question = model.question
        lang = self.lang
        widgets: list[Widget] = [QuestionView(question, lang=lang, classes="preview-card")]
        if not self.revealed:
            widgets.append(Static(Text(self._t("preview.hidden")), classes="preview-hint"))
            return widgets
        widgets.append(AnswerPanel(question, lang=lang, solutions=model.solutions))
        for followup in question.followups:
            widgets.append(Static(Text(self._t("preview.followup", id=followup.id)), classes="preview-heading"))
            widgets.append(QuestionView(question, "followup", followup, lang=lang, classes="preview-card"))
            widgets.append(AnswerPanel(question, "followup", followup, lang=lang, solutions=model.solutions))
        for item in model.drills:
            drill, variant = item.drill, item.variant
            if variant is None:
                widgets.append(Static(Text(self._t("preview.drill_error", id=drill.id, error=item.error)),
                                      classes="preview-heading -error"))
                continue
            widgets.append(Static(Text(self._t("preview.drill", id=drill.id)), classes="preview-heading"))
            # The parent question is the file's own, shown once at the top.
            widgets.append(QuestionView(question, "drill", drill, variant, lang=lang, show_parent=False,
                                        classes="preview-card"))
            expected = Text(f"{self._t('review.expected')}: ", style="bold")
            expected.append(variant.expected_display)
            widgets.append(Static(expected, classes="preview-expected"))
            if getattr(variant, "derivation", None) is not None:  # no memory term: the derivation's steps
                from quizapp.content.solution import worked_solution

                widgets.append(BreakdownTable(worked_solution(variant), lang=lang))
            else:
                widgets.append(BreakdownTable(variant.breakdown, item.fit, lang=lang))
        return widgets
