"""A card's whole story for the browser's card info: every answer with the memory state it left.

The state after an answer is what the next answer found (its card_before), or the card as it is now
for the last one: the values the scheduler actually stored, fuzz included. A cram answer moved
nothing, so it shows the state it was given in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import bindparam, case, func, select, type_coerce

from quizapp.store.tables import Card, ReviewLog

if TYPE_CHECKING:
    from quizapp.store.store import Store


@dataclass(frozen=True)
class Answer:
    """One answer: when, how (mode, rating, time spent, verdict) and the card right after it."""

    reviewed_at: datetime
    mode: str
    rating: int
    duration_ms: int
    verdict: str | None
    mistake: str | None
    state: int | None  # after: 1 Learning, 2 Review, 3 Relearning
    stability: float | None
    difficulty: float | None
    interval_days: float | None  # from this answer to the due date it set


LOG = ReviewLog.__table__
# every answer of a card, oldest first, with the due date its card_before holds read as the column type
# reads a stored datetime (the snapshot keeps the card's stored values; an unreadable one holds no due)
_BEFORE = case((func.json_valid(LOG.c.card_before), LOG.c.card_before), else_="{}")
HISTORY = select(
    LOG.c.reviewed_at, LOG.c.mode, LOG.c.rating, LOG.c.duration_ms, LOG.c.verdict, LOG.c.mistake, LOG.c.card_before,
    type_coerce(func.json_extract(_BEFORE, "$.due"), Card.__table__.c.due.type).label("due_before"),
).where(LOG.c.card_id == bindparam("card_id")).order_by(LOG.c.id)


def card_history(store: Store, card_id: str) -> list[Answer]:
    """Every logged answer of `card_id`, oldest first (StoreError for an unknown card)."""
    now_row = store.card(card_id)
    with store.reading() as conn:
        logs = conn.execute(HISTORY, {"card_id": card_id}).all()
    scheduled = [i for i, log in enumerate(logs) if log.mode in ("review", "mock")]
    after: dict[int, tuple[dict, datetime | None]] = {}  # the state an answer left, and the due date it set
    for position, index in enumerate(scheduled):
        if position + 1 < len(scheduled):
            following = logs[scheduled[position + 1]]
            after[index] = (json.loads(following.card_before or "{}"), following.due_before)
        else:
            after[index] = ({"state": now_row.state, "stability": now_row.stability,
                             "difficulty": now_row.difficulty}, now_row.due)
    out = []
    for i, log in enumerate(logs):
        state, due = after[i] if i in after else (json.loads(log.card_before or "{}"), None)
        interval = (due - log.reviewed_at).total_seconds() / 86400 if due is not None and i in after else None
        out.append(Answer(reviewed_at=log.reviewed_at, mode=log.mode, rating=log.rating, duration_ms=log.duration_ms,
                          verdict=log.verdict, mistake=log.mistake, state=state.get("state") if state else None,
                          stability=state.get("stability") if state else None,
                          difficulty=state.get("difficulty") if state else None, interval_days=interval))
    return out
