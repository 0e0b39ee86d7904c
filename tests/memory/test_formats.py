"""Weight formats and KV dtypes (memory-model.md section 12), in inference and as LoRA's frozen base."""

from __future__ import annotations

import pytest

from quizapp.memory import PRESETS, Setup, SetupError, breakdown, setup_from_options
from quizapp.memory.formats import (
    FORMATS, bits_per_weight, kv_bytes_per_token_per_gpu, weight_bytes, weights_per_gpu, weights_read,
)

L7 = PRESETS["llama-2-7b"]
LINEAR_7B = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008)  # 6,476,005,376 block-linear weights
REST_7B = L7.params - LINEAR_7B  # embeddings, head, norms
from quizapp.words.calc import render


def test_llama_2_7b_gguf_q4_0_is_the_spec_figure():
    # section 12: 6,607,077,376 x 18/32 + 131,072,000 x 210/256 + 266,240 x 4 = 3,825,065,984 bytes
    assert weight_bytes(L7, "gguf-q4_0").total == 3_825_065_984
    assert 6_607_077_376 * 18 // 32 + 131_072_000 * 210 // 256 + 266_240 * 4 == 3_825_065_984


def test_gptq_is_4_156_bits_at_group_128():
    assert round(bits_per_weight("gptq-int4", 128), 3) == 4.156
    assert bits_per_weight("awq-int4", 64) == 8 * (0.5 + 2 / 64 + 0.5 / 64)


@pytest.mark.parametrize("fmt, rate", [
    ("bf16", 2), ("fp16", 2), ("gptq-int4", 0.5 + 2.5 / 128), ("awq-int4", 0.5 + 2.5 / 128),
    ("nf4", 0.5 + 1 / 64 + 4 / (64 * 256)),
])
def test_block_linears_in_the_format_the_rest_16_bit(fmt, rate):
    assert weight_bytes(L7, fmt).total == pytest.approx(rate * LINEAR_7B + 2 * REST_7B, rel=1e-12)


def test_fp8_adds_a_scale_per_matrix_and_int8_per_row():
    matrices = 32 * 7
    rows = 32 * (4096 * 4 + 11008 * 2 + 4096)  # d_out of q, k, v, o, gate, up, down
    assert weight_bytes(L7, "fp8").total == LINEAR_7B + 4 * matrices + 2 * REST_7B
    assert weight_bytes(L7, "int8").total == LINEAR_7B + 4 * rows + 2 * REST_7B


def test_gguf_q8_0_keeps_output_in_q8_0_and_tied_models_put_the_embedding_in_q6_k():
    v_h = 32000 * 4096
    assert weight_bytes(L7, "gguf-q8_0").total == pytest.approx((LINEAR_7B + 2 * v_h) * 34 / 32 + 4 * 65 * 4096)
    tied = PRESETS["llama-3.2-1b"]  # tied: no output.weight, the token embedding takes q6_k
    linear = tied.linear_params
    norms = tied.params - linear - tied.vocab * tied.hidden
    assert weight_bytes(tied, "gguf-q4_0").total == pytest.approx(
        linear * 18 / 32 + tied.vocab * tied.hidden * 210 / 256 + 4 * norms, rel=1e-12)


def test_moe_routers_stay_16_bit_and_experts_split_out():
    m = PRESETS["mixtral-8x7b"]
    w = weight_bytes(m, "gptq-int4")
    router = 32 * 4096 * 8
    rate = 0.5 + 2.5 / 128
    assert w.total == pytest.approx(rate * m.linear_params + 2 * (m.params - m.linear_params), rel=1e-12)
    assert m.params - m.linear_params - router == 2 * 32000 * 4096 + 65 * 4096  # routers in the rest
    assert w.routed == pytest.approx(rate * m.routed_expert_params, rel=1e-12)
    assert w.per_expert == pytest.approx(rate * 3 * 4096 * 14336, rel=1e-12)
    assert w.total == pytest.approx(w.rest + w.routed, rel=1e-12)


def test_gguf_routers_are_fp32():
    m = PRESETS["mixtral-8x7b"]
    w = weight_bytes(m, "gguf-q8_0")
    router = 32 * 4096 * 8
    vectors = 65 * 4096
    two_d = m.linear_params + 32000 * 4096  # token embedding in the type
    assert w.total == pytest.approx(34 / 32 * (two_d + 32000 * 4096) + 4 * (vectors + router), rel=1e-12)


