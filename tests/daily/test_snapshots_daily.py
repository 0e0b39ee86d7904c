"""Snapshots: a drill's worked solution in MB (the asked row marked), and the review card before reveal.

Regenerate with `pytest tests/daily/test_snapshots_daily.py --snapshot-update`, then look at the SVGs.
"""

from __future__ import annotations

from datetime import timezone

import pytest
from textual.widgets import Input

from tests.daily.bank_text import MB_DRILL as DRILL



@pytest.fixture
def mb_app(tmp_path):
    from quizapp.clock import FakeClock
    from quizapp.content import load_bank
    from quizapp.store import SchedulerConfig, Store
    from quizapp.tui.app import AppSettings, make_app

    root = tmp_path / "bank" / "inference"
    root.mkdir(parents=True)
    (root / "kv-one.yaml").write_text(DRILL, encoding="utf-8")
    bank = load_bank([root.parent])
    assert not bank.problems
    clock = FakeClock()
    store = Store.open(tmp_path / "r.sqlite3", clock, SchedulerConfig(tz=timezone.utc, fuzz_seed=0))
    store.sync(bank.cards())
    yield make_app(AppSettings(lang="en", content_dirs=(root.parent,), db_path=store.path, seed=7), store, bank, clock)
    store.close()


async def _answer(pilot) -> None:
    app = pilot.app
    for _ in range(3):
        await pilot.pause()
        await app.workers.wait_for_complete()
    app.open_review("cram", card_ids=["kv-one/drill/kv-token"])
    for _ in range(3):
        await pilot.pause()
        await app.workers.wait_for_complete()
    box = app.screen.query_one("#drill-input", Input)
    box.cursor_blink = False
    box.value = "0.51"
    await pilot.press("enter")
    for _ in range(3):
        await pilot.pause()
        await app.workers.wait_for_complete()
    app.screen.query_one("#card-area").scroll_end(animate=False)
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_worked_solution_of_a_drill_in_mb(snap_compare, mb_app, size):
    assert snap_compare(mb_app, terminal_size=size, run_before=_answer)
