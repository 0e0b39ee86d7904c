"""A derived ask's worked solution in the TUI: the derivation's rows and notes, no memory table or fit."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from quizapp.content.schema import Drill, Question
from quizapp.content.drills import draw_variant
from quizapp.content.solution import worked_solution
from quizapp.tui.widgets.breakdown_table import BreakdownTable


def _variant():
    drill = Drill(id="d", prompt="p", setup={"gpu": "h100-80g", "latency_ns": 600}, ask="bytes_in_flight", unit="MB")
    question = Question(id="q", title="t", topic="t", answer="a", drills=[drill], lang="en")
    return draw_variant(question, drill, 0)


class _Host(App):
    def __init__(self, widget) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


async def test_the_table_shows_the_steps_and_their_notes_without_a_fit():
    variant = _variant()
    table = BreakdownTable(variant.breakdown, None, lang="en", solution=worked_solution(variant))
    async with _Host(table).run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        texts = [str(w.content) for w in pilot.app.query(Static)]
        notes = next(t for t in texts if "Little's law" in t)
        assert "bytes in flight" in notes
        assert not any("fits" in t or "does not fit" in t for t in texts)  # no memory fit for a 1-param stand-in


async def test_a_derived_solution_given_as_the_breakdown_is_shown_the_same():
    # the question card's solution tab passes drill_breakdown's result (a WorkedSolution for a derived ask)
    from quizapp.practice.cards import drill_breakdown, gpu_fit

    drill = Drill(id="d", prompt="p", setup={"acceptance": 0.8, "draft_len": 4}, ask="spec_tokens_per_round",
                  unit="tokens")
    result, error = drill_breakdown(drill)
    assert error is None and result.derived and gpu_fit(result) is None
    async with _Host(BreakdownTable(result, None, lang="zh")).run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        texts = [str(w.content) for w in pilot.app.query(Static)]
        assert any("Leviathan et al. 2023" in t and "每轮验证" in t for t in texts)
