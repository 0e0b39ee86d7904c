"""The calculator form's logic without Textual: options, figures, the drill snippet and its backup."""

from __future__ import annotations

import pytest

from quizapp import memory
from quizapp.content import draw_variant, load_question_file
from quizapp.practice import calculator_form as form


def test_defaults_come_from_the_calculator():
    values = form.default_values()
    setup = memory.setup_from_options(form.options_from_values(values))
    plain = memory.Setup(model=memory.PRESETS[form.DEFAULT_MODEL], gpu=memory.GPUS[form.DEFAULT_GPU])
    assert memory.breakdown(setup).total == memory.breakdown(plain).total


def test_hidden_fields_are_not_sent():
    values = dict(form.default_values(), weights="gptq-int4")  # a serving field, but the mode is training
    options = form.options_from_values(values)
    assert "weights" not in options and "kv_dtype" not in options
    assert form.compute(values).ok
    values["mode"] = "serving"
    options = form.options_from_values(values)
    assert options["weights"] == "gptq-int4" and options["method"] == "inference"


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


@pytest.mark.parametrize("ask", sorted({*form.MODE_ASKS["training"], "kv_cache"}))
def test_snippet_is_a_valid_drill_with_the_calculators_answer(tmp_path, ask):
    values = dict(form.default_values(), batch="2", recompute="full", zero="2", gpus="4", offload="optimizer")
    figures = form.compute(values)
    if ask not in form.snippet_asks(figures.setup):
        # an inference quantity, and the RLHF terms: not offered for a full fine-tuning setup
        assert ask in ("kv_cache", "reference_weights", "reward_weights", "rollout_kv_cache")
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
    values = dict(form.default_values("serving"), weights="nf4", kv_dtype="fp8", seq="8192")
    prompt = form.snippet_prompt(form.compute(values).options, "kv_cache")
    for key in ("{model}", "{method}", "{weights} weights", "{kv_dtype} KV cache", "context {seq}"):
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


# --- modes (issue 11) ----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", form.MODES)
def test_every_mode_computes_at_its_defaults(mode):
    figures = form.compute(form.default_values(mode))
    assert figures.ok and figures.mode == mode
    assert figures.setup.training == (mode != "serving")


def test_fields_follow_the_mode():
    training = set(form.visible_keys(form.default_values("training")))
    serving = set(form.visible_keys(form.default_values("serving")))
    cluster = set(form.visible_keys(form.default_values("cluster")))
    assert {"optimizer", "recompute", "offload"} <= training and not {"tp", "kv_block", "weights"} & training
    assert {"weights", "kv_dtype", "kv_block", "gpu_util", "bandwidth_efficiency", "tp", "prompt"} <= serving
    assert not {"optimizer", "method", "zero", "pp"} & serving
    assert {"tp", "pp", "gpus", "link_bandwidth", "train_tokens", "tokens_per_s"} <= cluster
    assert "ep" not in cluster  # llama-2-7b has no experts
    moe = form.visible_keys(dict(form.default_values("cluster"), model="mixtral-8x7b"))
    assert "ep" in moe
    piped = form.visible_keys(dict(form.default_values("cluster"), pp="4"))
    assert "interleave" in piped and "interleave" not in form.visible_keys(form.default_values("cluster"))


def test_serving_figures_are_the_calculators():
    values = dict(form.default_values("serving"), seq="4096", batch="8")
    figures = form.compute(values)
    setup = memory.setup_from_options({"model": "llama-2-7b", "method": "inference", "seq": 4096, "batch": 8,
                                       "gpu": "a100-80g"})
    assert figures.serving.max_concurrency == memory.evaluate(setup, "max_concurrency")
    assert figures.serving.decode.step_s == memory.evaluate(setup, "decode_step_s")
    assert figures.max_context.value == memory.evaluate(setup, "max_context")
    assert figures.min_tp.value == memory.evaluate(setup, "min_tp")
    assert figures.serving.critical_batch == 154
    # pinned literals: a decode step reads the bf16 weights 2 x 6,738,415,616 B plus 8 sequences x 4096 tokens
    # x 524,288 B of KV (2 x 32 layers x 4096 x 2 B) = 30,656,700,416 B over 2.039 TB/s = 15.035 ms; the KV
    # budget 62,758,838,272 B holds floor(62,758,838,272 / (4096 x 524,288)) = 29 such sequences
    assert figures.serving.decode.step_s == pytest.approx(30_656_700_416 / 2.039e12, rel=1e-12)
    assert figures.serving.max_concurrency == 29


