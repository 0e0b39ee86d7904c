"""FLOPs answers read the way people write them (issue 12: '46.9 GFLOPs' is never refused)."""

from __future__ import annotations

import pytest

from quizapp.content import load_bank
from quizapp.content.drills import draw_variant
from quizapp.content.grading import grade
from quizapp.locations import bundled_content_dir


def _verdict(result) -> str:
    return getattr(result.verdict, "value", result.verdict)  # a Verdict enum or its string


def _flops_drills():
    bank = load_bank([bundled_content_dir()])
    return [(q, d) for q in bank.questions for d in q.drills if d.ask == "flops_per_token"]


def test_the_bank_has_flops_per_token_drills_and_none_asks_for_a_bare_number():
    drills = _flops_drills()
    assert drills
    assert all(d.unit != "x" for _, d in drills)


@pytest.mark.parametrize("write", [
    lambda v: f"{v / 1e9:.1f} GFLOPs",
    lambda v: f"{v:.2e} FLOPs",
    lambda v: f"{v / 1e12:.4f} TFLOPs",
    lambda v: f"{v / 1e9:.1f}",  # a bare number is read in the drill's unit (GFLOPs)
])
def test_every_way_of_writing_the_expected_flops_is_correct(write):
    for question, drill in _flops_drills():
        variant = draw_variant(question, drill, seed=3)
        result = grade(variant, drill, write(variant.expected))
        assert _verdict(result) == "correct", (question.id, drill.id, write(variant.expected), result)


def test_a_flops_answer_off_by_a_billion_is_wrong_not_refused():
    question, drill = _flops_drills()[0]
    variant = draw_variant(question, drill, seed=3)
    result = grade(variant, drill, f"{variant.expected:.3g}")  # FLOPs typed into a GFLOPs drill
    assert _verdict(result) == "wrong"
