"""Pilot tests of the mock interview on a FakeClock: the whole flow to the debrief, overtime, strict mode,
pause, and leaving mid-way then resuming; each asserts what is stored in the database."""

from __future__ import annotations

import random

import pytest
from mock_support import load_tiny_bank
from sqlmodel import Session, select
from textual.widgets import Button, Checkbox, Footer, Input, TextArea

from quizapp.content import draw_variant
from quizapp.practice import interview as mock_store
from quizapp.practice.interview import MockOptions
from quizapp.store.mock_tables import MockItem, MockSession
from quizapp.store.tables import ReviewLog
from quizapp.tui.widgets.countdown import CountdownDisplay

SIZE = (100, 40)


@pytest.fixture
def bank(tmp_path):
    """The mock tests' own bank (questions with several follow-ups and a drill), overriding conftest's."""
    return load_tiny_bank(tmp_path / "mock-bank")


def seed_drawing(store, bank, options: MockOptions, must_include: str) -> int:
    """The first seed whose draw includes `must_include` (so the run has a quick calculation)."""
    cards = mock_store.card_rows(store)
    for seed in range(100):
        drawn = mock_store.draw_questions(bank, cards, options, store.clock.now(), random.Random(seed))
        if must_include in {q.id for q in drawn}:
            return seed
    raise AssertionError("no seed draws it")


def right_answer(bank, item) -> str:
    question = bank.question(item.question_id)
    return draw_variant(question, question.drill(item.item_id), item.variant_seed).expected_display


def items_in_db(store, session_id):
    with Session(store.engine) as db:
        return db.exec(select(MockItem).where(MockItem.session_id == session_id).order_by(MockItem.position)).all()


def session_in_db(store, session_id):
    with Session(store.engine) as db:
        return db.get(MockSession, session_id)


async def open_interview(app, pilot, options: MockOptions):
    from quizapp.tui.screens.mock import MockScreen

    record = mock_store.start_session(app.store, app.bank, options)
    app.push_screen(MockScreen(record))
    await pilot.pause()
    return record


async def test_two_question_mock_with_followups_to_the_debrief(app_factory, store, bank, clock):
    from quizapp.tui.screens.debrief import DebriefScreen, ItemControls
    from quizapp.tui.screens.mock import MockScreen

    options = MockOptions(questions=2, minutes=2, followups=2)
    options = MockOptions(questions=2, minutes=2, followups=2,
                          seed=seed_drawing(store, bank, options, must_include="alpha"))
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        record = await open_interview(app, pilot, options)
        assert record.question_count == 2
        assert {"question", "followup", "drill"} == {i.kind for i in record.items}
        spent = []
        for step, item in enumerate(record.items):
            screen = app.screen
            assert isinstance(screen, MockScreen) and screen.item.id == item.id
            if item.kind == "drill":
                assert screen.query_one("#mock-calc", Input).has_focus
                await pilot.press(*right_answer(bank, item))
                clock.advance(20 + step)
                await pilot.press("enter")
            else:
                assert screen.query_one("#mock-draft", TextArea).has_focus
                await pilot.press(*f"draft {step} [b]")
                clock.advance(20 + step)
                await pilot.press("ctrl+n")
            spent.append(20 + step)
            await pilot.pause()
        assert isinstance(app.screen, DebriefScreen)

        session = session_in_db(store, record.session.id)
        assert session.completed and session.finished_at == clock.now()
        assert session.elapsed_s == pytest.approx(sum(spent))
        stored = items_in_db(store, record.session.id)
        assert [i.card_id for i in stored] == [i.card_id for i in record.items]
        for step, item in enumerate(stored):
            assert item.answered_at is not None
            assert item.elapsed_s == pytest.approx(20 + step)
            if item.kind == "drill":
                assert item.verdict == "correct" and item.rating == 3
            else:
                assert item.draft == f"draft {step} [b]"
                assert item.rating is None  # self-rated in the debrief

        # the debrief: rate the first question Again (a miss) and the first follow-up Good
        controls = list(app.screen.query(ItemControls))
        assert [c.item.id for c in controls] == [i.id for i in stored]
        first, followup = stored[0], stored[1]
        controls[0].query_one("#rate-1", Button).press()
        controls[1].query_one("#rate-3", Button).press()
        await pilot.pause()
        rated = {i.id: i for i in items_in_db(store, record.session.id)}
        assert rated[first.id].rating == 1 and rated[followup.id].rating == 3
        # every card is new in this fresh store: even the miss is not ticked (it would spend a new-card
        # slot); the user ticks it
        box = controls[0].query_one(Checkbox)
        assert box.value is False and "new card" in str(box.label)
        box.value = True
        await pilot.pause()
        await pilot.press("a")  # ratings into the schedule: only the ticked miss
        await pilot.pause()
        with Session(store.engine) as db:
            logs = db.exec(select(ReviewLog)).all()
        assert [(log.card_id, log.rating, log.mode) for log in logs] == [(first.card_id, 1, "mock")]
        await pilot.press("r")  # retry the misses: a cram of them
        await pilot.pause()
        from quizapp.tui.screens.review import ReviewScreen

        assert isinstance(app.screen, ReviewScreen)
        assert app.screen.mode == "cram"


