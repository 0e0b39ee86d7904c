"""The small form behind `m` on Home: the same choices as `quizapp mock`, plus resuming or reading a
past interview. Validation is `MockOptions`'s; starting plans and stores the session (in the
background), then the app opens the interview. The form opens with the choices of the last interview
started from it (`interview.remembered_options`, a store setting; the seed is not kept).

At 80x24 everything fits without scrolling (the rows close up below 30 lines), and the footer offers
ctrl+r (resume the unfinished interview, when there is one) and ctrl+o (the past interviews' list).
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Checkbox, Input, OptionList, SelectionList, Static
from textual.widgets.option_list import Option

from quizapp.practice import interview
from quizapp.practice.interview import MockError, MockOptions, MockRecord, MockSessionSummary
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.footer import Footer
from quizapp.tui.widgets.tick import TickBox, TickList

RECENT = 8  # past sessions listed on the form


def session_line(summary: MockSessionSummary, t) -> str:
    """One past session as a line: date, questions, score, whether it was finished."""
    when = summary.date.astimezone().strftime("%Y-%m-%d %H:%M")
    score = "–" if summary.score is None else f"{summary.score:.0f}%"
    if not summary.completed:  # the score counts only what was answered: say so, not a bare "100%"
        score = t("mock.score_over_answered", score=score, answered=summary.answered, total=summary.items)
    state = t("mock_setup.done") if summary.completed else t("mock_setup.unfinished",
        answered=summary.answered, total=summary.items)
    return t("mock_setup.past_line", when=when, n=summary.questions, score=score, state=state)


class MockSetupScreen(QuizScreen[None]):
    """Questions, minutes, follow-ups, calculations, topics, seed, strict; start, resume, or open a past
    debrief."""

    CSS_PATH = "mock_setup.tcss"
    # Below 30 lines the rows close up, so the resume button and the past interviews stay on screen.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    # ctrl keys: the fields take letters. Not ctrl+a/e/d/k/u/w/x/c/v (Input's), ctrl+q/c/t/p (the app's).
    BINDINGS = [
        Binding("ctrl+s", "start", "Start", id="mock_setup.start", priority=True),
        Binding("ctrl+r", "resume", "Resume", id="mock_setup.resume", priority=True),
        Binding("ctrl+o", "past", "Past mocks", id="mock_setup.past", priority=True),
        Binding("escape", "back", "Back", id="back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.resume_id: int | None = None  # the newest unfinished interview (ctrl+r), once read
        self.has_past = False  # past interviews listed (ctrl+o)

    def compose(self) -> ComposeResult:
        t = self.t
        defaults = MockOptions()
        with VerticalScroll(id="setup-body"):
            yield Static(Text(t("mock_setup.title")), classes="screen-title")
            for field, value in (("questions", defaults.questions), ("minutes", defaults.minutes),
                                 ("followups", defaults.followups), ("calcs", defaults.calcs)):
                with Horizontal(classes="setup-row"):
                    yield Static(Text(t(f"mock_setup.{field}")), classes="setup-label")
                    yield Input(f"{value:g}", id=f"setup-{field}", compact=True, classes="setup-input")
            with Horizontal(classes="setup-row"):
                yield Static(Text(t("mock_setup.seed")), classes="setup-label")
                yield Input("", id="setup-seed", compact=True, classes="setup-input",
                            placeholder=t("mock_setup.seed_placeholder"))
            with Horizontal(classes="setup-row"):
                yield Static(Text(t("mock_setup.strict_label")), classes="setup-label")
                yield TickBox(t("mock_setup.strict"), id="setup-strict", compact=True)
            yield Static(Text(t("mock_setup.topics")), classes="setup-heading", id="setup-topics-label")
            yield TickList[str](*[(Text(topic), topic) for topic in self.app.bank.topics()], id="setup-topics",
                                compact=True)
            yield Static("", id="setup-error", markup=False)
            with Horizontal(id="setup-buttons"):
                yield Button(t("mock_setup.start"), id="setup-start", variant="primary", compact=True)
                yield Button(t("mock_setup.resume"), id="setup-resume", compact=True)
            yield Static(Text(t("mock_setup.past")), classes="setup-heading", id="setup-past-label")
            yield OptionList(id="setup-past", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#setup-questions", Input).focus()
        self.query_one("#setup-error").display = False
        self._show_past(([], None))
        store, topics = self.app.store, self.app.bank.topics()
        self.in_background(lambda: interview.remembered_options(store, topics), self._show_options)
        self._load_past()

    def on_screen_resume(self) -> None:
        self._load_past()

    def _show_options(self, options: MockOptions) -> None:
        """Fill the form with the last started choices (the defaults the first time); a field the user
        already changed while they were being read is left as typed."""
        defaults = MockOptions()
        for field in ("questions", "minutes", "followups", "calcs"):
            box = self.query_one(f"#setup-{field}", Input)
            if box.value == f"{getattr(defaults, field):g}":
                box.value = f"{getattr(options, field):g}"
        strict = self.query_one("#setup-strict", Checkbox)
        if strict.value == defaults.strict:
            strict.value = options.strict
        topics = self.query_one("#setup-topics", SelectionList)
        if not topics.selected:
            for topic in options.topics:
                topics.select(topic)

    def _load_past(self) -> None:
        store = self.app.store
        self.in_background(lambda: (interview.list_sessions(store, limit=RECENT), interview.latest_incomplete(store)),
                           self._show_past)

    def _show_past(self, past_and_unfinished: tuple[list[MockSessionSummary], int | None]) -> None:
        sessions, unfinished = past_and_unfinished
        self.resume_id = unfinished
        self.has_past = bool(sessions)
        self.query_one("#setup-resume", Button).display = unfinished is not None
        past = self.query_one("#setup-past", OptionList)
        past.clear_options()
        past.add_options([Option(Text(session_line(s, self.t)), id=str(s.id)) for s in sessions])
        self.query_one("#setup-past-label").display = bool(sessions)
        past.display = bool(sessions)
        self.refresh_bindings()

    def check_action(self, action: str, parameters) -> bool | None:
        """The footer offers ctrl+r only with an unfinished interview, ctrl+o only with past ones."""
        if action == "resume":
            return self.resume_id is not None
        if action == "past":
            return self.has_past
        return True

    def options(self) -> MockOptions:
        """The form's values as MockOptions; MockError names the field that is wrong."""
        t = self.t

        def number(field: str, kind):
            text = self.query_one(f"#setup-{field}", Input).value.strip()
            try:
                return kind(text)
            except ValueError:
                raise MockError(t("mock_setup.bad_number", field=t(f"mock_setup.{field}"),
                                                                             value=text)) from None

        seed_text = self.query_one("#setup-seed", Input).value.strip()
        topics = tuple(self.query_one("#setup-topics", SelectionList).selected)
        return MockOptions(
            questions=number("questions", int),
            minutes=number("minutes", float),
            followups=number("followups", int),
            calcs=number("calcs", int),
            topics=topics,
            seed=number("seed", int) if seed_text else None,
            strict=self.query_one("#setup-strict", Checkbox).value,
        )

    def _show_error(self, message: str) -> None:
        error = self.query_one("#setup-error", Static)
        error.update(Text(message))
        error.display = bool(message)

    def action_start(self) -> None:
        try:
            options = self.options()
        except MockError as exc:
            self._show_error(str(exc))
            return
        self._show_error("")
        store, bank = self.app.store, self.app.bank

        def start() -> MockRecord:
            record = interview.start_session(store, bank, options)
            interview.remember_options(store, options)  # the form opens with these next time
            return record

        self.in_background(start, self.app.open_interview)

    def background_failed(self, error: BaseException) -> None:
        self._show_error(str(error))

    def action_resume(self) -> None:
        """ctrl+r or the Resume button: continue the newest unfinished interview."""
        if self.resume_id is not None:
            self.open_session(self.resume_id)

    def action_past(self) -> None:
        """ctrl+o: the past interviews' list, focused and scrolled into view (Enter opens one)."""
        past = self.query_one("#setup-past", OptionList)
        if not past.display:
            return
        past.focus()
        if past.highlighted is None and past.option_count:
            past.highlighted = 0
        self.call_after_refresh(lambda: past.scroll_visible(animate=False))

    def open_session(self, session_id: int) -> None:
        """An unfinished session resumes; a finished one opens its debrief."""
        store = self.app.store
        self.in_background(lambda: interview.load_session(store, session_id), self._open_record)

    def _open_record(self, record: MockRecord) -> None:
        if record.next_index is None or record.session.completed:
            self.app.open_debrief(record)
        else:
            self.app.open_interview(record)

    def action_back(self) -> None:
        self.app.pop_screen()

    @on(Button.Pressed, "#setup-start")
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#setup-resume")
    def _resume_pressed(self) -> None:
        self.action_resume()

    @on(OptionList.OptionSelected, "#setup-past")
    def _past_selected(self, event: OptionList.OptionSelected) -> None:
        self.open_session(int(event.option.id))
