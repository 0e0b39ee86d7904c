"""setup_from_options: the one parser of calculator inputs (CLI flags and YAML drill setups)."""

from __future__ import annotations

import pytest
from hypothesis import event, given, settings, strategies as st

from tests.memory.refusals import check_refusal

from quizapp.memory import GPUS, OPTION_KEYS, PRESETS, Setup, SetupError, setup_from_options

def test_defaults(llama7b):
    s = setup_from_options({"model": "llama-2-7b"})
    assert s == Setup(llama7b)
    assert (s.method, s.precision, s.grads, s.optimizer, s.batch, s.seq) == ("full", "bf16-mixed", 16, "adamw", 1, 2048)


def test_strings_and_numbers_and_aliases():
    s = setup_from_options({
        "model": "Llama-2-7B", "method": "LoRA", "precision": "bf16_mixed", "optimizer": "adam8bit", "batch": "4",
        "seq": "4k", "recompute": True, "attention": "sdpa", "zero": "stage3", "gpus": 8.0, "gpu": "A100-80GB",
        "mfu": "45%", "reserve": "2 GiB", "double_quant": "no", "lora_targets": "all",
    })
    assert s.model is PRESETS["llama-2-7b"] and s.method == "lora" and s.precision == "bf16-mixed"
    assert s.optimizer == "adamw-8bit" and s.batch == 4 and s.seq == 4096 and s.recompute == "full"
    assert s.attention == "flash" and s.zero == 3 and s.gpus == 8 and s.gpu is GPUS["a100-80g"]
    assert s.mfu == pytest.approx(0.45) and s.reserve == 2 * 2**30 and s.double_quant is False
    assert s.lora_targets == "all-linear"


def test_inference_dtype_aliases():
    s = setup_from_options({"model": "llama-3-8b", "method": "inference", "weights_dtype": "bf16", "kv_dtype": "fp16"})
    assert s.weights == "bf16" and s.weights_dtype == "16-bit" and s.kv_dtype == "fp16"
    # the old names keep working (spec section 12: 16-bit | int8 | int4 | nf4; KV 16-bit)
    old = setup_from_options({"model": "llama-3-8b", "method": "inference", "weights_dtype": "16-bit", "kv_dtype": "16-bit"})
    assert old.weights == "bf16" and old.kv_dtype == "bf16"
    for legacy, new in (("int8", "int8"), ("int4", "nf4"), ("nf4", "nf4")):
        assert setup_from_options({"model": "7B", "method": "inference", "weights_dtype": legacy}).weights == new
        assert Setup(PRESETS["llama-3-8b"], method="inference", weights=legacy).weights == new


@pytest.mark.parametrize("text, count", [("7B", 7 * 10**9), ("70亿", 7 * 10**9), ("6.7 billion", 6_700_000_000), (7e9, 7 * 10**9)])
def test_bare_counts(text, count):
    s = setup_from_options({"model": text})
    assert not s.model.has_shape and s.model.params == count


def test_custom_llama_shape_defaults():
    s = setup_from_options({"layers": 32, "hidden": 4096, "heads": 32})
    # LLaMA defaults: ffn 11008, vocab 32000, untied, no bias, no positions: llama-2-7b's count.
    assert s.model.params == PRESETS["llama-2-7b"].params


def test_custom_gpt_shape_defaults():
    s = setup_from_options({"layers": 12, "hidden": 768, "heads": 12, "style": "gpt"})
    assert s.model.params == PRESETS["gpt2"].params


def test_shape_keys_override_a_preset():
    s = setup_from_options({"model": "llama-2-7b", "layers": 16})
    assert s.model.layers == 16 and s.model.hidden == 4096


@pytest.mark.parametrize(
    "options, field, fragment",
    [
        ({"model": "lama-2-7b"}, "model", "did you mean llama-2-7b?"),
        ({"model": "llama-2-7b", "gpu": "rtx4900"}, "gpu", "did you mean"),
        ({"model": "llama-2-7b", "optimizer": "adamw8"}, "optimizer", "did you mean adamw"),
        ({"model": "llama-2-7b", "batch": 0}, "batch", "integer >= 1"),
        ({"model": "llama-2-7b", "batch": "-3"}, "batch", "integer >= 1"),
        ({"model": "llama-2-7b", "offload": "optimizer+params"}, "offload", "ZeRO stage 3"),
        ({"layers": 4, "hidden": 100, "heads": 3}, "heads", "divisor of hidden"),
        ({"model": "llama-2-7b", "heads": 30}, "heads", "divisor of hidden"),
        ({"model": "llama-2-7b", "kv_heads": 5}, "kv_heads", "divisor of heads"),
        ({"model": "llama-2-7b", "precison": "fp32"}, "precison", "did you mean precision?"),
        ({"model": "llama-2-7b", "precision": "fp32", "grads": 16}, "grads", "32"),
        ({"model": "llama-2-7b", "method": "inference", "zero": 3}, "zero", "inference"),
        ({"model": "llama-2-7b", "weights_dtype": "int4"}, "weights_dtype", "qlora"),
        ({"model": "7B", "method": "lora"}, "method", "bare count"),
        ({"model": "7B", "optimizer": "adafactor"}, "optimizer", "bare count"),
        ({"model": "llama-2-7b", "mfu": 40}, "mfu", "fraction"),
        ({"model": "7B", "layers": 3}, "layers", "bare count"),
        ({"hidden": 4096}, "layers", "custom shape needs"),
        ({}, "model", "missing"),
    ],
)
def test_errors_name_the_field_and_the_accepted_values(options, field, fragment):
    with pytest.raises(SetupError) as err:
        setup_from_options(options)
    assert err.value.field == field
    assert fragment in err.value.message
    assert str(err.value) == f"{field}: {err.value.message}"
    assert "\n" not in str(err.value)


def test_choice_errors_list_the_choices():
    with pytest.raises(SetupError) as err:
        setup_from_options({"model": "llama-2-7b", "recompute": "sometimes"})
    assert "none | selective | full" in err.value.message


_values = st.one_of(st.text(max_size=12), st.integers(-5, 10**6), st.floats(allow_nan=True), st.booleans(), st.none())


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(OPTION_KEYS), _values, max_size=6), st.sampled_from(["llama-2-7b", "7B", "x"]))
def test_parser_raises_only_setup_error(options, model):
    try:
        setup_from_options({"model": model, **options})
    except SetupError as refused:
        check_refusal(refused)  # a real setting named, what was expected, one line (not any outcome)
    else:
        event("accepted")
