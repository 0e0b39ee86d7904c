"""The store's FSRS results equal the fsrs package's own, fuzz included; odd inputs are errors, not crashes."""

from __future__ import annotations

from datetime import timedelta, timezone
from random import Random

import fsrs
import pytest
from fsrs import Rating, Scheduler, State

from quizapp.store import SchedulerConfig, StoreError
from quizapp.store.scheduling import SeededScheduler, make_scheduler

from store_helpers import bank

SCRIPT = [3, 3, 3, 1, 3, 3, 2, 4, 1, 1, 3, 2, 3, 4, 1, 3]
STEPS = dict(learning_steps=(timedelta(minutes=1), timedelta(minutes=10)), relearning_steps=(timedelta(minutes=10),))


def _package_scheduler(**kw) -> Scheduler:
    return Scheduler(desired_retention=0.9, maximum_interval=36500, **STEPS, **kw)


def test_scripted_ratings_give_the_fsrs_packages_intervals(open_store, clock):
    store = open_store(enable_fuzzing=False)
    store.sync(bank(1, followups=0))
    card_id = "q0000/question/main"
    reference = _package_scheduler(enable_fuzzing=False)
    expected = fsrs.Card(card_id=1)
    for i, rating in enumerate(SCRIPT):
        expected, _ = reference.review_card(expected, Rating(rating), clock.now())
        got = store.review(card_id, rating, duration_ms=1000)
        assert (got.state, got.step, got.due, got.last_review) == (
            int(expected.state), expected.step, expected.due, expected.last_review), f"review {i}"
        assert got.stability == expected.stability and got.difficulty == expected.difficulty
        assert store.card(card_id) == got  # what review() returns is what was stored
        # come back when due, plus some hours so elapsed days vary
        clock.advance((expected.due - clock.now()).total_seconds() + 3600 * (i % 5))
    assert store.card(card_id).reps == len(SCRIPT)


def _fuzz_bounds(monkeypatch, interval: timedelta) -> tuple[timedelta, timedelta]:
    """The package's own fuzz range for `interval`: its draw with random() = 0 and random() -> 1."""
    plain = _package_scheduler(enable_fuzzing=True)
    monkeypatch.setattr("fsrs.scheduler.random", lambda: 0.0)
    low = plain._get_fuzzed_interval(interval=interval)
    monkeypatch.setattr("fsrs.scheduler.random", lambda: 0.999999999)
    high = plain._get_fuzzed_interval(interval=interval)
    monkeypatch.undo()
    return low, high


def test_fuzzed_intervals_stay_in_the_packages_range_and_are_reproducible(open_store, clock, tmp_path, monkeypatch):
    store = open_store(enable_fuzzing=True, fuzz_seed=7)
    twin = open_store(tmp_path / "twin.sqlite3", enable_fuzzing=True, fuzz_seed=7)
    other = open_store(tmp_path / "other.sqlite3", enable_fuzzing=True, fuzz_seed=8)
    for s in (store, twin, other):
        s.sync(bank(1, followups=0))
    card_id = "q0000/question/main"
    unfuzzed = _package_scheduler(enable_fuzzing=False)
    fuzzed_seen = differs = 0
    for rating in [3, 3] + [3] * 8:
        before = store.card(card_id)
        start = fsrs.Card(card_id=1, state=State(before.state), step=before.step, stability=before.stability,
                          difficulty=before.difficulty, due=before.due, last_review=before.last_review)
        plain, _ = unfuzzed.review_card(start, Rating(rating), clock.now())
        got = store.review(card_id, rating, duration_ms=1)
        assert twin.review(card_id, rating, duration_ms=1) == got  # same seed, same history -> same card
        differs += other.review(card_id, rating, duration_ms=1).due != got.due
        assert got.stability == plain.stability and got.difficulty == plain.difficulty
        interval, plain_interval = got.due - clock.now(), plain.due - clock.now()
        if plain.state == State.Review and plain_interval.days >= 3:
            low, high = _fuzz_bounds(monkeypatch, plain_interval)
            assert low <= interval <= high
            fuzzed_seen += 1
        else:
            assert interval == plain_interval
        clock.advance((got.due - clock.now()).total_seconds())
        # keep the three stores' clocks in step: the other two share this clock
    assert fuzzed_seen >= 5
    assert differs >= 1  # another seed gives other intervals


def test_seeded_scheduler_fuzz_is_the_packages_formula(monkeypatch):
    """Fed the same random numbers, SeededScheduler and fsrs.Scheduler fuzz every interval alike."""
    ours = make_scheduler(SchedulerConfig(maximum_interval=300)).with_rng(Random(99))
    theirs = Scheduler(maximum_interval=300)
    feed = Random(99)
    monkeypatch.setattr("fsrs.scheduler.random", feed.random)
    for days in list(range(0, 40)) + [57, 100, 250, 299, 300, 301, 5000]:
        interval = timedelta(days=days, hours=3)
        assert ours._get_fuzzed_interval(interval=interval) == theirs._get_fuzzed_interval(interval=interval)
    assert isinstance(ours, SeededScheduler)


