"""A mock interview's misconception is stored as its id and named in the language of the day it is read:
a debrief recorded in Chinese reads in English after switching the language (and back)."""

from __future__ import annotations

import pytest
from mock_support import load_tiny_bank
from textual.widgets import Static

from quizapp.content import draw_variant
from quizapp.memory import mistake_values
from quizapp.practice import interview
from quizapp.practice.interview import MockOptions
from quizapp.words import say

MISTAKE = "no-optimizer"  # the optimizer states left out: one value, named apart from the others


@pytest.fixture
def bank(tmp_path):
    return load_tiny_bank(tmp_path / "mock-bank")


async def settle(app, pilot) -> None:
    for _ in range(4):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()


def drill_line(app) -> str:
    return "\n".join(str(w.render()) for w in app.screen.query(".debrief-drill").results(Static))


async def test_a_debrief_recorded_in_chinese_reads_in_english_after_switching(app_factory, store, bank):
    from quizapp.tui.screens.debrief import DebriefScreen
    from quizapp.tui.screens.mock import MockScreen

    english, chinese = say(MISTAKE, "en"), say(MISTAKE, "zh")
    assert english != chinese and english != MISTAKE  # the catalogue names it in both languages
    record = interview.start_session(store, bank, MockOptions(questions=1, followups=0, calcs=1, topics=("t-one",),
                                                              seed=2))
    drill = record.items[-1]
    question = bank.question("alpha")
    variant = draw_variant(question, question.drill(drill.item_id), drill.variant_seed)
    wrong = mistake_values(variant.setup, variant.ask)[MISTAKE] / 1e9

    app = app_factory(lang="zh")
    async with app.run_test(size=(100, 40)) as pilot:
        app.push_screen(MockScreen(record))
        await settle(app, pilot)
        await pilot.press(*"我的草稿", "ctrl+n")  # the question, answered in Chinese
        await settle(app, pilot)
        await pilot.press(*f"{wrong:.2f} GB", "enter")  # the calculation: the optimizer states left out
        await settle(app, pilot)
        assert isinstance(app.screen, DebriefScreen)
        assert chinese in drill_line(app)

        stored = interview.load_session(store, record.session.id).items[-1]
        assert stored.mistake_id == MISTAKE  # stored as its id, in no language

        await app.action_toggle_lang()  # to English: the app goes home and forgets the screens above
        await settle(app, pilot)
        app.push_screen(DebriefScreen(interview.load_session(store, record.session.id)))
        await settle(app, pilot)
        line = drill_line(app)
        assert english in line and chinese not in line
