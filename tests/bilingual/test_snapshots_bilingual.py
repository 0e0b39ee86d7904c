"""Snapshots at 80x24 in both languages on the bilingual fixture question: review with its key-point
checklist, the author preview, the mock interview and its debrief (the points, missed ones first).

Plain `def` tests (snap_compare runs its own event loop); FakeClock, fixed seeds, UTC."""

from __future__ import annotations

import time

import pytest

from quizapp.practice import interview
from quizapp.practice.interview import MockOptions
from tests.bilingual.test_checklist_tui import QUESTION

LANGS = ["en", "zh"]
TYPED = {"en": "it grows linearly with the batch", "zh": "随 batch 线性增长"}


@pytest.fixture(autouse=True)
def _utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


async def _settle(pilot):
    for _ in range(4):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()


@pytest.mark.parametrize("lang", LANGS)
def test_review_checklist(snap_compare, kv_app, lang):
    app, _ = kv_app(lang)

    async def run_before(pilot):
        await _settle(pilot)
        pilot.app.open_review("cram", card_ids=[QUESTION])
        await _settle(pilot)
        pilot.app.screen.query_one("#own-answer").load_text(TYPED[lang])
        await pilot.press("ctrl+r")
        await _settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


@pytest.mark.parametrize("lang", LANGS)
def test_preview(snap_compare, kv_dir, lang):
    from quizapp.tui.preview_app import make_preview_app

    app = make_preview_app(kv_dir / "inference" / "kv-points.yaml", lang=lang, poll_seconds=None)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_settle)


@pytest.mark.parametrize("lang", LANGS)
def test_mock_interview(snap_compare, kv_app, lang):
    from quizapp.tui.screens.mock import MockScreen

    app, _ = kv_app(lang)

    async def run_before(pilot):
        await _settle(pilot)
        record = interview.start_session(pilot.app.store, pilot.app.bank,
                                         MockOptions(questions=1, followups=1, calcs=0, seed=1))
        pilot.app.push_screen(MockScreen(record))
        await _settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


@pytest.mark.parametrize("lang", LANGS)
def test_debrief_points(snap_compare, kv_app, lang):
    app, _ = kv_app(lang)

    async def run_before(pilot):
        await _settle(pilot)
        a = pilot.app
        record = interview.start_session(a.store, a.bank, MockOptions(questions=1, followups=1, calcs=0, seed=1))
        for item in record.items:
            interview.record_answer(a.store, a.bank, item.id, TYPED[lang], 40.0, 40.0)
        a.open_debrief(interview.load_session(a.store, record.session.id))
        await _settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