def test_seeded_fuzz_leaves_the_random_module_alone(open_store, clock):
    import random

    random.seed(5)
    expected = random.random()
    random.seed(5)
    store = open_store(fuzz_seed=1)
    store.sync(bank(1, followups=0))
    for _ in range(6):
        card = store.review("q0000/question/main", 4, duration_ms=1)
        clock.advance((card.due - clock.now()).total_seconds())
    assert random.random() == expected


def test_preview_gives_each_ratings_interval_like_fsrs(open_store, clock):
    store = open_store()
    store.sync(bank(1, followups=0))
    card_id = "q0000/question/main"
    plain = _package_scheduler(enable_fuzzing=False)
    # a new card: the fsrs notes list 1m, 5m30s, 10m, 8d
    assert store.preview(card_id) == {1: timedelta(minutes=1), 2: timedelta(minutes=5, seconds=30),
                                      3: timedelta(minutes=10), 4: timedelta(days=8)}
    for rating in (3, 3, 3):
        card = store.review(card_id, rating, duration_ms=1)
        clock.advance((card.due - clock.now()).total_seconds() + 7200)
    row = store.card(card_id)
    start = fsrs.Card(card_id=1, state=State(row.state), step=row.step, stability=row.stability,
                      difficulty=row.difficulty, due=row.due, last_review=row.last_review)
    expected = {int(r): plain.review_card(start, r, clock.now())[0].due - clock.now() for r in Rating}
    assert store.preview(card_id) == expected
    assert store.card(card_id) == row  # previewing changes nothing


def test_a_clock_running_backwards_is_clamped_to_the_last_review(open_store, clock):
    store = open_store(enable_fuzzing=False)
    store.sync(bank(1, followups=0))
    card_id = "q0000/question/main"
    store.review(card_id, 3, duration_ms=1)
    clock.advance(minutes=10)
    first = store.review(card_id, 3, duration_ms=1)
    clock.advance(hours=-30)  # the system clock jumped back
    second = store.review(card_id, 3, duration_ms=1)
    assert second.last_review == first.last_review  # not before the previous review
    assert second.due >= second.last_review
    assert second.stability > 0 and 1 <= second.difficulty <= 10
    start = fsrs.Card(card_id=1, state=State(first.state), step=first.step, stability=first.stability,
                      difficulty=first.difficulty, due=first.due, last_review=first.last_review)
    expected, _ = _package_scheduler(enable_fuzzing=False).review_card(start, Rating.Good, first.last_review)
    assert (second.stability, second.difficulty, second.due) == (expected.stability, expected.difficulty, expected.due)
    preview = store.preview(card_id)
    assert all(interval > timedelta(0) for interval in preview.values())


def test_unknown_card_bad_rating_and_bad_mode_are_store_errors(open_store, db_path):
    store = open_store()
    store.sync(bank(1, followups=0))
    with pytest.raises(StoreError, match="unknown card 'nope/question/main'") as err:
        store.review("nope/question/main", 3, duration_ms=1)
    assert str(db_path) in str(err.value)
    for call in (lambda: store.preview("nope"), lambda: store.card("nope"), lambda: store.suspend("nope"),
                 lambda: store.cram(card_ids=["nope"])):
        with pytest.raises(StoreError, match="unknown card"):
            call()
    with pytest.raises(StoreError, match="rating"):
        store.review("q0000/question/main", 5, duration_ms=1)
    with pytest.raises(StoreError, match="mode"):
        store.review("q0000/question/main", 3, duration_ms=1, mode="exam")
    assert store.card("q0000/question/main").reps == 0


def test_duration_is_capped_at_sixty_seconds(open_store):
    from sqlmodel import Session, select

    from quizapp.store.tables import ReviewLog

    store = open_store()
    store.sync(bank(1, followups=2))
    store.review("q0000/question/main", 3, duration_ms=250_000)
    store.review("q0000/followup/f0", 3, duration_ms=-5)
    store.review("q0000/followup/f1", 3, duration_ms=12_345)
    with Session(store.engine) as session:
        durations = [log.duration_ms for log in session.exec(select(ReviewLog).order_by(ReviewLog.id))]
        assert all(log.reviewed_at.tzinfo == timezone.utc for log in session.exec(select(ReviewLog)))
    assert durations == [60_000, 0, 12_345]


def test_a_scheduler_without_its_own_rng_still_fuzzes():
    """kills xǁSeededSchedulerǁ_get_fuzzed_interval__mutmut_52 (getattr without its default raises on a
    scheduler that was never given an rng). 30 days: delta = 1 + 0.15·4.5 + 0.1·13 + 0.05·10 = 3.475,
    so min_ivl = round(26.525) = 27, max_ivl = round(33.475) = 33 and the draw is round(u * 7 + 27) for u in
    [0, 1): 27 to 34 days (34 when u >= 6.5/7, as py-fsrs draws it; FUZZ_RANGES)."""
    from datetime import timedelta

    from quizapp.store.scheduling import SeededScheduler

    fuzzed = SeededScheduler()._get_fuzzed_interval(interval=timedelta(days=30))
    assert timedelta(days=27) <= fuzzed <= timedelta(days=34)
