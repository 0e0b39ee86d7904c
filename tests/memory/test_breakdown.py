"""Model states, ZeRO, offload, LoRA/QLoRA and inference terms (memory-model.md sections 3, 4, 6)."""

from __future__ import annotations

import math

import pytest

from quizapp.memory import PRESETS, Setup, bare_model, breakdown, lora_params, setup_from_options
from quizapp.words.calc import render

PSI = 7_000_000_000


def _notes(b, lang="en"):
    """The breakdown's convention lines in `lang` (memory gives codes; quizapp.words renders them)."""
    return tuple(render(code, lang) for code in b.codes)


def _states_per_param(**options) -> float:
    b = breakdown(setup_from_options({"model": "7B", **options}))
    return b.model_states / PSI


def test_mixed_adamw_is_16_bytes_per_param_and_112_gb_for_7b():
    assert _states_per_param() == 16
    assert breakdown(setup_from_options({"model": "7B"})).model_states == 112e9


def test_fp32_gradients_make_18():
    assert _states_per_param(grads=32) == 18


@pytest.mark.parametrize(
    "options, expected",
    [
        ({"optimizer": "adamw-8bit"}, 2 + 2 + 4 + 2 + 8 / 256),  # spec: 10 (+ 8/256 absmax)
        ({"precision": "bf16"}, 2 + 2 + 4),  # pure bf16 AdamW: 8
        ({"precision": "fp32"}, 4 + 4 + 8),
        ({"optimizer": "sgd"}, 2 + 2 + 4),
        ({"optimizer": "sgd-momentum"}, 2 + 2 + 4 + 4),
        ({"optimizer": "lion", "precision": "bf16"}, 2 + 2 + 2),
        ({"optimizer": "adamw-8bit", "precision": "bf16"}, 2 + 2 + 2 + 8 / 256),  # 8-bit stays 8-bit
    ],
)
def test_bytes_per_param_table(options, expected):
    assert _states_per_param(**options) == pytest.approx(expected, rel=1e-12)


def test_terms_are_ordered_and_sum_to_total(llama7b):
    b = breakdown(Setup(llama7b))
    assert [t.name for t in b.terms] == ["weights", "gradients", "master_weights", "optimizer_states", "activations"]
    assert b.total == sum(t.bytes for t in b.terms)
    assert b.model_states == 16 * llama7b.params
    assert b.term("weights").substituted == "2 × 6,738,415,616"
    assert any("16 bytes/param: 2 weights + 2 grads + 4 master + 8 Adam" in n for n in _notes(b))
    assert any(n.startswith("peak = sum of terms") for n in _notes(b))


@pytest.mark.parametrize("stage", [1, 2, 3])
def test_zero_on_one_gpu_saves_nothing(stage, llama7b):
    assert breakdown(Setup(llama7b, zero=stage, gpus=1)).total == breakdown(Setup(llama7b)).total


def test_zero3_over_8_is_an_eighth_of_model_states(llama7b):
    plain = breakdown(Setup(llama7b, recompute="full"))
    z3 = breakdown(Setup(llama7b, recompute="full", zero=3, gpus=8))
    assert z3.model_states == plain.model_states / 8
    assert z3.term("activations").bytes == plain.term("activations").bytes


@pytest.mark.parametrize("stage, gb", [(0, 120), (1, 31.4), (2, 16.6), (3, 1.9)])
def test_zero_paper_figure_1(stage, gb):
    # Rajbhandari et al. 2020, Figure 1: Ψ = 7.5B, N = 64, K = 12 (mixed-precision Adam).
    b = breakdown(Setup(bare_model(7_500_000_000), zero=stage, gpus=64))
    assert round(b.model_states / 1e9, 1) == gb


def test_adamw_8bit_per_tensor_on_a_shape():
    # gpt2: LayerNorm vectors of 768 and biases (< 4096 elements) keep 32-bit states (8 bytes each).
    m = PRESETS["gpt2"]
    b = breakdown(Setup(m, optimizer="adamw-8bit"))
    expected = 0
    for rows, cols, n in m.tensors():
        size = rows * (cols or 1)
        expected += n * (2 * size + 8 * math.ceil(size / 256) if size >= 4096 else 8 * size)
    assert b.term("optimizer_states").bytes == expected


def test_adamw_8bit_blocks_round_up_on_gpt2_xl():
    # The audit's M1: gpt2's tensors are all multiples of 256, so ceil and floor agree there. gpt2-xl's
    # wte is 50257 x 1600 = 80,411,200 elements = 314,106.25 blocks of 256 -> 314,107 absmax values.
    # bitsandbytes: tensors of >= 4096 elements keep 2 bytes (two 8-bit states) + 8 bytes per block (two
    # fp32 absmax); smaller tensors keep two fp32 states (8 bytes each element).
    # Per layer (h = 1600, f = 6400): large = 4 h^2 + 2 h f + 6400 (fc bias) = 30,726,400 elements in
    # 4 x 10,000 + 2 x 40,000 + 25 = 120,025 blocks; small = q/k/v/o biases 4h + proj bias h + LN 4h = 14,400.
    # Embeddings: wte 80,411,200 (314,107 blocks) + wpe 1024 x 1600 = 1,638,400 (6,400 blocks); ln_f 2h small.
    large = 48 * 30_726_400 + 80_411_200 + 1_638_400  # 1,556,916,800
    blocks = 48 * 120_025 + 314_107 + 6_400  # 6,081,707
    small = 48 * 14_400 + 2 * 1600  # 694,400
    assert large + small == 1_557_611_200  # gpt2-xl's parameter count
    b = breakdown(Setup(PRESETS["gpt2-xl"], optimizer="adamw-8bit"))
    assert b.term("optimizer_states").bytes == 2 * large + 8 * blocks + 8 * small == 3_168_042_456


