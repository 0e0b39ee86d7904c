"""Fit FSRS parameters to the user's own history (Anki's "Optimize") and measure them, with fsrs-rs.

The history becomes FSRSItems the way Anki builds them: each card's answers in order with delta_t
in whole study days (days start at the rollover hour, local time); same-day answers (learning steps)
stay in the history with delta_t 0, and only an answer on a later day is a review to predict, so one
review per card per day counts. A card reset to new starts over at its reset. Cram answers never
moved the schedule and are left out; imported history (`quizapp import revlog`) joins in.

Figures are measured as srs-benchmark does: a time-series split (5 folds over the reviews in time
order; each fold predicted by parameters fitted on everything before it), log loss and RMSE(bins)
of the defaults, of the current parameters and of the fitted ones on the same held-out reviews.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from sqlalchemy import inspect, select

from quizapp.store.srs_tables import ImportedReview
from quizapp.store.tables import Card, ReviewLog

if TYPE_CHECKING:
    from quizapp.store.store import Store

N_SPLITS = 5  # srs-benchmark's TimeSeriesSplit
# fsrs-rs 0.9 returns its default parameters unchanged when given fewer than about 60 reviews to learn
# from; the first fold of the time-series split learns from a sixth of the history, so 400 cross-day
# reviews give every fold a real fit (py-fsrs's own optimizer asks for 512).
MIN_ITEMS = 400
SCHEDULED = ("review", "mock")
CARD, LOG, IMPORTED = Card.__table__, ReviewLog.__table__, ImportedReview.__table__


class NotEnoughHistory(Exception):
    """Too few cross-day reviews to fit: `have` of the `need` (nothing was changed)."""

    def __init__(self, have: int, need: int) -> None:
        super().__init__(f"{have} of {need} cross-day reviews")
        self.have = have
        self.need = need


@dataclass(frozen=True)
class History:
    """FSRSItems in time order (of the review each predicts) and what they came from."""

    items: list = field(repr=False)
    times: list[datetime] = field(repr=False)
    steps: list[tuple[tuple[int, int], ...]] = field(repr=False)  # each item's (rating, delta_t) pairs
    cards: int
    reviews: int  # answers used (same-day ones included)

    def __len__(self) -> int:
        return len(self.items)


@dataclass(frozen=True)
class Metrics:
    log_loss: float
    rmse_bins: float


@dataclass(frozen=True)
class Evaluation:
    """The same held-out reviews predicted by three parameter sets (current = the stored ones)."""

    defaults: Metrics
    current: Metrics
    fitted: Metrics
    splits: int
    items: int  # cross-day reviews in the history
    tested: int  # of them predicted in the held-out folds


@dataclass(frozen=True)
class OptimizeResult:
    evaluation: Evaluation
    parameters: tuple[float, ...]  # fitted on the whole history
    current: tuple[float, ...]
    saved: bool


def _day_index(moment: datetime, rollover_hour: int, tz) -> int:
    local = moment.astimezone(tz) if tz is not None else moment.astimezone()
    return (local - timedelta(hours=rollover_hour)).date().toordinal()


def _sequences(store: Store, topic: str | None, include_imported: bool) -> list[list[tuple[datetime, int]]]:
    """Each card's (time, rating) answers, oldest first, from its last reset on."""
    answers = (select(LOG.c.card_id, LOG.c.reviewed_at, LOG.c.rating, LOG.c.prev_reps)
               .join_from(LOG, CARD, CARD.c.card_id == LOG.c.card_id)
               .where(LOG.c.mode.in_(SCHEDULED)).order_by(LOG.c.card_id, LOG.c.id))
    if topic is not None:
        answers = answers.where(CARD.c.topic == topic)
    out: list[list[tuple[datetime, int]]] = []
    with store.reading() as conn:
        rows = conn.execute(answers)
        current: str | None = None
        for card_id, at, rating, prev_reps in rows:
            if card_id != current:
                current = card_id
                out.append([])
            if prev_reps == 0:  # first answer, or the first after a reset: the card starts over
                out[-1].clear()
            out[-1].append((at, rating))
        if include_imported and topic is None and inspect(conn).has_table(IMPORTED.name):
            rows = conn.execute(select(IMPORTED.c.card_id, IMPORTED.c.review_time, IMPORTED.c.review_rating,
                                       IMPORTED.c.review_state)
                                .order_by(IMPORTED.c.card_id, IMPORTED.c.review_time, IMPORTED.c.id))
            current_imported = None
            for card_id, ms, rating, state in rows:
                if card_id != current_imported:
                    current_imported = card_id
                    out.append([])
                if state == 0 and out[-1]:  # New again: reset in the other tool
                    out[-1].clear()
                out[-1].append((datetime.fromtimestamp(ms / 1000, timezone.utc), rating))
    return [seq for seq in out if seq]


