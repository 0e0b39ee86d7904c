"""Browse without friction (issue 22): the question column takes the width the fixed columns leave,
a drill row shows the first line of its prompt (the default variant), a leech is marked in its row and
named in the status line. A bank of the tiny bank's files plus a drill with `vary` and a two-line
prompt; the leech is made by the scheduler (one lapse, leech_lapses 1), not written by hand."""

from __future__ import annotations

import time
from datetime import timezone

import pytest

from tests.tui.bank_files import FILES
from tests.tui.conftest import write_bank

LEECH = "brackets/question/main"
DRILL = "vary-drill/drill/kv-vary"
VARY_DRILL = """\
id: vary-drill
title: A drill whose model and batch vary
topic: inference
lang: en
answer: |
  The KV cache is {{kv-vary}}.
drills:
  - id: kv-vary
    prompt: |
      {model} in bf16 serves {batch} sequences of 4096 tokens.
      How many GB does the KV cache take?
    setup: {method: inference, precision: bf16, seq: 4096}
    vary: {model: [llama-2-7b, llama-2-13b], batch: [8, 16]}
    ask: kv_cache
    unit: GB
"""
DEFAULT_PROMPT = "llama-2-7b in bf16 serves 8 sequences of 4096 tokens."  # each vary field at its first choice


@pytest.fixture
def tiny_bank_dir(tmp_path):
    return write_bank(tmp_path / "bank", {**FILES, "inference/vary-drill.yaml": VARY_DRILL})


@pytest.fixture
def scheduler_config():
    from quizapp.store import SchedulerConfig

    return SchedulerConfig(fuzz_seed=0, tz=timezone.utc, leech_lapses=1)


@pytest.fixture
def utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def leech_app(app_factory, store, clock, query_db, utc):
    store.review(LEECH, 4, duration_ms=1000)  # Easy: a review card
    clock.advance(90 * 86400)
    store.review(LEECH, 1, duration_ms=1000)  # Again: a lapse, and one lapse makes a leech here
    assert query_db("SELECT leech, suspended FROM card WHERE card_id = ?", LEECH) == [(1, 1)]
    return app_factory


async def settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def open_browse(pilot) -> None:
    await settle(pilot)
    pilot.app.open_browse()
    await settle(pilot)
    for _ in range(3):
        await pilot.pause(0.1)
    for widget in pilot.app.screen.query("Input"):
        widget.cursor_blink = False


def _cell(screen, card_id: str, column: str) -> str:
    table = screen.query_one("#browse-table")
    return table.get_cell(card_id, column).plain


def _question_width(screen) -> int:
    return screen.query_one("#browse-table").columns["question"].width


async def test_the_question_column_takes_the_width_the_others_leave(leech_app):
    from quizapp.tui.screens.browse import WIDTHS

    app = leech_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_browse(pilot)
        screen = app.screen
        narrow = _question_width(screen)
        assert narrow == WIDTHS["question"]  # at 80 columns the fixed ones leave less: the minimum
        await pilot.resize_terminal(160, 40)
        await settle(pilot)
        wide = _question_width(screen)
        table = screen.query_one("#browse-table")
        others = sum(c.get_render_width(table) for k, c in table.columns.items() if k != "question")
        assert wide > narrow + 40
        # the row fills the table exactly (the scrollbar's gutter kept), so nothing scrolls sideways
        assert others + wide + 2 * table.cell_padding == table.scrollable_content_region.width
        assert table.max_scroll_x == 0
        # ... and the rows are drawn at the new width: the drill's whole first line is on screen
        line = "".join(segment.text for segment in table.render_line(1 + table.get_row_index(DRILL)))
        assert DEFAULT_PROMPT in line
        await pilot.resize_terminal(80, 24)  # narrowing again gives the width back
        await settle(pilot)
        assert _question_width(screen) == narrow


async def test_a_drill_row_shows_the_first_line_of_its_default_prompt(leech_app):
    app = leech_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await open_browse(pilot)
        cell = _cell(app.screen, DRILL, "question")
        assert cell == DEFAULT_PROMPT  # filled, first line only, not the id or the question's title
        assert "How many GB" not in cell
        assert _cell(app.screen, "kv-drill/drill/weights-13b", "question") == \
            "llama-2-13b weights in bf16 for inference: how many GB?"


async def test_a_leech_is_marked_in_its_row_and_named_in_the_status_line(leech_app):
    from quizapp.tui.screens.browse import LEECH as MARK

    app = leech_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_browse(pilot)
        screen = app.screen
        cell = screen.query_one("#browse-table").get_cell(LEECH, "question")
        assert cell.plain.startswith(MARK) and "What does list[int] mean" in cell.plain
        assert any("yellow" in str(span.style) for span in cell.spans)
        for other in (DRILL, "kv-drill/question/main"):
            assert MARK not in _cell(screen, other, "question")
        status = str(screen.query_one("#browse-status").content)
        assert f"{MARK.strip()} 1 leech (lapsed too often)" in status


async def test_the_leech_legend_in_chinese(leech_app):
    app = leech_app(lang="zh")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_browse(pilot)
        assert "1 张难点卡（遗忘过多）" in str(app.screen.query_one("#browse-status").content)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_browse_with_a_leech_and_a_drill_snapshot(snap_compare, leech_app, lang):
    assert snap_compare(leech_app(lang=lang), terminal_size=(80, 24), run_before=open_browse)
