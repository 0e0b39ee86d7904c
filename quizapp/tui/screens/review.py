"""Review (and cram): show a card, let the user answer, reveal, rate with FSRS, move on.

The screen holds only presentation state (the current card, whether it is revealed, the grade).
Scheduling is `Store`'s job, grading `quizapp.content.grade`'s; every database call runs in a thread
worker and a failure shows a message while keeping what was typed.

Keys: each card opens with its answer box focused; ctrl+r reveals (space too, once escape has left
the box; on a drill with a typed answer, ctrl+r grades it first); 1-4 rate once revealed; Enter
accepts the grader's suggestion on a drill; ctrl+z (u outside a box) undoes the last rating; e edits
the question's YAML; escape leaves a text box, then goes home. After reveal the card area has the
focus, so up/down/page up/page down scroll to the answer. The footer shows the keys that work where
the focus is: ^r/^z while a box has it, space/u otherwise (check_action hides the others).
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult, SuspendNotSupported, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Input, Static, TextArea

from quizapp.tui.bindings import localize_bindings
from quizapp.tui.cards import CardContent, resolve_card
from quizapp.tui.session import SessionTally
from quizapp.tui.widgets.question_view import QuestionView
from quizapp.tui.widgets.rating_bar import RATINGS, RatingBar

_VERDICT_STYLE = {"correct": "bold green", "close": "bold yellow", "wrong": "bold red", "unparseable": "bold"}


@dataclass(frozen=True)
class LoadedCard:
    """Everything the worker fetched for the next card (or, when `content` is None, for the summary)."""

    content: CardContent | None
    variant: Any | None = None  # content.DrillVariant for drills
    variant_error: str | None = None
    intervals: dict[int, timedelta] | None = None
    due: int = 0
    new: int = 0
    next_due: datetime | None = None


class CardArea(VerticalScroll):
    """The scrolling card; after reveal it has the focus, and its footer entry says how to scroll."""

    BINDINGS = [
        Binding("pagedown", "page_down", "Scroll", id="scroll", key_display="PgDn/PgUp"),
        Binding("pageup", "page_up", "Scroll", id="scroll-up", show=False),
    ]


class ReviewScreen(Screen[None]):
    """One session. mode="review": the store's queue (optionally one topic); mode="cram": the given
    card ids, or every card of `topic`, practised without moving the schedule."""

    CSS_PATH = "review.tcss"
    AUTO_FOCUS = ""  # the screen decides: the answer box of each card as it is shown
    BINDINGS = [
        # Two bindings per key pair: the footer shows the one that works where the focus is (check_action
        # hides the other). ctrl+r / ctrl+z also work outside a box, through their hidden twins.
        Binding("ctrl+r", "reveal_from_box", "Reveal", id="reveal-box", key_display="^r"),
        Binding("ctrl+r", "reveal", "Reveal", id="reveal-ctrl", show=False),
        Binding("space", "reveal", "Reveal", id="reveal"),
        Binding("1", "rate(1)", "Again", id="again"),
        Binding("2", "rate(2)", "Hard", id="hard"),
        Binding("3", "rate(3)", "Good", id="good"),
        Binding("4", "rate(4)", "Easy", id="easy"),
        Binding("enter", "accept", "Accept", id="accept"),
        # ctrl+z undoes the last rating from inside an answer box too, unless the box has typing to undo
        Binding("ctrl+z", "undo_from_box", "Undo", id="undo-box", key_display="^z", priority=True),
        Binding("ctrl+z", "undo", "Undo", id="undo-anywhere", show=False, priority=True),
        Binding("u", "undo", "Undo", id="undo"),
        # For when the focus is elsewhere (a tab, a rating button); on the card area its own keys apply.
        Binding("pagedown", "scroll_card('page_down')", "Scroll", id="scroll-card", show=False),
        Binding("pageup", "scroll_card('page_up')", "Scroll", id="scroll-card-up", show=False),
        Binding("e", "edit", "Edit", id="edit"),
        Binding("escape", "back", "Home", id="home"),
    ]

    def __init__(self, mode: str = "review", topic: str | None = None, card_ids: list[str] | None = None) -> None:
        super().__init__()
        if mode not in ("review", "cram"):
            raise ValueError(f"mode: expected 'review' or 'cram', got {mode!r}")
        self.mode = mode
        self.topic = topic
        self.card_ids = list(card_ids) if card_ids is not None else None
        self.current: CardContent | None = None
        self.variant: Any | None = None
        self.grade: Any | None = None
        self.revealed = False
        self.busy = True
        self.tally = SessionTally(mode=mode, topic=topic)
        self._intervals: dict[int, timedelta] = {}
        self._shown_at = 0.0
        self._cram_queue: list[str] | None = None
        self._cram_total = 0
        self._cram_done = 0

    # --- layout ----------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        app: Any = self.app
        with Horizontal(id="review-top"):
            yield Static(Text(app.t("review.loading")), id="progress")
        yield CardArea(id="card-area")
        yield RatingBar(app.settings.lang, id="rating-bar", classes="-hidden")
        yield Footer()

    def on_mount(self) -> None:
        app: Any = self.app
        localize_bindings(self, app.settings.lang)
        localize_bindings(self.query_one(CardArea), app.settings.lang)
        self.tally.started = app.clock.monotonic()
        self._load(self._first_task)

    @property
    def lang(self) -> str:
        return self.app.settings.lang  # type: ignore[attr-defined]

    def tr(self, key: str) -> str:
        return self.app.t(key)  # type: ignore[attr-defined]

    # --- background work -------------------------------------------------------------------------
    def _in_background(self, task: Callable[[], Any], done: Callable[[Any], Any]) -> None:
        """Run `task` (database work) in a thread; `done(result)` on the UI thread; errors as a message."""
        self.busy = True
        self.refresh_bindings()
        app = self.app

        def run() -> None:
            try:
                result = task()
            except Exception as exc:  # noqa: BLE001 - shown to the user, the session goes on
                app.call_from_thread(self._failed, exc)
            else:
                app.call_from_thread(done, result)

        self.run_worker(run, thread=True, exclusive=True, group="review-db", exit_on_error=False)

    def _failed(self, exc: Exception) -> None:
        self.busy = False
        self.refresh_bindings()
        message = self.tr("app.db_error").format(error=exc) + " " + self.tr("review.typed_kept")
        self.app.notify(message, severity="error", markup=False, timeout=8)

    def _load(self, task: Callable[[], LoadedCard]) -> None:
        self._in_background(task, self._show_loaded)

    def _first_task(self) -> LoadedCard:
        if self.mode == "cram":
            store: Any = self.app.store  # type: ignore[attr-defined]
            queue = list(store.cram(topic=self.topic, card_ids=self.card_ids))
            self._cram_queue = queue
            self._cram_total = len(queue)
        return self._next_task()

    def _next_task(self) -> LoadedCard:
        """(worker thread) The next card to show, with its intervals and the queue counts."""
        app: Any = self.app
        store, bank = app.store, app.bank
        while True:
            if self.mode == "cram":
                assert self._cram_queue is not None
                if not self._cram_queue:
                    return LoadedCard(None, next_due=store.next_due())
                card_id = self._cram_queue[0]
            else:
                row = store.next_card(self.topic)
                if row is None:
                    return LoadedCard(None, next_due=store.next_due())
                card_id = row.card_id
            content = resolve_card(bank, card_id)
            if content is None:
                if self.mode == "cram":  # a stale id: drop it rather than stop the session
                    self._cram_queue.pop(0)  # type: ignore[union-attr]
                    self._cram_total -= 1
                    continue
                return LoadedCard(None, next_due=store.next_due())
            return self._card_task(content)

    def _card_task(self, content: CardContent, variant: Any | None = None) -> LoadedCard:
        """(worker thread) Draw the drill variant (unless `variant` is given: an undone card comes back
        with the one it had) and fetch intervals and counts for `content`."""
        app: Any = self.app
        store = app.store
        variant_error = None
        if content.kind == "drill" and variant is None:
            try:
                from quizapp.content import draw_variant

                variant = draw_variant(content.question, content.drill, app.settings.seed)
            except Exception as exc:  # noqa: BLE001 - shown on the card; it can still be rated
                variant_error = str(exc)
        intervals = {} if self.mode == "cram" else dict(store.preview(content.card_id))
        due = new = 0
        if self.mode == "review":
            counts = store.counts()
            total = counts.get(self.topic or "")
            if total is not None:
                due, new = total.due, total.new
        return LoadedCard(content, variant, variant_error, intervals, due, new)

    # --- showing a card --------------------------------------------------------------------------
    async def _show_loaded(self, loaded: LoadedCard, keep_text: str | None = None) -> None:
        self.busy = False
        if loaded.content is None:
            self._finish(loaded.next_due)
            return
        self.current = loaded.content
        self.variant = loaded.variant
        self.grade = None
        self.revealed = False
        self._intervals = loaded.intervals or {}
        self._shown_at = self.app.clock.monotonic()  # type: ignore[attr-defined]
        self._update_progress(loaded)
        area = self.query_one("#card-area", VerticalScroll)
        await area.remove_children()
        content = loaded.content
        item = content.followup if content.kind == "followup" else content.drill
        widgets: list[Any] = [QuestionView(content.question, content.kind, item, loaded.variant, lang=self.lang)]
        if content.kind == "drill" and loaded.variant is not None:
            unit = loaded.variant.unit
            widgets.append(
                Input(
                    value=keep_text or "",
                    placeholder=self.tr("review.drill_hint").format(unit=unit),
                    id="drill-input",
                )
            )
            widgets.append(Static(Text(""), id="verdict"))
        else:
            if loaded.variant_error:
                widgets.append(Static(Text(self.tr("breakdown.error").format(error=loaded.variant_error)), id="verdict"))
            widgets.append(Static(Text(self.tr("review.your_answer")), classes="muted"))
            widgets.append(TextArea(keep_text or "", id="own-answer", soft_wrap=True, show_line_numbers=False))
        await area.mount_all(widgets)
        area.scroll_home(animate=False)
        rating_bar = self.query_one(RatingBar)
        rating_bar.add_class("-hidden")
        rating_bar.suggest(None)
        rating_bar.set_intervals(self._intervals)
        # The answer box has focus from the start, so a user who starts typing never rates by accident
        # (space would reveal and a digit would rate); ctrl+r reveals from inside it.
        box = self.query_one("#drill-input, #own-answer")
        box.focus()
        if isinstance(box, TextArea) and keep_text:
            box.move_cursor(box.document.end)
        self.refresh_bindings()

    def _update_progress(self, loaded: LoadedCard) -> None:
        if self.mode == "cram":
            text = self.tr("review.progress.cram").format(index=self._cram_done + 1, total=self._cram_total)
        else:
            text = self.tr("review.progress").format(due=loaded.due, new=loaded.new, done=self.tally.reviewed)
        if self.topic:
            text = f"{self.topic} · {text}"
        self.query_one("#progress", Static).update(Text(text))

    def _typed_text(self) -> str | None:
        for selector, kind in (("#drill-input", Input), ("#own-answer", TextArea)):
            widgets = self.query(selector)
            if widgets:
                widget = widgets.first(kind)
                value = widget.value if isinstance(widget, Input) else widget.text
                return value if value.strip() else None
        return None

    # --- answering -------------------------------------------------------------------------------
    @on(Input.Submitted, "#drill-input")
    def _drill_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.revealed or self.current is None or self.variant is None:
            return
        if self._grade_drill(event.input).verdict == "unparseable":
            event.input.focus()
            return
        self._reveal_graded(event.input)

    def _grade_drill(self, box: Input) -> Any:
        """Grade what the drill's input holds and show the verdict."""
        from quizapp.content import grade

        result = grade(self.variant, self.current.drill, box.value, lang=self.lang)  # type: ignore[union-attr]
        self.grade = result
        self._show_grade(result)
        return result

    def _reveal_graded(self, box: Input) -> None:
        """Reveal after a readable answer, with the grader's suggestion on the rating bar."""
        box.disabled = True
        self.action_reveal()
        if self.grade is not None and self.grade.suggested_rating is not None:
            self.query_one(RatingBar).suggest(self.grade.suggested_rating)
            self.query_one("#card-area", VerticalScroll).focus()  # Enter accepts; arrows scroll
        self.refresh_bindings()

    def _typed_drill_box(self) -> Input | None:
        """The drill's input when it holds an answer not graded yet (or graded unreadable)."""
        if self.revealed or self.variant is None:
            return None
        for box in self.query("#drill-input").results(Input):
            if box.value.strip() and (self.grade is None or self.grade.verdict == "unparseable"):
                return box
        return None

    def _show_grade(self, result: Any) -> None:
        from quizapp.memory.quantities import format_quantity

        verdict = Text()
        verdict.append(self.tr(f"review.verdict.{result.verdict}"), style=_VERDICT_STYLE.get(result.verdict, "bold"))
        if result.verdict == "unparseable":
            if result.reason:
                verdict.append(f": {result.reason}")
            verdict.append(f"\n{self.tr('review.retype')}")
        else:
            unit = self.variant.unit
            if result.value is not None:
                verdict.append(f" · {self.tr('review.your_value')}: {format_quantity(result.value, unit)}")
            verdict.append(f" · {self.tr('review.expected')}: {self.variant.expected_display}")
            if result.mistake_label:
                verdict.append("\n")
                verdict.append(self.tr("review.mistake").format(label=result.mistake_label), style="bold")
        self.query_one("#verdict", Static).update(verdict)

    def action_reveal_from_box(self) -> None:
        self.action_reveal()

    def action_reveal(self) -> None:
        if self.revealed or self.current is None:
            return
        box = self._typed_drill_box()
        if box is not None:
            # A typed drill answer is graded first, as Enter would, so it is scored and stored. An
            # unreadable one still reveals (the user asked to see the answer), with the reason shown.
            if self._grade_drill(box).verdict != "unparseable":
                self._reveal_graded(box)
                return
        self.revealed = True
        content = self.current
        item = content.followup if content.kind == "followup" else content.drill
        for area in self.query("#own-answer").results(TextArea):
            area.read_only = True
        for box in self.query("#drill-input").results(Input):
            if self.grade is None or self.grade.verdict == "unparseable":
                box.disabled = True
        from quizapp.tui.widgets.answer_panel import AnswerPanel  # tabs, lists, tables: needed from reveal on

        self.query_one("#card-area", VerticalScroll).mount(
            AnswerPanel(content.question, content.kind, item, self.variant, lang=self.lang, id="answer")
        )
        self.query_one(RatingBar).remove_class("-hidden")
        # The card area takes the focus: up/down/page keys scroll to the answer, while 1-4 and Enter
        # (which it does not bind) still reach the screen's rating bindings.
        self.query_one("#card-area", VerticalScroll).focus()
        self.refresh_bindings()

    def action_scroll_card(self, how: str) -> None:
        area = self.query_one("#card-area", VerticalScroll)
        if how == "page_down":
            area.scroll_page_down(animate=False)
        else:
            area.scroll_page_up(animate=False)

    def action_rate(self, rating: int) -> None:
        if not self.revealed or self.busy or self.current is None or rating not in RATINGS:
            return
        app: Any = self.app
        content = self.current
        grade = self.grade if self.grade is not None and self.grade.verdict != "unparseable" else None
        duration_ms = max(int((app.clock.monotonic() - self._shown_at) * 1000), 0)
        answer = self._typed_text()
        verdict = grade.verdict if grade is not None else None
        mistake = grade.mistake_id if grade is not None else None
        variant = self.variant

        def task() -> LoadedCard:
            app.store.review(
                content.card_id,
                rating,
                duration_ms=duration_ms,
                mode=self.mode,
                answer=answer,
                verdict=verdict,
                mistake=mistake,
            )
            if self.mode == "cram" and self._cram_queue and self._cram_queue[0] == content.card_id:
                self._cram_queue.pop(0)
                self._cram_done += 1
            self.tally.record(content.card_id, verdict, answer=answer, variant=variant)
            return self._next_task()

        self._load(task)

    def action_accept(self) -> None:
        suggested = self.query_one(RatingBar).suggested
        if suggested is not None:
            self.action_rate(suggested)

    @on(RatingBar.Rated)
    def _rated(self, event: RatingBar.Rated) -> None:
        event.stop()
        self.action_rate(event.rating)

    def action_undo(self) -> None:
        if self.busy:
            return
        app: Any = self.app

        def task() -> tuple[LoadedCard, str | None] | None:
            card_id = app.store.undo()
            if card_id is None:
                return None
            rated = self.tally.unrecord(card_id)
            if self.mode == "cram" and self._cram_queue is not None:
                self._cram_queue.insert(0, card_id)
                self._cram_done = max(self._cram_done - 1, 0)
            content = resolve_card(app.bank, card_id)
            if content is None:
                return self._next_task(), None
            # The card comes back as it was: the same drill variant and the typed answer in its box.
            variant = rated.variant if rated is not None else None
            answer = rated.answer if rated is not None else None
            return self._card_task(content, variant), answer

        async def done(result: tuple[LoadedCard, str | None] | None) -> None:
            if result is None:
                self.busy = False
                self.refresh_bindings()
                self.app.notify(self.tr("review.nothing_to_undo"), markup=False)
                return
            self.app.notify(self.tr("review.undone"), markup=False)
            loaded, answer = result
            await self._show_loaded(loaded, keep_text=answer)

        self._in_background(task, done)

    # --- editing the question --------------------------------------------------------------------
    def _editor_command(self) -> list[str]:
        app: Any = self.app
        editor = app.settings.editor or os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        return shlex.split(editor)

    def action_edit(self) -> None:
        if self.current is None or self.busy:
            return
        path = getattr(self.current.question, "source_path", None)
        if path is None:
            self.app.notify(self.tr("app.no_source"), severity="warning", markup=False)
            return
        command = [*self._editor_command(), str(path)]
        try:
            try:
                with self.app.suspend():
                    subprocess.run(command, check=False)
            except SuspendNotSupported:  # headless (tests): run it without handing over the terminal
                subprocess.run(command, check=False, stdin=subprocess.DEVNULL)
        except OSError as exc:
            self.app.notify(self.tr("app.editor_failed").format(error=exc), severity="error", markup=False)
            return
        self._reload_after_edit()

    def _reload_after_edit(self) -> None:
        app: Any = self.app
        card_id = self.current.card_id if self.current else None
        typed = self._typed_text()

        def task() -> tuple[Any, LoadedCard | None]:
            from quizapp.content import load_bank

            bank = load_bank(app.settings.content_dirs)
            app.store.sync(bank.cards())
            content = resolve_card(bank, card_id) if card_id else None
            if content is None:
                return bank, None
            return bank, self._card_task(content)

        async def done(result: tuple[Any, LoadedCard | None]) -> None:
            bank, loaded = result
            app.bank = bank
            app.notify(app.t("app.reloaded").format(count=len(bank.questions)), markup=False)
            if bank.problems:
                app.notify(
                    app.t("home.problems").format(count=len(bank.problems)), severity="warning", markup=False
                )
            if loaded is None:
                self._load(self._next_task)
            else:
                await self._show_loaded(loaded, keep_text=typed)

        self._in_background(task, done)

    # --- leaving ---------------------------------------------------------------------------------
    def action_back(self) -> None:
        if isinstance(self.focused, (TextArea, Input)):
            self.set_focus(None)
            return
        self.app.pop_screen()

    def _finish(self, next_due: datetime | None) -> None:
        from quizapp.tui.screens.summary import SummaryScreen

        app: Any = self.app
        summary = self.tally.summary(app.clock.monotonic(), next_due)
        self.app.switch_screen(SummaryScreen(summary))

    # --- which keys apply now --------------------------------------------------------------------
    def _box_focused(self) -> bool:
        """Whether an answer box (where space and u are typed) has the focus."""
        return isinstance(self.focused, (TextArea, Input))

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()  # the footer shows ^r/^z in a box, space/u outside

    def on_descendant_blur(self) -> None:
        self.refresh_bindings()

    @on(Input.Changed)
    @on(TextArea.Changed)
    def _typing_changed(self) -> None:
        self.refresh_bindings()  # ^z undoes the typing, not the rating, while the box has some

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        in_box = self._box_focused()
        if action in ("reveal", "reveal_from_box"):
            if action == "reveal" and in_box or action == "reveal_from_box" and not in_box:
                return False  # hidden: its twin binding is the one that works here
            return self.current is not None and not self.revealed and not self.busy
        if action == "rate":
            return self.revealed and not self.busy
        if action == "accept":
            return self.revealed and not self.busy and self.query_one(RatingBar).suggested is not None
        if action in ("undo", "undo_from_box"):
            if action == "undo" and in_box or action == "undo_from_box" and not in_box:
                return False
            if in_box:
                box = self.focused
                if box.text if isinstance(box, TextArea) else box.value:  # type: ignore[union-attr]
                    return False  # the key goes to the box, which undoes the typing
            return not self.busy
        if action == "scroll_card":
            return self.revealed
        if action == "edit":
            return not self.busy and self.current is not None
        return True

    def action_undo_from_box(self) -> None:
        self.action_undo()

    def palette_commands(self) -> Iterable[SystemCommand]:
        entries: list[tuple[str, Callable[[], Any]]] = []
        if self.current is not None and not self.revealed and not self.busy:
            entries.append((self.tr("cmd.reveal"), self.action_reveal))
        if self.check_action("rate", ()):
            for rating in RATINGS:
                label = self.tr("cmd.rate").format(label=self.tr(f"rating.{rating}"))
                entries.append((label, lambda r=rating: self.action_rate(r)))
        entries.append((self.tr("cmd.undo"), self.action_undo))
        if self.current is not None:
            entries.append((self.tr("cmd.edit"), self.action_edit))
        for title, callback in entries:
            yield SystemCommand(title, title, callback)
