"""What the queue shows and when: order, daily limits, rollover, burying, leeches, cram, sync."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from sqlmodel import Session, select
from store_helpers import Spec, bank

from quizapp.store.tables import ReviewLog


def _answer_all(store, rating=3, limit=1000) -> list[str]:
    shown = []
    while (card := store.next_card()) is not None and len(shown) < limit:
        shown.append(card.card_id)
        store.review(card.card_id, rating, duration_ms=1)
    return shown


def test_new_cards_come_in_bank_order_up_to_the_daily_limit(open_store, clock):
    store = open_store(new_per_day=3, learning_steps=(), bury_siblings=False, new_order="bank")
    specs = bank(5, followups=0)
    store.sync(list(reversed(specs)))  # the order field, not the list order, decides
    shown = _answer_all(store, rating=3)
    assert shown == [s.card_id for s in specs[:3]]
    today = store.today()
    assert (today.new_done, today.new_limit) == (3, 3)
    assert store.counts()[""].new == 2


def test_limits_reset_at_the_rollover_hour_in_the_given_zone(open_store, clock):
    shanghai = ZoneInfo("Asia/Shanghai")  # UTC+8, no DST: 04:00 local = 20:00 UTC the day before
    store = open_store(new_per_day=2, learning_steps=(), bury_siblings=False, tz=shanghai, rollover_hour=4)
    store.sync(bank(6, followups=0))
    assert clock.now() == datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)  # 20:00 in Shanghai
    start, end = store.day_bounds()
    assert start == datetime(2026, 11, 29, 4, 0, tzinfo=shanghai)
    assert end == datetime(2026, 11, 30, 4, 0, tzinfo=shanghai)
    assert len(_answer_all(store)) == 2
    clock.advance((end - clock.now()).total_seconds() - 1)  # 03:59:59 local: still the same day
    assert store.next_card() is None
    clock.advance(1)  # 04:00 local: a new day
    assert store.today().new_done == 0
    assert len(_answer_all(store)) == 2


def test_rollover_default_is_four_am_local(open_store, clock):
    store = open_store(tz=ZoneInfo("America/New_York"))
    # 2026-11-29 12:00 UTC is 07:00 in New York (EST, UTC-5)
    start, end = store.day_bounds()
    assert (start, end) == (datetime(2026, 11, 29, 9, 0, tzinfo=timezone.utc), datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc))
    early = datetime(2026, 11, 29, 8, 59, tzinfo=timezone.utc)  # 03:59 local belongs to the 28th
    assert store.day_bounds(early)[0] == datetime(2026, 11, 28, 9, 0, tzinfo=timezone.utc)


def test_review_limit_and_order_learning_then_most_overdue_then_new(open_store, clock):
    store = open_store(reviews_per_day=2, new_per_day=10, learning_steps=(), enable_fuzzing=False,
                       bury_siblings=False)
    store.sync(bank(4, followups=0))
    ids = [s.card_id for s in bank(4, followups=0)]
    # four reviews: Easy on each graduates them with different intervals
    for card_id, rating in zip(ids[:3], (4, 3, 2)):
        store.review(card_id, rating, duration_ms=1)
    due = {cid: store.card(cid).due for cid in ids[:3]}
    clock.advance(days=60)  # all three are overdue now
    by_overdue = sorted(ids[:3], key=lambda cid: due[cid])
    first = store.next_card()
    assert first.card_id == by_overdue[0]
    store.review(first.card_id, 1, duration_ms=1)  # a lapse: relearning, due in 10 minutes
    second = store.next_card()
    assert second.card_id == by_overdue[1]
    store.review(second.card_id, 3, duration_ms=1)
    # the review limit (2) is spent: the third review waits, the new card comes next
    assert store.next_card().card_id == ids[3]
    store.review(ids[3], 3, duration_ms=1)
    assert store.today().reviews_done == 2
    clock.advance(minutes=10)
    # the relearning card is due now and comes before anything else
    assert store.next_card().card_id == by_overdue[0]
    counts = store.counts()[""]
    assert counts.learned == 4


def test_learning_card_due_now_comes_before_new_and_learn_ahead_fills_the_gap(open_store, clock):
    store = open_store(new_per_day=1, bury_siblings=False)
    store.sync(bank(3, followups=0))
    first = store.next_card()
    store.review(first.card_id, 1, duration_ms=1)  # Again: due in 1 minute
    # nothing due now, new limit spent: learn ahead shows the learning card early
    assert store.next_card().card_id == first.card_id
    later = open_store(new_per_day=1, bury_siblings=False, learn_ahead=timedelta(0))
    assert later.next_card() is None
    assert later.next_due() == clock.now() + timedelta(minutes=1)
    clock.advance(minutes=1)
    assert later.next_card().card_id == first.card_id


def test_siblings_are_buried_until_the_next_rollover(open_store, clock):
    store = open_store(new_per_day=10, new_order="bank")
    store.sync(bank(2, followups=1, drills=1))  # q0000 has 3 cards, q0001 has 3 cards
    first = store.next_card()
    assert first.card_id == "q0000/question/main"
    store.review(first.card_id, 4, duration_ms=1)  # Easy: out of learning
    _, end = store.day_bounds()
    shown = []
    while (card := store.next_card()) is not None:
        shown.append(card.card_id)
        store.review(card.card_id, 4, duration_ms=1)
    # q0001's first card buries its own siblings too
    assert shown == ["q0001/question/main"]
    assert store.card("q0000/followup/f0").buried_until == end
    assert store.counts()[""].new == 0
    clock.advance((end - clock.now()).total_seconds())
    assert store.next_card().card_id == "q0000/followup/f0"


def test_learning_siblings_are_not_buried(open_store, clock):
    store = open_store()
    store.sync(bank(1, followups=1))
    store.review("q0000/followup/f0", 1, duration_ms=1)  # answered first, still learning
    store.review("q0000/question/main", 3, duration_ms=1)
    assert store.card("q0000/followup/f0").buried_until is None


def test_leech_after_eight_lapses_is_tagged_and_suspended_and_can_come_back(open_store, clock):
    store = open_store(enable_fuzzing=False, relearning_steps=())
    store.sync(bank(1, followups=0))
    card_id = "q0000/question/main"
    store.review(card_id, 4, duration_ms=1)  # graduate to Review
    for lapse in range(1, 9):
        clock.advance(days=40)
        card = store.review(card_id, 1, duration_ms=1)  # a lapse each time
        assert card.lapses == lapse
        assert card.leech == (lapse >= 8) and card.suspended == (lapse >= 8)
    assert store.next_card() is None and store.counts()[""].due == 0
    clock.advance(days=40)
    assert store.next_card() is None
    store.unsuspend(card_id)
    card = store.card(card_id)
    assert card.leech and not card.suspended
    assert store.next_card().card_id == card_id
    store.suspend(card_id)
    assert store.next_card() is None


def test_cram_never_touches_the_schedule(open_store, clock, db_path):
    from store_helpers import raw_card

    store = open_store()
    store.sync(bank(2, followups=1, topic="a") + bank(1, topic="b", start=10))
    assert store.cram(topic="b") == ["q0010/question/main", "q0010/followup/f0"]
    assert store.cram(card_ids=["q0001/followup/f0", "q0000/question/main"]) == [
        "q0001/followup/f0", "q0000/question/main"]
    assert len(store.cram()) == 6
    before = {cid: raw_card(db_path, cid) for cid in store.cram()}
    for card_id in store.cram(topic="a"):
        store.review(card_id, 1, duration_ms=10, mode="cram")
    assert {cid: raw_card(db_path, cid) for cid in store.cram()} == before
    with Session(store.engine) as session:
        modes = {log.mode for log in session.exec(select(ReviewLog))}
    assert modes == {"cram"}
    today = store.today()
    assert (today.new_done, today.reviews_done) == (0, 0)
    assert today.streak_days == 1  # practice is practice


def test_streak_counts_consecutive_study_days(open_store, clock):
    store = open_store(new_per_day=100)
    store.sync(bank(10, followups=0))
    assert store.today().streak_days == 0
    for _ in range(3):
        store.review(store.next_card().card_id, 4, duration_ms=1)
        clock.advance(days=1)
    assert store.today().streak_days == 3  # nothing yet today: the streak through yesterday stands
    clock.advance(days=1)
    assert store.today().streak_days == 0


def test_orphaned_cards_keep_their_history_and_come_back(open_store, clock):
    store = open_store()
    specs = bank(3, followups=1)
    assert store.sync(specs).added == 6
    store.review("q0001/question/main", 4, duration_ms=1)
    kept = store.card("q0001/question/main")
    report = store.sync([s for s in specs if s.question_id != "q0001"])
    assert (report.added, report.orphaned, report.restored) == (0, 2, 0)
    assert store.card("q0001/question/main").orphaned
    assert all(c.question_id != "q0001" for c in store.cards())
    assert "q0001/question/main" not in store.cram()
    assert store.counts()[""].learned == 0
    clock.advance(days=30)
    assert store.next_card().question_id != "q0001"
    # the question comes back, edited: new topic and position, same ids
    back = [Spec(s.card_id, s.question_id, s.kind, s.item_id, "moved", 99 + i)
            for i, s in enumerate(specs) if s.question_id == "q0001"]
    report = store.sync([s for s in specs if s.question_id != "q0001"] + back)
    assert (report.added, report.orphaned, report.restored, report.updated) == (0, 0, 2, 0)
    restored = store.card("q0001/question/main")
    assert restored.topic == "moved" and not restored.orphaned
    assert (restored.stability, restored.due, restored.reps) == (kept.stability, kept.due, kept.reps)
    with Session(store.engine) as session:
        assert len(session.exec(select(ReviewLog)).all()) == 1


def test_sync_is_incremental(open_store):
    store = open_store()
    assert store.sync(bank(2)).added == 4
    again = store.sync(bank(2))
    assert (again.added, again.updated, again.orphaned, again.restored, again.total) == (0, 0, 0, 0, 4)
    grown = store.sync(bank(3))
    assert (grown.added, grown.updated) == (2, 0)
    reordered = store.sync(list(reversed([Spec(s.card_id, s.question_id, s.kind, s.item_id, s.topic, -s.order - 1)
                                          for s in bank(3)])))
    assert reordered.updated == 6
    assert [c.card_id for c in store.cards()][0] == "q0002/followup/f0"


def test_settings_round_trip(open_store, db_path, clock):
    store = open_store()
    assert store.get_setting("lang") is None and store.get_setting("lang", "en") == "en"
    store.set_setting("lang", "zh")
    store.set_setting("topics", ["a", "b"])
    store.close()
    reopened = open_store()
    assert reopened.get_setting("lang") == "zh" and reopened.get_setting("topics") == ["a", "b"]
