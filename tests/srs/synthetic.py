"""A seeded synthetic learner: review histories drawn from a known FSRS-6 parameter set.

Cards are scheduled by py-fsrs with the default parameters (as quizapp schedules before optimizing);
whether the learner recalls a card is drawn from the retrievability of a second py-fsrs card that
follows TRUE_PARAMETERS, a learner who forgets faster than the defaults assume. New cards go through
the learning steps the same day (delta_t 0), as in the app. The rows go straight into the tables, so
a few thousand reviews take well under a second to write.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from fsrs import Card, Rating, Scheduler, State

UTC = timezone.utc
# A forgetful learner: low initial stabilities, slower growth, steeper forgetting curve than the defaults.
TRUE_PARAMETERS = (0.05, 0.15, 0.4, 1.5, 7.2, 0.6, 2.0, 0.02, 0.8, 0.1, 1.3, 2.2, 0.09, 0.35, 1.9,
                   0.35, 2.4, 0.6, 0.2, 0.1, 0.5)


@dataclass(frozen=True)
class Review:
    card_id: str
    reviewed_at: datetime
    rating: int
    prev_state: int
    prev_reps: int
    duration_ms: int


def simulate(cards: int, days: int, *, seed: int = 7, new_per_day: int = 20,
             start: datetime = datetime(2025, 6, 1, 9, 0, tzinfo=UTC),
             parameters=TRUE_PARAMETERS, prefix: str = "syn") -> tuple[list[Review], dict[str, Card]]:
    """Reviews of `cards` cards over `days` days (new_per_day introduced daily) and each card's final state."""
    rng = random.Random(seed)
    schedule = Scheduler(enable_fuzzing=False)
    truth = Scheduler(parameters=parameters, enable_fuzzing=False)
    ids = [f"{prefix}{i:05d}/question/main" for i in range(cards)]
    shown: dict[str, Card] = {}
    true: dict[str, Card] = {}
    reps: dict[str, int] = {}
    reviews: list[Review] = []
    introduced = 0
    for day in range(days):
        morning = start + timedelta(days=day)
        new = ids[introduced:introduced + new_per_day]
        introduced += len(new)
        for cid in new:
            shown[cid] = Card(card_id=len(shown) + 1, due=morning)
            true[cid] = Card(card_id=len(true) + 1, due=morning)
            reps[cid] = 0
        moment = morning
        due_today = sorted((c for c in shown if shown[c].due < morning + timedelta(days=1)), key=lambda c: shown[c].due)
        for cid in due_today:
            while shown[cid].due < morning + timedelta(hours=14):
                moment = max(moment, shown[cid].due) + timedelta(seconds=rng.randint(5, 40))
                card = shown[cid]
                if reps[cid] == 0:
                    rating = rng.choices((1, 2, 3, 4), (0.25, 0.1, 0.5, 0.15))[0]
                else:
                    recall = truth.get_card_retrievability(true[cid], moment)
                    if card.state != State.Review:  # same-day step: short-term memory is strong
                        recall = max(recall, 0.85)
                    if rng.random() < recall:
                        rating = rng.choices((2, 3, 4), (0.15, 0.75, 0.10))[0]
                    else:
                        rating = 1
                reviews.append(Review(cid, moment, rating, int(card.state), reps[cid], rng.randint(2000, 30000)))
                shown[cid], _ = schedule.review_card(card, Rating(rating), moment)
                true[cid], _ = truth.review_card(true[cid], Rating(rating), moment)
                reps[cid] += 1
                if shown[cid].state == State.Review:
                    break
    return reviews, shown


def write(store, reviews: list[Review], final: dict[str, Card], *, topic: str = "synthetic") -> None:
    """Put the simulated cards and their reviews into `store`'s tables (one transaction)."""
    from quizapp.store.search import stored_time

    counts: dict[str, int] = {}
    lapses: dict[str, int] = {}
    for r in reviews:
        counts[r.card_id] = counts.get(r.card_id, 0) + 1
        lapses[r.card_id] = lapses.get(r.card_id, 0) + (r.prev_state == 2 and r.rating == 1)
    with store.engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO card (card_id, question_id, kind, item_id, topic, bank_order, orphaned, state, step, "
            "stability, difficulty, due, last_review, suspended, buried_until, leech, lapses, reps, created_at) "
            "VALUES (?, ?, 'question', 'main', ?, ?, 0, ?, ?, ?, ?, ?, ?, 0, NULL, 0, ?, ?, ?)",
            [(cid, cid.split("/")[0], topic, i, int(c.state), c.step, c.stability, c.difficulty, stored_time(c.due),
              stored_time(c.last_review) if c.last_review else None, lapses.get(cid, 0), counts.get(cid, 0),
              stored_time(c.due)) for i, (cid, c) in enumerate(final.items())])
        conn.exec_driver_sql(
            "INSERT INTO review_log (card_id, rating, reviewed_at, duration_ms, mode, prev_state, prev_reps, "
            "card_before, buried_siblings) VALUES (?, ?, ?, ?, 'review', ?, ?, ?, '{}')",
            [(r.card_id, r.rating, stored_time(r.reviewed_at), r.duration_ms, r.prev_state, r.prev_reps,
              json.dumps({})) for r in reviews])
