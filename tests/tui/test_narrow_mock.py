"""The mock interview at 80x24, in English and Chinese (issue #22, "a week without friction").

Snapshots of the setup form (with resume and past interviews on screen), its past-interview list opened
with ctrl+o, and the debrief; Pilot tests of what is stored: a blank answer is not counted as answered,
the form opens with the last started choices after a restart, and 1-4 rate the debrief item that has the
focus. Plain `def` tests for snapshots (snap_compare runs its own event loop). FakeClock, tmp database.
"""

from __future__ import annotations

import time

import pytest
from mock_support import load_tiny_bank
from textual.widgets import Button, Checkbox, Input, OptionList, SelectionList

from quizapp.practice import interview as mock_store
from quizapp.practice.interview import MockOptions

NARROW = (80, 24)
LANGS = ["en", "zh"]


@pytest.fixture
def bank(tmp_path):
    """The mock tests' own bank (questions with follow-ups and a drill), overriding conftest's."""
    return load_tiny_bank(tmp_path / "mock-bank")


@pytest.fixture(autouse=True)
def _utc(monkeypatch):
    """The form and the debrief show local dates: pin the zone so snapshots are the same everywhere."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


async def settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def still(pilot) -> None:
    """No blinking cursors in a snapshot."""
    for widget in pilot.app.screen.query("Input, TextArea"):
        widget.cursor_blink = False


def history(store, bank, clock) -> tuple[int, int]:
    """One finished interview and, an hour later, one left unfinished: (finished id, unfinished id)."""
    done = mock_store.start_session(store, bank, MockOptions(questions=1, minutes=1, followups=1, calcs=0, seed=1))
    for item in done.items:
        mock_store.record_answer(store, bank, item.id, "an answer [b]not markup[/b]", 20, 20)
        mock_store.rate_item(store, item.id, 3)
    clock.advance(3600)
    left = mock_store.start_session(store, bank, MockOptions(questions=2, minutes=1, followups=1, calcs=0, seed=2))
    mock_store.record_answer(store, bank, left.items[0].id, "half way", 30, 30)
    return done.session.id, left.session.id


def answered_session(store, bank, clock) -> int:
    """A finished two-question interview, answered and not rated yet."""
    record = mock_store.start_session(store, bank, MockOptions(questions=2, minutes=2, followups=1, calcs=0, seed=0))
    total = 0.0
    for step, item in enumerate(record.items):
        clock.advance(30 + step)
        total += 30 + step
        mock_store.record_answer(store, bank, item.id, f"My draft for step {step}", 30 + step, total)
    return record.session.id


# --- snapshots -----------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_narrow_mock_setup_shows_resume_and_past(snap_compare, app_factory, store, bank, clock, lang):
    history(store, bank, clock)

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        still(pilot)

    assert snap_compare(app_factory(lang=lang), terminal_size=NARROW, run_before=run_before)


@pytest.mark.parametrize("lang", LANGS)
def test_narrow_mock_history_opened_with_ctrl_o(snap_compare, app_factory, store, bank, clock, lang):
    history(store, bank, clock)

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        still(pilot)

    assert snap_compare(app_factory(lang=lang), terminal_size=NARROW, run_before=run_before)


@pytest.mark.parametrize("lang", LANGS)
def test_narrow_debrief(snap_compare, app_factory, store, bank, clock, lang):
    from quizapp.tui.screens.debrief import DebriefScreen

    session_id = answered_session(store, bank, clock)

    async def run_before(pilot) -> None:
        pilot.app.push_screen(DebriefScreen(mock_store.load_session(store, session_id)))
        await settle(pilot)
        await pilot.press("down", "2")  # the follow-up, rated Hard
        await settle(pilot)

    assert snap_compare(app_factory(lang=lang), terminal_size=NARROW, run_before=run_before)


# --- what is stored ------------------------------------------------------------------------------


def region_inside(outer, inner) -> bool:
    return inner.width > 0 and inner.height > 0 and outer.contains_region(inner)


@pytest.mark.parametrize("lang", LANGS)
async def test_narrow_resume_and_history_are_on_screen_with_keys(app_factory, store, bank, clock, lang):
    from quizapp.tui.screens.debrief import DebriefScreen
    from quizapp.tui.screens.mock import MockScreen
    from quizapp.tui.screens.mock_setup import MockSetupScreen

    finished, unfinished = history(store, bank, clock)
    app = app_factory(lang=lang)
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, MockSetupScreen)
        screen = form.region
        resume = form.query_one("#setup-resume", Button)
        past = form.query_one("#setup-past", OptionList)
        assert resume.display and region_inside(screen, resume.region)  # no scrolling needed at 80x24
        assert past.option_count == 2 and region_inside(screen, past.region)
        keys = {b.binding.key for b in form.active_bindings.values() if b.enabled and b.binding.show}
        assert {"ctrl+r", "ctrl+o"} <= keys  # the footer offers both
        await pilot.press("ctrl+o")  # past interviews: focused, the newest highlighted
        await settle(pilot)
        assert past.has_focus and past.highlighted == 0
        await pilot.press("down", "enter")  # the finished one: its debrief
        await settle(pilot)
        assert isinstance(app.screen, DebriefScreen) and app.screen.session_id == finished
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is form
        await pilot.press("ctrl+r")  # from inside a field too
        await settle(pilot)
        assert isinstance(app.screen, MockScreen) and app.screen.record.session.id == unfinished


async def test_narrow_keys_are_not_offered_without_history(app_factory):
    app = app_factory()
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        form = app.screen
        keys = {b.binding.key for b in form.active_bindings.values() if b.enabled and b.binding.show}
        assert "ctrl+r" not in keys and "ctrl+o" not in keys
        assert not form.query_one("#setup-resume").display and not form.query_one("#setup-past").display


async def test_blank_answers_are_not_counted_as_answered(app_factory, store, bank, clock):
    from quizapp.tui.screens.debrief import DebriefScreen
    from quizapp.tui.screens.mock import MockScreen

    record = mock_store.start_session(store, bank, MockOptions(questions=1, minutes=1, followups=2, calcs=0,
                                                               seed=3))
    assert [i.kind for i in record.items] == ["question", "followup", "followup"]
    app = app_factory()
    async with app.run_test(size=NARROW) as pilot:
        app.push_screen(MockScreen(record))
        await settle(pilot)
        await pilot.press("space", "space", "enter", "space", "tab")  # only blanks (tab leaves the editor)
        await pilot.press("ctrl+n")
        await settle(pilot)
        await pilot.press(*"a real answer", "ctrl+n")
        await settle(pilot)
        app.screen.query_one("#mock-draft").load_text("\u3000\u3000")  # ideographic spaces (a Chinese IME)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, DebriefScreen)
        stored = mock_store.load_session(store, record.session.id)
        assert all(i.answered_at is not None for i in stored.items)  # all three were moved past...
        assert stored.items[0].draft.strip() == "" and stored.items[0].draft != ""
        assert [mock_store.is_answered(i) for i in stored.items] == [False, True, False]  # ...one was answered
        assert mock_store.answered_count(stored.items) == 1
        summary = str(app.screen.query_one("#debrief-summary").render())
        assert "1/3 answered" in summary
        assert mock_store.list_sessions(store)[0].answered == 1  # the history (SQL) agrees


async def test_setup_form_comes_back_with_the_last_choices_after_a_restart(app_factory, bank, clock, db_path,
                                                                            scheduler_config):
    from quizapp.store import Store
    from quizapp.tui.screens.mock import MockScreen
    from quizapp.tui.screens.mock_setup import MockSetupScreen

    app = app_factory()
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        form = app.screen
        assert form.query_one("#setup-questions", Input).value == "3"  # the defaults, the first time
        for field, value in (("questions", "1"), ("minutes", "0.5"), ("followups", "1"), ("calcs", "0"),
                             ("seed", "5")):
            form.query_one(f"#setup-{field}", Input).value = value
        form.query_one("#setup-strict", Checkbox).value = True
        form.query_one("#setup-topics", SelectionList).select("t-two")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, MockScreen)

    reopened = Store.open(db_path, clock, scheduler_config)  # a new process on the same database
    try:
        again = app_factory(store=reopened)
        async with again.run_test(size=NARROW) as pilot:
            await settle(pilot)
            await pilot.press("m")
            await settle(pilot)
            form = again.screen
            assert isinstance(form, MockSetupScreen)
            values = {f: form.query_one(f"#setup-{f}", Input).value
                      for f in ("questions", "minutes", "followups", "calcs", "seed")}
            assert values == {"questions": "1", "minutes": "0.5", "followups": "1", "calcs": "0", "seed": ""}
            assert form.query_one("#setup-strict", Checkbox).value is True
            assert form.query_one("#setup-topics", SelectionList).selected == ["t-two"]
            assert form.options() == MockOptions(questions=1, minutes=0.5, followups=1, calcs=0,
                                                 topics=("t-two",), strict=True)
        assert mock_store.remembered_options(reopened) == MockOptions(questions=1, minutes=0.5, followups=1,
                                                                      calcs=0, topics=("t-two",), strict=True)
    finally:
        reopened.close()


def test_remembered_options_drop_gone_topics_and_bad_values(store):
    mock_store.remember_options(store, MockOptions(questions=2, topics=("t-one", "gone")))
    assert mock_store.remembered_options(store, ["t-one", "t-two"]).topics == ("t-one",)
    store.set_setting(mock_store.LAST_OPTIONS, {"questions": 0})
    assert mock_store.remembered_options(store) == MockOptions()
    store.set_setting(mock_store.LAST_OPTIONS, "not a dict")
    assert mock_store.remembered_options(store) == MockOptions()


@pytest.mark.parametrize("lang", LANGS)
async def test_two_in_the_debrief_rates_the_focused_item(app_factory, store, bank, clock, query_db, lang):
    from quizapp.tui.screens.debrief import DebriefItem, DebriefScreen

    session_id = answered_session(store, bank, clock)
    app = app_factory(lang=lang)
    async with app.run_test(size=NARROW) as pilot:
        app.push_screen(DebriefScreen(mock_store.load_session(store, session_id)))
        await settle(pilot)
        screen = app.screen
        items = list(screen.query(DebriefItem))
        assert len(items) == 4 and screen.focused is items[0]  # the first answer has the focus
        await pilot.press("down")
        await settle(pilot)
        assert screen.focused is items[1] and region_inside(screen.query_one("#debrief-body").region,
                                                           items[1].region.intersection(screen.region))
        await pilot.press("2")
        await settle(pilot)
        rows = query_db("SELECT id, rating FROM mock_item WHERE session_id = ? ORDER BY position", session_id)
        assert rows[1] == (items[1].item.id, 2)
        assert [r[1] for r in rows] == [None, 2, None, None]
        hard = items[1].query_one("#rate-2", Button)
        assert hard.has_class("-suggested")  # the chosen button is marked
        hard.focus()  # focus on a button inside an item: the key still rates that item
        await pilot.press("4")
        await settle(pilot)
        assert query_db("SELECT rating FROM mock_item WHERE id = ?", items[1].item.id) == [(4,)]
        await pilot.press("down", "down", "1")
        await settle(pilot)
        assert screen.focused is items[3]
        assert [r[0] for r in query_db("SELECT rating FROM mock_item WHERE session_id = ? ORDER BY position",
                                       session_id)] == [None, 4, None, 1]
