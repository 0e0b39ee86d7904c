"""One review (or cram) session: the queue, the card shown and its drawn variant, grading, rating,
undo, reloading after an edit, and the tally the summary shows.

Synchronous and free of Textual: the review screen calls one method per key in a worker thread and
renders the frozen view it returns (`CardView`, or `SessionSummary` once the session is over). The
unit tests drive the same calls on a temporary store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from quizapp.practice.cards import CardContent, resolve_card
from quizapp.practice.tally import SessionSummary, SessionTally
from quizapp.vocab import CardKind, Mode, Rating

if TYPE_CHECKING:
    from quizapp.clock import Clock
    from quizapp.practice.checklist import Checklist
    from quizapp.content import Bank, DrillVariant, Grade
    from quizapp.store import Store


@dataclass(frozen=True)
class Progress:
    """Where the session is: the queue's counts (review) or the position in the cram list."""

    mode: Mode
    topic: str | None
    due: int = 0  # review: due and new cards left in the queue (of `topic`)
    new: int = 0
    done: int = 0  # ratings given in this session
    index: int = 0  # cram: this card's position (1-based) of `total`
    total: int = 0


@dataclass(frozen=True)
class CardView:
    """The card to show: its content, the drill variant drawn for it, the intervals each rating gives."""

    content: CardContent
    progress: Progress
    variant: DrillVariant | None = None
    variant_error: str | None = None  # the calculator could not draw the drill (the card can still be rated)
    intervals: Mapping[Rating, timedelta] = field(default_factory=dict)  # empty in cram
    typed: str | None = None  # the answer to put back in the box (after an undo or an edit)
    leech: str | None = None  # the card just rated became a leech and was suspended (its id): say so
    flag: int = 0  # the card's flag (0 none, 1-4 as in Anki)

    @property
    def card_id(self) -> str:
        return self.content.card_id


Shown = CardView | SessionSummary
"""What every step of a session returns: the next card, or the summary once nothing is left."""


