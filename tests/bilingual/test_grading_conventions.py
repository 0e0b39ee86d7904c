"""Numbers under the conventions an interviewer accepts (spec section 19), fractions and percents as
one answer, English number words, and two mistakes with the same value both named."""

from __future__ import annotations

import pytest

from quizapp.content import draw_variant, grade
from quizapp.content.localize import localize
from quizapp.memory import evaluate, setup_from_options
from quizapp.memory.conventions import CONVENTIONS, convention_options
from quizapp.memory.quantities import unit_of
from quizapp.vocab import Verdict


def _drills_accepting(bundled, name):
    """Drills that accept `name`, those where it moves the answer beyond the tolerance first."""
    from quizapp.content.drills import base_options
    from quizapp.memory.conventions import convention_value

    found = []
    for q in bundled.questions:
        for d in q.drills:
            if name in d.accept:
                under = convention_value(base_options(d), d.ask, name, accepted=True)
                own = evaluate(setup_from_options(base_options(d)), d.ask)
                found.append((d.parsed_tolerance.within(under, own), q, d))
    return [(q, d) for _, q, d in sorted(found, key=lambda f: f[0])]


@pytest.mark.parametrize("name", sorted(CONVENTIONS))
def test_every_convention_is_graded_correct_on_a_real_drill_and_named(bundled, name):
    found = _drills_accepting(bundled, name)
    assert found, f"no drill of the bank accepts {name}"
    question, drill = found[0]
    question = localize(question, "en")
    drill = question.drill(drill.id)
    variant = draw_variant(question, drill, seed=1)
    changed = convention_options(variant.options, name, accepted=True)
    assert changed is not None
    under = float(evaluate(setup_from_options(changed), drill.ask))  # the calculator's, not typed
    scale = unit_of(variant.unit).scale
    result = grade(variant, drill, f"{under / scale:.6g} {variant.unit}")
    assert result.verdict is Verdict.CORRECT
    assert result.convention == name and result.convention_value == pytest.approx(under)
    assert result.expected == variant.expected  # the drill's own value is kept beside it


def test_an_unaccepted_convention_is_not_graded_correct(bundled):
    """The same answer on a drill that does not accept the convention stays wrong (or close)."""
    for question, drill in ((q, d) for q in bundled.questions for d in q.drills):
        if "fp32-grads" in drill.accept:
            continue
        variant = draw_variant(localize(question, "en"), localize(question, "en").drill(drill.id), seed=1)
        changed = convention_options(variant.options, "fp32-grads")
        if changed is None:
            continue
        under = float(evaluate(setup_from_options(changed), drill.ask))
        if drill.parsed_tolerance.within(under, variant.expected):
            continue
        scale = unit_of(variant.unit).scale
        result = grade(variant, drill, f"{under / scale:.6g} {variant.unit}")
        assert result.verdict is not Verdict.CORRECT and result.convention is None
        return
    pytest.skip("every drill that fp32 gradients move accepts them")


def _percent_drill(bundled):
    for q in bundled.questions:
        for d in q.drills:
            if d.unit == "%":
                local = localize(q, "en")
                return local, local.drill(d.id)
    raise AssertionError("the bank has no % drill")


def test_fractions_and_percents_are_one_answer(bundled):
    question, drill = _percent_drill(bundled)
    variant = draw_variant(question, drill, seed=1)
    value = variant.expected  # a fraction, e.g. 0.375
    percent = value * 100
    for answer in (f"{percent:.4g}%", f"{percent:.4g} %", f"{value:.4g}", f"{percent:.4g} percent",
                   f"百分之{percent:.4g}", f"about {percent:.4g} percent"):
        assert grade(variant, drill, answer).verdict is Verdict.CORRECT, answer
    if abs(value - 0.375) < 1e-9:
        assert grade(variant, drill, "3/8").verdict is Verdict.CORRECT


@pytest.mark.parametrize("answer, unit, expected", [
    ("1.4 trillion tokens", "B", 1.4e12),
    ("about 60 sequences", "count", 60),
    ("roughly 7 billion parameters", "B", 7e9),
    ("37.5 percent", "%", 0.375),
    ("约 60 条序列", "count", 60),
    ("2 万亿", "B", 2e12),
])
def test_english_and_chinese_number_words_are_read(answer, unit, expected):
    from quizapp.content.grading import read_answer

    assert read_answer(answer, unit) == pytest.approx(expected)


def test_two_mistakes_with_the_same_value_are_both_named(tmp_path):
    from quizapp.content import load_bank
    from tests.bilingual.conftest import write_question
    from tests.bilingual.fixture_files import KV_POINTS

    text = KV_POINTS.replace("    unit: GB\n", """    unit: GB
    extra_mistakes:
      - label: {en: Counted the query heads, zh: 按 query 头算了}
        value: 34.36 GB
      - label: {en: Counted K and V twice, zh: K、V 各算了两遍}
        value: 34.4 GB
""")
    write_question(tmp_path, text)
    bank = load_bank([tmp_path])
    assert bank.problems == (), [str(p) for p in bank.problems]
    question = localize(bank.question("kv-points"), "en")
    drill = question.drill("kv-batch8")
    result = grade(draw_variant(question, drill, seed=1), drill, "34.36 GB")
    assert result.verdict is Verdict.WRONG
    assert result.mistake_ids == ("Counted the query heads", "Counted K and V twice")
