"""Modern shapes (memory-model.md section 11): explicit head size, QK-norm, MoE, MLA; total and active counts."""

from __future__ import annotations

import pytest

from quizapp.memory import PRESETS, SetupError, setup_from_options
from quizapp.memory.models import ModelSpec

# memory-model.md section 11's reference table, total and active.
SECTION_11 = {
    "qwen3-8b": (8_190_735_360, 8_190_735_360),
    "qwen3-30b-a3b": (30_532_122_624, 3_353_032_704),
    "mixtral-8x7b": (46_702_792_704, 12_879_925_248),
    "deepseek-v3": (671_026_419_200, 37_552_297_472),
}


@pytest.mark.parametrize("name", sorted(SECTION_11))
def test_section_11_counts_are_exact(name):
    total, active = SECTION_11[name]
    assert PRESETS[name].params == total
    assert PRESETS[name].active_params == active


@pytest.mark.parametrize("name", sorted(SECTION_11) + ["qwen3-235b-a22b", "deepseek-v2-lite", "gemma-2-9b", "phi-3-mini"])
def test_tensor_list_adds_up(name):
    m = PRESETS[name]
    assert sum(rows * (cols or 1) * n for rows, cols, n in m.tensors()) == m.params


# The next most asked-about models, each count derived here by hand from its published config.json and
# compared with the figure on its model card (rounded as the card rounds it).
def _dense(L, h, a, akv, f, V, d=None, tied=False, qkv_bias=False, norms=2, qk_norm=False):
    d = d or h // a
    attn = h * a * d + 2 * h * akv * d + a * d * h + ((a * d + 2 * akv * d) if qkv_bias else 0)
    block = attn + 3 * h * f + norms * h + (2 * d if qk_norm else 0)
    return L * block + V * h * (1 if tied else 2) + h


def test_llama_3_1_8b():
    # meta-llama/Llama-3.1-8B: L 32, h 4096, a 32, kv 8, f 14336, V 128256; card: "8B" (8.03B)
    n = _dense(32, 4096, 32, 8, 14336, 128256)
    assert PRESETS["llama-3.1-8b"].params == n == 8_030_261_248


def test_llama_3_1_70b():
    # meta-llama/Llama-3.1-70B: L 80, h 8192, a 64, kv 8, f 28672, V 128256; card: "70B" (70.6B)
    n = _dense(80, 8192, 64, 8, 28672, 128256)
    assert PRESETS["llama-3.1-70b"].params == n == 70_553_706_496


def test_qwen2_5_72b():
    # Qwen/Qwen2.5-72B: L 80, h 8192, a 64, kv 8, f 29568, V 152064, q/k/v biases; card: "72.7B"
    n = _dense(80, 8192, 64, 8, 29568, 152064, qkv_bias=True)
    assert PRESETS["qwen2.5-72b"].params == n
    assert round(n / 1e9, 1) == 72.7


def test_gemma_2_9b():
    # google/gemma-2-9b: L 42, h 3584, a 16, kv 8, head_dim 256, f 14336, V 256000, tied, four norms per
    # block; 9,241,705,984 parameters (the safetensors total behind the card's "9B")
    n = _dense(42, 3584, 16, 8, 14336, 256000, d=256, tied=True, norms=4)
    assert PRESETS["gemma-2-9b"].params == n == 9_241_705_984


def test_phi_3_mini():
    # microsoft/Phi-3-mini-4k-instruct: L 32, h 3072, a 32, f 8192, V 32064, untied; card: "3.8B"
    n = _dense(32, 3072, 32, 32, 8192, 32064)
    assert PRESETS["phi-3-mini"].params == n == 3_821_079_552


def test_qwen3_235b_a22b():
    # Qwen/Qwen3-235B-A22B: L 94, h 4096, a 64, kv 4, d 128, QK-norm, 128 experts top-8 of width 1536,
    # V 151936, untied; card: "235B in total and 22B activated"
    L, h, a, akv, d, E, k, fe, V = 94, 4096, 64, 4, 128, 128, 8, 1536, 151936
    attn = h * a * d + 2 * h * akv * d + a * d * h + 2 * d + 2 * h
    total = L * (attn + E * 3 * h * fe + h * E) + 2 * V * h + h
    active = L * (attn + k * 3 * h * fe + h * E) + 2 * V * h + h
    m = PRESETS["qwen3-235b-a22b"]
    assert (m.params, m.active_params) == (total, active)
    assert round(total / 1e9) == 235 and round(active / 1e9) == 22


