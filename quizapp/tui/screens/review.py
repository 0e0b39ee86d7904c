"""Review (and cram): show a card, let the user answer, reveal, rate, move on.

The flow is `quizapp.practice.review.ReviewSession`'s: each key that needs the store is one session
call run in the background (`in_background`), and the screen renders the frozen view it returns.
The screen keeps only presentation state: whether the answer is revealed, and what the boxes hold.

Keys, as in Anki: on a self-graded card Space and Enter reveal; `a` or Tab puts the focus in the
answer box (the setting type_answers puts it there first), where ctrl+enter or ctrl+r reveals with
the typed text kept and Escape leaves it. A drill keeps its input focused and Enter grades it (ctrl+r
too). 1-4 rate once revealed; Enter accepts the grader's suggestion on a drill; [ and ] switch the
answer's tabs; ctrl+z (u outside a box) undoes the last rating; e edits the question (a bundled one
through the user's own copy, quizapp.content.editable); Escape leaves a box, then goes home. After
reveal the card area has the focus, so up/down/page up/page down scroll to the answer.

From a rating until the next card is on screen, key presses are held and then replayed into it, so
the rating key never lands in the next card's input and nothing typed meanwhile is lost. The footer
shows the keys that work where the focus is (check_action hides the others).
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable, Iterable
from typing import Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult, SuspendNotSupported, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import reactive
from textual.widget import AwaitMount, Widget
from textual.widgets import Input, Static, TextArea

from quizapp.practice.cards import CardContent
from quizapp.practice.checklist import TOGGLE_KEYS
from quizapp.practice.review import CardView, ReviewSession, Shown
from quizapp.practice.tally import SessionTally
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.footer import Footer
from quizapp.tui.widgets.question_view import QuestionView
from quizapp.tui.widgets.rating_bar import RATINGS, RatingBar
from quizapp.vocab import CardKind, Mode, Rating, Verdict

PREPARE_AFTER_S = 0.25  # after a card is shown, its answer is mounted hidden (reveal then only shows it)


def _resolved(path: Any) -> Any:
    from pathlib import Path

    try:
        return Path(path).resolve()
    except (OSError, RuntimeError):
        return Path(path).absolute()


_VERDICT_STYLE = {Verdict.CORRECT: "bold green", Verdict.CLOSE: "bold yellow", Verdict.WRONG: "bold red"}


class CardArea(VerticalScroll):
    """The scrolling card; after reveal it has the focus, and its footer entry says how to scroll."""

    BINDINGS = [
        Binding("pagedown", "page_down", "Scroll", id="scroll", key_display="PgDn/PgUp"),
        Binding("pageup", "page_up", "Scroll", id="scroll-up", show=False),
    ]

    def watch_has_focus(self, has_focus: bool) -> None:
        """Restyle only this container when it gains or loses the focus: no rule styles the card's content
        by the area's focus, and Textual's default restyles the whole subtree (the question and the
        answer: 10-20 ms of a drill's reveal)."""
        self.app.stylesheet.update_nodes([self], animate=False)


class ReviewScreen(QuizScreen[None]):
    """One session. mode REVIEW: the store's queue (optionally one topic); mode CRAM: the given card ids,
    or every card of `topic`, practised without moving the schedule."""

    CSS_PATH = "review.tcss"
    AUTO_FOCUS = ""  # the screen decides: the answer box of each card as it is shown
    BINDINGS = [
        # Two bindings per key pair: the footer shows the one that works where the focus is (check_action
        # hides the other). ctrl+r / ctrl+z also work outside a box, through their hidden twins.
        Binding("ctrl+r", "reveal_from_box", "Reveal", id="reveal-box", key_display="^r"),
        Binding("ctrl+enter,ctrl+j", "reveal_from_box", "Reveal", id="reveal-box-enter", show=False),
        Binding("ctrl+r", "reveal", "Reveal", id="reveal-ctrl", show=False),
        Binding("space", "reveal", "Reveal", id="reveal"),
        Binding("enter", "reveal", "Reveal", id="reveal-enter", show=False),
        Binding("a,tab", "focus_box", "Type", id="type-answer", key_display="a"),
        # 1-4 rate; the rating bar shows them with their intervals, so the footer keeps its room for the rest
        Binding("1", "rate(1)", "Again", id="again", show=False),
        Binding("2", "rate(2)", "Hard", id="hard", show=False),
        Binding("3", "rate(3)", "Good", id="good", show=False),
        Binding("4", "rate(4)", "Easy", id="easy", show=False),
        Binding("enter", "accept", "Accept", id="accept"),
        *(Binding(key, f"toggle_point({i})", "Tick point", id=f"tick-{key}", show=(i == 0), key_display="z-m")
          for i, key in enumerate(TOGGLE_KEYS)),
        Binding("right_square_bracket", "switch_tab(1)", "Tabs", id="tabs", key_display="[ ]"),
        Binding("left_square_bracket", "switch_tab(-1)", "Tabs", id="tabs-back", show=False),
        # ctrl+z undoes the last rating from inside an answer box too, unless the box has typing to undo
        Binding("ctrl+z", "undo_from_box", "Undo", id="undo-box", key_display="^z", priority=True),
        Binding("ctrl+z", "undo", "Undo", id="undo-anywhere", show=False, priority=True),
        Binding("u", "undo", "Undo", id="undo"),
        # Anki's review keys: - buries until tomorrow, @ suspends, ctrl+1-4 flag (again: unflag). Not in the
        # footer (it is full at 80 columns): in the command palette and docs/app.md, as Anki's are in its manual.
        Binding("minus", "set_aside('bury')", "Bury", id="bury", key_display="-", show=False),
        Binding("at", "set_aside('suspend')", "Suspend", id="suspend", key_display="@", show=False),
        *(Binding(f"ctrl+{n}", f"flag({n})", "Flag", id=f"flag-{n}", show=False) for n in (1, 2, 3, 4)),
        # For when the focus is elsewhere (a tab, a rating button); on the card area its own keys apply.
        Binding("pagedown", "scroll_card('page_down')", "Scroll", id="scroll-card", show=False),
        Binding("pageup", "scroll_card('page_up')", "Scroll", id="scroll-card-up", show=False),
        Binding("e", "edit", "Edit", id="edit"),
        Binding("escape", "back", "Home", id="home"),
    ]

    revealed: reactive[bool] = reactive(False, bindings=True)
    busy: bool = True  # a session call is running: keys wait (held, then replayed); the footer does not change
    in_box: reactive[bool] = reactive(False, bindings=True)  # an answer box has the focus
    box_has_text: reactive[bool] = reactive(False, bindings=True)  # ... and holds typing (^z undoes that)
    suggested: reactive[Rating | None] = reactive(None, bindings=True)  # the grader's rating: Enter accepts it
    footer_on_hold: reactive[bool] = reactive(False, bindings=True)  # a card is being arranged (widgets/footer.py)

    def __init__(self, mode: Mode = Mode.REVIEW, topic: str | None = None, card_ids: list[str] | None = None) -> None:
        super().__init__()
        self.mode = Mode(mode)
        if self.mode is Mode.MOCK:
            raise ValueError(f"mode: expected review or cram, got {mode!r}")
        self.topic = topic
        self.card_ids = list(card_ids) if card_ids is not None else None
        self.session: ReviewSession | None = None
        self._held: list[events.Key] = []  # keys pressed while a session call runs, replayed after it
        self._focus_target: Widget | None = None  # a focus asked for and not landed yet (_watch_box)
        self._preparing: AwaitMount | None = None  # the hidden answer's mount, while it runs (_prepare_answer)

    # --- what the session shows (the tests read these) ----------------------------------------------
    @property
    def view(self) -> CardView | None:
        return self.session.current if self.session is not None else None

    @property
    def current(self) -> CardContent | None:
        return self.view.content if self.view is not None else None

    @property
    def variant(self) -> Any | None:
        return self.view.variant if self.view is not None else None

    @property
    def grade(self) -> Any | None:
        return self.session.grade if self.session is not None else None

    @property
    def tally(self) -> SessionTally | None:
        return self.session.tally if self.session is not None else None

    # --- layout ----------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="review-top"):
            yield Static(Text(self.t("review.loading")), id="progress")
        yield CardArea(id="card-area")
        # Shown and hidden with `display`, not a class: a class change restyles the whole subtree.
        rating_bar = RatingBar(self.lang, id="rating-bar")
        rating_bar.display = False
        yield rating_bar
        yield Footer()

    def on_mount(self) -> None:
        app = self.app
        self.session = ReviewSession(app.store, app.bank, app.clock, self.mode, self.topic, self.card_ids,
                                     seed=app.settings.seed)
        self._call(self.session.start)

    # --- session calls ---------------------------------------------------------------------------
    def _call(self, call: Callable[[], Any], then: Callable[[Any], Any] | None = None) -> None:
        """Run one session call in the background; its result is shown (or handed to `then`)."""
        self.busy = True
        self.in_background(call, then or self._show)

    def background_failed(self, error: BaseException) -> None:
        self.busy = False  # what was typed is still in its box; the user can try again
        self._replay_held()

    def on_key(self, event: events.Key) -> None:
        """While a session call runs (a rating, an undo), hold every key; _show replays them on the next card."""
        if self.busy and self.session is not None and event.key not in ("ctrl+c", "ctrl+q"):
            event.stop()
            event.prevent_default()
            self._held.append(events.Key(event.key, event.character))

    def _replay_held(self) -> None:
        held, self._held = self._held, []
        for key in held:
            self.app.post_message(key)

    async def _show(self, shown: Shown) -> None:
        if not isinstance(shown, CardView):
            self.busy = False
            self._held.clear()
            self.app.open_summary(shown)
            return
        self.footer_on_hold = True  # until the new card's focus lands: the footer changes once
        self.revealed = False
        self.suggested = None
        self._update_progress(shown)
        if shown.leech is not None:  # the card just rated lapsed once too often: Anki suspends and says so
            self.notify(self.t("review.leech", card=shown.leech), severity="warning", markup=False, timeout=8)
        area = self.query_one("#card-area", VerticalScroll)
        self._focus_target = area  # the old card's box loses the focus now; the footer waits for the new one
        if self._preparing is not None:  # the old card's answer is still being mounted: let it finish first
            await self._preparing
            self._preparing = None
        await area.remove_children()
        content = shown.content
        widgets: list[Any] = [QuestionView(content.question, content.kind, content.item, shown.variant, lang=self.lang)]
        if content.kind is CardKind.DRILL and shown.variant is not None:
            widgets.append(Input(value=shown.typed or "", placeholder=self.t("review.drill_hint", unit=shown.variant.unit),
                                 id="drill-input"))
            widgets.append(Static(Text(""), id="verdict"))
        else:
            if shown.variant_error:
                widgets.append(Static(Text(self.t("breakdown.error", error=shown.variant_error)), id="verdict"))
            widgets.append(Static(Text(self.t("review.your_answer.keys")), classes="muted"))
            widgets.append(TextArea(shown.typed or "", id="own-answer", soft_wrap=True, show_line_numbers=False))
        await area.mount_all(widgets)
        area.scroll_home(animate=False)
        rating_bar = self.query_one(RatingBar)
        rating_bar.display = False
        rating_bar.suggest(None)
        rating_bar.set_intervals(dict(shown.intervals))
        # A drill's input has the focus (Enter grades); a self-graded card leaves it to the card area, so
        # Space and Enter reveal as in Anki, unless the user asked to type answers (type_answers) or is
        # back on a card with typed text (after an undo or an edit).
        box = self.query_one("#drill-input, #own-answer")
        if isinstance(box, Input) or shown.typed or self._type_answers():
            self._focus_on(box)
            if isinstance(box, TextArea) and shown.typed:
                box.move_cursor(box.document.end)
        else:
            self._focus_on(area)
        self.busy = False
        self._replay_held()
        # Not at once: mounting the answer would delay the new card's first frame (Textual has no
        # "after it is painted" hook; a quarter second is under any reading time, and reveal before it
        # mounts the answer itself).
        self.set_timer(PREPARE_AFTER_S, self._prepare_answer)

    def _prepare_answer(self) -> None:
        """Mount the answer hidden while the question is read, so reveal only has to show it."""
        if self.busy or self.revealed or self.current is None or self.query("#answer"):
            return  # busy: a rating or undo is replacing the card (its own _show schedules the next one)
        panel = self._answer_panel()
        panel.display = False
        self._preparing = self.query_one("#card-area", VerticalScroll).mount(panel)

    def _answer_panel(self) -> Widget:
        """The revealed side of the card on screen."""
        from quizapp.tui.widgets.answer_panel import AnswerPanel  # tabs, lists, tables: needed from reveal on

        content = self.current
        return AnswerPanel(content.question, content.kind, content.item, self.variant, lang=self.lang, id="answer")

    def _type_answers(self) -> bool:
        return bool(getattr(self.app.store.config, "type_answers", False))

    def action_focus_box(self) -> None:
        """`a` / Tab: put the focus in the answer box (typing starts there; ctrl+r reveals)."""
        for box in self.query("#drill-input, #own-answer"):
            if not box.disabled:
                box.focus()
            return

    async def action_switch_tab(self, step: int) -> None:
        """[ and ]: the previous / next tab of the revealed answer, brought into view with its content
        (AnswerPanel.switch_tab)."""
        for panel in self.query("#answer"):
            switch = getattr(panel, "switch_tab", None)
            if switch is not None:
                await switch(step)
            return

    def _update_progress(self, shown: CardView) -> None:
        p = shown.progress
        if p.mode is Mode.CRAM:
            text = self.t("review.progress.cram", index=p.index, total=p.total)
        else:
            text = self.t("review.progress", due=p.due, new=p.new, done=p.done)
        if self.topic:
            text = f"{self.topic} · {text}"
        if shown.flag:
            text = f"{text} · {self.t('review.flag', n=shown.flag)}"
        self.query_one("#progress", Static).update(Text(text))

    def _typed_text(self) -> str | None:
        for box in self.query("#drill-input, #own-answer"):
            value = box.value if isinstance(box, Input) else box.text  # type: ignore[attr-defined]
            return value if value.strip() else None
        return None

    # --- answering -------------------------------------------------------------------------------
    @on(Input.Submitted, "#drill-input")
    def _drill_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.revealed or self.variant is None or self.busy:
            return
        if self._grade_drill(event.input).verdict is Verdict.UNPARSEABLE:
            event.input.focus()
            return
        self._reveal_graded(event.input)

    def _grade_drill(self, box: Input) -> Any:
        """Grade what the drill's input holds and show the verdict."""
        result = self.session.check(box.value)  # type: ignore[union-attr]
        self._show_grade(result)
        return result

    def _reveal_graded(self, box: Input) -> None:
        """Reveal after a readable answer, with the grader's suggestion on the rating bar."""
        box.disabled = True
        self.action_reveal()
        if self.grade is not None and self.grade.suggested_rating is not None:
            self.suggested = self.grade.suggested_rating
            self.query_one(RatingBar).suggest(self.suggested)
            self._focus_on(self.query_one("#card-area", VerticalScroll))  # Enter accepts; arrows scroll

    def _typed_drill_box(self) -> Input | None:
        """The drill's input when it holds an answer not graded yet (or graded unreadable)."""
        if self.revealed or self.variant is None:
            return None
        for box in self.query("#drill-input").results(Input):
            if box.value.strip() and (self.grade is None or self.grade.verdict is Verdict.UNPARSEABLE):
                return box
        return None

    def _show_grade(self, result: Any) -> None:
        from quizapp.content.solution import distinguishable

        verdict = Text()
        verdict.append(self.t(f"review.verdict.{result.verdict}"), style=_VERDICT_STYLE.get(result.verdict, "bold"))
        if result.verdict is Verdict.UNPARSEABLE:
            if result.reason:
                verdict.append(f": {result.reason}")
            verdict.append(f"\n{self.t('review.retype')}")
        else:
            unit = self.variant.unit
            expected = self.variant.expected_display
            if result.value is not None:  # as many digits as it takes to show 0.128 vs 0.131 MB
                yours, expected = distinguishable(result.value, self.variant.expected, unit)
                verdict.append(f" · {self.t('review.your_value')}: {yours}")
            verdict.append(f" · {self.t('review.expected')}: {expected}")
            if result.convention:
                from quizapp.content.drills import precise

                verdict.append("\n")
                verdict.append(self.t("review.convention", name=self.t(f"convention.{result.convention}"),
                                      value=precise(result.convention_value, unit), expected=expected))
            if result.mistake_id:
                verdict.append("\n")
                labels = " / ".join(self.t(m) for m in result.mistake_ids)
                verdict.append(self.t("review.mistake", label=labels), style="bold")
        self.query_one("#verdict", Static).update(verdict)

    def action_reveal_from_box(self) -> None:
        self.action_reveal()

    def action_reveal(self) -> None:
        if self.revealed or self.current is None or self.busy:
            return
        box = self._typed_drill_box()
        if box is not None:
            # A typed drill answer is graded first, as Enter would, so it is scored and stored. An
            # unreadable one still reveals (the user asked to see the answer), with the reason shown.
            if self._grade_drill(box).verdict is not Verdict.UNPARSEABLE:
                self._reveal_graded(box)
                return
        self.footer_on_hold = True
        self.revealed = True
        for area in self.query("#own-answer").results(TextArea):
            area.read_only = True
        for drill_box in self.query("#drill-input").results(Input):
            if self.grade is None or self.grade.verdict is Verdict.UNPARSEABLE:
                drill_box.disabled = True
        card_area = self.query_one("#card-area", VerticalScroll)
        prepared = self.query("#answer")
        checklist = self.session.reveal(self._typed_text()) if self.session is not None else None
        if checklist is not None:
            from quizapp.tui.widgets.checklist import PointChecklist

            widget = PointChecklist(checklist, self.lang, id="checklist")
            if prepared:
                card_area.mount(widget, before=prepared.first())
            else:
                card_area.mount(widget)
            self.suggested = checklist.suggested
            self.query_one(RatingBar).suggest(checklist.suggested)
        if prepared:
            prepared.first().display = True
        else:
            card_area.mount(self._answer_panel())
        self.query_one(RatingBar).display = True
        # The card area takes the focus: up/down/page keys scroll to the answer, while 1-4 and Enter
        # (which it does not bind) still reach the screen's rating bindings.
        self._focus_on(card_area)

    def action_scroll_card(self, how: str) -> None:
        area = self.query_one("#card-area", VerticalScroll)
        if how == "page_down":
            area.scroll_page_down(animate=False)
        else:
            area.scroll_page_up(animate=False)

    def action_rate(self, rating: int) -> None:
        if not self.revealed or self.busy or self.current is None or rating not in RATINGS:
            return
        session, answer = self.session, self._typed_text()
        self._call(lambda: session.rate(Rating(rating), answer))  # type: ignore[union-attr]

    def action_toggle_point(self, index: int) -> None:
        """z x c v b n m: tick or untick a key point of the revealed card; the suggestion follows."""
        if not self.revealed or self.busy or self.session is None or self.session.checklist is None:
            return
        checklist = self.session.toggle_point(index)
        for widget in self.query("#checklist"):
            widget.show(checklist)  # type: ignore[attr-defined]
        self.suggested = checklist.suggested
        self.query_one(RatingBar).suggest(checklist.suggested)

    def action_accept(self) -> None:
        if self.suggested is not None:
            self.action_rate(self.suggested)

    @on(RatingBar.Rated)
    def _rated(self, event: RatingBar.Rated) -> None:
        event.stop()
        self.action_rate(event.rating)

    def action_undo_from_box(self) -> None:
        self.action_undo()

    def action_undo(self) -> None:
        """u / ctrl+z act on the card in front of you: a graded drill not rated yet reopens for a corrected
        retype (the graded try is kept and recorded); otherwise the last rating is undone."""
        if self.session is None:
            return
        if self.busy:  # ctrl+z is a priority binding, so on_key never held it: hold it here
            self._held.append(events.Key("ctrl+z", None))
            return
        if self.revealed and self.session.retype() is not None:
            self._reopen_drill()
            return
        self._call(self.session.undo, self._undone)

    def _reopen_drill(self) -> None:
        """Back to the drill's question with its input open, the first try shown in the verdict."""
        first, typed = self.session.attempts[0]  # type: ignore[union-attr]
        self.revealed = False
        self.suggested = None
        for widget in self.query("#answer, #checklist"):
            widget.display = False
        self.query_one(RatingBar).display = False
        self.query_one(RatingBar).suggest(None)
        verdict = Text(self.t("review.retyping", verdict=self.t(f"review.verdict.{first.verdict}"), answer=typed))
        self.query_one("#verdict", Static).update(verdict)
        for box in self.query("#drill-input").results(Input):
            box.disabled = False
            self._focus_on(box)

    def action_set_aside(self, action: str) -> None:
        """- and @: bury or suspend the card shown and go on to the next."""
        if self.current is None or self.busy or self.session is None:
            return
        session, word = self.session, "review.buried" if action == "bury" else "review.suspended"
        title = self.current.card_id

        async def shown(result: Shown) -> None:
            self.notify(self.t(word, card=title), markup=False)
            await self._show(result)

        self._call(lambda: session.set_aside(action), shown)

    def action_flag(self, colour: int) -> None:
        """ctrl+1-4: flag the card shown (the same flag again removes it)."""
        if self.current is None or self.busy or self.session is None:
            return
        session = self.session

        def flagged(view: CardView) -> None:
            self.busy = False
            self._replay_held()
            self._update_progress(view)
            self.notify(self.t("review.flagged", n=view.flag) if view.flag else self.t("review.unflagged"),
                        markup=False)

        self._call(lambda: session.flag(colour), flagged)

    async def _undone(self, shown: Shown | None) -> None:
        if shown is None:
            self.busy = False
            self._replay_held()
            self.notify(self.t("review.nothing_to_undo"), markup=False)
            return
        self.notify(self.t("review.undone"), markup=False)
        await self._show(shown)

    # --- editing the question --------------------------------------------------------------------
    def _editor_command(self) -> list[str]:
        editor = self.app.settings.editor or os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        return shlex.split(editor)

    def _configured_dirs(self) -> tuple:
        """The --content folders, or () when the app runs on the bundled bank (with the user's folder)."""
        from quizapp.locations import bundled_content_dir

        dirs = tuple(self.app.settings.content_dirs)
        bundled = bundled_content_dir().resolve()
        return () if not dirs or any(_resolved(d) == bundled for d in dirs) else dirs

    def action_edit(self) -> None:
        if self.current is None or self.busy:
            return
        question = self.current.question
        if getattr(question, "source_path", None) is None:
            self.notify(self.t("app.no_source"), severity="warning", markup=False)
            return
        from quizapp.content.editable import editable_file

        configured = self._configured_dirs()
        try:
            editable = editable_file(question, configured)
        except OSError as exc:
            self.notify(self.t("edit.failed", reason=exc.strerror or exc), severity="error", markup=False)
            return
        path = editable.path
        self.notify(self.t(f"edit.{editable.where}", path=path), markup=False, timeout=6)
        command = [*self._editor_command(), str(path)]
        try:
            try:
                with self.app.suspend():
                    subprocess.run(command, check=False)
            except SuspendNotSupported:  # headless (tests): run it without handing over the terminal
                subprocess.run(command, check=False, stdin=subprocess.DEVNULL)
        except OSError as exc:
            self.notify(self.t("app.editor_failed", error=exc), severity="error", markup=False)
            return
        from quizapp.locations import content_dirs

        # the folders again: the user's folder may have just been made by the copy
        session, typed, dirs = self.session, self._typed_text(), content_dirs(configured)
        self._call(lambda: session.reload(dirs, typed), self._reloaded)  # type: ignore[union-attr]

    async def _reloaded(self, shown: Shown) -> None:
        bank = self.session.bank  # type: ignore[union-attr]
        self.app.bank = bank
        self.notify(self.t("app.reloaded", n=len(bank.questions)), markup=False)
        if bank.problems:
            self.notify(self.t("home.problems", n=len(bank.problems)), severity="warning", markup=False)
        await self._show(shown)

    # --- leaving ---------------------------------------------------------------------------------
    def action_back(self) -> None:
        if isinstance(self.focused, (TextArea, Input)):
            self.set_focus(None)
            return
        self.app.pop_screen()

    # --- which keys apply now --------------------------------------------------------------------
    def on_descendant_focus(self) -> None:
        self._watch_box()

    def on_descendant_blur(self) -> None:
        self._watch_box()

    @on(Input.Changed)
    @on(TextArea.Changed)
    def _typing_changed(self) -> None:
        self._watch_box()

    def _watch_box(self) -> None:
        """Mirror where the focus is into reactives; the footer follows (reactive(bindings=True)).

        While a focus this screen asked for has not landed yet, the blur and focus events on the way
        (the old card's box removed, the new one not focused yet) are not mirrored: the footer changes
        once per key, not once per event (each change rebuilds it)."""
        if self._focus_target is not None:
            if self.focused is not self._focus_target:
                return
            self._focus_target = None
        self._mirror(self.focused)
        self.footer_on_hold = False

    def _mirror(self, box: Widget | None) -> None:
        self.in_box = isinstance(box, (TextArea, Input))
        self.box_has_text = bool(box.text if isinstance(box, TextArea) else box.value) if self.in_box else False  # type: ignore[union-attr]

    def _focus_on(self, widget: Widget) -> None:
        """Focus `widget`, and mirror it into the reactives now, with the rest of this key's changes."""
        self._mirror(widget)
        if widget is self.focused:
            self._focus_target = None
            self.footer_on_hold = False
            return
        self._focus_target = widget
        widget.focus()
        self.call_after_refresh(self._focus_settled, widget)

    def _focus_settled(self, widget: Widget) -> None:
        """A focus that never landed (the widget went away or was disabled) stops holding the mirror."""
        if self._focus_target is widget:
            self._focus_target = None
            self._mirror(self.focused)
            self.footer_on_hold = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # `busy` is left out on purpose: a key pressed during a session call is held and replayed on the
        # next card (on_key), so the footer keeps showing it, and does not flicker on every rating.
        if action in ("reveal", "reveal_from_box"):
            if (action == "reveal") == self.in_box:
                return False  # hidden: its twin binding is the one that works here
            return self.current is not None and not self.revealed
        if action == "rate":
            return self.revealed
        if action == "accept":
            return self.revealed and self.suggested is not None
        if action == "toggle_point":
            checklist = self.session.checklist if self.session is not None else None
            return self.revealed and checklist is not None and int(parameters[0]) < checklist.total
        if action in ("undo", "undo_from_box"):
            if (action == "undo") == self.in_box:
                return False
            return not (self.in_box and self.box_has_text)  # else the key goes to the box: it undoes the typing
        if action == "focus_box":
            if self.in_box or self.revealed or self.current is None:
                return False
            return any(not box.disabled for box in self.query("#drill-input, #own-answer"))
        if action in ("switch_tab", "scroll_card"):
            return self.revealed  # a revealed card always has its answer's tabs
        if action == "edit":
            return self.current is not None
        if action == "set_aside":
            return self.current is not None and not self.in_box  # in a box, - and @ are typed
        if action == "flag":
            return self.current is not None
        return True

    def palette_commands(self) -> Iterable[SystemCommand]:
        entries: list[tuple[str, Callable[[], Any]]] = []
        if self.current is not None and not self.revealed and not self.busy:
            entries.append((self.t("cmd.reveal"), self.action_reveal))
        if self.check_action("focus_box", ()):
            entries.append((self.t("cmd.type_answer"), self.action_focus_box))
        if self.check_action("switch_tab", (1,)):
            entries.append((self.t("cmd.next_tab"), lambda: self.action_switch_tab(1)))
        if self.check_action("rate", ()):
            for rating in RATINGS:
                label = self.t("cmd.rate", label=self.t(f"rating.{rating.value}"))
                entries.append((label, lambda r=rating: self.action_rate(r)))
        entries.append((self.t("cmd.undo"), self.action_undo))
        if self.current is not None:
            entries.append((self.t("cmd.edit"), self.action_edit))
            if not self.busy:
                entries.append((self.t("cmd.bury"), lambda: self.action_set_aside("bury")))
                entries.append((self.t("cmd.suspend"), lambda: self.action_set_aside("suspend")))
                for n in (1, 2, 3, 4):
                    entries.append((self.t("cmd.flag", n=n), lambda n=n: self.action_flag(n)))
        for title, callback in entries:
            yield SystemCommand(title, title, callback)