async def test_overtime_turns_red_and_keeps_counting(app_factory, clock, store):
    from quizapp.tui.screens.mock import MockScreen

    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        record = await open_interview(app, pilot, MockOptions(questions=1, minutes=0.5, followups=0, seed=1))
        screen = app.screen
        step = screen.query_one("#timer-step", CountdownDisplay)
        clock.advance(10)
        screen.tick()
        assert not step.has_class("-overtime") and "0:20" in str(step.render())
        clock.advance(35)  # 45 s of a 30 s budget
        screen.tick()
        await pilot.pause()
        assert step.has_class("-overtime")
        assert "+0:15" in str(step.render())
        assert isinstance(app.screen, MockScreen) and screen.index == 0  # not strict: it waits
        await pilot.press("ctrl+n")
        await pilot.pause()
        first = items_in_db(store, record.session.id)[0]
        assert first.elapsed_s == pytest.approx(45) and not first.auto_advanced


async def test_strict_mode_moves_on_when_time_is_up(app_factory, clock, store):
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        record = await open_interview(app, pilot,
                                      MockOptions(questions=1, minutes=0.5, followups=1, seed=1, strict=True,
                                                  topics=("t-two",)))
        screen = app.screen
        await pilot.press(*"partial")
        clock.advance(29)
        screen.tick()
        assert screen.index == 0
        clock.advance(1.5)
        screen.tick()
        await pilot.pause()
        assert screen.index == 1  # the follow-up, with its own timer of a third
        assert screen.timers.step.budget == pytest.approx(10)
        first = items_in_db(store, record.session.id)[0]
        assert first.auto_advanced and first.draft == "partial"
        assert first.elapsed_s == pytest.approx(30.5)


async def test_pause_stops_the_clocks_and_shows_a_marker(app_factory, clock, store):
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        record = await open_interview(app, pilot, MockOptions(questions=1, minutes=1, followups=0, seed=1))
        screen = app.screen
        marker = screen.query_one("#mock-paused")
        clock.advance(5)
        await pilot.press("p")  # typed into the draft: the editor has focus
        assert screen.query_one("#mock-draft", TextArea).text == "p" and not screen.timers.paused
        await pilot.press("escape", "p")  # outside the editor the letter works too
        await pilot.pause()
        assert screen.timers.paused and marker.display
        assert screen.query_one("#mock-draft", TextArea).read_only
        assert "paused" in str(screen.query_one("#timer-step", CountdownDisplay).render())
        clock.advance(600)
        screen.tick()
        assert screen.timers.step.elapsed() == pytest.approx(5)
        assert screen.timers.total.elapsed() == pytest.approx(5)
        await pilot.press("ctrl+n")  # refused while paused
        await pilot.pause()
        assert screen.index == 0
        await pilot.press("p")
        await pilot.pause()
        assert not screen.timers.paused and not marker.display
        clock.advance(3)
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert items_in_db(store, record.session.id)[0].elapsed_s == pytest.approx(8)


