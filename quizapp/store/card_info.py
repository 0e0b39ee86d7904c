"""A card's whole story for the browser's card info: every answer with the memory state it left.

The state after an answer is what the next answer found (its card_before), or the card as it is now
for the last one: the values the scheduler actually stored, fuzz included. A cram answer moved
nothing, so it shows the state it was given in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING

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


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc) if text else None


def card_history(store: Store, card_id: str) -> list[Answer]:
    """Every logged answer of `card_id`, oldest first (StoreError for an unknown card)."""
    now_row = store.card(card_id)
    with store.reading() as conn:
        logs = conn.exec_driver_sql(
            "SELECT reviewed_at, mode, rating, duration_ms, verdict, mistake, card_before FROM review_log "
            "WHERE card_id = ? ORDER BY id", (card_id,)).all()
    scheduled = [i for i, log in enumerate(logs) if log[1] in ("review", "mock")]
    after: dict[int, dict] = {}
    for position, index in enumerate(scheduled):
        if position + 1 < len(scheduled):
            after[index] = json.loads(logs[scheduled[position + 1]][6] or "{}")
        else:
            after[index] = {"state": now_row.state, "stability": now_row.stability,
                            "difficulty": now_row.difficulty,
                            "due": now_row.due.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")}
    out = []
    for i, (at, mode, rating, duration, verdict, mistake, before) in enumerate(logs):
        moment = _time(at)
        state = after.get(i) if i in after else json.loads(before or "{}")
        due = _time(state.get("due")) if state else None
        interval = (due - moment).total_seconds() / 86400 if due is not None and i in after else None
        out.append(Answer(reviewed_at=moment, mode=mode, rating=rating, duration_ms=duration, verdict=verdict,
                          mistake=mistake, state=state.get("state") if state else None,
                          stability=state.get("stability") if state else None,
                          difficulty=state.get("difficulty") if state else None, interval_days=interval))
    return out
