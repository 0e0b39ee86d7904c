"""Undo puts back exactly what a review changed: the card row byte for byte, siblings, the log."""

from __future__ import annotations

from sqlmodel import Session, func, select
from store_helpers import bank, raw_card

from quizapp.store.tables import ReviewLog


def _log_count(store) -> int:
    with Session(store.engine) as session:
        return session.exec(select(func.count()).select_from(ReviewLog)).one()


def test_undo_restores_the_card_row_byte_for_byte(open_store, clock, db_path):
    store = open_store(enable_fuzzing=True)
    store.sync(bank(2, followups=2))
    card_id = "q0000/question/main"
    # take the card through learning into review and a lapse, undoing at every stage
    for rating in (3, 3, 4, 1, 2, 3):
        before = raw_card(db_path, card_id)
        siblings_before = {s: raw_card(db_path, s) for s in ("q0000/followup/f0", "q0000/followup/f1")}
        count = _log_count(store)
        after = store.review(card_id, rating, duration_ms=4000, answer="42 GB", verdict="close", mistake="m1")
        assert raw_card(db_path, card_id) != before
        assert store.undo() == card_id
        assert raw_card(db_path, card_id) == before
        assert {s: raw_card(db_path, s) for s in siblings_before} == siblings_before
        assert _log_count(store) == count
        redo = store.review(card_id, rating, duration_ms=4000)
        assert redo == after  # the seeded fuzz gives the same interval again
        clock.advance((redo.due - clock.now()).total_seconds() + 3600)


def test_undo_walks_back_several_reviews_then_reports_nothing(open_store, db_path):
    store = open_store(new_per_day=20)
    store.sync(bank(3, followups=0))
    ids = [s.card_id for s in bank(3, followups=0)]
    before = {cid: raw_card(db_path, cid) for cid in ids}
    for cid in ids:
        store.review(cid, 3, duration_ms=1)
    store.review(ids[0], 1, duration_ms=1, mode="cram")
    assert [store.undo() for _ in range(4)] == [ids[0], ids[2], ids[1], ids[0]]
    assert store.undo() is None
    assert {cid: raw_card(db_path, cid) for cid in ids} == before
    assert _log_count(store) == 0
    assert store.today().new_done == 0


def test_undo_of_a_leech_lapse_unsuspends(open_store, clock):
    store = open_store(enable_fuzzing=False, relearning_steps=(), leech_lapses=2)
    store.sync(bank(1, followups=0))
    card_id = "q0000/question/main"
    store.review(card_id, 4, duration_ms=1)
    for _ in range(2):
        clock.advance(days=30)
        card = store.review(card_id, 1, duration_ms=1)
    assert card.leech and card.suspended
    store.undo()
    card = store.card(card_id)
    assert not card.leech and not card.suspended and card.lapses == 1