def test_decode_reads_only_the_experts_it_hits():
    s = Setup(PRESETS["mixtral-8x7b"], method="inference")
    w = weight_bytes(s.model, "bf16")
    assert weights_read(s, 2) == w.rest + 32 * 2 * w.per_expert == 2 * s.model.active_params
    assert weights_read(s, 100) == weights_read(s) == w.total  # min(E, b·k)


def test_bare_count_charges_every_parameter_at_the_rate():
    b = breakdown(setup_from_options({"model": "7B", "method": "inference", "weights": "gguf-q4_0"}))
    assert b.term("weights").bytes == 7e9 * 18 / 32


@pytest.mark.parametrize("old, new", [("16-bit", "bf16"), ("int8", "int8"), ("int4", "nf4"), ("nf4", "nf4")])
def test_old_names_keep_their_meaning(old, new):
    a = breakdown(setup_from_options({"model": "llama-2-7b", "method": "inference", "weights_dtype": old}))
    b = breakdown(setup_from_options({"model": "llama-2-7b", "method": "inference", "weights": new}))
    assert a.total == b.total


@pytest.mark.parametrize("dtype, per", [("bf16", 2), ("fp16", 2), ("fp8", 1), ("int8", 1), ("int4", 0.5)])
def test_kv_dtypes(dtype, per):
    s = Setup(PRESETS["llama-3-8b"], method="inference", seq=1000, batch=3, kv_dtype=dtype)
    assert breakdown(s).term("kv_cache").bytes == 2 * 32 * 8 * 128 * 1000 * 3 * per


def test_tensor_parallel_serving_memory_per_gpu():
    # section 13: weights / t, KV / min(t, a_kv); MLA's latent replicated
    m = PRESETS["llama-3-8b"]  # a_kv 8
    one = breakdown(Setup(m, method="inference", seq=4096, batch=4))
    for t in (2, 8, 16, 32):
        b = breakdown(Setup(m, method="inference", seq=4096, batch=4, tp=t))
        assert b.term("weights").bytes == one.term("weights").bytes / t
        assert b.term("kv_cache").bytes == one.term("kv_cache").bytes / min(t, 8)
    ds = PRESETS["deepseek-v3"]
    assert (breakdown(Setup(ds, method="inference", tp=8)).term("kv_cache").bytes
            == breakdown(Setup(ds, method="inference")).term("kv_cache").bytes == 70_272 * 2048)
    s = Setup(m, method="inference", tp=16)
    assert kv_bytes_per_token_per_gpu(s) == 2 * 32 * 8 * 128 * 2 / 8
    assert weights_per_gpu(s) == weight_bytes(m, "bf16").total / 16


def test_lora_base_in_a_format_and_qlora_is_nf4():
    lora = breakdown(Setup(L7, method="lora", weights="int8"))
    assert lora.term("weights").bytes == weight_bytes(L7, "int8").total + 2 * 4_194_304
    qlora = breakdown(Setup(L7, method="qlora"))
    assert qlora.term("weights").bytes == pytest.approx(weight_bytes(L7, "nf4").total + 2 * 4_194_304, rel=1e-12)


def test_quantized_weights_refused_for_full_training():
    with pytest.raises(SetupError) as err:
        setup_from_options({"model": "llama-2-7b", "weights": "gptq-int4"})
    assert err.value.field == "weights" and "inference" in err.value.message


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_has_a_note_and_formula(fmt):
    b = breakdown(Setup(PRESETS["qwen3-30b-a3b"], method="inference", weights=fmt))
    t = b.term("weights")
    assert t.formula and t.substituted and render(t.code) and render(t.code, "zh") != render(t.code)


@pytest.mark.parametrize("text, fmt", [("gguf_q4_0", "gguf-q4_0"), ("Q6_K", "gguf-q6_k"), ("GPTQ", "gptq-int4"),
                                       ("awq", "awq-int4"), ("bfloat16", "bf16"), ("FP8", "fp8")])
def test_format_spellings(text, fmt):
    assert setup_from_options({"model": "7B", "method": "inference", "weights": text}).weights == fmt