async def test_leaving_mid_way_keeps_answers_and_resume_continues(app_factory, clock, store):
    from quizapp.tui.screens.home import HomeScreen
    from quizapp.tui.screens.mock import MockScreen
    from quizapp.tui.screens.mock_setup import MockSetupScreen

    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        record = await open_interview(app, pilot, MockOptions(questions=2, minutes=1, followups=1, seed=4))
        await pilot.press(*"first answer")
        clock.advance(12)
        await pilot.press("ctrl+n")
        await pilot.press(*"half")
        clock.advance(4)
        await pilot.press("escape", "q")  # save & leave
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        stored = items_in_db(store, record.session.id)
        assert stored[0].draft == "first answer" and stored[0].answered_at is not None
        assert stored[1].draft == "half" and stored[1].answered_at is None
        assert stored[1].elapsed_s == pytest.approx(4)
        assert not session_in_db(store, record.session.id).completed
        assert mock_store.list_sessions(store)[0].completed is False

        app.push_screen(MockSetupScreen())  # Home's `m`
        await pilot.pause()
        resume = app.screen.query_one("#setup-resume", Button)
        assert resume.display
        resume.press()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MockScreen) and screen.index == 1
        assert screen.query_one("#mock-draft", TextArea).text == "half"
        assert screen.timers.step.elapsed() == pytest.approx(4)
        assert screen.timers.total.elapsed() == pytest.approx(16)
        await pilot.press(*" more")
        clock.advance(6)
        await pilot.press("ctrl+n")
        await pilot.pause()
        stored = items_in_db(store, record.session.id)
        assert stored[1].draft == "half more" and stored[1].elapsed_s == pytest.approx(10)


async def test_quitting_the_app_keeps_the_draft_in_progress(app_factory, clock, store):
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        record = await open_interview(app, pilot, MockOptions(questions=1, minutes=1, followups=0, seed=4))
        await pilot.press(*"typed before quitting")
        clock.advance(7)
        await app.action_quit()
    stored = items_in_db(store, record.session.id)[0]
    assert stored.draft == "typed before quitting" and stored.answered_at is None
    assert mock_store.latest_incomplete(store) == record.session.id


async def test_setup_form_starts_an_interview_with_its_choices(app_factory, store):
    from quizapp.tui.screens.mock import MockScreen
    from quizapp.tui.screens.mock_setup import MockSetupScreen

    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, MockSetupScreen)
        form = app.screen
        form.query_one("#setup-questions", Input).value = "0"
        form.query_one("#setup-start", Button).press()
        await pilot.pause()
        assert "--questions" in str(form.query_one("#setup-error").render())
        form.query_one("#setup-questions", Input).value = "1"
        form.query_one("#setup-minutes", Input).value = "0.5"
        form.query_one("#setup-followups", Input).value = "1"
        form.query_one("#setup-seed", Input).value = "9"
        form.query_one("#setup-strict").value = True
        form.query_one("#setup-start", Button).press()
        await pilot.pause()
        assert isinstance(app.screen, MockScreen)
        session = mock_store.load_session(store, mock_store.list_sessions(store)[0].id).session
        assert (session.question_count, session.minutes, session.followups, session.seed, session.strict) == (
            1, 0.5, 1, 9, True)


async def test_a_draft_being_typed_is_saved_every_few_seconds(app_factory, clock, store):
    from quizapp.tui.screens.mock import DRAFT_SAVE_S

    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        record = await open_interview(app, pilot, MockOptions(questions=1, minutes=1, followups=0, seed=4))
        await pilot.press(*"so far")
        app.screen.tick()
        await app.workers.wait_for_complete()
        assert items_in_db(store, record.session.id)[0].draft == ""  # not yet: saved on a clock interval
        clock.advance(DRAFT_SAVE_S)
        app.screen.tick()
        await app.workers.wait_for_complete()  # saved in the background, off the UI thread
        stored = items_in_db(store, record.session.id)[0]
        assert stored.draft == "so far" and stored.answered_at is None
        assert stored.elapsed_s == pytest.approx(DRAFT_SAVE_S)


def footer_keys(screen) -> dict[str, str]:
    """key -> description of what the footer shows now."""
    return {b.binding.key: b.binding.description for b in screen.active_bindings.values()
            if b.enabled and b.binding.show}


