"""The statistics figures against a history built by hand, row by row, with the answers worked out here.

The clock stands at 2026-11-29 12:00 UTC; days are UTC days that roll over at 04:00 (Anki's default),
so the current study day runs from 2026-11-29 04:00 to 2026-11-30 04:00.
"""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import insert

from quizapp.clock import FakeClock
from quizapp.store import SchedulerConfig, Store
from quizapp.store import stats
from quizapp.store.tables import Card, ReviewLog

UTC = timezone.utc
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
LEARNING, REVIEW, RELEARNING = 1, 2, 3


def at(day: int, hour: int, minute: int = 0, month: int = 11) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=UTC)


@pytest.fixture
def store(tmp_path):
    opened = Store.open(tmp_path / "stats.sqlite3", FakeClock(start=NOW),
                        SchedulerConfig(tz=UTC, rollover_hour=4, desired_retention=0.85))
    yield opened
    opened.close()


def add_card(store, card_id: str, topic: str, *, state: int = REVIEW, reps: int = 3, due: datetime = NOW,
             suspended: bool = False, leech: bool = False, lapses: int = 0, orphaned: bool = False) -> None:
    question_id, kind, item_id = card_id.split("/")
    with store.engine.begin() as conn:
        conn.execute(insert(Card.__table__).values(
            card_id=card_id, question_id=question_id, kind=kind, item_id=item_id, topic=topic, bank_order=0,
            orphaned=orphaned, state=state, step=None if state == REVIEW else 0, due=due, suspended=suspended,
            leech=leech, lapses=lapses, reps=reps, created_at=at(1, 0, month=8)))


def add_log(store, card_id: str, rating: int, when: datetime, *, mode: str = "review", prev_state: int = REVIEW,
            prev_reps: int = 2, verdict: str | None = None, mistake: str | None = None) -> None:
    with store.engine.begin() as conn:
        conn.execute(insert(ReviewLog.__table__).values(
            card_id=card_id, rating=rating, reviewed_at=when, duration_ms=1000, mode=mode, verdict=verdict,
            mistake=mistake, prev_state=prev_state, prev_reps=prev_reps, card_before="{}"))


# --- true retention ------------------------------------------------------------------------------


def test_true_retention_counts_only_scheduled_answers_to_review_state_cards(store):
    add_card(store, "q1/question/main", "a")
    # Counted in the last 30 days: review-state cards in review or mock mode.
    for rating in (3, 1, 4, 2, 1):  # three recalled (Hard counts as recalled), two Again
        add_log(store, "q1/question/main", rating, at(20, 10))
    add_log(store, "q1/question/main", 3, at(28, 9), mode="mock")  # a mock answer moves the schedule: counted
    # Not counted anywhere:
    add_log(store, "q1/question/main", 1, at(28, 9), mode="cram")  # cram never reschedules
    add_log(store, "q1/question/main", 1, at(28, 9), prev_state=LEARNING)  # a learning step
    add_log(store, "q1/question/main", 1, at(28, 9), prev_state=RELEARNING)  # a relearning step
    add_log(store, "q1/question/main", 3, at(28, 9), prev_state=LEARNING, prev_reps=0)  # a new card
    # Outside the 30-day window, inside all time. The 30 study days are 31 Oct 04:00 .. 30 Nov 04:00.
    add_log(store, "q1/question/main", 3, at(31, 3, 59, month=10))
    add_log(store, "q1/question/main", 1, at(2, 12, month=9))

    month = stats.true_retention(store, 30)
    assert (month.recalled, month.total) == (4, 6)
    assert month.rate == pytest.approx(4 / 6)
    assert month.desired == 0.85
    forever = stats.true_retention(store, None)
    assert (forever.recalled, forever.total) == (5, 8)


