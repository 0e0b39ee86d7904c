"""Store.queue: the day's cards in the order next_card will show them; day_counts: the same numbers."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "store"))
from store_helpers import bank  # noqa: E402


def _specs():
    specs = bank(6, followups=2, drills=3, topic="a") + bank(6, followups=1, drills=4, topic="b", start=10)
    return specs


def test_the_queue_is_the_order_next_card_shows(open_store, clock):
    store = open_store(new_per_day=8)
    store.sync(_specs())
    # yesterday: answer some cards so that reviews are due today
    for _ in range(8):
        card = store.next_card()
        store.review(card.card_id, 4, duration_ms=1)  # Easy: straight to review
    clock.advance(days=30)
    listed = store.queue(1)
    counts = store.day_counts()
    assert counts.review == 8 and counts.new == 12 - 8  # a review buries its question's new cards
    assert [e.section for e in listed] == ["review"] * counts.review + ["new"] * counts.new
    shown = []
    while (card := store.next_card()) is not None:
        shown.append(card.card_id)
        store.review(card.card_id, 4, duration_ms=1)
    assert shown == [e.card_id for e in listed]


def test_queue_and_day_counts_change_nothing(open_store, clock, tmp_path):
    store = open_store()
    store.sync(_specs())
    path = store.path
    store.close()
    before = path.read_bytes()
    from quizapp.store import Store

    with Store.open(path, clock, read_only=True) as reader:
        assert reader.day_counts().new == 10
        assert len(reader.queue(5)) == 5 * 10
    assert path.read_bytes() == before


def test_coming_days_list_the_next_new_cards_without_repeats(open_store, clock):
    store = open_store(new_per_day=5)
    store.sync(_specs())
    entries = store.queue(4)
    ids = [e.card_id for e in entries]
    assert len(ids) == len(set(ids)) == 20
    for day in range(4):
        questions = [e.card_id.split("/")[0] for e in entries if e.day == day]
        assert len(questions) == len(set(questions))  # one card of a question a day (burying)