def test_adafactor_factored_states():
    m = PRESETS["gpt2"]
    h, f, V, P, L = 768, 3072, 50257, 1024, 12
    matrices = 4 * (h + h) + 4 * (h + h) * 3 + 4 * (h + f) + 4 * (f + h)  # q,k,v,o then fc1, fc2
    vectors = 4 * (4 * h + 3 * h + h + f + h)  # 2 LayerNorms (w, b), q/k/v/o biases, fc1 and fc2 biases
    expected = L * (matrices + vectors) + 4 * (V + h) + 4 * (P + h) + 4 * 2 * h
    assert breakdown(Setup(m, optimizer="adafactor")).term("optimizer_states").bytes == expected


def test_optimizer_offload_moves_states_and_gradients_to_cpu():
    b = breakdown(setup_from_options({"model": "7B", "offload": "optimizer"}))
    assert b.total == 2 * PSI  # GPU: 16-bit weights
    # revised spec section 3: the CPU holds the fp32 master copy, m, v and an fp32 gradient buffer, 16Ψ
    assert b.cpu == 16 * PSI
    assert any("24·Ψ" in n for n in _notes(b))  # DeepSpeed's estimator, mentioned


def test_parameter_offload_keeps_one_block_on_gpu(llama7b):
    b = breakdown(Setup(llama7b, zero=3, gpus=4, offload="optimizer+params", recompute="full"))
    block = 4 * 4096 * 4096 + 3 * 4096 * 11008 + 2 * 4096
    assert b.term("weights").bytes == 2 * block
    # the 16-bit weights partition + the 16Ψ of revised section 3, per rank of N = 4
    assert b.cpu == (2 + 16) * llama7b.params / 4


def test_lora_params_match_peft_printout(llama7b):
    # PEFT prints "trainable params: 4,194,304" for llama-2-7b, r = 8, q_proj and v_proj.
    assert lora_params(llama7b, 8, "qv") == 4_194_304
    # all-linear r=8: 32 · 8 · (4·(4096 + 4096) + 2·(4096 + 11008) + (11008 + 4096)) = 19,988,480
    assert lora_params(llama7b, 8, "all-linear") == 19_988_480


def test_lora_charges_base_weights_only(llama7b):
    b = breakdown(Setup(llama7b, method="lora", lora_rank=8))
    n = 4_194_304
    assert b.term("weights").bytes == 2 * llama7b.params + 2 * n
    assert b.term("gradients").bytes == 2 * n
    assert b.term("master_weights").bytes == 4 * n
    assert b.term("optimizer_states").bytes == 8 * n
    # section 4: LoRA's activations are the exact lists now, no longer full fine-tuning's upper bound
    assert not any("upper bound" in note for note in _notes(b))
    assert any("x@A" in note for note in _notes(b))


@pytest.mark.parametrize("double_quant, bits", [(True, 4.127), (False, 4.5)])
def test_qlora_base_bytes(llama7b, double_quant, bits):
    b = breakdown(Setup(llama7b, method="qlora", double_quant=double_quant))
    linear = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008)
    rest = llama7b.params - linear  # embeddings, head, norms stay 16-bit
    nf4 = 0.5 + (1 / 64 + 4 / (64 * 256) if double_quant else 4 / 64)
    assert round(nf4 * 8, 3) == bits
    assert b.term("weights").bytes == pytest.approx(nf4 * linear + 2 * rest + 2 * 4_194_304, rel=1e-12)


def test_kv_cache_llama_2_7b_4096_tokens():
    b = breakdown(Setup(PRESETS["llama-2-7b"], method="inference", seq=4096))
    assert round(b.term("kv_cache").bytes / 1e9, 2) == 2.15
    assert b.term("kv_cache").bytes == 2 * 32 * 4096 * 4096 * 2
    assert b.term("activations") is None
    assert any("not counted" in n for n in _notes(b))


def test_kv_cache_gqa_divides_by_group():
    mha = PRESETS["llama-2-70b"]  # 64 heads, 8 KV heads
    b = breakdown(Setup(mha, method="inference", seq=4096, batch=2))
    assert b.term("kv_cache").bytes == 2 * 80 * 64 * 128 * 4096 * 2 * 2 // 8


@pytest.mark.parametrize("dtype, per", [("16-bit", 2), ("int8", 1), ("int4", 0.5 + 1 / 64 + 4 / 16384)])
def test_inference_weights(dtype, per):
    b = breakdown(setup_from_options({"model": "7B", "method": "inference", "weights_dtype": dtype}))
    assert b.term("weights").bytes == pytest.approx(per * PSI, rel=1e-12)


def test_kv_dtype_fp8_halves():
    m = PRESETS["llama-3-8b"]
    full = breakdown(Setup(m, method="inference", seq=8192)).term("kv_cache").bytes
    assert breakdown(Setup(m, method="inference", seq=8192, kv_dtype="fp8")).term("kv_cache").bytes * 2 == full


def test_bare_count_has_no_activations():
    b = breakdown(setup_from_options({"model": "7B"}))
    assert b.term("activations") is None
    assert any("activations not counted" in n for n in _notes(b))


def test_overhead_term():
    b = breakdown(setup_from_options({"model": "7B", "overhead": "1 GiB"}))
    assert b.term("overhead").bytes == 2**30
    assert b.total == 112e9 + 2**30
