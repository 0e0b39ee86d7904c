"""ReviewSession (quizapp.practice.review): the review, cram, undo and edit-reload flows on a temporary store."""

from __future__ import annotations

import sqlite3

import pytest
from mock_support import QUESTIONS, load_tiny_bank, open_synced_store

from quizapp.clock import FakeClock
from quizapp.content import draw_variant
from quizapp.practice.review import CardView, ReviewSession
from quizapp.practice.tally import SessionSummary
from quizapp.vocab import CardKind, Mode, Rating, Verdict

DRILL = "alpha/drill/states-7b"


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def bank_dir(tmp_path):
    return tmp_path / "bank"


@pytest.fixture
def bank(bank_dir):
    return load_tiny_bank(bank_dir)


@pytest.fixture
def db(tmp_path):
    return tmp_path / "quizapp.sqlite3"


@pytest.fixture
def store(db, clock, bank):
    opened = open_synced_store(db, clock, bank)
    yield opened
    opened.close()


def logs(db) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT card_id, rating, mode, answer, verdict, mistake FROM review_log ORDER BY id").fetchall()
    finally:
        conn.close()


def session(store, bank, clock, **kwargs) -> ReviewSession:
    return ReviewSession(store, bank, clock, seed=3, **kwargs)


def test_review_shows_the_queue_rates_and_counts(store, bank, clock, db):
    review = session(store, bank, clock)
    first = review.start()
    assert isinstance(first, CardView)
    assert first.card_id == store.next_card().card_id  # the store's queue decides the order
    left = store.day_counts(None)  # what is left of today's queue, within the daily limits
    assert (first.progress.due, first.progress.new, first.progress.done) == (left.learning + left.review, left.new, 0)
    assert set(first.intervals) == set(Rating)  # every rating's next interval, from FSRS's preview
    assert first.intervals[Rating.Easy] > first.intervals[Rating.Again]
    clock.advance(12)
    second = review.rate(Rating.Good, "my answer [b]x[/b]")
    assert logs(db) == [(first.card_id, 3, "review", "my answer [b]x[/b]", None, None)]
    assert store.card(first.card_id).reps == 1
    assert isinstance(second, CardView) and second.card_id != first.card_id
    assert second.progress.done == 1 and review.tally.reviewed == 1


def test_review_of_one_topic_ends_in_a_summary(store, bank, clock):
    review = session(store, bank, clock, topic="t-one")
    shown = review.start()
    seen = []
    while isinstance(shown, CardView):
        assert shown.content.question.topic == "t-one"
        seen.append(shown.card_id)
        if shown.content.kind is CardKind.DRILL:
            review.check(shown.variant.expected_display)
        shown = review.rate(Rating.Easy)
        clock.advance(1)
    assert isinstance(shown, SessionSummary)
    assert shown.mode is Mode.REVIEW and shown.reviewed == len(seen) and review.current is None
    assert shown.drills == shown.drills_correct == 1


def test_a_drill_is_graded_and_the_grade_logged_with_the_rating(store, bank, clock, db):
    review = session(store, bank, clock, mode=Mode.CRAM, card_ids=[DRILL])
    card = review.start()
    question = bank.question("alpha")
    expected = draw_variant(question, question.drills[0], 3)  # the session draws with its seed
    assert card.variant.expected == pytest.approx(expected.expected)
    unreadable = review.check("about twelve")
    assert unreadable.verdict is Verdict.UNPARSEABLE and unreadable.suggested_rating is None
    wrong = review.check("1 GB")
    assert wrong.verdict is Verdict.WRONG and wrong.suggested_rating is Rating.Again
    review.rate(wrong.suggested_rating, "1 GB")
    assert logs(db) == [(DRILL, 1, "cram", "1 GB", "wrong", wrong.mistake_id)]


def test_cram_walks_the_list_without_moving_the_schedule(store, bank, clock, db):
    ids = ["beta/question/main", "gamma/question/main", "beta/followup/rtx4090"]
    review = session(store, bank, clock, mode=Mode.CRAM, card_ids=ids)
    shown = review.start()
    order = []
    while isinstance(shown, CardView):
        order.append(shown.card_id)
        assert (shown.progress.index, shown.progress.total) == (len(order), 3)
        assert shown.intervals == {}  # cram shows no intervals: it changes none
        shown = review.rate(Rating.Again)
    assert order == ids
    assert shown.reviewed == 3 and shown.mode is Mode.CRAM
    assert [row[2] for row in logs(db)] == ["cram"] * 3
    assert all(store.card(card_id).reps == 0 for card_id in ids)


def test_cram_of_a_topic_is_every_card_of_it_in_bank_order(store, bank, clock):
    review = session(store, bank, clock, mode=Mode.CRAM, topic="t-two")
    first = review.start()
    expected = [c.card_id for c in bank.cards() if c.topic == "t-two"]
    assert first.card_id == expected[0] and first.progress.total == len(expected)


def test_undo_brings_the_card_back_as_it_was(store, bank, clock, db):
    review = session(store, bank, clock, mode=Mode.CRAM, card_ids=[DRILL, "beta/question/main"])
    drill = review.start()
    review.check("1 GB")
    after = review.rate(Rating.Again, "1 GB")
    assert after.card_id == "beta/question/main" and after.progress.index == 2
    back = review.undo()
    assert isinstance(back, CardView) and back.card_id == DRILL
    assert back.variant is drill.variant  # the same drawn variant, not a fresh draw
    assert back.typed == "1 GB" and back.progress.index == 1
    assert logs(db) == [] and review.tally.reviewed == review.tally.drills == 0
    assert review.undo() is None  # nothing left to undo


def test_undo_in_review_restores_the_schedule(store, bank, clock):
    review = session(store, bank, clock)
    first = review.start()
    before = store.card(first.card_id)
    review.rate(Rating.Good)
    back = review.undo()
    assert back.card_id == first.card_id and store.card(first.card_id) == before


def test_reload_after_an_edit_shows_the_new_text_and_keeps_the_typing(store, bank, bank_dir, clock):
    review = session(store, bank, clock, mode=Mode.CRAM, card_ids=["beta/question/main", "gamma/question/main"])
    review.start()
    path = bank_dir / "t-two" / "beta.yaml"
    path.write_text(QUESTIONS["t-two/beta.yaml"].replace("Memory first, then time.", "Edited [answer]."),
                    encoding="utf-8")
    shown = review.reload([bank_dir], typed="half typed")
    assert shown.card_id == "beta/question/main" and shown.typed == "half typed"
    assert shown.content.question.answer.strip() == "Edited [answer]."
    assert review.bank.question("beta").answer.strip() == "Edited [answer]."


def test_reload_after_the_card_left_the_bank_moves_on(store, bank, bank_dir, clock):
    review = session(store, bank, clock, topic="t-two")
    first = review.start()
    (bank_dir / "t-two" / f"{first.content.question.id}.yaml").unlink()
    shown = review.reload([bank_dir])
    assert not isinstance(shown, CardView) or shown.content.question.id != first.content.question.id
    assert store.card(first.card_id).orphaned


def test_a_mock_mode_session_is_refused(store, bank, clock):
    with pytest.raises(ValueError, match="mode"):
        ReviewSession(store, bank, clock, mode=Mode.MOCK)