class ReviewSession:
    """The review flow over a Store and a Bank. mode REVIEW: the store's queue (optionally one topic);
    mode CRAM: the given card ids, or every card of `topic`, practised without moving the schedule."""

    def __init__(self, store: Store, bank: Bank, clock: Clock, mode: Mode = Mode.REVIEW, topic: str | None = None,
                 card_ids: Sequence[str] | None = None, seed: int | None = None) -> None:
        self.store = store
        self.bank = bank
        self.clock = clock
        self.mode = Mode(mode)
        if self.mode is Mode.MOCK:
            raise ValueError("mode: a review session is review or cram; mock interviews are practice.interview's")
        self.topic = topic
        self.card_ids = list(card_ids) if card_ids is not None else None
        self.seed = seed
        self.tally = SessionTally(mode=self.mode, topic=topic, started=clock.monotonic())
        self.current: CardView | None = None
        self.grade: Grade | None = None
        self.checklist: Checklist | None = None  # the key points of the revealed self-graded card
        self._shown_at = clock.monotonic()
        # earlier graded tries of the drill shown, (grade, answer typed), when u reopened it for a retype
        self.attempts: list[tuple[Grade, str]] = []
        self._checked = ""  # the answer the last check() graded
        self._cram: list[str] = []
        self._cram_total = 0
        self._cram_done = 0

    # --- the steps (one call per key) ------------------------------------------------------------

    def start(self) -> Shown:
        """The first card (a cram session first fixes its list)."""
        if self.mode is Mode.CRAM:
            self._cram = list(self.store.cram(topic=self.topic, card_ids=self.card_ids))
            self._cram_total = len(self._cram)
        return self._next()

    def check(self, answer: str) -> Grade:
        """Grade a typed drill answer against the variant shown (no store call; the grade is kept for
        the rating). An unreadable answer is returned too, so the screen can show why."""
        from quizapp.content import grade

        card = self._drill_shown()
        self.grade = grade(card.variant, card.content.drill, answer)
        self._checked = answer
        return self.grade

    def reveal(self, answer: str | None = None) -> Checklist | None:
        """The card is revealed: its key-point checklist, pre-ticked with what `answer` covers (None for a
        drill or a card without points; then the rating is by feel alone, as before)."""
        from quizapp.practice.checklist import checklist_for

        self.checklist = checklist_for(self._shown().content, answer)
        return self.checklist

    def toggle_point(self, index: int) -> Checklist | None:
        """Tick or untick point `index` of the revealed card's checklist."""
        if self.checklist is not None:
            self.checklist.toggle(index)
        return self.checklist

    def rate(self, rating: Rating, answer: str | None = None) -> Shown:
        """Record the rating of the card shown (with the typed answer and the drill's grade) and move on.

        After a retype (`retype`) the first graded try is the one recorded: what the drill measured."""
        card = self._shown()
        rating = Rating(rating)
        graded = self.attempts[0][0] if self.attempts else (
            self.grade if self.grade is not None and self.grade.verdict.graded else None)
        duration_ms = max(int((self.clock.monotonic() - self._shown_at) * 1000), 0)
        ticks = dict(self.checklist.ticked) if self.checklist is not None else None
        was_leech = self.mode is not Mode.CRAM and self._is_leech(card.card_id)
        after = self.store.review(card.card_id, rating, duration_ms=duration_ms, mode=self.mode, answer=answer,
                                  verdict=graded.verdict if graded else None,
                                  mistake=graded.mistake_id if graded else None, points=ticks)
        became_leech = self.mode is not Mode.CRAM and bool(getattr(after, "leech", False)) and not was_leech
        if became_leech:
            self.tally.leeches.append(card.card_id)
        if self.mode is Mode.CRAM and self._cram and self._cram[0] == card.card_id:
            self._cram.pop(0)
            self._cram_done += 1
        self.tally.record(card.card_id, graded.verdict if graded else None, answer=answer, variant=card.variant)
        shown = self._next()
        if became_leech and isinstance(shown, CardView):
            shown = self.current = replace(shown, leech=card.card_id)
        return shown

    def retype(self) -> CardView | None:
        """`u` on a graded drill not rated yet: reopen its answer for a corrected try (the graded one is kept
        in `attempts`, and it is what the rating records). None when the card shown is not such a drill."""
        card = self.current
        if card is None or card.variant is None or self.grade is None or not self.grade.verdict.graded:
            return None
        self.attempts.append((self.grade, self._checked))
        self.grade = None
        return card

    def set_aside(self, action: str) -> Shown:
        """Bury (until tomorrow) or suspend the card shown, as Anki's - and @ do, and move on."""
        from quizapp.store import card_ops

        if action not in ("bury", "suspend"):
            raise ValueError(f"action: expected bury or suspend, got {action!r}")
        card = self._shown()
        card_ops.apply(self.store, action, [card.card_id], source="review")
        self.tally.set_aside += 1
        if self.mode is Mode.CRAM and self._cram and self._cram[0] == card.card_id:
            self._cram.pop(0)
            self._cram_total -= 1
        return self._next()

    def flag(self, colour: int) -> CardView:
        """Flag the card shown with 1-4 (Anki's ctrl+1-4); the same flag again removes it."""
        from quizapp.store import card_ops

        card = self._shown()
        value = 0 if card.flag == colour else colour
        card_ops.apply(self.store, "flag", [card.card_id], value, source="review")
        self.current = replace(card, flag=value)
        return self.current

    def _is_leech(self, card_id: str) -> bool:
        info = self.store.card(card_id)
        return bool(getattr(info, "leech", False))

    def undo(self) -> Shown | None:
        """Take back the last rating this session's store recorded; the card comes back as it was (the same
        variant, the typed answer). None when there is nothing to undo."""
        card_id = self.store.undo()
        if card_id is None:
            return None
        rated = self.tally.unrecord(card_id)
        if card_id in self.tally.leeches:  # the undone rating made it a leech: the store took that back too
            self.tally.leeches.remove(card_id)
        if self.mode is Mode.CRAM:
            self._cram.insert(0, card_id)
            self._cram_done = max(self._cram_done - 1, 0)
        content = resolve_card(self.bank, card_id)
        if content is None:
            return self._next()
        return self._show(content, rated.variant if rated else None, typed=rated.answer if rated else None)

    def reload(self, content_dirs: Sequence[Path], typed: str | None = None) -> Shown:
        """After the question's file was edited: load the bank again, sync the store, show the same card
        from the new text (or the next one if it is gone). `typed` goes back in the answer box."""
        from quizapp.content import load_bank

        from quizapp.content.localize import localized

        fresh = load_bank(content_dirs)
        lang = getattr(self.bank, "lang", None)  # a bank shown in one language stays in it
        self.bank = localized(fresh, lang) if lang else fresh
        self.store.sync(self.bank.cards())
        content = resolve_card(self.bank, self.current.card_id) if self.current is not None else None
        if content is None:
            return self._next()
        return self._show(content, typed=typed)

    def summary(self) -> SessionSummary:
        return self.tally.summary(self.clock.monotonic(), self.store.next_due())

    # --- internals -------------------------------------------------------------------------------

    def _shown(self) -> CardView:
        if self.current is None:
            raise RuntimeError("no card is shown")
        return self.current

    def _drill_shown(self) -> CardView:
        card = self._shown()
        if card.content.kind is not CardKind.DRILL or card.variant is None:
            raise RuntimeError("the card shown is not a drill with a variant")
        return card

    def _next(self) -> Shown:
        while True:
            if self.mode is Mode.CRAM:
                if not self._cram:
                    return self._finish()
                card_id = self._cram[0]
            else:
                row = self.store.next_card(self.topic)
                if row is None:
                    return self._finish()
                card_id = row.card_id
            content = resolve_card(self.bank, card_id)
            if content is not None:
                return self._show(content)
            if self.mode is not Mode.CRAM:
                return self._finish()  # the store's next card is not in the bank: sync will orphan it
            self._cram.pop(0)  # a stale id: drop it rather than stop the session
            self._cram_total -= 1

    def _finish(self) -> SessionSummary:
        self.current = None
        self.grade = None
        self.checklist = None
        return self.summary()

    def _show(self, content: CardContent, variant: DrillVariant | None = None, typed: str | None = None) -> CardView:
        variant_error = None
        if content.kind is CardKind.DRILL and variant is None:
            from quizapp.content import draw_variant

            try:
                variant = draw_variant(content.question, content.drill, self.seed)
            except ValueError as exc:  # SetupError and friends: shown on the card, which can still be rated
                variant_error = str(exc)
        intervals: Mapping[Rating, timedelta] = {}
        progress = Progress(self.mode, self.topic, done=self.tally.reviewed)
        if self.mode is Mode.CRAM:
            progress = replace(progress, index=self._cram_done + 1, total=self._cram_total)
        else:
            intervals = {Rating(r): interval for r, interval in self.store.preview(content.card_id).items()}
            # what is left to show today, limits and burying applied (the numbers Home shows too)
            left = self.store.day_counts(self.topic)
            progress = replace(progress, due=left.learning + left.review, new=left.new)
        from quizapp.store import card_ops

        flag = card_ops.flags(self.store, [content.card_id]).get(content.card_id, 0)
        self.current = CardView(content, progress, variant, variant_error, intervals, typed, flag=flag)
        self.grade = None
        self.attempts = []
        self.checklist = None
        self._shown_at = self.clock.monotonic()
        return self.current