def reviewed_topics(store: Store) -> list[str]:
    """The topics that have at least one review, sorted (what `optimize --topic` can fit)."""
    with store.reading() as conn:
        query = (select(CARD.c.topic).distinct().select_from(CARD.join(LOG, LOG.c.card_id == CARD.c.card_id))
                 .order_by(CARD.c.topic))
        return list(conn.execute(query).scalars())


def review_history(store: Store, topic: str | None = None, *, include_imported: bool = True) -> History:
    """The history as FSRSItems (see the module docstring), sorted by the time of the review predicted."""
    from fsrs_rs_python import FSRSItem, FSRSReview

    rollover, tz = store.config.rollover_hour, store.config.tz
    pending: list[tuple[datetime, int, object, tuple[tuple[int, int], ...]]] = []
    reviews = 0
    sequences = _sequences(store, topic, include_imported)
    for seq in sequences:
        reviews += len(seq)
        steps: list[tuple[int, int]] = []
        objects: list = []  # one FSRSReview per answer, shared by the items that contain it
        last_day: int | None = None
        for moment, rating in seq:
            day = _day_index(moment, rollover, tz)
            delta = 0 if last_day is None else day - last_day
            steps.append((rating, delta))
            objects.append(FSRSReview(rating, delta))
            last_day = day
            if delta > 0:
                pending.append((moment, len(pending), FSRSItem(objects), tuple(steps)))
    pending.sort(key=lambda p: (p[0], p[1]))
    return History(items=[p[2] for p in pending], times=[p[0] for p in pending], steps=[p[3] for p in pending],
                   cards=len(sequences), reviews=reviews)


def _folds(n: int, splits: int = N_SPLITS) -> list[tuple[int, int]]:
    """sklearn's TimeSeriesSplit: (train end = test start, test end) for each fold."""
    size = n // (splits + 1)
    return [(n - (splits - k) * size, n - (splits - k - 1) * size) for k in range(splits)]


def _fit(items) -> list[float]:
    from fsrs_rs_python import DEFAULT_PARAMETERS, FSRS

    return list(FSRS(DEFAULT_PARAMETERS).compute_parameters(items))


def _combine(parts: list[tuple[int, object]]) -> Metrics:
    total = sum(n for n, _ in parts)
    log_loss = sum(n * m.log_loss for n, m in parts) / total
    rmse = math.sqrt(sum(n * m.rmse_bins ** 2 for n, m in parts) / total)
    return Metrics(log_loss, rmse)


