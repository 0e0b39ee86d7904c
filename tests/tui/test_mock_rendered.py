"""Issue 13: mock prompts (the question's title, its follow-ups) go through the one renderer, so no raw
`{{drill}}` reference reaches the mock screen or the debrief."""

from __future__ import annotations

import pytest
from textual.widgets import Markdown

from quizapp.content import load_bank
from quizapp.content.render import render_prose
from quizapp.practice import interview as mock_store
from quizapp.practice.interview import MockOptions
from tests.tui.conftest import write_bank

REFERENCED = """\
id: kv-referenced
title: "Weights of Llama-2-13B ({{weights-13b}}): what else is on the card?"
topic: inference
lang: en
answer: |
  Weights are {{weights-13b}}.
followups:
  - id: and-the-cache
    q: "Given {{weights-13b}} of weights, how much room is left for the KV cache on an 80 GB card?"
    a: "80 GB minus {{weights-13b}}."
drills:
  - id: weights-13b
    prompt: "{model} weights in bf16 for inference: how many GB?"
    setup: {model: llama-2-13b, method: inference, precision: bf16}
    ask: weights
    unit: GB
"""


@pytest.fixture
def bank(tmp_path):
    loaded = load_bank([write_bank(tmp_path / "ref-bank", {"inference/kv-referenced.yaml": REFERENCED})])
    assert not loaded.problems, [str(p) for p in loaded.problems]
    return loaded


async def test_mock_prompts_have_their_drill_references_rendered(app_factory, bank):
    from quizapp.tui.screens.mock import MockScreen

    question = bank.question("kv-referenced")
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        record = mock_store.start_session(app.store, app.bank, MockOptions(questions=1, minutes=2, followups=1, seed=1))
        by_kind = {item.kind: item for item in record.items}
        assert by_kind["question"].prompt == render_prose(question, question.title)
        assert by_kind["followup"].prompt == render_prose(question, question.followups[0].q)
        app.push_screen(MockScreen(record))
        await pilot.pause()
        seen = []
        for _ in record.items:
            screen = app.screen
            if not isinstance(screen, MockScreen):
                break
            markdown = screen.query_one("#mock-prompt", Markdown)
            shown = markdown.source + " " + str(screen.query_one("#mock-parent").render())
            seen.append((screen.item.kind, shown))
            if screen.item.kind == "drill":
                await pilot.press("enter")
            else:
                await pilot.press("ctrl+n")
            await pilot.pause()
        assert {kind for kind, _ in seen} >= {"question", "followup"}
        for kind, shown in seen:
            assert "{{" not in shown and "weights-13b" not in shown, (kind, shown)
        followup_shown = dict(seen)["followup"]
        assert "GB" in followup_shown.split("how much room")[0]  # the reference became a size