def test_true_retention_window_starts_at_the_rollover_hour(store):
    add_card(store, "q1/question/main", "a")
    add_log(store, "q1/question/main", 3, at(31, 4, 0, month=10))  # the first instant of the oldest day
    add_log(store, "q1/question/main", 1, at(31, 3, 59, month=10))  # the day before it
    assert (stats.true_retention(store, 30).recalled, stats.true_retention(store, 30).total) == (1, 1)
    today_only = stats.true_retention(store, 1)
    assert today_only.total == 0 and today_only.rate is None


# --- due forecast --------------------------------------------------------------------------------


def test_due_forecast_by_study_day(store):
    add_card(store, "q1/question/main", "a", due=at(29, 20))  # later today
    add_card(store, "q2/question/main", "a", due=at(25, 8))  # overdue: counts today
    add_card(store, "q3/question/main", "a", due=at(30, 3, 59))  # before tomorrow's 04:00: still today
    add_card(store, "q4/question/main", "a", due=at(30, 4, 0))  # tomorrow's first instant
    add_card(store, "q5/question/main", "b", state=LEARNING, reps=1, due=at(29, 12, 10))  # learning, today
    add_card(store, "q6/question/main", "b", state=RELEARNING, due=datetime(2026, 12, 5, 10, tzinfo=UTC))  # +6
    add_card(store, "q7/question/main", "b", state=LEARNING, reps=0)  # new: not forecast
    add_card(store, "q8/question/main", "b", due=at(30, 12), suspended=True, leech=True, lapses=8)  # suspended
    add_card(store, "q9/question/main", "a", due=at(30, 12), orphaned=True)  # left the bank
    add_card(store, "q10/question/main", "a", due=datetime(2026, 12, 29, 3, 0, tzinfo=UTC))  # day 29 (28 Dec)
    add_card(store, "q11/question/main", "a", due=datetime(2026, 12, 29, 4, 0, tzinfo=UTC))  # day 30: outside

    forecast = stats.due_forecast(store, 30)

    assert len(forecast) == 30
    assert [f.offset for f in forecast] == list(range(30))
    assert forecast[0].day == date(2026, 11, 29)
    assert forecast[29].day == date(2026, 12, 28)
    expected = {0: 4, 1: 1, 6: 1, 29: 1}  # q1 q2 q3 q5 | q4 | q6 | q10
    assert {f.offset: f.due for f in forecast if f.due} == expected
    assert sum(f.due for f in forecast) == 7


# --- reviews per day -----------------------------------------------------------------------------


def test_reviews_per_day_cut_at_the_rollover(store):
    add_card(store, "q1/question/main", "a")
    add_log(store, "q1/question/main", 3, at(29, 4, 0))  # today
    add_log(store, "q1/question/main", 3, at(29, 11, 59), mode="cram")  # today
    add_log(store, "q1/question/main", 3, at(29, 3, 59))  # yesterday (before the rollover)
    add_log(store, "q1/question/main", 3, at(28, 5), mode="mock")  # yesterday
    add_log(store, "q1/question/main", 3, at(31, 4, 0, month=10))  # the oldest of 30 days
    add_log(store, "q1/question/main", 3, at(31, 3, 0, month=10))  # one day older: only in the 90-day view
    add_log(store, "q1/question/main", 3, at(1, 12, month=9))  # 89 days back: the oldest of 90

    month = stats.reviews_per_day(store, 30)
    assert len(month) == 30
    assert month[-1].day == date(2026, 11, 29) and month[0].day == date(2026, 10, 31)
    assert (month[-1].review, month[-1].cram, month[-1].mock, month[-1].total) == (1, 1, 0, 2)
    assert (month[-2].day, month[-2].review, month[-2].mock) == (date(2026, 11, 28), 1, 1)
    assert month[0].total == 1
    assert sum(d.total for d in month) == 5

    quarter = stats.reviews_per_day(store, 90)
    assert len(quarter) == 90 and quarter[0].day == date(2026, 9, 1)
    assert sum(d.total for d in quarter) == 7
    assert [d.day for d in quarter] == [date(2026, 9, 1) + timedelta(days=i) for i in range(90)]