def evaluate(history: History, current: tuple[float, ...]) -> Evaluation:
    """Defaults, `current` and per-fold fitted parameters on the same held-out folds."""
    from fsrs_rs_python import DEFAULT_PARAMETERS, FSRS

    if len(history) < MIN_ITEMS:
        raise NotEnoughHistory(len(history), MIN_ITEMS)
    default_model, current_model = FSRS(DEFAULT_PARAMETERS), FSRS(list(current))
    parts: dict[str, list] = {"defaults": [], "current": [], "fitted": []}
    tested = 0
    for start, end in _folds(len(history)):
        train, test = history.items[:start], history.items[start:end]
        fitted = FSRS(_fit(train))
        n = len(test)
        tested += n
        parts["defaults"].append((n, default_model.evaluate(test)))
        parts["current"].append((n, current_model.evaluate(test)))
        parts["fitted"].append((n, fitted.evaluate(test)))
    return Evaluation(defaults=_combine(parts["defaults"]), current=_combine(parts["current"]),
                      fitted=_combine(parts["fitted"]), splits=N_SPLITS, items=len(history), tested=tested)


def optimize(store: Store, topic: str | None = None, *, save: bool = True,
             history: History | None = None) -> OptimizeResult:
    """Fit on the whole history and save the parameters if, on held-out reviews, fitting beats the
    current parameters (log loss). NotEnoughHistory below MIN_ITEMS cross-day reviews (nothing changed).
    `history`: review_history(store, topic) when the caller has it already."""
    history = history if history is not None else review_history(store, topic)
    current = tuple(store.config.parameters)
    evaluation = evaluate(history, current)
    from fsrs_rs_python import check_and_fill_parameters

    fitted = tuple(float(w) for w in check_and_fill_parameters(_fit(history.items)))
    better = evaluation.fitted.log_loss < evaluation.current.log_loss
    saved = False
    if save and better:
        from quizapp.store.config import parse_parameters, show_parameters

        fitted = parse_parameters(show_parameters(fitted))  # what is stored is exactly what is reported
        store.set_scheduling_setting("fsrs_parameters", fitted)
        saved = True
    return OptimizeResult(evaluation=evaluation, parameters=fitted, current=current, saved=saved)


# --- the health check --------------------------------------------------------------------------------

HEALTH_MIN_REVIEWS = 50  # review-state answers before the check says anything
HARD_AS_FAIL_AFTER = 0.5  # a Hard whose next review fails at least this often is not a pass


@dataclass(frozen=True)
class Warning_:
    code: str  # health.again_never | health.hard_as_fail (quizapp.words)
    args: dict


def health_check(store: Store, topic: str | None = None) -> list[Warning_]:
    """Anki's health check from the logs: Again never pressed on review cards, or Hard used for
    forgotten cards (Hard pressed more than Again while the review after a Hard fails most of the time,
    or Again is all but absent: under 2% of review answers while Hard takes over 15%)."""
    answers = (select(LOG.c.card_id, LOG.c.rating).where(LOG.c.mode.in_(SCHEDULED), LOG.c.prev_state == 2)
               .order_by(LOG.c.card_id, LOG.c.id))
    if topic is not None:
        answers = answers.where(LOG.c.card_id.in_(select(CARD.c.card_id).where(CARD.c.topic == topic)))
    with store.reading() as conn:
        rows = conn.execute(answers).all()
    total = len(rows)
    if total < HEALTH_MIN_REVIEWS:
        return []
    again = sum(r == 1 for _, r in rows)
    hard = sum(r == 2 for _, r in rows)
    out: list[Warning_] = []
    if again == 0:
        out.append(Warning_("health.again_never", {"reviews": total}))
    after_hard, failed_after_hard = 0, 0
    for (card, rating), (next_card, next_rating) in zip(rows, rows[1:]):
        if card == next_card and rating == 2:
            after_hard += 1
            failed_after_hard += next_rating == 1
    after = failed_after_hard / after_hard if after_hard else 0.0
    hard_share, again_share = hard / total, again / total
    if hard > again and ((after_hard >= 10 and after >= HARD_AS_FAIL_AFTER) or (again_share < 0.02 and hard_share > 0.15)):
        out.append(Warning_("health.hard_as_fail", {"hard": hard_share, "again": again_share, "after": after}))
    return out

