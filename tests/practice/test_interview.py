"""The mock interview (quizapp.practice.interview): drawing, planning, storing, resuming, scoring, schedule."""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta
from types import SimpleNamespace

import pytest
from mock_support import load_tiny_bank, open_synced_store
from sqlmodel import Session, select

from quizapp.clock import FakeClock
from quizapp.content import draw_variant
from quizapp.practice import interview
from quizapp.practice.interview import MockError, MockOptions
from quizapp.store.mock import StoredItem
from quizapp.store.mock_tables import MockItem, MockSession
from quizapp.store.tables import ReviewLog
from quizapp.vocab import CardKind, Rating, Verdict


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def bank(tmp_path):
    return load_tiny_bank(tmp_path / "bank")


@pytest.fixture
def store(tmp_path, clock, bank):
    store = open_synced_store(tmp_path / "quizapp.sqlite3", clock, bank)
    yield store
    store.close()


def right_answer(bank, item) -> str:
    """The calculator's own value for the drawn variant, written in the drill's unit."""
    question = bank.question(item.question_id)
    variant = draw_variant(question, question.drill(item.item_id), item.variant_seed)
    return variant.expected_display


# --- options ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "flag"),
    [({"questions": 0}, "--questions"), ({"minutes": 0}, "--minutes"), ({"minutes": float("nan")}, "--minutes"),
     ({"followups": -1}, "--followups")],
)
def test_bad_options_name_the_flag(kwargs, flag):
    with pytest.raises(MockError, match=flag):
        MockOptions(**kwargs)


def test_fractional_minutes():
    assert MockOptions(minutes=0.5).question_budget == pytest.approx(30)


def test_unknown_topic_is_a_clear_error(store, bank):
    with pytest.raises(MockError, match="--topic: no questions in nope; topics are: t-one, t-two"):
        interview.start_session(store, bank, MockOptions(topics=("nope",), seed=1))


# --- drawing and planning --------------------------------------------------------------------------


def test_same_seed_same_interview(store, bank):
    a = interview.start_session(store, bank, MockOptions(questions=2, seed=42))
    b = interview.start_session(store, bank, MockOptions(questions=2, seed=42))
    shape = lambda record: [(i.card_id, i.variant_seed, i.prompt) for i in record.items]  # noqa: E731
    assert shape(a) == shape(b)
    assert a.session.seed == b.session.seed == 42
    drawn = {tuple(sorted({i.question_id for i in
                           interview.start_session(store, bank, MockOptions(questions=2, seed=s)).items}))
             for s in range(12)}
    assert len(drawn) > 1  # the seed matters


def test_unseeded_session_stores_the_seed_it_used(store, bank):
    record = interview.start_session(store, bank, MockOptions(questions=1))
    assert isinstance(record.session.seed, int)


def test_topics_restrict_the_draw(store, bank):
    for seed in range(5):
        record = interview.start_session(store, bank, MockOptions(questions=3, topics=("t-two",), seed=seed))
        assert {i.topic for i in record.items} == {"t-two"}
        assert record.question_count == 2  # only two questions in t-two: asks what there is


def test_plan_question_then_k_followups_then_drills(store, bank):
    record = interview.start_session(store, bank, MockOptions(questions=3, minutes=3, followups=2, seed=0))
    budget = 3 * 60
    by_question: dict[int, list] = {}
    for item in record.items:
        by_question.setdefault(item.question_index, []).append(item)
    assert [i.position for i in record.items] == list(range(len(record.items)))
    for items in by_question.values():
        question = bank.question(items[0].question_id)
        kinds = [i.kind for i in items]
        expected_followups = min(2, len(question.followups))
        assert kinds == ["question"] + ["followup"] * expected_followups + ["drill"] * len(question.drills)
        assert [i.item_id for i in items if i.kind == "followup"] == [f.id for f in question.followups][:2]
        assert items[0].budget_s == pytest.approx(budget)
        assert all(i.budget_s == pytest.approx(budget / 3) for i in items[1:])
    assert record.total_budget == pytest.approx(sum(i.budget_s for i in record.items))


