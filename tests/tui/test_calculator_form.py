"""The calculator form's logic without Textual: options, figures, the drill snippet and its backup."""

from __future__ import annotations

import pytest

from quizapp import memory
from quizapp.content import draw_variant, load_question_file
from quizapp.tui import calculator_form as form


def test_defaults_come_from_the_calculator():
    values = form.default_values()
    setup = memory.setup_from_options(form.options_from_values(values))
    plain = memory.Setup(model=memory.PRESETS[form.DEFAULT_MODEL], gpu=memory.GPUS[form.DEFAULT_GPU])
    assert memory.breakdown(setup).total == memory.breakdown(plain).total


def test_hidden_fields_are_not_sent():
    values = dict(form.default_values(), weights_dtype="int4")  # inference-only, but method is full
    options = form.options_from_values(values)
    assert "weights_dtype" not in options and "kv_dtype" not in options
    assert form.compute(values).ok
    values["method"] = "inference"
    assert form.options_from_values(values)["weights_dtype"] == "int4"


def test_custom_shape_and_count():
    values = dict(form.default_values(), model="custom", layers="2", hidden="256", heads="4", kv_heads="4")
    options = form.options_from_values(values)
    assert "model" not in options and options["layers"] == "2"
    figures = form.compute(values)
    assert figures.ok and figures.setup.model.layers == 2
    figures = form.compute(dict(form.default_values(), model="count", params="70亿"))
    assert figures.ok and figures.setup.model.params == 7_000_000_000
    bad = form.compute(dict(form.default_values(), model="count", params="seven"))
    assert bad.error_field == "params" and not bad.ok


def test_invalid_values_name_their_field():
    figures = form.compute(dict(form.default_values(), model="custom", heads="7"))
    assert figures.error_field == "heads" and "divide" in figures.error
    assert form.compute(dict(form.default_values(), mfu="2")).error_field == "mfu"


def test_bar_fills_in_proportion():
    assert form.bar(0.5, 10) == "█████·····"
    assert form.bar(0.0, 4) == "····" and form.bar(2.0, 4) == "████"
    assert len(form.bar(0.33, 10)) == 10


@pytest.mark.parametrize("ask", sorted(form.SNIPPET_ASKS))
def test_snippet_is_a_valid_drill_with_the_calculators_answer(tmp_path, ask):
    values = dict(form.default_values(), batch="2", recompute="full", zero="2", gpus="4", offload="optimizer")
    figures = form.compute(values)
    if ask not in form.snippet_asks(figures.setup):
        assert ask in ("kv_cache",)  # an inference quantity: not offered for a training setup
        return
    snippet = form.drill_snippet(figures.options, ask)
    question = tmp_path / "t" / "what-if.yaml"
    question.parent.mkdir()
    body = "\n".join("  " + line for line in snippet.splitlines())
    question.write_text(f"id: what-if\ntitle: What if\ntopic: t\nanswer: a\ndrills:\n{body}\n", encoding="utf-8")
    loaded, problems = load_question_file(question)
    assert not problems, [str(p) for p in problems]
    variant = draw_variant(loaded, loaded.drills[0], 0)
    assert variant.expected == pytest.approx(memory.evaluate(figures.setup, ask))


def test_save_backs_up_and_never_replaces_a_backup(tmp_path):
    target = tmp_path / "d.yaml"
    assert form.save_snippet(target, "one\n") is None
    first = form.save_snippet(target, "two\n")
    second = form.save_snippet(target, "three\n")
    assert first.read_text() == "one\n" and second.read_text() == "two\n" and first != second
    assert target.read_text() == "three\n"
    with pytest.raises(OSError):
        form.save_snippet(tmp_path, "x")