def test_cluster_figures_are_the_calculators():
    values = dict(form.default_values("cluster"), gpus="8", pp="4", microbatches="8", train_tokens="1T")
    figures = form.compute(values)
    setup = memory.setup_from_options({"model": "llama-2-7b", "gpus": 8, "pp": 4, "microbatches": 8,
                                       "train_tokens": "1T", "gpu": "a100-80g"})
    assert figures.communication.of("dp").bytes == memory.evaluate(setup, "comm_dp_bytes")
    assert figures.communication.bubble == 3 / 8
    assert figures.train_days.value * 86400 == pytest.approx(memory.evaluate(setup, "train_days"))
    assert figures.mfu.value == memory.evaluate(setup, "mfu")


def test_a_serving_error_names_its_field():
    figures = form.compute(dict(form.default_values("serving"), tp="3"))  # 3 does not divide 32 heads
    assert figures.error_field == "tp" and not figures.ok
    figures = form.compute(dict(form.default_values("serving"), gpu_util="1.5"))
    assert figures.error_field == "gpu_util"


def test_largest_batch_zero_says_what_fits_instead():
    # full AdamW 7B on an A100 80GB: the states alone are over, so not even one token fits
    figures = form.compute(form.default_values())
    assert figures.max_batch.value == 0
    key, args = figures.max_batch.hint
    assert key == "calc.hint.states" and args["usable"] == f"{(80 * 2**30 - 2**30) / 1e9:,.2f} GB"
    # QLoRA at a 256K context: batch 1 is too long, a shorter sequence fits
    values = dict(form.default_values(), method="qlora", seq="262144", gpu="rtx-4090")
    figures = form.compute(values)
    assert figures.max_batch.value == 0
    key, args = figures.max_batch.hint
    setup = figures.setup.with_(batch=1)
    longest = memory.max_seq(setup, setup.gpu, setup.reserve)
    assert key == "calc.hint.shorter" and args["seq"] == f"{longest:,}" and 0 < longest < 262144


@pytest.mark.parametrize("mode", [*form.MODES, "rlhf"])
def test_copy_as_drill_in_every_mode_grades_to_the_calculators_answer(tmp_path, mode):
    extra = {"cluster": dict(gpus="8", pp="2", microbatches="4", train_tokens="1T"),
             "serving": dict(seq="4096", batch="4"), "training": dict(recompute="full"),
             "rlhf": dict(method="ppo", rollout_batch="8")}[mode]
    mode = "training" if mode == "rlhf" else mode
    figures = form.compute(dict(form.default_values(mode), **extra))
    assert figures.ok, figures.errors
    asks = form.snippet_asks(figures.setup, mode)
    assert set(asks) <= set(form.MODE_ASKS[mode]) and len(asks) >= 8
    for n, ask in enumerate(asks):
        snippet = form.drill_snippet(figures.options, ask)
        question = tmp_path / f"q{n}" / "what-if.yaml"
        question.parent.mkdir()
        body = "\n".join("  " + line for line in snippet.splitlines())
        question.write_text(f"id: what-if\ntitle: What if\ntopic: t\nanswer: a\ndrills:\n{body}\n", encoding="utf-8")
        loaded, problems = load_question_file(question)
        assert not problems, (ask, [str(p) for p in problems])
        variant = draw_variant(loaded, loaded.drills[0], 0)
        assert variant.expected == pytest.approx(memory.evaluate(figures.setup, ask)), ask
        assert "{" not in variant.prompt