def test_zero_followups(store, bank):
    record = interview.start_session(store, bank, MockOptions(questions=3, followups=0, seed=0))
    assert "followup" not in {i.kind for i in record.items}


def test_draw_is_weighted_toward_weak_cards(bank, clock):
    """Efraimidis-Spirakis keys pick a question first with probability weight / sum of weights."""
    now = clock.now()
    weak = SimpleNamespace(is_new=False, last_review=now - timedelta(days=30), lapses=2,
                           due=now - timedelta(days=10), stability=5.0, difficulty=8.0)
    cards = {"beta/question/main": weak}
    w = interview.question_weight("beta", cards, now)
    assert w == pytest.approx(1 + 2 * 0.5 + 10 / 5 + 3 / 5)  # lapses + overdue/stability + difficulty
    assert interview.question_weight("gamma", cards, now) == 1.0
    options = MockOptions(questions=1, topics=("t-two",))
    runs = 3000
    firsts = Counter(interview.draw_questions(bank, cards, options, now, random.Random(s))[0].id for s in range(runs))
    assert firsts["beta"] / runs == pytest.approx(w / (w + 1), abs=0.03)


def test_card_weakness_of_new_and_fresh_cards_is_zero(clock):
    now = clock.now()
    assert interview.card_weakness(None, now) == 0
    assert interview.card_weakness(SimpleNamespace(is_new=True, last_review=None), now) == 0
    fresh = SimpleNamespace(is_new=False, last_review=now, lapses=0, due=now + timedelta(days=3),
                            stability=3.0, difficulty=4.0)
    assert interview.card_weakness(fresh, now) == 0


def test_store_card_rows_feed_the_draw(store, bank):
    rows = interview.card_rows(store)
    assert set(rows) == {c.card_id for c in bank.cards()}


# --- storing as it happens ------------------------------------------------------------------------


def test_session_and_items_are_stored_when_planned(store, bank, clock):
    record = interview.start_session(store, bank, MockOptions(questions=2, seed=5, strict=True, topics=("t-two",)))
    with Session(store.engine) as db:
        session = db.get(MockSession, record.session.id)
        items = db.exec(select(MockItem).where(MockItem.session_id == session.id)).all()
    assert session.started_at == clock.now()
    assert session.strict and not session.completed and session.topics == "t-two"
    assert len(items) == len(record.items)
    assert all(i.answered_at is None for i in items)
    assert record.next_index == 0


def test_answers_are_kept_one_by_one_and_the_last_completes(store, bank, clock):
    record = interview.start_session(store, bank, MockOptions(questions=1, topics=("t-one",), seed=1))
    kinds = [i.kind for i in record.items]
    assert kinds == ["question", "followup", "followup", "drill"]
    elapsed = 0.0
    for index, item in enumerate(record.items):
        clock.advance(40)
        elapsed += 40
        text = right_answer(bank, item) if item.kind == "drill" else f"draft {index} [b]x[/b]"
        interview.record_answer(store, bank, item.id, text, 40.0, elapsed)
        reloaded = interview.load_session(store, record.session.id)
        assert reloaded.items[index].draft == text
        assert reloaded.items[index].answered_at == clock.now()
        assert reloaded.session.completed is (index == len(record.items) - 1)
        assert reloaded.session.elapsed_s == pytest.approx(elapsed)
    drill = reloaded.items[-1]
    assert drill.verdict == "correct" and drill.rating == Rating.Good
    assert reloaded.session.finished_at == clock.now()


def test_drills_are_graded_on_the_spot(store, bank):
    record = interview.start_session(store, bank, MockOptions(questions=1, topics=("t-one",), seed=2))
    drill = record.items[-1]
    stored = interview.record_answer(store, bank, drill.id, "3 GB", 10, 10)
    assert stored.verdict == "wrong" and stored.rating == Rating.Again
    assert stored.value == pytest.approx(3e9)
    assert stored.expected == pytest.approx(drill.expected)


