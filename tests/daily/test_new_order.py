"""The mixed new-card order: kinds and topics interleaved from day one, deterministic, burying kept."""

from __future__ import annotations

import math
from collections import Counter
from datetime import timedelta

import pytest

from quizapp.store.config import SchedulerConfig
from quizapp.store.new_order import OrderCard, mixed_ranks, question_sequence


def _question(qid: str, followups: int, drills: int, start: int = 0) -> list[OrderCard]:
    items = [("question", "main")] + [("followup", f"f{i}") for i in range(followups)]
    items += [("drill", f"d{i}") for i in range(drills)]
    return [OrderCard(f"{qid}/{kind}/{item}", qid, kind, start + n) for n, (kind, item) in enumerate(items)]


def test_a_questions_drills_are_spread_among_its_other_cards():
    cards = _question("q", followups=3, drills=10)
    kinds = [c.kind for c in question_sequence(cards)]
    assert sorted(kinds) == sorted(c.kind for c in cards)
    # the question card comes before every follow-up
    assert kinds.index("question") < min(i for i, k in enumerate(kinds) if k == "followup")
    # drills are not held back until after the follow-ups: 10 drills among 14 cards, none of the
    # first 4 cards' positions is a run of only non-drills longer than 2
    first_drill = kinds.index("drill")
    assert first_drill <= 1
    assert kinds[:7].count("drill") >= 4


def test_the_order_depends_only_on_the_cards_not_on_their_listing():
    cards = _question("a", 2, 3) + _question("b", 1, 5, 10) + _question("c", 3, 0, 20)
    forward = mixed_ranks(cards)
    backward = mixed_ranks(list(reversed(cards)))
    assert forward == backward
    more = mixed_ranks(cards + _question("d", 3, 3, 30))
    # a new question keeps every other question's place: its first card's rank is unchanged
    firsts = lambda ranks, qid: min(r for cid, r in ranks.items() if cid.startswith(qid + "/"))[0]  # noqa: E731
    assert all(firsts(more, q) == firsts(forward, q) for q in "abc")


def test_new_order_is_a_validated_setting():
    from quizapp.store.config import SettingError, parse_setting

    assert SchedulerConfig().new_order == "mixed"
    assert parse_setting("new_order", "BANK") == "bank"
    with pytest.raises(SettingError, match="mixed or bank"):
        parse_setting("new_order", "random")
    with pytest.raises(ValueError, match="new_order"):
        SchedulerConfig(new_order="shuffle")


def _study_day(store, clock, max_cards=2000) -> list:
    """Answer Good to everything next_card shows until the day is done (learning steps included)."""
    shown = []
    while len(shown) < max_cards:
        card = store.next_card()
        if card is None:
            due = store.next_due()
            _, end = store.day_bounds()
            if due is None or due >= end:
                return shown
            clock.advance(max((due - clock.now()).total_seconds(), 0) + 1)
            continue
        shown.append(card)
        store.review(card.card_id, 3, duration_ms=1000)
    raise AssertionError("the day never ended")


def _next_morning(store, clock) -> None:
    _, end = store.day_bounds()
    clock.advance((end - clock.now()).total_seconds() + 3 * 3600)  # 07:00 on the next study day


def test_day_one_on_the_bundled_bank_teaches_drills_from_several_topics(bundled_bank, open_store, clock):
    assert len(bundled_bank.questions) >= 10
    store = open_store()  # default limits: 10 new a day
    store.sync(bundled_bank.cards())
    shown = _study_day(store, clock)
    new = [c for c in shown if c.is_new]
    assert len(new) == SchedulerConfig().new_per_day
    drills = [c for c in new if c.kind == "drill"]
    assert len(drills) >= 3
    assert len({c.topic for c in drills}) >= 3
    assert len({c.kind for c in new}) >= 2  # a mix of kinds, not drills only
    assert len({c.question_id for c in new}) == len(new)  # burying: one card of a question a day


def _first_days(bundled_bank, store, clock, days: int) -> dict[int, list]:
    store.sync(bundled_bank.cards())
    first_answers: dict[int, list] = {}
    for day in range(days):
        shown = _study_day(store, clock)
        first_answers[day] = [c for c in shown if c.is_new]
        per_question = Counter(c.question_id for c in first_answers[day])
        assert not per_question or max(per_question.values()) == 1  # never two new cards of a question a day
        _next_morning(store, clock)
    return first_answers


def test_two_weeks_reach_the_drills_of_a_drill_heavy_question(bundled_bank, open_store, clock):
    heavy = max(bundled_bank.questions, key=lambda q: len(q.drills))
    assert len(heavy.drills) >= 10
    bank_cards = len(bundled_bank.cards())
    heavy_cards = sum(1 for c in bundled_bank.cards() if c.question_id == heavy.id)
    new_per_day = SchedulerConfig().new_per_day
    # The rule of docs/database.md: a question's n cards are spread evenly over the N cards of the
    # bank, one every N/n cards, i.e. every N/(n*new_per_day) days (1375/(34*10) = 4.0 days for
    # the seed question in the third bank). Its first card comes within one spacing, its first
    # drill within two (the question may open with its question card), a second drill within three.
    spacing_days = math.ceil(bank_cards / (heavy_cards * new_per_day))
    days = 3 * spacing_days + 1
    mixed = _first_days(bundled_bank, open_store("mixed.sqlite3"), clock, days)
    heavy_new = [(day, c) for day in range(days) for c in mixed[day] if c.question_id == heavy.id]
    drill_days = [day for day, c in heavy_new if c.kind == "drill"]
    assert heavy_new and heavy_new[0][0] <= spacing_days
    assert drill_days and drill_days[0] <= 2 * spacing_days
    assert len(drill_days) >= 2
    # in bank order the same days reach fewer of its drills (its question card and follow-ups come first)
    clock.advance(-days * 86400)
    banked = _first_days(bundled_bank, open_store("bank.sqlite3", new_order="bank"), clock, days)
    bank_drills = [c for day in range(days) for c in banked[day] if c.question_id == heavy.id and c.kind == "drill"]
    assert len(bank_drills) < len(drill_days)


def test_bank_order_is_still_available(bundled_bank, open_store, clock):
    store = open_store(new_order="bank")
    store.sync(bundled_bank.cards())
    new = [c for c in _study_day(store, clock) if c.is_new]
    # in bank order, day 1 walks the first questions: each one's question card (siblings buried)
    assert [c.kind for c in new] == ["question"] * len(new)


def test_the_same_bank_gives_the_same_day_on_every_run(bundled_bank, open_store, clock):
    one = open_store("one.sqlite3")
    one.sync(bundled_bank.cards())
    two = open_store("two.sqlite3")
    two.sync(list(reversed(bundled_bank.cards())))
    assert [e.card_id for e in one.queue(3)] == [e.card_id for e in two.queue(3)]