def test_days_stay_consecutive_across_a_daylight_saving_change(tmp_path):
    # New York leaves daylight saving time on 1 Nov 2026: that study day is 25 hours long.
    config = SchedulerConfig(tz=ZoneInfo("America/New_York"), rollover_hour=4)
    with Store.open(tmp_path / "dst.sqlite3", FakeClock(start=NOW), config) as dst_store:
        add_card(dst_store, "q1/question/main", "a")
        # 1 Nov 2026 04:00 EST = 09:00 UTC; 03:30 EST that morning still belongs to 31 Oct.
        add_log(dst_store, "q1/question/main", 3, datetime(2026, 11, 1, 8, 30, tzinfo=UTC))
        add_log(dst_store, "q1/question/main", 3, datetime(2026, 11, 1, 9, 0, tzinfo=UTC))
        days = stats.reviews_per_day(dst_store, 90)
    assert [d.day for d in days] == [days[-1].day - timedelta(days=89 - i) for i in range(90)]
    by_day = {d.day: d.total for d in days}
    assert by_day[date(2026, 10, 31)] == 1
    assert by_day[date(2026, 11, 1)] == 1


# --- states, accuracy, mistakes, leeches ---------------------------------------------------------


def test_state_counts_per_topic(store):
    add_card(store, "q1/question/main", "a", state=LEARNING, reps=0)  # new
    add_card(store, "q1/drill/d1", "a", state=LEARNING, reps=0)  # new
    add_card(store, "q2/question/main", "a", state=LEARNING, reps=1)  # learning
    add_card(store, "q3/question/main", "a", state=REVIEW)  # review
    add_card(store, "q4/question/main", "b", state=RELEARNING, lapses=1)  # relearning
    add_card(store, "q5/question/main", "b", state=REVIEW, suspended=True)  # suspended
    add_card(store, "q6/question/main", "b", state=RELEARNING, suspended=True, leech=True, lapses=8)  # leech
    add_card(store, "q7/question/main", "b", state=REVIEW, orphaned=True)  # gone from the bank: not counted

    counts = {c.topic: c for c in stats.state_counts(store)}
    assert set(counts) == {"a", "b", ""}
    a, b, total = counts["a"], counts["b"], counts[""]
    assert (a.new, a.learning, a.review, a.relearning, a.suspended, a.leech) == (2, 1, 1, 0, 0, 0)
    assert (b.new, b.learning, b.review, b.relearning, b.suspended, b.leech) == (0, 0, 0, 1, 2, 1)
    assert (total.new, total.learning, total.review, total.relearning, total.suspended, total.leech) == (2, 1, 1, 1, 2, 1)
    assert total.total == 7
    assert list(counts) == ["a", "b", ""]


def test_drill_accuracy_per_topic(store):
    add_card(store, "q1/drill/d1", "a")
    add_card(store, "q2/drill/d2", "b")
    add_card(store, "q3/question/main", "b")
    for verdict in ("correct", "correct", "close", "wrong", "unparseable"):
        add_log(store, "q1/drill/d1", 3, at(28, 10), verdict=verdict)
    add_log(store, "q2/drill/d2", 1, at(28, 10), verdict="wrong", mode="cram")
    add_log(store, "q2/drill/d2", 3, at(28, 10), verdict="correct", mode="mock")
    add_log(store, "q3/question/main", 3, at(28, 10))  # self-graded: no verdict, not a drill

    accuracy = {x.topic: x for x in stats.drill_accuracy(store)}
    assert accuracy["a"].rate == pytest.approx(2 / 4)  # unparseable is not judged
    assert (accuracy["a"].correct, accuracy["a"].close, accuracy["a"].wrong, accuracy["a"].unparseable) == (2, 1, 1, 1)
    assert accuracy["b"].rate == pytest.approx(1 / 2)
    assert accuracy[""].judged == 6 and accuracy[""].rate == pytest.approx(3 / 6)