@pytest.mark.parametrize("text", ["", "   ", "abc"])
def test_no_readable_answer_is_stored_as_skipped_and_still_a_miss(store, bank, text):
    """Left empty, or still unreadable when strict mode's time ran out: "no answer", not "could not read"."""
    blank = interview.start_session(store, bank, MockOptions(questions=1, topics=("t-one",), seed=2)).items[-1]
    stored = interview.record_answer(store, bank, blank.id, text, 10, 10, auto_advanced=bool(text.strip()))
    assert stored.verdict == Verdict.SKIPPED == "skipped"
    assert stored.rating == Rating.Again and interview.is_miss(stored)  # a miss in an interview
    assert stored.value is None and stored.mistake_id is None
    assert stored.expected == pytest.approx(blank.expected)


def test_unreadable_reason_only_for_typed_text_that_is_not_a_quantity(store, bank):
    drill = interview.start_session(store, bank, MockOptions(questions=1, topics=("t-one",), seed=2)).items[-1]
    reason = interview.unreadable_reason(bank, drill, "abc")
    assert reason  # the quantity parser's own words
    assert interview.unreadable_reason(bank, drill, "") is None  # empty: a deliberate skip
    assert interview.unreadable_reason(bank, drill, "3 GB") is None  # readable, even if wrong
    question = interview.start_session(store, bank, MockOptions(questions=1, topics=("t-one",), seed=2)).items[0]
    assert interview.unreadable_reason(bank, question, "abc") is None  # only calculations are read


def test_draft_in_progress_is_kept_and_resume_starts_at_first_unanswered(store, bank):
    record = interview.start_session(store, bank, MockOptions(questions=2, seed=7))
    first, second, third = record.items[:3]
    interview.record_answer(store, bank, first.id, "one", 50, 50)
    interview.record_answer(store, bank, second.id, "two", 20, 70)
    interview.save_draft(store, third.id, "half-written", 12.5, 82.5)
    assert interview.latest_incomplete(store) == record.session.id
    resumed = interview.load_session(store, record.session.id)
    assert resumed.next_index == 2
    assert resumed.items[2].draft == "half-written" and resumed.items[2].elapsed_s == pytest.approx(12.5)
    assert resumed.items[2].answered_at is None
    assert resumed.session.elapsed_s == pytest.approx(82.5)
    assert not resumed.session.completed


def test_finish_early_completes(store, bank):
    record = interview.start_session(store, bank, MockOptions(questions=1, seed=7))
    interview.finish_session(store, record.session.id, 3.0)
    assert interview.latest_incomplete(store) is None
    assert interview.load_session(store, record.session.id).session.completed


# --- scoring --------------------------------------------------------------------------------------


def _item(rating, topic="t", card="q/question/main", verdict=None, to_schedule=None):
    return StoredItem(id=1, session_id=1, position=0, question_index=0, kind=CardKind.QUESTION, card_id=card,
                      question_id="q", item_id="main", topic=topic, prompt="", unit=None, variant_seed=None,
                      budget_s=1, elapsed_s=0, answered_at=None, auto_advanced=False, draft="", verdict=verdict,
                      value=None, expected=None, expected_display=None, mistake_id=None,
                      rating=None if rating is None else Rating(rating), to_schedule=to_schedule,
                      applied_rating=None)


def test_score_counts_rated_items_only():
    items = [_item(4), _item(3), _item(2), _item(1), _item(None)]
    assert interview.score(items) == pytest.approx(100 * (1 + 1 + 0.5 + 0) / 4)
    assert interview.score([_item(None)]) is None


def test_misses_are_again_and_hard_in_order_without_repeats():
    items = [_item(1, card="a"), _item(3, card="b"), _item(2, card="c"), _item(None, card="d"), _item(1, card="a")]
    assert interview.misses(items) == ["a", "c"]


