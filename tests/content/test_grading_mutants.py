"""Grading behaviours that the mutation run (benchmarks/mutation.py grading) found untested; each test
names the mutant of quizapp/content/grading.py it kills."""

from __future__ import annotations

import pytest

from quizapp.content import draw_variant, grade, load_question_file
from quizapp.content import grading
from quizapp.content.schema import ExtraMistake
from quizapp.memory import SetupError

GB = 1e9
# 7B, mixed-precision AdamW: 16 bytes a parameter = 112 GB of model states (spec section 1)
DRILL = """id: states
title: t
topic: t
answer: a
drills:
  - id: states
    prompt: p
    setup: {{model: 7B, method: full, precision: bf16-mixed, optimizer: adamw}}
    ask: model_states
    unit: GB
    extra_mistakes:
{extras}
"""


def _drill(tmp_path, extras: str):
    path = tmp_path / "states.yaml"
    path.write_text(DRILL.format(extras=extras), encoding="utf-8")
    question, problems = load_question_file(path)
    assert question is not None and not [p for p in problems if p.severity == "error"], problems
    drill = question.drills[0]
    variant = draw_variant(question, drill, seed=0)
    assert variant.expected == pytest.approx(112 * GB)
    return drill, variant


def test_a_bare_extra_mistake_value_is_in_the_drills_unit(tmp_path):
    """kills x_candidate_mistakes__mutmut_5 (the value parsed without the drill's unit: 84 bytes)."""
    drill, variant = _drill(tmp_path, "      - label: forgot the fp32 master weights\n        value: 84\n")
    assert dict(grading.candidate_mistakes(variant, drill))["forgot the fp32 master weights"] == pytest.approx(84 * GB)
    assert grade(variant, drill, "84").mistake_id == "forgot the fp32 master weights"


def test_a_refused_extra_mistake_does_not_hide_the_next_one(tmp_path):
    """kills x_candidate_mistakes__mutmut_16 (`continue` -> `break`): one extra mistake the calculator
    refuses (30 heads do not divide a 4096 width) leaves the following one named."""
    drill, variant = _drill(tmp_path, "      - label: counted bf16 Adam states\n        value: 84 GB\n")
    refused = ExtraMistake(label="a refused setup", setup={"layers": 32, "hidden": 4096, "heads": 30})
    drill = drill.model_copy(update={"extra_mistakes": [refused, *drill.extra_mistakes]})
    names = [name for name, _ in grading.candidate_mistakes(variant, drill)]
    assert "a refused setup" not in names and "counted bf16 Adam states" in names
    assert grade(variant, drill, "84 GB").mistake_id == "counted bf16 Adam states"


def test_a_refused_catalogue_still_names_the_drills_own_mistakes(tmp_path, monkeypatch):
    """kills x_candidate_mistakes__mutmut_24 (`catalogue = None` when the catalogue refuses the setup)."""
    drill, variant = _drill(tmp_path, "      - label: counted bf16 Adam states\n        value: 84 GB\n")

    def refuse(setup, ask):
        raise SetupError("ask", "no catalogue for this ask")

    monkeypatch.setattr(grading, "mistake_candidates", refuse)
    assert grading.candidate_mistakes(variant, drill) == [("counted bf16 Adam states", pytest.approx(84 * GB))]
    assert grade(variant, drill, "84 GB").mistake_id == "counted bf16 Adam states"


def test_the_mistake_nearest_in_relative_terms_is_named(tmp_path):
    """kills x__distance__mutmut_4 (`/ abs(target)` -> `* abs(target)`): 50 GB is 8.7 % above 46 GB and
    7.9 % below 54.3 GB, so the 54.3 GB mistake is nearer; multiplied by the target, 46 GB would win."""
    drill, variant = _drill(tmp_path, "      - label: low\n        value: 46 GB\n      - label: high\n        value: 54.3 GB\n")
    result = grade(variant, drill, "50 GB")
    assert result.verdict == "wrong" and result.mistake_id == "high"
    assert "low" not in result.also_mistakes  # 46 and 54.3 are 15 % apart: not indistinguishable


@pytest.mark.parametrize(("value", "target", "distance"), [
    (1.5, 1.0, 0.5),    # kills x__distance__mutmut_2 (`target == 1` taken as the zero case: 1.5)
    (0.2, 0.0, 0.2),    # kills x__distance__mutmut_3 (`abs(None)` for a zero target: TypeError)
    (110.0, 100.0, 0.1),  # relative: 10 / 100
])
def test_distance_is_relative_and_absolute_only_for_a_zero_target(value, target, distance):
    assert grading._distance(value, target) == pytest.approx(distance)


