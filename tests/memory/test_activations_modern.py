"""Activations for section 11's shapes, LoRA's exact lists (section 4) and parallelism per GPU (section 14)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from quizapp.memory import PRESETS, Setup, SetupError, breakdown, setup_from_options
from quizapp.memory.activations import activation_bytes, activation_parts
from quizapp.memory.models import ModelSpec


def _block(setup: Setup, layers: int | None = None) -> float:
    n = layers or setup.model.layers
    return sum(p.bytes for p in activation_parts(setup) if p.count == n)


# --- Korthikanti et al. 2022 under tensor (and sequence) parallelism, from the term list ----------------
@settings(max_examples=40, deadline=None)
@given(heads=st.sampled_from([8, 16, 32]), head_dim=st.sampled_from([64, 128]), s=st.integers(1, 2048),
       b=st.integers(1, 4), t=st.sampled_from([1, 2, 4, 8]), sp=st.booleans())
def test_gpt_block_per_gpu_is_korthikanti(heads, head_dim, s, b, t, sp):
    # eq. (2): TP alone s·b·h·(10 + 24/t + 5·a·s/(h·t)); eq. (4): TP + SP s·b·h·(34 + 5·a·s/h)/t
    h = heads * head_dim
    gpt = ModelSpec("g", 2, h, heads, heads, 4 * h, 1000, "gpt", True, 128, "all")
    setup = Setup(gpt, batch=b, seq=s, attention="eager", tp=t, sp=sp)
    block = _block(setup)
    if sp:
        assert block * t == 34 * s * b * h + 5 * heads * s * s * b
    else:
        assert block * t == pytest.approx(10 * s * b * h * t + 24 * s * b * h + 5 * heads * s * s * b, rel=1e-12)


def test_logits_divide_by_t_and_the_head_input_only_with_sp():
    m = PRESETS["llama-3-8b"]
    T, h, V, t = 2048, 4096, 128256, 4
    def model_level(**kw):
        return sum(p.total for p in activation_parts(Setup(m, seq=T, **kw)) if p.count == 1)
    assert model_level() == 2 * 2 * T * h + 4 * T * V
    assert model_level(tp=t) == 2 * 2 * T * h + 4 * T * V / t
    assert model_level(tp=t, sp=True) == (2 * 2 * T * h + 4 * T * V) / t


# --- pipeline parallelism ---------------------------------------------------------------------------
def test_first_stage_keeps_pp_micro_batches_of_its_layers():
    m = PRESETS["llama-2-7b"]
    one = _block(Setup(m))
    s = Setup(m, pp=4, microbatches=8)
    parts = activation_parts(s)
    # 32/4 = 8 layers x 4 micro-batches in flight = the bytes of one micro-batch through all 32 layers
    assert sum(p.total for p in parts if p.count == 8 * 4) == one * 32
    assert not any("log-softmax" in p.name for p in parts)  # the loss lives on the last stage
    few = activation_parts(Setup(m, pp=4, microbatches=2))  # only m = 2 can be in flight
    assert sum(p.total for p in few if p.count == 8 * 2) == one * 16


# --- explicit head size and QK-norm ---------------------------------------------------------------------
def test_qwen3_block_uses_a_d_and_keeps_the_qk_norm_outputs():
    m = PRESETS["qwen3-30b-a3b"]  # h 2048, a 32, a_kv 4, d 128: a·d = 4096, a_kv·d = 512
    s, b, p = 512, 2, 2
    T = s * b
    parts = {x.name: x for x in activation_parts(Setup(m, seq=s, batch=b))}
    assert parts["MoE block: attention: q, k, v, o input"].bytes == p * T * (2 * 4096 + 2 * 512)
    assert parts["MoE block: QK-norm outputs"].bytes == p * T * (4096 + 512)
    hf = {x.name: x for x in activation_parts(Setup(m, seq=s, batch=b, impl="hf", attention="eager"))}
    assert hf["MoE block: hf: q/k norms in fp32"].bytes == 4 * T * (32 + 4) * 128 + 4 * T * (32 + 4)
    assert hf["MoE block: hf: K and V repeated to all heads"].bytes == 2 * p * T * 128 * (32 - 4)


# --- mixture of experts -----------------------------------------------------------------------------------
def test_moe_block_ideal_terms():
    m = PRESETS["mixtral-8x7b"]  # E 8, k 2, f_e 14336, h 4096, a 32, a_kv 8
    s, p, h, E, k, fe = 1024, 2, 4096, 8, 2, 14336
    T = s
    mlp = p * T * h + 4 * T * E + 8 * k * T + p * k * T * h + 4 * p * k * T * fe + p * k * T * h + 4 * k * T
    attn = p * T * h + p * T * (2 * h + 2 * 1024) + 4 * 32 * T
    norms = 2 * p * T * h
    assert _block(Setup(m, seq=s)) == attn + mlp + norms


def test_moe_hf_extras_by_family():
    s = 256
    T = s
    mix = PRESETS["mixtral-8x7b"]
    extra = _block(Setup(mix, seq=s, impl="hf")) - _block(Setup(mix, seq=s))
    norms = 2 * (4 * T * 4096 + 4 * T)
    assert extra == (24 * 2 * T + 4 * 8) + (4 * 2 * T + 4 * T) + norms  # grouped-GEMM indices, renormalised top-k
    qwen = PRESETS["qwen3-30b-a3b"]  # norm_topk_prob; combine weights in the activation dtype
    extra = _block(Setup(qwen, seq=s, impl="hf")) - _block(Setup(qwen, seq=s))
    k, E, h = 8, 128, 2048
    qk = 4 * T * (32 + 4) * 128 + 4 * T * (32 + 4)
    assert extra == (24 * k * T + 4 * E) + (4 * k * T + 4 * T) + (2 * k * T - 4 * k * T) + 2 * (4 * T * h + 4 * T) + qk


def test_dense_leading_blocks_and_shared_experts():
    m = ModelSpec("moe", 4, 512, 8, 8, 2048, 1000, experts=4, top_k=2, expert_ffn=256, shared_experts=1,
                  dense_layers=1)
    parts = activation_parts(Setup(m, seq=128))
    assert {p.count for p in parts if p.name.startswith("dense block")} == {1}
    assert {p.count for p in parts if p.name.startswith("MoE block")} == {3}
    shared = next(p for p in parts if "shared-expert intermediates" in p.name)
    assert shared.bytes == 1 * 4 * 2 * 128 * 256


def test_mla_activations_are_refused_in_one_line():
    s = Setup(PRESETS["deepseek-v3"])
    with pytest.raises(SetupError) as err:
        activation_parts(s)
    assert "MLA" in str(err.value) and "\n" not in str(err.value)
    b = breakdown(s)  # weights, states still work; the total says what it leaves out
    assert b.term("activations") is None and b.missing == ("activations",)
    assert b.model_states == 16 * PRESETS["deepseek-v3"].params


# --- LoRA and QLoRA (section 4) -------------------------------------------------------------------------------
SMALL = ModelSpec("small", 2, 512, 8, 8, 1408, 1000)


def test_lora_example_of_section_4():
    # h 512, a = a_kv 8 (g = 1), f 1408, T 1024, r 8, bf16 (p = 2), qv, no dropout, peft's defaults (impl hf),
    # recomputed from section 4's term list rather than copied from the spec's 21,340,160:
    h, a, g, f, T, r, p = 512, 8, 1, 1408, 1024, 8, 2
    core = (4 + 2 * g) * p * T * h - 2 * p * T * h  # q, k, v, attention output (norm inputs replaced below)
    norms = 2 * (4 * T * h + 4 * T)  # each RMSNorm keeps its fp32 input and statistics
    mlp = 3 * p * T * f + 4 * a * T  # gate, activation, up; the log-sum-exp
    adapters = 2 * (4 * T * h + 4 * T * r)  # q and v: an fp32 copy of the input each, and x@A in fp32
    assert core + norms + mlp + adapters == 21_340_160  # the spec's measured figure
    assert _block(Setup(SMALL, method="lora", seq=1024, impl="hf")) == core + norms + mlp + adapters


@pytest.mark.parametrize("targets, dropout", [("qv", 0.0), ("qv", 0.1), ("all-linear", 0.0), ("all-linear", 0.05)])
def test_lora_ideal_lists(targets, dropout):
    h, a, akv, f, T, r, p = 512, 8, 2, 1408, 1024, 16, 2
    m = ModelSpec("gqa", 2, h, a, akv, f, 1000)
    g = akv / a
    F = (4 + 2 * g) * p * T * h + 3 * p * T * f + 4 * a * T
    full = (6 + 2 * g) * p * T * h + 4 * p * T * f + 4 * a * T
    expected = {
        ("qv", False): (5 + 2 * g) * p * T * h + 3 * p * T * f + 4 * a * T + 2 * p * T * r,
        ("qv", True): F + 2 * (p + 1) * T * h + 2 * p * T * r,
        ("all-linear", False): full + 7 * p * T * r,
        ("all-linear", True): F + (p + 1) * T * (6 * h + f) + 7 * p * T * r,
    }[(targets, dropout > 0)]
    s = Setup(m, method="lora", seq=T, lora_rank=r, lora_targets=targets, lora_dropout=dropout)
    assert _block(s) == expected


def test_all_linear_lora_keeps_more_than_full_fine_tuning():
    full = activation_bytes(Setup(SMALL, seq=1024))
    assert activation_bytes(Setup(SMALL, method="lora", lora_targets="all-linear", seq=1024)) > full
    assert activation_bytes(Setup(SMALL, method="lora", seq=1024)) < full


def test_lora_full_recompute_keeps_the_block_inputs():
    s = Setup(SMALL, method="qlora", seq=1024, recompute="full")
    parts = activation_parts(s)
    assert next(p for p in parts if p.name == "checkpointed block inputs").total == 2 * 2 * 1024 * 512


def test_lora_dropout_parses_and_validates():
    assert setup_from_options({"model": "llama-2-7b", "method": "lora", "lora_dropout": "5%"}).lora_dropout == 0.05
    with pytest.raises(SetupError):
        setup_from_options({"model": "llama-2-7b", "method": "lora", "lora_dropout": 1.5})


# --- per-GPU properties ----------------------------------------------------------------------------------
_tp_models = st.sampled_from(["llama-2-7b", "llama-3-8b", "gpt2", "qwen3-8b", "mixtral-8x7b", "qwen3-30b-a3b"])


@settings(max_examples=80, deadline=None)
@given(name=_tp_models, method=st.sampled_from(["full", "inference", "ppo", "lora"]), t=st.sampled_from([1, 2, 4]),
       sp=st.booleans(), seq=st.integers(1, 4096), batch=st.integers(1, 8), zero=st.integers(0, 3),
       recompute=st.sampled_from(["none", "selective", "full"]))
def test_more_tp_never_more_memory_per_gpu(name, method, t, sp, seq, batch, zero, recompute):
    m = PRESETS[name]
    if method == "lora" and m.is_moe:
        method = "full"
    kw = dict(method=method, seq=seq, batch=batch, sp=sp)
    if method != "inference":
        kw.update(zero=zero, gpus=4, recompute=recompute)
    base = breakdown(Setup(m, tp=t, **kw)).total
    for more in (2 * t, 4 * t):
        if m.heads % more == 0:
            assert breakdown(Setup(m, tp=more, **kw)).total <= base


# --- RLHF activations (section 15) ------------------------------------------------------------------------------
def test_dpo_and_grpo_activations_are_those_of_more_sequences():
    m = PRESETS["llama-2-7b"]
    assert activation_bytes(Setup(m, method="dpo", batch=2)) == activation_bytes(Setup(m, batch=4))
    assert activation_bytes(Setup(m, method="grpo", batch=1, group=8)) == activation_bytes(Setup(m, batch=8))


def test_ppo_adds_the_critic_whose_loss_keeps_4T():
    m = PRESETS["llama-2-7b"]
    s, V = 1024, 32000
    actor = activation_bytes(Setup(m, seq=s))
    ppo = activation_bytes(Setup(m, method="ppo", seq=s))
    assert ppo - actor == actor - 4 * s * V + 4 * s