def test_weakest_topics_lowest_first():
    items = [_item(4, "strong"), _item(1, "weak"), _item(3, "weak"), _item(2, "mid")]
    ranked = interview.weakest_topics(items)
    assert [t for t, _ in ranked] == ["mid", "weak", "strong"]  # 50, 50 (ties by name), 100
    assert [s for _, s in ranked] == [50.0, 50.0, 100.0]


def test_default_schedule_choice_is_yes_for_misses():
    assert interview.goes_to_schedule(_item(1)) is True
    assert interview.goes_to_schedule(_item(2)) is True
    assert interview.goes_to_schedule(_item(3)) is False
    assert interview.goes_to_schedule(_item(None)) is False
    assert interview.goes_to_schedule(_item(4, to_schedule=True)) is True


def test_default_schedule_choice_is_no_for_a_never_reviewed_card():
    assert interview.goes_to_schedule(_item(1), new=True) is False  # would spend a new-card slot
    assert interview.goes_to_schedule(_item(1, to_schedule=True), new=True) is True  # the user can still choose it


# --- the schedule ---------------------------------------------------------------------------------


def test_apply_ratings_logs_chosen_items_with_mode_mock_once(store, bank, clock):
    for card_id in ("alpha/question/main", "alpha/followup/why-master", "alpha/followup/fp32-grads",
                    "alpha/drill/states-7b"):
        store.review(card_id, 3, duration_ms=1000)  # studied before: not new cards
    clock.advance(days=1)
    record = interview.start_session(store, bank, MockOptions(questions=1, topics=("t-one",), seed=3))
    assert not record.new_cards
    question, fu1, fu2, drill = record.items
    for item in record.items:
        clock.advance(30)
        text = "1 GB" if item.kind == "drill" else "draft"
        interview.record_answer(store, bank, item.id, text, 30.0, 0)
    interview.rate_item(store, question.id, 1)  # a miss: default yes
    interview.rate_item(store, fu1.id, 4)  # not a miss: default no ...
    interview.set_to_schedule(store, fu1.id, True)  # ... but the user ticks it
    interview.rate_item(store, fu2.id, 2)  # a miss ...
    interview.set_to_schedule(store, fu2.id, False)  # ... the user unticks it
    # the drill was graded wrong (Again): a miss, default yes
    before = {row.card_id: row for row in store.cards()}
    assert interview.apply_ratings(store, record.session.id) == 3
    assert interview.apply_ratings(store, record.session.id) == 0  # never twice
    with Session(store.engine) as db:
        logs = db.exec(select(ReviewLog).where(ReviewLog.mode == "mock").order_by(ReviewLog.id)).all()
    assert [(log.card_id, log.rating, log.mode) for log in logs] == [
        (question.card_id, 1, "mock"), (fu1.card_id, 4, "mock"), (drill.card_id, 1, "mock")]
    assert logs[0].answer == "draft" and logs[0].duration_ms == 30000
    assert logs[2].verdict == "wrong"
    after = {row.card_id: row for row in store.cards()}
    assert after[question.card_id].reps == before[question.card_id].reps + 1  # the schedule moved
    assert after[fu2.card_id].reps == before[fu2.card_id].reps
    reloaded = interview.load_session(store, record.session.id)
    assert reloaded.session.applied
    assert [i.applied_rating for i in reloaded.items] == [1, 4, None, 1]