def add_mock_calc(store, card_id: str, topic: str, verdict: str, *, mistake: str | None = None,
                  applied: int | None = None, answered: bool = True) -> None:
    """One quick calculation of a mock interview, graded on the spot (and maybe written to the schedule)."""
    from quizapp.store.mock_tables import MockItem, MockSession

    question_id, kind, item_id = card_id.split("/")
    with store.engine.begin() as conn:
        session_id = conn.execute(insert(MockSession.__table__).values(
            started_at=at(28, 9), question_count=1, minutes=5.0, followups=0)).inserted_primary_key[0]
        conn.execute(insert(MockItem.__table__).values(
            session_id=session_id, position=0, question_index=0, kind=kind, card_id=card_id,
            question_id=question_id, item_id=item_id, topic=topic, prompt="p", budget_s=100.0,
            answered_at=at(28, 10) if answered else None, verdict=verdict if answered else None,
            mistake_id=mistake, rating=1, applied_rating=applied))


def test_mock_calculations_count_in_drill_accuracy_and_mistakes_once(store):
    """Graded quick calculations count even when their rating stayed out of the schedule; one that was
    written to the schedule is in the review log (mode mock) and is counted there only."""
    add_card(store, "q1/drill/d1", "a")
    add_mock_calc(store, "q1/drill/d1", "a", "correct")  # not applied: only in mock_item
    add_mock_calc(store, "q1/drill/d1", "a", "wrong", mistake="no-master")
    add_mock_calc(store, "q1/drill/d1", "a", "skipped")  # no answer: counted, not judged
    add_mock_calc(store, "q1/drill/d1", "a", "correct", answered=False)  # never reached: not an answer
    add_mock_calc(store, "q1/drill/d1", "a", "wrong", mistake="no-master", applied=1)  # applied ...
    add_log(store, "q1/drill/d1", 1, at(28, 10), mode="mock", verdict="wrong", mistake="no-master")  # ... logged

    (topic, total) = stats.drill_accuracy(store)
    assert (topic.topic, topic.correct, topic.close, topic.wrong, topic.unparseable, topic.skipped) == (
        "a", 1, 0, 2, 0, 1)
    assert topic.judged == 3 and topic.rate == pytest.approx(1 / 3)
    assert total.judged == 3
    assert [(m.mistake_id, m.count) for m in stats.top_mistakes(store)] == [("no-master", 2)]


def test_drill_accuracy_without_answers_has_no_rate(store):
    (total,) = stats.drill_accuracy(store)
    assert total.topic == "" and total.judged == 0 and total.rate is None


def test_most_frequent_mistakes(store):
    add_card(store, "q1/drill/d1", "a")
    for mistake in ["no-master"] * 3 + ["gb-gib"] + ["把 7B 当成 6.7B"] * 2 + [None] * 4:
        add_log(store, "q1/drill/d1", 1, at(28, 10), verdict="wrong" if mistake else "correct", mistake=mistake)
    found = stats.top_mistakes(store)
    assert [(m.mistake_id, m.count) for m in found] == [("no-master", 3), ("把 7B 当成 6.7B", 2), ("gb-gib", 1)]
    assert found[1].mistake_id == "把 7B 当成 6.7B"  # a question's own mistake is identified by its label
    assert [m.mistake_id for m in stats.top_mistakes(store, limit=1)] == ["no-master"]


def test_mistakes_are_counted_by_id_in_no_language(store):
    """The store hands out ids; `quizapp stats` and the screen name them (quizapp.words) when shown."""
    add_card(store, "q1/drill/d1", "a")
    add_log(store, "q1/drill/d1", 1, at(28, 10), verdict="wrong", mistake="no-master")
    (found,) = stats.top_mistakes(store)
    assert (found.mistake_id, found.count) == ("no-master", 1)
    assert not hasattr(found, "label")


