"""The debrief after a mock interview (or when reading a past one): drafts beside the standard answers,
self-ratings, times against budgets, the quick calculations' results, the session's score and weakest
topics, "retry the misses", and which ratings go into the schedule (mode "mock").

Scoring, misses and the schedule write live in `quizapp.practice.interview`; this screen renders the
stored record (read before it is shown, written in the background) and forwards the choices.

Every asked step is a `DebriefItem` that takes the focus (up/down or Tab move between them); the keys
1-4 rate the item that has the focus, or holds it (a rating button, a tick box), as its buttons do.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Checkbox, Static

from quizapp.practice import interview
from quizapp.practice.cards import safe_render
from quizapp.practice.interview import MockRecord
from quizapp.practice.timers import format_clock
from quizapp.tui.formatting import format_duration
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.footer import Footer
from quizapp.tui.widgets.prose import Prose
from quizapp.tui.widgets.rating_bar import RATINGS, RatingBar
from quizapp.tui.widgets.checklist import PointTicks
from quizapp.tui.widgets.tick import TickBox
from quizapp.vocab import CardKind, Mode, Rating, Verdict


class ItemControls(Vertical):
    """The rating (self-graded items) and, under it, the "into the schedule" choice of one mock item."""

    class Changed(Message):
        def __init__(self, item_id: int, rating: Rating | None = None, to_schedule: bool | None = None) -> None:
            super().__init__()
            self.item_id = item_id
            self.rating = rating
            self.to_schedule = to_schedule

    def __init__(self, item, lang: str, t, *, self_graded: bool, new: bool = False) -> None:
        super().__init__(classes="debrief-controls")
        self.item = item
        self.new = new  # a never-reviewed card: not ticked by default (it would spend a new-card slot)
        self.lang = lang
        self._t = t
        self.self_graded = self_graded

    def compose(self) -> ComposeResult:
        if self.self_graded:
            yield RatingBar(self.lang)
        label = self._t("debrief.to_schedule_new" if self.new else "debrief.to_schedule")
        yield TickBox(label, interview.goes_to_schedule(self.item, new=self.new),
                      classes="debrief-schedule", compact=True)

    def on_mount(self) -> None:
        self.show(self.item)

    def show(self, item) -> None:
        """Mark the chosen rating and the schedule choice; lock both once written to the schedule."""
        self.item = item
        locked = item.applied_rating is not None
        if self.self_graded:
            bar = self.query_one(RatingBar)
            for rating in RATINGS:
                button = bar.query_one(f"#rate-{rating.value}")
                button.set_class(rating == item.rating, "-suggested")
                button.disabled = locked
        box = self.query_one(Checkbox)
        with box.prevent(Checkbox.Changed):
            box.value = interview.goes_to_schedule(item, new=self.new)
        box.disabled = locked or item.rating is None

    @on(RatingBar.Rated)
    def _rated(self, event: RatingBar.Rated) -> None:
        event.stop()
        self.post_message(self.Changed(self.item.id, rating=event.rating))

    @on(Checkbox.Changed)
    def _schedule(self, event: Checkbox.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(self.item.id, to_schedule=event.value))


class DebriefItem(Vertical, can_focus=True):
    """One asked step in the debrief (the question, a follow-up, a quick calculation): focusable, so the
    keys 1-4 rate the one with the focus; up/down move to the previous / next item."""

    BINDINGS = [
        Binding("down", "step(1)", "Answers", id="debrief.items", key_display="↑↓"),
        Binding("up", "step(-1)", "Previous answer", id="debrief.previous_item", show=False),
    ]

    def __init__(self, item, *, self_graded: bool, classes: str = "") -> None:
        super().__init__(classes=f"debrief-item {classes}".strip())
        self.item = item
        self.self_graded = self_graded

    def action_step(self, step: int) -> None:
        items = list(self.screen.query(DebriefItem))
        index = items.index(self) + step
        if 0 <= index < len(items):
            items[index].focus_item()

    def focus_item(self) -> None:
        """Take the focus and show this item from its top."""
        self.focus(scroll_visible=False)
        self.call_after_refresh(lambda: self.scroll_visible(top=True, animate=False))


class DebriefScreen(QuizScreen[None]):
    """One stored session, question by question, with the whole session's figures on top. The record is
    read (in the background) before the app opens the screen, so the screen is complete when it appears."""

    CSS_PATH = "debrief.tcss"
    # Below 100 columns the draft goes above the standard answer instead of beside it (debrief.tcss).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]

    BINDINGS = [
        Binding("1", "rate(1)", "Rate", id="debrief.rate", key_display="1-4"),
        Binding("2", "rate(2)", "Rate", id="debrief.rate2", show=False),
        Binding("3", "rate(3)", "Rate", id="debrief.rate3", show=False),
        Binding("4", "rate(4)", "Rate", id="debrief.rate4", show=False),
        Binding("r", "retry", "Retry misses", id="debrief.retry"),
        Binding("a", "apply", "Save ratings", id="debrief.apply"),
        Binding("escape", "home", "Home", id="debrief.home"),
    ]

    def __init__(self, record: MockRecord) -> None:
        super().__init__()
        self.record = record
        self.session_id = record.session.id
        self._apply_failed = False

    def compose(self) -> ComposeResult:
        t = self.t
        yield Static("", id="debrief-title", markup=False)
        yield Static("", id="debrief-summary", markup=False)
        with Horizontal(id="debrief-actions"):
            yield Button(t("debrief.retry"), id="debrief-retry", variant="warning", compact=True)
            yield Button(t("debrief.apply"), id="debrief-apply", variant="primary", compact=True)
            if self.record.next_index is not None:
                yield Button(t("debrief.resume"), id="debrief-resume", compact=True)
            yield Button(t("debrief.home"), id="debrief-home", compact=True)
        with VerticalScroll(id="debrief-body"):
            for index in range(self.record.question_count):
                yield from self._question_section(index)
        yield Footer()

    def on_mount(self) -> None:
        self._refresh_summary()
        items = list(self.query(DebriefItem))
        first = next((i for i in items if i.self_graded and self._rateable(i.item)), items[0] if items else None)
        if first is not None:
            first.focus(scroll_visible=False)  # the top of the debrief stays in view
        else:
            self.query_one("#debrief-body").focus()

    # --- sections --------------------------------------------------------------------------------

    def _question_section(self, index: int) -> ComposeResult:
        t = self.t
        items = self.record.question_items(index)
        main = items[0]
        question = self.app.bank.question(main.question_id)
        with Vertical(classes="debrief-question"):
            with DebriefItem(main, self_graded=True):
                yield Static(Text(f"{index + 1}. {main.prompt}"), classes="debrief-heading")
                yield Static(Text(f"{main.topic} · {self._time_line(main)}"), classes="debrief-meta")
                yield from self._pair(main, safe_render(question, question.answer) if question else None)
                if question is not None and question.template:
                    yield Static(Text(t("debrief.template")), classes="debrief-label")
                    yield Prose(safe_render(question, question.template), classes="debrief-template")
                yield from self._points(main)
                yield from self._controls(main, self_graded=True)
            for item in items[1:]:
                if item.kind is CardKind.FOLLOWUP:
                    followup = next((f for f in question.followups if f.id == item.item_id), None) if question else None
                    with DebriefItem(item, self_graded=True, classes="debrief-sub"):
                        yield Static(Text(t("debrief.followup", prompt=item.prompt)), classes="debrief-subheading")
                        yield Static(Text(self._time_line(item)), classes="debrief-meta")
                        yield from self._pair(item, safe_render(question, followup.a) if followup else None)
                        yield from self._points(item)
                        yield from self._controls(item, self_graded=True)
                else:
                    with DebriefItem(item, self_graded=False, classes="debrief-sub"):
                        yield Static(Text(t("debrief.calc", prompt=item.prompt)), classes="debrief-subheading")
                        yield Static(self._drill_line(item), classes="debrief-drill")
                        yield from self._controls(item, self_graded=False)

    def _pair(self, item, standard: str | None) -> ComposeResult:
        t = self.t
        with Horizontal(classes="debrief-pair"):
            with Vertical(classes="debrief-draft"):
                yield Static(Text(t("debrief.your_draft")), classes="debrief-label")
                text = item.draft.strip() if item.answered_at is not None or item.draft else ""
                if item.answered_at is None and not text:
                    text = t("debrief.not_reached")
                yield Static(Text(text or t("debrief.empty_draft")), classes="debrief-text")
            with Vertical(classes="debrief-standard"):
                yield Static(Text(t("debrief.standard")), classes="debrief-label")
                yield Prose(standard if standard is not None else t("debrief.missing"))

    def _points(self, item) -> ComposeResult:
        """The item's key points (typed answers pre-ticked, spoken ones ticked here), missed ones first."""
        if item.answered_at is None and item.rating is None:
            return
        checklist = interview.item_checklist(self.app.bank, item)
        if checklist is not None:
            yield PointTicks(item.id, checklist, self.lang, classes="debrief-points")

    @on(PointTicks.Toggled)
    def _point_toggled(self, event: PointTicks.Toggled) -> None:
        store, bank, session_id = self.app.store, self.app.bank, self.session_id

        def save() -> MockRecord:
            current = next(i for i in interview.load_session(store, session_id).items if i.id == event.item_id)
            interview.set_points(store, bank, current, {event.point: event.value})
            return interview.load_session(store, session_id)

        self.in_background(save, self._show_record)

    def _controls(self, item, *, self_graded: bool) -> ComposeResult:
        if item.answered_at is None and item.rating is None:
            return
        yield ItemControls(item, self.lang, self.t, self_graded=self_graded,
                           new=item.card_id in self.record.new_cards)

    def _time_line(self, item) -> str:
        t = self.t
        if item.answered_at is None:
            return t("debrief.not_reached")
        line = t("debrief.time", used=format_clock(item.elapsed_s), budget=format_clock(item.budget_s))
        if item.elapsed_s > item.budget_s:
            line += " · " + t("debrief.overtime", over=format_clock(item.elapsed_s - item.budget_s))
        if item.auto_advanced:
            line += " · " + t("debrief.auto_advanced")
        return line

    def _drill_line(self, item) -> Text:
        t = self.t
        if item.answered_at is None:
            return Text(t("debrief.not_reached"))
        verdict = item.verdict or Verdict.UNPARSEABLE
        style = {Verdict.CORRECT: "bold green", Verdict.CLOSE: "bold yellow"}.get(verdict, "bold red")
        text = Text()
        text.append(t("debrief.verdict.skipped" if verdict is Verdict.SKIPPED else f"review.verdict.{verdict}"),
                    style=style)
        text.append("  " + t("debrief.your_value", value=item.draft.strip() or "—"))
        text.append("  " + t("debrief.expected", value=item.expected_display or "?"))
        text.append(f"  ({t('debrief.time_short', used=format_clock(item.elapsed_s))})")
        if item.mistake_id:  # named in today's language, whatever language the interview was in
            text.append("\n" + t("review.mistake", label=t(item.mistake_id)))
        return text

    # --- figures ---------------------------------------------------------------------------------

    def _refresh_summary(self) -> None:
        t = self.t
        lang = self.app.settings.lang
        session = self.record.session
        items = self.record.items
        when = session.started_at.astimezone().strftime("%Y-%m-%d %H:%M")
        state = t("debrief.completed") if self.record.next_index is None else t("debrief.incomplete")
        self.query_one("#debrief-title", Static).update(Text(t("debrief.title", when=when, state=state)))
        score = interview.score(items)
        rated = sum(item.rating is not None for item in items)
        answered = interview.answered_count(items)  # a blank answer is not answered
        shown_score = "–" if score is None else f"{score:.0f}%"
        if self.record.next_index is not None:  # unfinished: the score is over the answered items only
            shown_score = t("mock.score_over_answered", score=shown_score, answered=answered, total=len(items))
        lines = [
            t("debrief.score", score=shown_score, rated=rated, total=len(items))
            + " · "
            + t("debrief.session_time", used=format_duration(session.elapsed_s, lang),
                                               budget=format_duration(self.record.total_budget, lang))
            + " · "
            + t("debrief.answered", answered=answered, total=len(items)),
        ]
        weakest = interview.weakest_topics(items)
        if weakest:
            lines.append(t("debrief.weakest", 
                topics=", ".join(f"{topic} {value:.0f}%" for topic, value in weakest)))
        missed = interview.misses(items)
        lines.append(t("debrief.misses", count=len(missed)))
        self.query_one("#debrief-summary", Static).update(Text("\n".join(lines)))
        self.query_one("#debrief-retry", Button).disabled = not missed

    @on(ItemControls.Changed)
    def _item_changed(self, event: ItemControls.Changed) -> None:
        self._save_choice(event.item_id, rating=event.rating, to_schedule=event.to_schedule)

    def _save_choice(self, item_id: int, *, rating: Rating | None = None, to_schedule: bool | None = None) -> None:
        store, session_id = self.app.store, self.session_id

        def save() -> MockRecord:
            if rating is not None:
                interview.rate_item(store, item_id, rating)
            if to_schedule is not None:
                interview.set_to_schedule(store, item_id, to_schedule)
            return interview.load_session(store, session_id)

        self.in_background(save, self._show_record)

    def _show_record(self, record: MockRecord) -> None:
        self.record = record
        by_id = {item.id: item for item in record.items}
        for controls in self.query(ItemControls):
            controls.show(by_id[controls.item.id])
        for entry in self.query(DebriefItem):
            entry.item = by_id.get(entry.item.id, entry.item)
        self._refresh_summary()

    # --- rating with the keys --------------------------------------------------------------------

    @staticmethod
    def _rateable(item) -> bool:
        """Reached (or already rated) and not yet written to the schedule."""
        return (item.answered_at is not None or item.rating is not None) and item.applied_rating is None

    def focused_item(self) -> DebriefItem | None:
        """The debrief item with the focus, or holding the focused widget (a rating button, a tick box)."""
        node = self.focused
        while node is not None and node is not self:
            if isinstance(node, DebriefItem):
                return node
            node = node.parent
        return None

    def action_rate(self, rating: int) -> None:
        """1-4: rate the focused item, as its Again / Hard / Good / Easy buttons do."""
        entry = self.focused_item()
        if entry is None:
            self.notify(self.t("debrief.rate_nothing"), markup=False, timeout=3)
            return
        item = entry.item
        if not entry.self_graded:
            self.notify(self.t("debrief.rate_graded"), markup=False, timeout=3)
        elif item.applied_rating is not None:
            self.notify(self.t("debrief.rate_locked"), markup=False, timeout=3)
        elif not self._rateable(item):
            self.notify(self.t("debrief.rate_not_reached"), markup=False, timeout=3)
        else:
            self._save_choice(item.id, rating=Rating(rating))

    # --- actions ---------------------------------------------------------------------------------

    def _apply(self, then=None, *, quiet: bool = False) -> None:
        """Write the chosen ratings into the schedule (in the background), then `then()`; a failure keeps
        them in mock_item, so the user can try again."""
        store, session_id = self.app.store, self.session_id

        def apply() -> tuple[int, MockRecord]:
            return interview.apply_ratings(store, session_id), interview.load_session(store, session_id)

        def done(result: tuple[int, MockRecord]) -> None:
            count, record = result
            if count or not quiet:
                self.notify(self.t("debrief.applied", n=count), markup=False)
            self._show_record(record)
            if then is not None:
                then()

        self.in_background(apply, done)

    def action_apply(self) -> None:
        self._apply()

    def action_retry(self) -> None:
        missed = interview.misses(self.record.items)
        if not missed:
            self.notify(self.t("debrief.no_misses"), markup=False)
            return
        self._apply(lambda: self.app.open_review(Mode.CRAM, None, missed), quiet=True)

    def action_home(self) -> None:
        """Leaving a finished interview writes its chosen ratings first (once the write failed, and the
        user was told, escape leaves without trying again)."""
        if self.record.next_index is None and not self._apply_failed:
            self._apply(self.app.pop_screen, quiet=True)
        else:
            self.app.pop_screen()

    def background_failed(self, error: BaseException) -> None:
        self._apply_failed = True

    def action_resume(self) -> None:
        self.app.open_interview(self.record)

    @on(Button.Pressed, "#debrief-retry")
    def _retry_pressed(self) -> None:
        self.action_retry()

    @on(Button.Pressed, "#debrief-apply")
    def _apply_pressed(self) -> None:
        self.action_apply()

    @on(Button.Pressed, "#debrief-home")
    def _home_pressed(self) -> None:
        self.action_home()

    @on(Button.Pressed, "#debrief-resume")
    def _resume_pressed(self) -> None:
        self.action_resume()
