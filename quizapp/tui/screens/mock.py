"""The interview itself: one step at a time against the clock; no reveal, no hints.

The screen only renders and forwards keys: timers come from `InterviewTimers` (read from the clock's
monotonic time on every refresh), and every answer is stored through `quizapp.practice.interview` as
the user moves on (in the background, so a busy database never freezes the clock), so leaving (or a
crash) keeps what was answered.
"""

from __future__ import annotations

import threading

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.widgets import Button, Input, Markdown, Static, TextArea

from quizapp.practice import interview
from quizapp.practice.interview import MockRecord, StoredItem
from quizapp.practice.timers import InterviewTimers
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.countdown import CountdownDisplay
from quizapp.tui.widgets.footer import Footer
from quizapp.tui.widgets.prose import Prose
from quizapp.vocab import CardKind

REFRESH_S = 0.25  # how often the readout redraws; the numbers always come from the clock
DRAFT_SAVE_S = 5.0  # a draft being typed is saved this often (clock time), so a crash keeps it too


class MockScreen(QuizScreen[None]):
    """Ask each planned step of a stored mock session, from its first unanswered item."""

    CSS_PATH = "mock.tcss"
    AUTO_FOCUS = None

    # ctrl+n / ctrl+o / ctrl+l reach every terminal and work while typing (not ctrl+s/ctrl+q: flow
    # control; not ctrl+p: the palette; not ctrl+enter: a plain enter in many terminals). The plain
    # letters p and q also work outside the editor; they are never shown while the editor has focus,
    # where they type letters.
    BINDINGS = [
        Binding("ctrl+n", "done", "Done", id="mock.done", priority=True),
        Binding("ctrl+o", "pause", "Pause", id="mock.pause", priority=True),
        Binding("ctrl+l", "leave", "Save & leave", id="mock.leave", priority=True),
        Binding("escape", "leave_editor", "Leave editor", id="mock.leave_editor"),
        Binding("p", "pause_key", "Pause", id="mock.pause_key", show=False),
        Binding("q", "leave_key", "Save & leave", id="mock.leave_key", show=False),
    ]

    editing: reactive[bool] = reactive(False, bindings=True)  # typing in the editor: plain letters type

    def __init__(self, plan: MockRecord) -> None:
        super().__init__()
        self.record = plan
        self.index: int | None = plan.next_index
        self.timers: InterviewTimers | None = None
        self._moving = False
        self._text = ""  # the current step's draft, mirrored from the editor (kept after unmount)
        self._dirty = False
        self._saved_at = 0.0

    # --- layout ----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        t = self.t
        with Horizontal(id="mock-bar"):
            yield Static("", id="mock-progress", markup=False)
            for timer in ("step", "total"):
                yield CountdownDisplay(t(f"mock.timer.{timer}"), t("mock.paused.short"), t("mock.overtime"),
                                       id=f"timer-{timer}")
        yield Static(Text(t("mock.paused")), id="mock-paused")
        with VerticalScroll(id="mock-question"):
            yield Static("", id="mock-parent", markup=False)
            yield Prose("", id="mock-prompt")
            yield Static("", id="mock-hint", markup=False)
        with Vertical(id="mock-answer"):
            yield TextArea("", id="mock-draft", soft_wrap=True, tab_behavior="focus")
            yield Input("", id="mock-calc", placeholder="")
        with Horizontal(id="mock-buttons"):
            yield Button(t("mock.done"), id="mock-done", variant="primary")
            yield Button(t("mock.pause"), id="mock-pause")
            yield Button(t("mock.leave"), id="mock-leave")
        yield Footer()

    def on_mount(self) -> None:
        session = self.record.session
        self.timers = InterviewTimers(self.app.clock, self.record.total_budget, strict=session.strict,
                                      total_elapsed=session.elapsed_s)
        if self.index is None:
            self._finish()
            return
        self._show_step()
        self.set_interval(REFRESH_S, self.tick)

    # --- steps -----------------------------------------------------------------------------------

    @property
    def item(self) -> StoredItem | None:
        return None if self.index is None else self.record.items[self.index]

    def _show_step(self) -> None:
        t = self.t
        item = self.item
        self.timers.start_step(item.budget_s, elapsed=item.elapsed_s)
        self._text, self._dirty, self._saved_at = item.draft, False, self.app.clock.monotonic()
        same_question = self.record.question_items(item.question_index)
        of_kind = [i for i in same_question if i.kind == item.kind]
        progress = t("mock.progress.question", index=item.question_index + 1,
                                                      total=self.record.question_count)
        if item.kind != "question":
            progress += " · " + t(f"mock.progress.{item.kind}", index=of_kind.index(item) + 1,
                                                                     total=len(of_kind))
        self.query_one("#mock-progress", Static).update(Text(progress))
        parent = self.query_one("#mock-parent", Static)
        if item.kind is CardKind.QUESTION:
            parent.update("")
            parent.display = False
        else:
            parent.update(Text(t(f"mock.parent.{item.kind}") + " " + same_question[0].prompt))
            parent.display = True
        self.query_one("#mock-prompt", Markdown).update(item.prompt)
        hint = self.query_one("#mock-hint", Static)
        draft = self.query_one("#mock-draft", TextArea)
        calc = self.query_one("#mock-calc", Input)
        hint.remove_class("-problem")
        if item.kind is CardKind.DRILL:
            hint.update(Text(t("mock.calc_hint", unit=item.unit or "")))
            calc.value = item.draft
            calc.cursor_position = len(item.draft)
            calc.placeholder = item.unit or ""
            draft.display = False
            calc.display = True
            calc.focus()
        else:
            hint.update(Text(t("mock.draft_hint")))
            draft.load_text(item.draft)
            draft.move_cursor(draft.document.end)  # a resumed draft continues where it stopped
            draft.display = True
            calc.display = False
            draft.focus()
        self.query_one("#mock-question", VerticalScroll).scroll_home(animate=False)
        self._apply_pause_state()
        self.tick()

    def _current_text(self) -> str:
        """The editor's text now (its Changed message may still be on its way); the mirror once unmounted."""
        if self.item is None:
            return ""
        try:
            if self.item.kind is CardKind.DRILL:
                return self.query_one("#mock-calc", Input).value
            return self.query_one("#mock-draft", TextArea).text
        except NoMatches:
            return self._text

    @on(TextArea.Changed, "#mock-draft")
    def _draft_changed(self, event: TextArea.Changed) -> None:
        if self.item is not None and self.item.kind is not CardKind.DRILL:
            self._text, self._dirty = event.text_area.text, True

    @on(Input.Changed, "#mock-calc")
    def _calc_changed(self, event: Input.Changed) -> None:
        if self.item is not None and self.item.kind is CardKind.DRILL:
            self._text, self._dirty = event.value, True

    def advance(self, *, auto: bool = False) -> None:
        """Store the current answer (in the background) and move to the next step, or the debrief.

        A quick calculation that cannot be read is not stored while time remains: the parser's reason
        is shown and the user retypes (an empty answer is a deliberate skip; strict mode's timeout
        stores whatever is there, as no answer).
        """
        item = self.item
        if item is None or self._moving:
            return
        text = self._current_text()
        if not auto and item.kind is CardKind.DRILL:
            reason = interview.unreadable_reason(self.app.bank, item, text)
            if reason is not None:
                hint = self.query_one("#mock-hint", Static)
                hint.update(Text(self.t("mock.calc_unreadable", reason=reason, unit=item.unit or "")))
                hint.add_class("-problem")
                self.query_one("#mock-calc", Input).focus()
                return
        self._moving = True
        used, total = self.timers.end_step(), self.timers.total.elapsed()
        store, bank = self.app.store, self.app.bank
        self.in_background(lambda: interview.record_answer(store, bank, item.id, text, used, total,
                                                           auto_advanced=auto, item=item), self._answered)

    def _answered(self, stored: StoredItem) -> None:
        self.record = self.record.with_item(stored)
        self.index = self.record.next_index
        self._moving = False
        if self.index is None:
            self._finish()
        else:
            self._show_step()

    def background_failed(self, error: BaseException) -> None:
        """A save failed: the draft stays on screen and the step's clock runs again."""
        if self._moving:
            self._moving = False
            if not self.timers.paused:
                self.timers.step.resume()

    def _finish(self) -> None:
        store, session_id = self.app.store, self.record.session.id
        self.in_background(lambda: interview.load_session(store, session_id), self.app.open_debrief)

    # --- refresh ---------------------------------------------------------------------------------

    def tick(self) -> None:
        if self.timers is None or self.item is None:
            return
        self.query_one("#timer-step", CountdownDisplay).reading = self.timers.step.reading()
        self.query_one("#timer-total", CountdownDisplay).reading = self.timers.total.reading()
        if self._dirty and self.app.clock.monotonic() - self._saved_at >= DRAFT_SAVE_S:
            self._save_progress()
        if self.timers.should_advance():
            self.notify(self.t("mock.time_up"), timeout=2)
            self.advance(auto=True)

    def _apply_pause_state(self) -> None:
        paused = self.timers.paused
        self.set_class(paused, "-paused")
        self.query_one("#mock-paused").display = paused
        self.query_one("#mock-draft", TextArea).read_only = paused
        self.query_one("#mock-calc", Input).disabled = paused
        self.query_one("#mock-pause", Button).label = self.t("mock.resume" if paused else "mock.pause")
        self._update_editing()

    # --- actions ---------------------------------------------------------------------------------

    def action_done(self) -> None:
        if self.timers is not None and self.timers.paused:
            self.notify(self.t("mock.resume_first"), timeout=2)
            return
        self.advance(auto=False)

    def action_pause(self) -> None:
        if self.timers is None or self.item is None:
            return
        self.timers.toggle_pause()
        self._apply_pause_state()
        if self.timers.paused:
            self.query_one("#mock-pause", Button).focus()
        self.tick()

    def action_pause_key(self) -> None:
        self.action_pause()

    def action_leave_key(self) -> None:
        self.action_leave()

    def action_leave_editor(self) -> None:
        self.query_one("#mock-done", Button).focus()

    def action_leave(self) -> None:
        """Save the draft in progress and go back; the session stays incomplete and can be resumed."""
        self._save_progress()
        self.notify(self.t("mock.left"), timeout=4)
        self.app.pop_screen()

    def _draft_saver(self):
        """The call that keeps the draft in progress, with its figures read now (None: nothing to keep)."""
        item, timers = self.item, self.timers
        if item is None or timers is None or item.answered_at is not None or self._moving:
            return None
        store, text, step, total = self.app.store, self._current_text(), timers.step.elapsed(), timers.total.elapsed()
        return lambda: interview.save_draft(store, item.id, text, step, total)

    def _save_progress(self) -> None:
        save = self._draft_saver()
        if save is not None:
            self._dirty, self._saved_at = False, self.app.clock.monotonic()
            self.in_background(save)

    def on_unmount(self) -> None:
        """The app quit (ctrl+q) mid-interview: keep the draft in progress too. The workers are going
        away with the app, so this one save runs in its own thread, waited for a moment."""
        save = self._draft_saver()
        if save is None:
            return
        saver = threading.Thread(target=_best_effort, args=(save,), name="mock-draft-on-quit")
        saver.start()
        saver.join(timeout=5)

    def check_action(self, action: str, parameters) -> bool | None:
        """Plain-letter keys type into the editor, so the footer offers escape there instead."""
        if action in ("pause_key", "leave_key"):
            return not self.editing
        if action == "leave_editor":
            return self.editing
        return True

    def _update_editing(self) -> None:
        self.editing = isinstance(self.focused, (TextArea, Input)) and not (self.timers and self.timers.paused)

    def on_descendant_focus(self) -> None:
        self._update_editing()

    def on_descendant_blur(self) -> None:
        self._update_editing()

    @on(Input.Submitted, "#mock-calc")
    def _calc_submitted(self) -> None:
        self.action_done()

    @on(Button.Pressed, "#mock-done")
    def _done_pressed(self) -> None:
        self.action_done()

    @on(Button.Pressed, "#mock-pause")
    def _pause_pressed(self) -> None:
        self.action_pause()

    @on(Button.Pressed, "#mock-leave")
    def _leave_pressed(self) -> None:
        self.action_leave()


def _best_effort(save) -> None:
    from quizapp.practice.interview import MockError
    from quizapp.store import StoreError

    try:
        save()
    except (StoreError, MockError):  # shutting down: there is no screen left to tell
        pass