def test_leech_list(store):
    add_card(store, "q1/question/main", "a", leech=True, suspended=True, lapses=8)
    add_card(store, "q2/drill/d1", "b", leech=True, suspended=False, lapses=12)  # unsuspended by the user
    add_card(store, "q3/question/main", "a", lapses=7)  # not (yet) a leech
    add_card(store, "q4/question/main", "a", leech=True, lapses=9, orphaned=True)  # left the bank
    found = stats.leeches(store)
    assert [(x.card_id, x.lapses, x.suspended) for x in found] == [("q2/drill/d1", 12, False),
                                                                 ("q1/question/main", 8, True)]


# --- through the real store ----------------------------------------------------------------------


class Spec:
    def __init__(self, card_id: str, topic: str, order: int) -> None:
        self.card_id = card_id
        self.question_id, self.kind, self.item_id = card_id.split("/")
        self.topic = topic
        self.order = order


def test_figures_follow_store_reviews_and_undo(tmp_path):
    clock = FakeClock(start=NOW)
    with Store.open(tmp_path / "real.sqlite3", clock, SchedulerConfig(tz=UTC, fuzz_seed=1)) as real:
        real.sync([Spec("q1/question/main", "a", 0), Spec("q2/drill/d1", "b", 1)])
        real.review("q1/question/main", 3, duration_ms=5000)
        real.review("q2/drill/d1", 1, duration_ms=5000, verdict="wrong", mistake="no-master")
        real.review("q2/drill/d1", 3, duration_ms=5000, mode="cram", verdict="correct")
        assert stats.reviews_per_day(real, 30)[-1].total == 3
        real.undo()
        today = stats.reviews_per_day(real, 30)[-1]
        assert (today.review, today.cram) == (2, 0)
        counts = {c.topic: c for c in stats.state_counts(real)}
        assert counts[""].new == 0 and counts[""].learning == 2  # both answered once: in their learning steps
        assert stats.true_retention(real, 30).total == 0  # no card had reached Review state
        assert [m.mistake_id for m in stats.top_mistakes(real)] == ["no-master"]


def test_collect_and_json(store):
    add_card(store, "q1/drill/d1", "a", due=at(30, 12))
    add_log(store, "q1/drill/d1", 3, at(29, 9), verdict="correct")
    figures = stats.collect(store)
    assert figures.today == date(2026, 11, 29)
    assert len(figures.reviews) == 90 and len(figures.reviews_last(30)) == 30
    assert [r.days for r in figures.retention] == [30, None]
    data = json.loads(json.dumps(stats.to_json(figures)))
    assert data["reviews_last_30_days"] == 1
    assert data["due_forecast"][1] == {"day": "2026-11-30", "offset": 1, "due": 1}
    assert data["true_retention"][0] == {"days": 30, "recalled": 1, "total": 1, "rate": 1.0, "desired": 0.85}
    assert data["states"][-1]["topic"] == "" and data["states"][-1]["review"] == 1
    assert data["drill_accuracy"][-1]["rate"] == 1.0


def test_mock_sessions_are_listed_newest_first(store):
    from quizapp.store import mock
    from quizapp.store.mock_tables import MockItem, MockSession

    with store.engine.begin() as conn:
        for sid, started, done in ((1, at(20, 10), True), (2, at(27, 10), False)):
            conn.execute(insert(MockSession.__table__).values(
                id=sid, started_at=started, completed=done, question_count=1, minutes=5.0, followups=0))
            conn.execute(insert(MockItem.__table__).values(
                session_id=sid, position=0, question_index=0, kind="question", card_id="q/question/main",
                question_id="q", item_id="main", topic="a", prompt="?", budget_s=300.0,
                answered_at=started, rating=3, draft="an answer"))  # a blank draft would not count as answered
    scores, available = stats.mock_scores(store)
    assert available
    assert [(m.id, m.completed, m.answered, m.items) for m in scores] == [(2, False, 1, 1), (1, True, 1, 1)]
    assert scores[0].started == at(27, 10)
    expected = {s.id: s.score for s in mock.list_sessions(store)}
    assert {m.id: m.score for m in scores} == expected
