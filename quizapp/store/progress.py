"""Each studied card's progress as plain data: its memory state, flag and every answer, for an export.

Why a module of its own: the Anki export (quizapp.practice.anki_progress) carries the progress to
Anki; it needs the card row, its flag and each answer with the state before and the interval it set,
and no SQL of its own. A card never answered has no progress (it is exported as new).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import select

from quizapp.store.card_info import card_history
from quizapp.store.records import CardRow
from quizapp.store.srs_tables import CardFlag
from quizapp.store.tables import ReviewLog

if TYPE_CHECKING:
    from quizapp.store.store import Store

LOG, FLAG = ReviewLog.__table__, CardFlag.__table__


@dataclass(frozen=True)
class Answered:
    """One answer: when, the rating, the time spent, the mode (review | cram | mock), the card's state
    before it (0 new, 1 Learning, 2 Review, 3 Relearning) and the interval it set (days; None for cram)."""

    reviewed_at: datetime
    rating: int
    duration_ms: int
    mode: str
    state_before: int
    interval_days: float | None


@dataclass(frozen=True)
class CardProgress:
    card: CardRow
    flag: int  # 0 = none, 1-7 as Anki's flags
    answers: tuple[Answered, ...]


def card_progress(store: Store, card_ids: Iterable[str] | None = None) -> dict[str, CardProgress]:
    """card_id -> its progress, for every card of `card_ids` (all when None) that has been answered."""
    wanted = None if card_ids is None else set(card_ids)
    with store.reading() as conn:
        answered = {cid for (cid,) in conn.execute(select(LOG.c.card_id).distinct())}
        flags = dict(conn.execute(select(FLAG.c.card_id, FLAG.c.flag)).all())
        logs = conn.execute(select(LOG.c.card_id, LOG.c.prev_state, LOG.c.prev_reps, LOG.c.mode)
                            .order_by(LOG.c.card_id, LOG.c.id)).all()
    before: dict[str, list[int]] = {}
    for card_id, prev_state, prev_reps, mode in logs:
        before.setdefault(card_id, []).append(0 if prev_reps == 0 and mode != "cram" else prev_state)
    out: dict[str, CardProgress] = {}
    for card in store.cards(include_orphaned=False):
        if card.card_id not in answered or (wanted is not None and card.card_id not in wanted):
            continue
        history = card_history(store, card.card_id)
        states = before.get(card.card_id, [])
        answers = tuple(Answered(a.reviewed_at, a.rating, a.duration_ms, a.mode, states[i] if i < len(states) else 0,
                                 a.interval_days) for i, a in enumerate(history))
        out[card.card_id] = CardProgress(card, int(flags.get(card.card_id, 0) or 0), answers)
    return out