async def test_editor_keys_never_type_into_the_draft_and_the_footer_shows_reachable_ones(app_factory, clock, store):
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        record = await open_interview(app, pilot, MockOptions(questions=1, minutes=1, followups=0, seed=1))
        screen = app.screen
        draft = screen.query_one("#mock-draft", TextArea)
        assert draft.has_focus
        keys = footer_keys(screen)
        assert "p" not in keys and "q" not in keys  # letters type here, so the footer does not offer them
        assert {"ctrl+n", "ctrl+o", "ctrl+l", "escape"} <= set(keys)
        assert screen.check_action("pause_key", ()) is False and screen.check_action("leave_key", ()) is False
        await pilot.press(*"pq", "ctrl+o")  # ctrl+o pauses while typing, without typing anything
        await pilot.pause()
        assert screen.timers.paused and draft.text == "pq"
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert not screen.timers.paused
        draft.focus()
        await pilot.press("escape")  # leave the editor: now the letters are keys again
        await pilot.pause()
        assert screen.check_action("pause_key", ()) is True
        draft.focus()
        await pilot.pause()
        await pilot.press(*" more", "ctrl+l")  # save & leave from inside the editor
        await pilot.pause()
        assert not isinstance(app.screen, type(screen))
        stored = items_in_db(store, record.session.id)[0]
        assert stored.draft == "pq more" and stored.answered_at is None


async def test_an_unreadable_calculation_is_retyped_while_time_remains(app_factory, clock, store, bank):
    options = MockOptions(questions=1, minutes=1, followups=0, topics=("t-one",), seed=2)
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        record = await open_interview(app, pilot, options)
        screen = app.screen
        await pilot.press("ctrl+n")  # the question, left empty
        await pilot.pause()
        drill = record.items[screen.index]
        assert drill.kind == "drill"
        await pilot.press(*"abc", "enter")
        await pilot.pause()
        assert screen.index is not None and screen.item.id == drill.id  # still here
        hint = screen.query_one("#mock-hint")
        assert hint.has_class("-problem") and "Could not read" in str(hint.render())
        assert items_in_db(store, record.session.id)[-1].answered_at is None
        calc = screen.query_one("#mock-calc", Input)
        assert calc.has_focus
        calc.value = ""
        await pilot.press(*right_answer(bank, drill), "enter")
        await pilot.pause()
        stored = items_in_db(store, record.session.id)[-1]
        assert stored.verdict == "correct" and stored.draft == right_answer(bank, drill)


async def test_an_empty_calculation_is_a_skip_shown_as_no_answer(app_factory, clock, store):
    from quizapp.tui.screens.debrief import DebriefScreen

    options = MockOptions(questions=1, minutes=1, followups=0, topics=("t-one",), seed=2)
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        record = await open_interview(app, pilot, options)
        await pilot.press("ctrl+n")
        await pilot.pause()
        await pilot.press("enter")  # nothing typed: an explicit skip
        await pilot.pause()
        assert isinstance(app.screen, DebriefScreen)
        stored = items_in_db(store, record.session.id)[-1]
        assert stored.verdict == "skipped" and stored.rating == 1
        line = str(app.screen.query_one(".debrief-drill").render())
        assert "No answer" in line and "Could not read" not in line


async def test_strict_timeout_stores_an_unreadable_calculation_as_no_answer(app_factory, clock, store):
    options = MockOptions(questions=1, minutes=0.3, followups=0, topics=("t-one",), seed=2, strict=True)
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        record = await open_interview(app, pilot, options)
        screen = app.screen
        await pilot.press("ctrl+n")
        await pilot.pause()
        await pilot.press(*"abc")
        clock.advance(60)
        screen.tick()
        await pilot.pause()
        stored = items_in_db(store, record.session.id)[-1]
        assert stored.auto_advanced and stored.verdict == "skipped" and stored.draft == "abc"


async def test_setup_form_caps_the_calculations(app_factory, store):
    from quizapp.tui.screens.mock_setup import MockSetupScreen

    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(MockSetupScreen())
        await pilot.pause()
        form = app.screen
        assert form.query_one("#setup-calcs", Input).value == "2"
        form.query_one("#setup-calcs", Input).value = "0"
        form.query_one("#setup-seed", Input).value = "3"
        form.query_one("#setup-start", Button).press()
        await pilot.pause()
        record = mock_store.load_session(store, mock_store.list_sessions(store)[0].id)
        assert record.items and not [i for i in record.items if i.kind == "drill"]
