"""Author preview: renders a file as review does, shows problems inline, follows edits on disk."""

from __future__ import annotations

import os
from pathlib import Path

from tests.tui.bank_files import BRACKETS, BROKEN, SINGLE_GPU

from quizapp.tui.preview_app import make_preview_app
from quizapp.tui.screens.preview import PreviewScreen


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def settle(pilot) -> None:
    """Let the preview's worker (parse and compute in a thread) finish and its widgets mount."""
    for _ in range(4):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()


def test_preview_snapshot_valid(snap_compare, tmp_path):
    path = write(tmp_path / "llm-training" / "single-gpu.yaml", SINGLE_GPU)
    assert snap_compare(make_preview_app(path, poll_seconds=None), terminal_size=(80, 24), run_before=settle)


def test_preview_snapshot_with_errors(snap_compare, tmp_path):
    path = write(tmp_path / "inference" / "broken.yaml", BROKEN)
    assert snap_compare(make_preview_app(path, poll_seconds=None), terminal_size=(80, 24), run_before=settle)


async def test_editing_the_file_rerenders_and_fixing_it_clears_the_problems(tmp_path):
    path = write(tmp_path / "inference" / "brackets.yaml", BRACKETS)
    app = make_preview_app(path, poll_seconds=None)  # the test ticks the poll by hand
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PreviewScreen)
        assert screen.question.title.startswith("What does list[int] mean")
        assert not screen.problems
        assert screen.check_for_changes() is False  # nothing changed yet

        write(path, BRACKETS.replace("What does list[int] mean", "What does dict[str, int] mean"))
        os.utime(path, ns=(1, 1))  # a different mtime even on coarse-clock file systems
        assert screen.check_for_changes() is True
        await settle(pilot)
        assert screen.question.title.startswith("What does dict[str, int] mean")
        markdown = screen.query_one(".question--body")
        assert "dict[str, int]" in markdown.source  # the new text is what is on screen

        write(path, BRACKETS.replace("answer: |", "answr: |"))  # break it
        os.utime(path, ns=(2, 2))
        assert screen.check_for_changes() is True
        await settle(pilot)
        assert screen.question is None and screen.problems
        source = str(screen.query_one("#preview-source").content)
        assert "answr" in source and f"{screen.problems[0].line}:{screen.problems[0].col}" in source

        write(path, BRACKETS)  # fix it
        os.utime(path, ns=(3, 3))
        assert screen.check_for_changes() is True
        await settle(pilot)
        assert not screen.problems and screen.question is not None
        assert not screen.query("#preview-source")


async def test_drills_show_their_expected_value_and_breakdown(tmp_path):
    from quizapp.content import draw_variant, load_question_file
    from quizapp.tui.widgets.breakdown_table import BreakdownTable

    path = write(tmp_path / "llm-training" / "single-gpu.yaml", SINGLE_GPU)
    question, problems = load_question_file(path)
    assert not problems
    expected = draw_variant(question, question.drills[0], 0).expected_display
    app = make_preview_app(path, poll_seconds=None)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        shown = [str(w.render()) for w in screen.query(".preview-expected")]
        assert len(shown) == len(question.drills)
        assert expected in shown[0]
        assert screen.query(BreakdownTable)
        await pilot.press("space")  # hide the answers, as review does before reveal
        await settle(pilot)
        assert not screen.query(BreakdownTable)


async def test_the_bundled_file_with_many_drills_is_shown(tmp_path):
    """The real single-gpu-requirements.yaml (many drills and follow-ups): every drill's expected value
    and breakdown and every follow-up are on screen (speed: benchmarks, not here)."""
    from quizapp.content import draw_variant, load_question_file
    from quizapp.locations import bundled_content_dir
    from quizapp.tui.widgets.breakdown_table import BreakdownTable

    path = bundled_content_dir() / "llm-training" / "single-gpu-requirements.yaml"
    from quizapp.content.localize import localize

    question, problems = load_question_file(path)
    assert not problems and len(question.drills) > 3
    question = localize(question, "en")  # the preview app's language
    expected = [draw_variant(question, drill, 0).expected_display for drill in question.drills]
    app = make_preview_app(path, poll_seconds=None)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.question is not None and screen.question.id == question.id
        assert screen.query_one(".question--body").source == question.title
        shown = [str(w.render()) for w in screen.query(".preview-expected")]
        assert len(shown) == len(question.drills)
        assert all(value in line for value, line in zip(expected, shown))
        assert len(screen.query(BreakdownTable)) >= len(question.drills)
        headings = [str(w.render()) for w in screen.query(".preview-heading")]
        assert sum(f.id in h for f in question.followups for h in headings) >= len(question.followups)
