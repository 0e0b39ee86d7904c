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
    # the prompt says what was changed, so the drill can be answered as it stands
    prompt = variant.prompt
    assert "{" not in prompt and "llama-2-7b" in prompt
    for words in ("ZeRO-2", "over 4 GPUs", "offload optimizer", "recompute full", "micro-batch 2", "bf16-mixed"):
        assert words in prompt, (words, prompt)
    assert "attention" not in prompt  # a setting left at its default is not spelled out


def test_snippet_prompt_for_inference_and_custom_shapes():
    values = dict(form.default_values(), method="inference", weights_dtype="int4", kv_dtype="fp8", seq="8192")
    prompt = form.snippet_prompt(form.compute(values).options, "kv_cache")
    for key in ("{model}", "{method}", "{weights_dtype} weights", "{kv_dtype} KV cache", "sequence {seq}"):
        assert key in prompt
    assert "{precision}" not in prompt and "{optimizer}" not in prompt  # training settings do not apply
    custom = form.compute(dict(form.default_values(), model="custom", layers="4", hidden="512", heads="8",
                               kv_heads="8", ffn="2048", vocab="1000"))
    assert form.snippet_prompt(custom.options, "total").startswith("A model with {layers} layers, hidden {hidden}")


def test_rejected_fields_finds_every_bad_field():
    values = dict(form.default_values(), model="custom", heads="7", batch="x", mfu="2")
    errors = form.rejected_fields(values)
    assert set(errors) == {"heads", "batch", "mfu"}
    figures = form.compute(values)
    assert not figures.ok and figures.error_field in errors and figures.errors == errors
    assert form.rejected_fields(form.default_values()) == {}


def test_gpu_labels_are_readable():
    assert form.gpu_label("a100-80g") == "A100 80GB"
    assert form.gpu_label("rtx-4090") == "RTX 4090"
    assert form.gpu_label("l40s") == "L40S"


def test_save_backs_up_and_never_replaces_a_backup(tmp_path):
    target = tmp_path / "d.yaml"
    assert form.save_snippet(target, "one\n") is None
    first = form.save_snippet(target, "two\n")
    second = form.save_snippet(target, "three\n")
    assert first.read_text() == "one\n" and second.read_text() == "two\n" and first != second
    assert target.read_text() == "three\n"
    with pytest.raises(OSError):
        form.save_snippet(tmp_path, "x")
