"""The review screen's worked solution of a drill whose ask is no memory term (issue 22): after the
answer, the solution shows the asked quantity's formula, its numbers and the asked row marked, not
the setup's memory table (weights, gradients, optimizer states)."""

from __future__ import annotations

import os

from rich.console import Console
from textual.widgets import Input, Static

from tests.tui.conftest import write_bank

BUBBLE = """\
id: bubble-drill
title: How large is the 1F1B pipeline bubble?
topic: parallelism
lang: en
answer: |
  With 4 stages and 8 micro-batches the bubble is {{bubble}} of the ideal time.
drills:
  - id: bubble
    prompt: "1F1B with {pp} stages and {microbatches} micro-batches: the bubble as a share of the ideal time?"
    setup: {model: llama-3.1-70b, method: full, precision: bf16-mixed, optimizer: adamw, pp: 4, microbatches: 8,
            batch: 1, seq: 4096}
    ask: bubble
    unit: "%"
    tolerance: 2%
"""
CARD = "bubble-drill/drill/bubble"


async def settle(app, pilot) -> None:
    for _ in range(3):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()


def _flat(renderable, width: int) -> str:
    console = Console(width=width, record=True, file=open(os.devnull, "w"))
    console.print(renderable)
    return console.export_text()


async def test_the_solution_tab_derives_the_bubble(app_factory, tmp_path, clock, scheduler_config):
    from quizapp.content import load_bank
    from quizapp.store import Store
    from quizapp.tui.widgets.breakdown_table import BreakdownTable

    bank = load_bank([write_bank(tmp_path / "bubble-bank", {"parallelism/bubble-drill.yaml": BUBBLE})])
    assert not bank.problems, [str(p) for p in bank.problems]
    store = Store.open(tmp_path / "bubble.sqlite3", clock, scheduler_config)
    store.sync(bank.cards())
    try:
        app = app_factory(bank=bank, store=store, content_dirs=(tmp_path / "bubble-bank",),
                          db_path=tmp_path / "bubble.sqlite3")
        async with app.run_test(size=(110, 40)) as pilot:
            await settle(app, pilot)
            app.open_review("cram", card_ids=[CARD])
            await settle(app, pilot)
            screen = app.screen
            screen.query_one("#drill-input", Input).value = "37.5%"
            await pilot.press("enter")
            await settle(app, pilot)
            table = screen.query_one("#answer").query_one(BreakdownTable)
            assert table.solution is not None and table.solution.derived
            shown = _flat(screen.query_one("#answer .breakdown--table", Static).content, 100)
            assert "(p − 1) / m = (4 − 1) / 8" in shown  # the formula with symbols, then with numbers
            asked = [line for line in shown.splitlines() if "▶" in line]
            assert len(asked) == 1 and "pipeline bubble" in asked[0] and "37.50%" in asked[0]
            assert "weights" not in shown and "optimizer" not in shown  # no memory table
            notes = str(screen.query_one("#answer .breakdown--notes", Static).render())
            assert "fill and drain" in notes
    finally:
        store.close()


async def test_the_solution_table_derives_a_drill_of_every_ask_kind():
    """The review's solution widget (BreakdownTable with the drill's WorkedSolution) for one bundled drill
    of each derived ask: the asked row marked with the expected value, its formula and numbers shown,
    no memory terms."""
    import re

    from textual.app import App

    from quizapp.content import draw_variant, load_bank
    from quizapp.content.solution import worked_solution
    from quizapp.locations import bundled_content_dir
    from quizapp.memory.asks import derived_asks
    from quizapp.tui.widgets.breakdown_table import BreakdownTable

    chosen = {}
    for question in load_bank([bundled_content_dir()]).questions:
        for drill in question.drills:
            if drill.ask in derived_asks():
                chosen.setdefault(drill.ask, (question, drill))
    assert {"bubble", "decode_step_s", "ttft", "mfu", "critical_batch", "comm_ep_bytes", "max_concurrency"} <= set(chosen)

    class Host(App):
        pass

    async with Host().run_test(size=(160, 60)) as pilot:
        for ask, (question, drill) in sorted(chosen.items()):
            variant = draw_variant(question, drill, 1)
            solution = worked_solution(variant)
            await pilot.app.screen.remove_children()
            table = BreakdownTable(solution, None, lang="en")
            await pilot.app.screen.mount(table)
            await pilot.pause()
            shown = _flat(table.query_one(".breakdown--table", Static).content, 150)
            asked = [line for line in shown.splitlines() if "▶" in line]
            assert len(asked) == 1 and variant.expected_display in asked[0], ask
            row = solution.asked_row
            flat = "".join(shown.split())
            pieces = [re.escape(c) for c in f"{row.formula}={row.substituted}" if not c.isspace()]
            assert re.search(".*?".join(pieces), flat, re.S), ask
            assert not re.search(r"^\s*(weights|gradients|optimizer states)\s{2,}", shown, re.M), ask
