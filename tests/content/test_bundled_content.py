"""The bundled question bank (content/): it validates, every drill computes, every {{...}} renders."""

from __future__ import annotations

import re

import pytest

from quizapp.content import draw_variant, grade, load_bank, render_text
from quizapp.content.validate import text_fields
from quizapp.locations import bundled_content_dir


@pytest.fixture(scope="module")
def bundled():
    return load_bank([bundled_content_dir()])


def test_all_bundled_content_validates(bundled):
    assert [str(p) for p in bundled.problems] == []
    assert bundled.questions


def test_every_bundled_drill_computes_and_every_reference_renders(bundled):
    assert bundled.questions
    for question in bundled.questions:
        for drill in question.drills:
            seeds = range(8) if drill.vary else [0]
            for seed in seeds:
                variant = draw_variant(question, drill, seed)
                assert variant.expected == variant.expected and variant.expected >= 0, (question.id, drill.id)
                assert not re.search(r"\{[A-Za-z_]+\}", variant.prompt), (question.id, drill.id, variant.prompt)
                # the calculator's own answer, typed back, is graded correct
                assert grade(variant, drill, variant.expected_display).verdict == "correct", (question.id, drill.id)
        for path, text in text_fields(question):
            rendered = render_text(question, text)
            assert "{{" not in rendered, (question.id, path, rendered)