def test_an_unparseable_answer_still_carries_the_expected_value(tmp_path):
    """kills x_grade__mutmut_8 (the expected value dropped from an unparseable grade: the review shows
    "expected 112.00 GB" beside the parse error)."""
    drill, variant = _drill(tmp_path, "      - label: counted bf16 Adam states\n        value: 84 GB\n")
    result = grade(variant, drill, "a lot of memory")
    assert result.verdict == "unparseable" and result.value is None
    assert result.expected == pytest.approx(112 * GB) and result.reason


def _with_conventions(tmp_path, monkeypatch, conventions, expected_gb, tolerance="10%"):
    """The states drill with its accepted conventions replaced by `conventions` ((name, GB) pairs) and
    its expected value set, so each grading branch can be reached with round numbers."""
    from dataclasses import replace

    drill, variant = _drill(tmp_path, "      - label: counted bf16 Adam states\n        value: 84 GB\n")
    drill = drill.model_copy(update={"tolerance": tolerance})
    variant = replace(variant, expected=expected_gb * GB)
    monkeypatch.setattr(grading, "accepted_values", lambda v, d: [(n, gb * GB) for n, gb in conventions])
    return drill, variant


def test_the_nearest_accepted_convention_is_named(tmp_path, monkeypatch):
    """kills x_grade__mutmut_29 and _31 (min over the conventions without the distance key: the name
    that sorts first, "6n", would be named). 101 GB is 1 % from "fp32 grads" (100) and 9 % from "6n" (111)."""
    drill, variant = _with_conventions(tmp_path, monkeypatch, [("6n", 111.0), ("fp32 grads", 100.0)], 150.0)
    result = grade(variant, drill, "101 GB")
    assert result.verdict == "correct" and result.convention == "fp32 grads"
    assert result.convention_value == pytest.approx(100 * GB)
    # kills x_grade__mutmut_54 and _56: the graded value and the suggested rating are kept
    assert result.value == pytest.approx(101 * GB) and result.suggested_rating == 3


def test_an_answer_nearer_the_drills_own_value_names_no_convention(tmp_path, monkeypatch):
    """kills x_grade__mutmut_39 (`not` dropped): 112 GB is the drill's own value exactly; the "6n"
    convention (105 GB) is within tolerance but farther, so the answer is plainly correct."""
    drill, variant = _with_conventions(tmp_path, monkeypatch, [("6n", 105.0)], 112.0)
    result = grade(variant, drill, "112 GB")
    assert result.verdict == "correct" and result.convention is None
    # kills x_grade__mutmut_73: the plain correct grade carries the expected value
    assert result.expected == pytest.approx(112 * GB)


def test_a_tie_goes_to_the_drills_own_convention(tmp_path, monkeypatch):
    """kills x_grade__mutmut_48 (`<` -> `<=`): 1.5 GB is exactly 50 % from both 1 GB (a convention) and
    3 GB (the drill's value) at a 60 % tolerance; the convention is named only when strictly nearer."""
    drill, variant = _with_conventions(tmp_path, monkeypatch, [("6n", 1.0)], 3.0, tolerance="60%")
    assert grading._distance(1.5 * GB, 1 * GB) == grading._distance(1.5 * GB, 3 * GB) == 0.5
    result = grade(variant, drill, "1.5 GB")
    assert result.verdict == "correct" and result.convention is None


def test_a_wrong_answer_without_a_named_mistake_carries_the_expected_value(tmp_path):
    """kills x_grade__mutmut_113 (expected dropped when no mistake matches): 500 GB matches nothing."""
    drill, variant = _drill(tmp_path, "      - label: counted bf16 Adam states\n        value: 84 GB\n")
    result = grade(variant, drill, "500 GB")
    assert result.verdict == "wrong" and result.mistake_id is None
    assert result.expected == pytest.approx(112 * GB) and result.suggested_rating == 1


def test_a_named_mistake_keeps_the_expected_value(tmp_path):
    """kills x_grade__mutmut_144 (expected dropped from a grade that names a mistake)."""
    drill, variant = _drill(tmp_path, "      - label: counted bf16 Adam states\n        value: 84 GB\n")
    result = grade(variant, drill, "84 GB")
    assert result.mistake_id == "counted bf16 Adam states" and result.expected == pytest.approx(112 * GB)


@pytest.mark.parametrize(("answer", "fraction"), [
    ("1", 1.0),      # kills x_read_answer__mutmut_23 (`<= 1` -> `< 1`): a bare 1 is the whole, 100 %
    ("0.375", 0.375),
    ("1.5", 0.015),  # kills x_read_answer__mutmut_24 (`<= 1` -> `<= 2`): above 1 a bare number is percent
    ("37.5", 0.375),
    ("37.5%", 0.375),
])
def test_a_bare_number_in_a_percentage_drill_is_a_fraction_up_to_one(answer, fraction):
    """Section 19: at most 1 is a fraction (0.375 = 37.5 %), above 1 a percent."""
    assert grading.read_answer(answer, "%") == pytest.approx(fraction)
