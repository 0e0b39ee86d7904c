"""Anki's review habits on the review screen (issue 22): a leech is announced (a notice, the summary,
Home's count), - buries, @ suspends, ctrl+1-4 flag, and u on a graded drill reopens it for a retype.
Each test checks the database rows with a second connection."""

from __future__ import annotations

from datetime import timezone

import pytest
from textual.widgets import Input, Static

from quizapp.vocab import Mode

BRACKETS, KV = "brackets/question/main", "kv-drill/question/main"
DRILL = "single-gpu/drill/adamw-7b"


@pytest.fixture
def scheduler_config():
    """No new cards (only the due ones this module prepares come up), and a leech at the first lapse."""
    from quizapp.store import SchedulerConfig

    return SchedulerConfig(fuzz_seed=0, tz=timezone.utc, new_per_day=0, leech_lapses=1)


async def settle(app, pilot) -> None:
    for _ in range(3):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()


def _notices(app) -> list[str]:
    seen: list[str] = []
    app.notify = lambda message, **options: seen.append(str(message))  # what the user is told, in order
    return seen


def _graduate(store, clock, *cards: str) -> None:
    """Each card answered Easy once (a review card), then the clock moved past every due date."""
    for card in cards:
        store.review(card, 4, duration_ms=1000)
    clock.advance(90 * 86400)


async def test_a_leech_is_announced_on_the_next_card_in_the_summary_and_on_home(app_factory, store, clock, query_db):
    _graduate(store, clock, BRACKETS, KV)
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        seen = _notices(app)
        await settle(app, pilot)
        app.open_review(Mode.REVIEW, topic="inference")
        await settle(app, pilot)
        screen = app.screen
        first = screen.current.card_id
        assert first in (BRACKETS, KV)
        await pilot.press("space")
        await settle(app, pilot)
        await pilot.press("1")  # Again on a review card: a lapse, and leech_lapses is 1
        await settle(app, pilot)
        assert query_db("SELECT leech, suspended, lapses FROM card WHERE card_id = ?", first) == [(1, 1, 1)]
        assert any("Leech" in n and first in n for n in seen), seen  # said on the next card
        second = screen.current.card_id
        await pilot.press("space")
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        summary = "\n".join(app.screen.lines())
        assert f"1 leech suspended: {first}" in summary and second not in summary.split("suspended:")[1]
        app.pop_screen()
        await settle(app, pilot)
        streak = str(app.screen.query_one("#streak", Static).render())
        assert "1 leech suspended" in streak


async def test_minus_buries_at_suspends_and_ctrl_digits_flag_the_card_shown(app_factory, store, clock, query_db):
    _graduate(store, clock, BRACKETS, KV)
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        seen = _notices(app)
        await settle(app, pilot)
        app.open_review(Mode.REVIEW, topic="inference")
        await settle(app, pilot)
        screen = app.screen
        first = screen.current.card_id
        await pilot.press("ctrl+2")
        await settle(app, pilot)
        assert query_db("SELECT flag FROM card_flag WHERE card_id = ?", first) == [(2,)]
        assert "flag 2" in str(screen.query_one("#progress", Static).render())
        await pilot.press("ctrl+2")  # the same flag again removes it, as in Anki
        await settle(app, pilot)
        assert query_db("SELECT flag FROM card_flag WHERE card_id = ?", first) == []
        await pilot.press("minus")  # bury: gone until tomorrow, the next card shown
        await settle(app, pilot)
        assert query_db("SELECT buried_until IS NOT NULL, suspended FROM card WHERE card_id = ?", first) == [(1, 0)]
        second = screen.current.card_id
        assert second != first and any(f"Buried until tomorrow: {first}" == n for n in seen), seen
        await pilot.press("at")  # suspend the second: the session is over
        await settle(app, pilot)
        assert query_db("SELECT suspended FROM card WHERE card_id = ?", second) == [(1,)]
        assert query_db("SELECT count(*) FROM review_log") == [(2,)]  # the setup's two answers: nothing rated
        from quizapp.tui.screens.summary import SummaryScreen

        assert isinstance(app.screen, SummaryScreen)


async def test_u_on_a_graded_drill_reopens_it_and_the_first_try_is_recorded(app_factory, query_db):
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        app.open_review("cram", card_ids=[DRILL])
        await settle(app, pilot)
        screen = app.screen
        box = screen.query_one("#drill-input", Input)
        box.value = "54 GB"  # m and v left out: (2 + 2 + 4) x 6,738,415,616 = 53.9 GB, not 107.8 GB
        await pilot.press("enter")
        await settle(app, pilot)
        assert screen.revealed and screen.grade.verdict == "wrong"
        await pilot.press("u")  # not an undo of an earlier card: the drill in front of you opens again
        await settle(app, pilot)
        assert not screen.revealed and not box.disabled and screen.focused is box
        assert "First try: Wrong (54 GB)" in str(screen.query_one("#verdict", Static).render())
        assert query_db("SELECT count(*) FROM review_log") == [(0,)]
        box.value = "107.8 GB"
        await pilot.press("enter")
        await settle(app, pilot)
        assert screen.grade.verdict == "correct"
        await pilot.press("3")
        await settle(app, pilot)
        # the rating keeps what the drill measured: the first, wrong try (its mistake), with the final text
        assert query_db("SELECT card_id, answer, verdict, mistake FROM review_log") == [
            (DRILL, "107.8 GB", "wrong", "no-optimizer")]
