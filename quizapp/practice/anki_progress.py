"""quizapp's progress in Anki's terms: a card's type, queue, due, interval and FSRS memory state, and
each answer as a revlog row, so an exported deck continues in Anki where quizapp left off.

Anki's columns (its database schema, rslib/src/storage): type 0 new, 1 learning, 2 review, 3
relearning; queue -3 buried by the user, -1 suspended, 0 new, 1 learning due today (due in epoch
seconds), 2 review, 3 learning due on a later day (due as a day number); a review card's due is a
day number counted from the collection's creation, which the writer (quizapp.store.anki_collection)
turns the "days from today" given here into; card.data holds FSRS's stability `s`, difficulty `d`,
desired retention `dr` and last review time `lrt`. revlog: ease 1-4, ivl in days (negative: seconds),
time in ms (Anki caps it at 60 s, as quizapp does), type 0 learn, 1 review, 2 relearn, 3 filtered (a
cram answer: it moved nothing).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

NEW, LEARNING, REVIEW, RELEARNING = 0, 1, 2, 3
QUEUE_USER_BURIED, QUEUE_SUSPENDED, QUEUE_NEW, QUEUE_LEARNING, QUEUE_REVIEW, QUEUE_DAY_LEARNING = -3, -1, 0, 1, 2, 3
FILTERED = 3
DEFAULT_FACTOR = 2500  # Anki's starting ease (permille); FSRS ignores it, the SM-2 fallback reads it


@dataclass(frozen=True)
class AnkiCard:
    """A card's scheduling columns. due_in_days: for review and day-learning queues, days from today
    (negative: overdue); due_epoch: for the learning queue, seconds since the epoch."""

    ctype: int
    queue: int
    ivl: int
    factor: int
    reps: int
    lapses: int
    left: int
    flags: int
    data: str
    due_in_days: int | None = None
    due_epoch: int | None = None
    keep_due: bool = False  # a new card keeps its position in the new queue (genanki's due)


@dataclass(frozen=True)
class CollectionTiming:
    """When the exported collection was 'created' (epoch seconds, the start of a study day), how many
    study days ago that is, and the rollover hour: Anki counts review due days from it."""

    crt: int
    today: int
    rollover_hour: int


HISTORY_DAYS = 1000  # the collection starts this many study days back, so no due day number is negative


def collection_timing(now: datetime, day_start: Callable[[datetime], datetime], rollover_hour: int) -> CollectionTiming:
    created = day_start(now - timedelta(days=HISTORY_DAYS))
    today = round((day_start(now) - created) / timedelta(days=1))
    return CollectionTiming(int(created.timestamp()), today, rollover_hour)


@dataclass(frozen=True)
class AnkiReview:
    at_ms: int
    ease: int
    ivl: int
    last_ivl: int
    factor: int
    time_ms: int
    rtype: int


def _revlog_ivl(days: float | None) -> int:
    """Anki's revlog interval: whole days, or minus the seconds for an interval under a day."""
    if days is None:
        return 0
    return round(days) if days >= 1 else -round(days * 86400)


def anki_card(progress, *, now: datetime, day_start: Callable[[datetime], datetime], desired_retention: float,
              learning_steps: int, relearning_steps: int) -> AnkiCard:
    """The Anki columns of one studied card (`progress`: quizapp.store.progress.CardProgress).

    day_start(t): the start of the study day holding t, so "due in n days" counts study days as the
    app does (its rollover hour), not 24-hour spans.
    """
    card = progress.card
    if card.is_new:  # answered in cram only: still new in Anki, suspended or flagged as here
        return AnkiCard(ctype=NEW, queue=QUEUE_SUSPENDED if card.suspended else QUEUE_NEW, ivl=0, factor=0, reps=0,
                        lapses=0, left=0, flags=progress.flag & 7, data="", keep_due=True)
    state = card.state
    memory = {}
    if card.stability is not None and card.difficulty is not None:
        memory = {"s": round(card.stability, 4), "d": round(card.difficulty, 4), "dr": round(desired_retention, 4)}
    if card.last_review is not None:
        memory["lrt"] = int(card.last_review.timestamp())
    days_ahead = round((day_start(card.due) - day_start(now)) / timedelta(days=1))
    if state == REVIEW:
        ctype, queue = REVIEW, QUEUE_REVIEW
        ivl = max(1, round((card.due - (card.last_review or now)) / timedelta(days=1)))
        left = 0
    else:
        ctype = RELEARNING if state == RELEARNING else LEARNING
        queue = QUEUE_LEARNING if days_ahead <= 0 else QUEUE_DAY_LEARNING
        ivl = 0
        steps = relearning_steps if state == RELEARNING else learning_steps
        left = max(1, steps - (card.step or 0))
    if card.suspended:
        queue = QUEUE_SUSPENDED
    elif card.buried_until is not None and card.buried_until > now:
        queue = QUEUE_USER_BURIED
    epoch = queue == QUEUE_LEARNING or (queue < 0 and ctype != REVIEW and days_ahead <= 0)
    return AnkiCard(ctype=ctype, queue=queue, ivl=ivl, factor=DEFAULT_FACTOR, reps=card.reps, lapses=card.lapses,
                    left=left, flags=progress.flag & 7, data=json.dumps(memory, separators=(",", ":")) if memory else "",
                    due_in_days=None if epoch else days_ahead, due_epoch=int(card.due.timestamp()) if epoch else None)


def anki_reviews(progress) -> list[AnkiReview]:
    """Every answer of the card as a revlog row, oldest first."""
    out: list[AnkiReview] = []
    last = 0
    for answer in progress.answers:
        if answer.mode == "cram":
            rtype = FILTERED
        else:
            rtype = {NEW: 0, LEARNING: 0, REVIEW: 1, RELEARNING: 2}.get(answer.state_before, 0)
        ivl = _revlog_ivl(answer.interval_days)
        out.append(AnkiReview(at_ms=int(round(answer.reviewed_at.timestamp() * 1000)), ease=answer.rating, ivl=ivl,
                              last_ivl=last, factor=DEFAULT_FACTOR if rtype != FILTERED else 0,
                              time_ms=min(max(answer.duration_ms, 0), 60_000), rtype=rtype))
        if answer.mode != "cram":
            last = ivl
    return out