def test_deepseek_v2_lite():
    # deepseek-ai/DeepSeek-V2-Lite: L 27 (the first dense, f 10944), h 2048, a 16, MLA without query
    # compression (r_kv 512, d_n 128, d_r 64, d_v 128), 64 routed experts top-6 of width 1408, 2 shared,
    # V 102400; card: "16B total" (15.7B), "2.4B active" (the card leaves the input embedding out)
    L, h, a, rkv, dn, dr, dv, E, k, fe, S, f, V = 27, 2048, 16, 512, 128, 64, 128, 64, 6, 1408, 2, 10944, 102400
    attn = h * a * (dn + dr) + h * (rkv + dr) + rkv + rkv * a * (dn + dv) + a * dv * h + 2 * h
    moe = lambda experts: experts * 3 * h * fe + S * 3 * h * fe + h * E  # noqa: E731
    total = attn * L + 3 * h * f + (L - 1) * moe(E) + 2 * V * h + h
    active = attn * L + 3 * h * f + (L - 1) * moe(k) + 2 * V * h + h
    m = PRESETS["deepseek-v2-lite"]
    assert (m.params, m.active_params) == (total, active)
    assert round(total / 1e9, 1) == 15.7
    assert int((active - V * h) / 1e8) == 24  # 2.45B without the input embedding: the card's "2.4B"


def test_explicit_head_dim_shapes_the_projections():
    m = PRESETS["qwen3-30b-a3b"]  # h 2048 but a·d = 32 · 128 = 4096
    q, k, v, o = m.attention_matrices()
    assert q == ("q", 2048, 4096) and k == ("k", 2048, 512) and o == ("o", 4096, 2048)


def test_deepseek_v3_kv_bytes_per_token():
    # section 11: 61 · (512 + 64) · 2 = 70,272 bytes per token in bf16 (llama-2-7b: 524,288)
    from quizapp.memory.formats import kv_bytes_per_token

    assert kv_bytes_per_token(PRESETS["deepseek-v3"], "bf16") == 61 * 576 * 2 == 70_272
    assert kv_bytes_per_token(PRESETS["llama-2-7b"], "bf16") == 524_288


def test_setup_keys_build_a_moe_and_an_mla_shape():
    s = setup_from_options({"layers": 4, "hidden": 512, "heads": 8, "experts": 8, "top_k": 2, "expert_ffn": 256,
                            "shared_experts": 1, "dense_layers": 1, "ffn": 1024, "router_bias": True})
    m = s.model
    h = 512
    attn = 4 * h * h + 2 * h
    dense = attn + 3 * h * 1024
    moe = attn + 8 * 3 * h * 256 + 3 * h * 256 + h * 8 + 8
    assert m.params == dense + 3 * moe + 32000 * h * 2 + h
    assert m.active_params == m.params - 3 * 6 * 3 * h * 256
    # without query compression q is h x a·(d_n + d_r) directly (section 11)
    mla = setup_from_options({"model": "deepseek-v3", "q_lora_rank": 0}).model
    h, a, rq, qk = 7168, 128, 1536, 128 + 64
    assert mla.params - PRESETS["deepseek-v3"].params == 61 * (h * a * qk - (h * rq + rq + rq * a * qk))
    assert mla.moe_family == "deepseek"


def test_preset_changes_keep_the_explicit_head_dim():
    m = setup_from_options({"model": "qwen3-8b", "layers": 2}).model
    assert m.head_dim == 128 and m.qk_norm
    changed = setup_from_options({"model": "llama-2-7b", "hidden": 2048}).model
    assert changed.head_dim == 64  # implicit h/a follows the new hidden


@pytest.mark.parametrize("options, field", [
    ({"model": "llama-2-7b", "top_k": 2}, "top_k"),
    ({"model": "mixtral-8x7b", "top_k": 9}, "top_k"),
    ({"model": "mixtral-8x7b", "dense_layers": 32}, "dense_layers"),
    ({"model": "llama-2-7b", "qk_rope_dim": 64}, "qk_rope_dim"),
    ({"layers": 2, "hidden": 100, "heads": 3}, "heads"),
    ({"model": "llama-2-7b", "ep": 2}, "ep"),
    ({"model": "mixtral-8x7b", "ep": 3, "gpus": 3}, "ep"),
    ({"model": "mixtral-8x7b", "ep": 4, "gpus": 2}, "ep"),
])
def test_impossible_shapes_are_one_line_errors(options, field):
    with pytest.raises(SetupError) as err:
        setup_from_options(options)
    assert err.value.field == field and "\n" not in str(err.value)


def test_head_dim_lifts_the_divisibility_rule():
    m = ModelSpec("x", 2, 100, 3, 3, 256, 1000, head_dim=32)
    assert m.q_dim == 96


@pytest.mark.parametrize("name", ["llama-2-7b", "qwen3-30b-a3b", "mixtral-8x7b", "deepseek-v3", "gemma-2-9b"])
def test_scaled_family_at_the_same_width_is_the_model(name):
    # the largest-model solve scales a preset within its family; at its own head count it is itself,
    # including the explicit head size (Qwen3: h 2048 with a·d = 4096) and the MoE widths
    from quizapp.memory.models import scaled_family

    base = PRESETS[name]
    member = scaled_family(base, base.heads)
    assert (member.params, member.active_params, member.hidden, member.head_dim) == (
        base.params, base.active_params, base.hidden, base.head_dim)
    bigger = scaled_family(base, 2 * base.heads)
    assert bigger.hidden == 2 * base.hidden and bigger.params > base.params