def test_misses_of_new_cards_do_not_spend_the_new_card_limit_unless_ticked(store, bank, clock):
    record = interview.start_session(store, bank, MockOptions(questions=1, topics=("t-one",), seed=3))
    question, fu1, _fu2, drill = record.items
    assert {i.card_id for i in record.items} == record.new_cards  # a fresh store: every card is new
    for item in record.items:
        interview.record_answer(store, bank, item.id, "1 GB" if item.kind == "drill" else "draft", 30.0, 0)
    interview.rate_item(store, question.id, 1)  # a miss, but of a never-reviewed card
    interview.rate_item(store, fu1.id, 1)
    interview.set_to_schedule(store, fu1.id, True)  # the user ticks this one
    new_before = store.today().new_done
    assert interview.apply_ratings(store, record.session.id) == 1
    with Session(store.engine) as db:
        logged = [log.card_id for log in db.exec(select(ReviewLog))]
    assert logged == [fu1.card_id]  # the wrong drill (Again) and the missed question stay out
    assert store.today().new_done == new_before + 1  # only the ticked card used a slot
    assert drill.card_id in interview.load_session(store, record.session.id).new_cards


# --- quick calculations per question ----------------------------------------------------------------

MANY_DRILLS = """\
id: many
title: "Five calculations [x]"
topic: calc
lang: en
answer: a
drills:
""" + "".join(f"""\
  - id: d{n}
    prompt: "Weights of {{model}} in bf16, GB? ({n})"
    setup: {{model: llama-2-7b, method: inference, batch: {n}}}
    ask: weights
    unit: GB
""" for n in range(1, 6))


@pytest.fixture
def many_bank(tmp_path):
    from quizapp.content import load_bank

    root = tmp_path / "many"
    (root / "calc").mkdir(parents=True)
    (root / "calc" / "many.yaml").write_text(MANY_DRILLS, encoding="utf-8")
    loaded = load_bank([root])
    assert not loaded.problems, [str(p) for p in loaded.problems]
    return loaded


@pytest.mark.parametrize("calcs", [0, 1, 2, 5, 9])
def test_calcs_caps_the_quick_calculations_per_question(many_bank, calcs):
    question = many_bank.question("many")
    steps = interview.plan_steps([question], MockOptions(calcs=calcs), random.Random(1))
    drills = [s.item_id for s in steps if s.kind == "drill"]
    assert len(drills) == min(calcs, 5)
    order = [d.id for d in question.drills]
    assert drills == sorted(drills, key=order.index)  # asked in the question's order


def test_calcs_are_chosen_reproducibly_with_the_seed(many_bank):
    question = many_bank.question("many")

    def chosen(seed):
        return [s.item_id for s in interview.plan_steps([question], MockOptions(calcs=2), random.Random(seed))
                if s.kind == "drill"]

    assert chosen(5) == chosen(5)
    assert len({tuple(chosen(seed)) for seed in range(20)}) > 1  # the seed decides which


def test_calcs_default_and_bad_value():
    assert MockOptions().calcs == 2
    with pytest.raises(MockError, match="--calcs"):
        MockOptions(calcs=-1)


def test_rating_out_of_range_is_refused(store, bank):
    record = interview.start_session(store, bank, MockOptions(questions=1, seed=3))
    with pytest.raises(MockError):
        interview.rate_item(store, record.items[0].id, 5)


# --- history --------------------------------------------------------------------------------------


def test_list_sessions_newest_first_with_score_and_state(store, bank, clock):
    old = interview.start_session(store, bank, MockOptions(questions=1, topics=("t-two",), seed=1))
    for item in old.items:
        interview.record_answer(store, bank, item.id, "x", 1, 1)
    interview.rate_item(store, old.items[0].id, 3)
    interview.rate_item(store, old.items[1].id, 1)
    clock.advance(hours=1)
    new = interview.start_session(store, bank, MockOptions(questions=2, seed=2))
    sessions = interview.list_sessions(store)
    assert [s.id for s in sessions] == [new.session.id, old.session.id]
    latest, earlier = sessions
    assert latest.date == clock.now() and latest.questions == 2 and not latest.completed
    assert latest.score is None and latest.answered == 0
    assert earlier.completed and earlier.score == pytest.approx(50.0)
    assert earlier.answered == earlier.items == len(old.items)
    assert interview.list_sessions(store, limit=1)[0].id == new.session.id
