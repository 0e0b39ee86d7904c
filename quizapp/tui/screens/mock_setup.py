"""The small form behind `m` on Home: the same choices as `quizapp mock`, plus resuming or reading a
past interview. Validation is `MockOptions`'s; starting stores the planned session, then the
interview screen takes over.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Footer, Input, OptionList, SelectionList, Static
from textual.widgets.option_list import Option

from quizapp.store import mock as mock_store
from quizapp.store.errors import StoreError
from quizapp.tui.bindings import localize_bindings

RECENT = 8  # past sessions listed on the form


def session_line(summary: mock_store.MockSessionSummary, t, lang: str) -> str:
    """One past session as a line: date, questions, score, whether it was finished."""
    when = summary.date.astimezone().strftime("%Y-%m-%d %H:%M")
    score = "–" if summary.score is None else f"{summary.score:.0f}%"
    state = t("mock_setup.done") if summary.completed else t("mock_setup.unfinished").format(
        answered=summary.answered, total=summary.items)
    return t("mock_setup.past_line").format(when=when, questions=summary.questions, score=score, state=state)


class MockSetupScreen(Screen):
    """Questions, minutes, follow-ups, calculations, topics, seed, strict; start, resume, or open a past
    debrief."""

    CSS_PATH = "mock_setup.tcss"
    BINDINGS = [
        Binding("ctrl+s", "start", "Start", id="mock_setup.start", priority=True),
        Binding("escape", "back", "Back", id="back"),
    ]

    def compose(self) -> ComposeResult:
        t = self.app.t
        defaults = mock_store.MockOptions()
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
                yield Checkbox(t("mock_setup.strict"), id="setup-strict", compact=True)
            yield Static(Text(t("mock_setup.topics")), classes="setup-label")
            yield SelectionList[str](*[(Text(topic), topic) for topic in self.app.bank.topics()], id="setup-topics",
                                     compact=True)
            yield Static("", id="setup-error", markup=False)
            with Horizontal(id="setup-buttons"):
                yield Button(t("mock_setup.start"), id="setup-start", variant="primary", compact=True)
                yield Button(t("mock_setup.resume"), id="setup-resume", compact=True)
            yield Static(Text(t("mock_setup.past")), classes="setup-label", id="setup-past-label")
            yield OptionList(id="setup-past", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        localize_bindings(self, self.app.settings.lang)
        self.refresh_bindings()
        self.query_one("#setup-questions", Input).focus()
        self._load_past()

    def on_screen_resume(self) -> None:
        self._load_past()

    def _load_past(self) -> None:
        t = self.app.t
        try:
            sessions = mock_store.list_sessions(self.app.store, limit=RECENT)
            unfinished = mock_store.latest_incomplete(self.app.store)
        except StoreError as exc:  # the form still works without the history
            self.notify(t("mock.save_failed").format(error=exc), severity="error", markup=False)
            sessions, unfinished = [], None
        self.resume_id = unfinished
        self.query_one("#setup-resume", Button).display = unfinished is not None
        past = self.query_one("#setup-past", OptionList)
        past.clear_options()
        past.add_options([Option(Text(session_line(s, t, self.app.settings.lang)), id=str(s.id)) for s in sessions])
        self.query_one("#setup-past-label").display = bool(sessions)
        past.display = bool(sessions)

    def options(self) -> mock_store.MockOptions:
        """The form's values as MockOptions; MockError names the field that is wrong."""
        t = self.app.t

        def number(field: str, kind):
            text = self.query_one(f"#setup-{field}", Input).value.strip()
            try:
                return kind(text)
            except ValueError:
                raise mock_store.MockError(t("mock_setup.bad_number").format(field=t(f"mock_setup.{field}"),
                                                                             value=text)) from None

        seed_text = self.query_one("#setup-seed", Input).value.strip()
        topics = tuple(self.query_one("#setup-topics", SelectionList).selected)
        return mock_store.MockOptions(
            questions=number("questions", int),
            minutes=number("minutes", float),
            followups=number("followups", int),
            calcs=number("calcs", int),
            topics=topics,
            seed=number("seed", int) if seed_text else None,
            strict=self.query_one("#setup-strict", Checkbox).value,
        )

    def action_start(self) -> None:
        from quizapp.tui.screens.mock import MockScreen

        error = self.query_one("#setup-error", Static)
        try:
            record = mock_store.start_session(self.app.store, self.app.bank, self.options())
        except mock_store.MockError as exc:
            error.update(Text(str(exc)))
            return
        except StoreError as exc:  # a database error is shown, never a crash
            error.update(Text(self.app.t("mock.save_failed").format(error=exc)))
            return
        error.update("")
        self.app.switch_screen(MockScreen(record))

    def open_session(self, session_id: int) -> None:
        """An unfinished session resumes; a finished one opens its debrief."""
        from quizapp.tui.screens.debrief import DebriefScreen
        from quizapp.tui.screens.mock import MockScreen

        record = mock_store.load_session(self.app.store, session_id)
        if record.next_index is None or record.session.completed:
            self.app.push_screen(DebriefScreen(session_id))
        else:
            self.app.switch_screen(MockScreen(record))

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
        if self.resume_id is not None:
            self.open_session(self.resume_id)

    @on(OptionList.OptionSelected, "#setup-past")
    def _past_selected(self, event: OptionList.OptionSelected) -> None:
        self.open_session(int(event.option.id))
