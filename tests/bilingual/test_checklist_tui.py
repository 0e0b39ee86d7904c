"""The key-point checklist in review and in the mock debrief (Pilot, asserting on the database): a
typed answer pre-ticks what it covers, z..m toggle, the suggestion follows, Enter accepts it, and the
ticks are stored with the rating."""

from __future__ import annotations

import sqlite3

import pytest

from quizapp.practice import interview
from quizapp.practice.interview import MockOptions
from quizapp.vocab import Rating

QUESTION = "kv-points/question/main"


def rows(path, sql):
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


async def settle(app, pilot):
    for _ in range(3):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()


async def test_a_typed_answer_pre_ticks_its_points_and_toggles_move_the_suggestion(kv_app):
    app, path = kv_app("en")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        app.open_review("cram", card_ids=[QUESTION])
        await settle(app, pilot)
        screen = app.screen
        await pilot.press("a")
        for key in "it grows linearly":
            await pilot.press(key if key != " " else "space")
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        checklist = screen.session.checklist
        assert checklist.ticked == {"formula": False, "linear": True, "kv-heads": False, "size": False}
        assert screen.suggested is Rating.Again  # 1 of 4, the must-have formula missing
        text = str(screen.query_one("#checklist").render())
        assert "Key points: 1 of 4 covered" in text and "✓ It grows linearly" in text
        assert "(by: linearly)" in text and "✗ The KV cache is 2·L·a_kv·d·s·b·p bytes (must)" in text
        await pilot.press("z", "c")  # tick the formula and "kv-heads": 3 of 4, all musts: 75 % -> Hard
        assert screen.suggested is Rating.Hard
        await pilot.press("v")  # and the size: 4 of 4 -> Good
        assert screen.suggested is Rating.Good
        assert "Key points: 4 of 4 covered" in str(screen.query_one("#checklist").render())
        await pilot.press("1")  # 1-4 still rate as in Anki (the user overrides the suggestion)
        await settle(app, pilot)
    assert rows(path, "SELECT rating FROM review_log") == [(1,)]
    assert rows(path, "SELECT point, covered FROM review_point ORDER BY id") == [
        ("formula", 1), ("linear", 1), ("kv-heads", 1), ("size", 1)]


async def test_enter_accepts_the_suggested_rating_in_chinese(kv_app):
    app, path = kv_app("zh")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        app.open_review("cram", card_ids=[QUESTION])
        await settle(app, pilot)
        screen = app.screen
        await pilot.press("space")  # revealed without typing: nothing covered
        await settle(app, pilot)
        assert screen.session.checklist.covered == 0 and screen.suggested is Rating.Again
        text = str(screen.query_one("#checklist").render())
        assert "要点：覆盖 0/4" in text and "KV cache 是 2·L·a_kv·d·s·b·p 字节" in text
        await pilot.press("z", "x")  # the must-have formula and one more: 50 % -> Hard
        assert screen.suggested is Rating.Hard
        await pilot.press("enter")
        await settle(app, pilot)
    assert rows(path, "SELECT rating FROM review_log") == [(2,)]
    assert rows(path, "SELECT point, covered FROM review_point ORDER BY id") == [
        ("formula", 1), ("linear", 1), ("kv-heads", 0), ("size", 0)]


async def test_a_drill_has_no_checklist_and_no_tick_keys(kv_app):
    app, _ = kv_app("en")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        app.open_review("cram", card_ids=["kv-points/drill/kv-batch8"])
        await settle(app, pilot)
        screen = app.screen
        await pilot.press(*"17", "space", "G", "B", "enter")
        await settle(app, pilot)
        assert screen.revealed and screen.session.checklist is None
        assert not screen.query("#checklist") and not screen.check_action("toggle_point", (0,))


async def test_the_debrief_ticks_points_missed_first_and_strict_mode_rates_by_them(kv_app):
    from quizapp.tui.screens.debrief import DebriefScreen
    from quizapp.tui.widgets.checklist import PointTicks

    app, path = kv_app("en")
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(app, pilot)
        record = interview.start_session(app.store, app.bank, MockOptions(questions=1, followups=0, calcs=0,
                                                                          seed=1, strict=True))
        main = record.items[0]
        interview.record_answer(app.store, app.bank, main.id, "the cache is linear in context", 30.0, 30.0)
        record = interview.load_session(app.store, record.session.id)
        stored = record.items[0]
        assert stored.points == {"formula": False, "linear": True, "kv-heads": False, "size": False}
        assert stored.rating is Rating.Again  # strict: the suggestion (1 of 4, a must-have missed)
        app.open_debrief(record)
        await settle(app, pilot)
        assert isinstance(app.screen, DebriefScreen)
        ticks = app.screen.query_one(PointTicks)
        boxes = list(ticks.query("TickBox"))
        assert [b.name for b in boxes] == ["formula", "kv-heads", "size", "linear"]  # missed (must first), then ticked
        boxes[0].value = True  # the spoken answer gave the formula
        boxes[1].value = True
        await settle(app, pilot)
        stored = interview.load_session(app.store, record.session.id).items[0]
        assert stored.points == {"formula": True, "linear": True, "kv-heads": True, "size": False}
        assert stored.rating is Rating.Hard  # 3 of 4 with every must: Hard, in strict mode set for the user
        assert "3 of 4 covered · suggested: Hard" in str(ticks.query_one(".points-header").render())
        interview.set_to_schedule(app.store, stored.id, True)  # a new card goes in only when asked
        interview.apply_ratings(app.store, record.session.id)
    assert rows(path, "SELECT rating, mode FROM review_log") == [(2, "mock")]
    assert rows(path, "SELECT point, covered FROM review_point ORDER BY point") == [
        ("formula", 1), ("kv-heads", 1), ("linear", 1), ("size", 0)]
