"""Fixtures for the content tests: the good fixture bank and a helper to write question files."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent
GOOD_DIR = HERE / "fixtures" / "good"
GRADING_DIR = HERE / "fixtures" / "grading"
BROKEN_DIR = HERE / "broken"


@pytest.fixture(scope="module")
def good():
    """The one question of the good fixture bank, loaded without problems."""
    from quizapp.content import load_bank

    bank = load_bank([GOOD_DIR])
    assert bank.problems == ()
    return bank.questions[0]


@pytest.fixture
def write_question(tmp_path):
    """write_question("topic/id.yaml", text) -> the written path under tmp_path/content."""

    def write(relative: str, text: str | bytes) -> Path:
        path = tmp_path / "content" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    return write
