"""Activation memory (memory-model.md section 5): the term list, Korthikanti's GPT form, references."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from quizapp.memory import PRESETS, Setup
from quizapp.memory.activations import activation_bytes, activation_parts
from quizapp.memory.models import ModelSpec


def _block(setup: Setup) -> int:
    return sum(p.bytes for p in activation_parts(setup) if p.count == setup.model.layers)


@settings(max_examples=60, deadline=None)
@given(
    heads=st.integers(1, 32),
    head_dim=st.sampled_from([16, 64, 128]),
    s=st.integers(1, 4096),
    b=st.integers(1, 16),
)
def test_gpt_block_is_korthikanti(heads, head_dim, s, b):
    # Korthikanti et al. 2022 eq. (1): per layer s·b·h·(34 + 5·a·s/h) for GPT with 16-bit activations,
    # dropout and eager attention; written as 34·s·b·h + 5·a·s²·b to stay in integers.
    h = heads * head_dim
    gpt = ModelSpec("g", 2, h, heads, heads, 4 * h, 1000, "gpt", True, 128, "all")
    setup = Setup(gpt, batch=b, seq=s, attention="eager")
    assert _block(setup) == 34 * s * b * h + 5 * heads * s * s * b


@settings(max_examples=60, deadline=None)
@given(
    group=st.sampled_from([1, 2, 4, 8]),
    kv_heads=st.integers(1, 8),
    head_dim=st.sampled_from([64, 128]),
    ffn=st.integers(1, 20000),
    s=st.integers(1, 4096),
    b=st.integers(1, 8),
    fp32=st.booleans(),
)
def test_llama_block_matches_term_list(group, kv_heads, head_dim, ffn, s, b, fp32):
    # spec: (6 + 2g)·p·T·h + 4·p·T·f + 4·a·T for SwiGLU, RMSNorm, no dropout, flash.
    a = kv_heads * group
    h = a * head_dim
    model = ModelSpec("l", 2, h, a, kv_heads, ffn, 1000)
    setup = Setup(model, batch=b, seq=s, precision="fp32" if fp32 else "bf16-mixed")
    p, T = (4 if fp32 else 2), s * b
    hg = kv_heads * head_dim  # h·g
    assert _block(setup) == 6 * p * T * h + 2 * p * T * hg + 4 * p * T * ffn + 4 * a * T


REFERENCES = {
    # memory-model.md section 5: llama-2-7b, s = 2048, b = 1, bf16
    ("ideal", "flash", "none"): 10.37,
    ("ideal", "eager", "none"): 18.95,
    ("ideal", "flash", "full"): 1.15,
    ("hf", "flash", "none"): 12.55,
    ("hf", "eager", "none"): 38.31,
    ("hf", "flash", "full"): 1.25,
}


@pytest.mark.parametrize("impl, attention, recompute", sorted(REFERENCES))
def test_reference_values(impl, attention, recompute):
    setup = Setup(PRESETS["llama-2-7b"], seq=2048, batch=1, impl=impl, attention=attention, recompute=recompute)
    assert round(activation_bytes(setup) / 1e9, 2) == REFERENCES[(impl, attention, recompute)]


def test_korthikanti_with_7b_dimensions_is_30_6_gb():
    # spec: "Korthikanti's GPT formula with 7B dimensions gives 30.6 GB" (32 layers): per layer
    # s*b*h*(34 + 5*a*s/h) bytes = 2048 * 4096 * (34 + 80) = 956,301,312; x 32 = 30.60 GB. The calculator's
    # GPT-style block (LayerNorm, GELU 4h MLP, dropout, eager attention) must add exactly that per layer;
    # the stack's ends (embedding dropout, final norm, logits) are not in Korthikanti's per-layer count.
    def gpt(layers: int) -> ModelSpec:
        return ModelSpec("gpt-7b", layers=layers, hidden=4096, heads=32, kv_heads=32, ffn=16384, vocab=50257,
                         style="gpt", positions=2048, bias="all")

    per_layer = activation_bytes(Setup(gpt(32), attention="eager")) - activation_bytes(Setup(gpt(31), attention="eager"))
    assert per_layer == 2048 * 4096 * (34 + 80) == 956_301_312
    assert round(32 * per_layer / 1e9, 1) == 30.6


def test_selective_drops_exactly_the_core():
    model = PRESETS["llama-2-7b"]
    eager = Setup(model, attention="eager")
    s, a, L = 2048, 32, 32
    assert activation_bytes(eager) - activation_bytes(Setup(model, attention="eager", recompute="selective")) == L * 2 * a * s * s


def test_chunked_loss_drops_the_log_softmax():
    model = PRESETS["llama-3-8b"]
    T = 4096
    diff = activation_bytes(Setup(model, seq=T)) - activation_bytes(Setup(model, seq=T, loss="chunked"))
    assert diff == 4 * T * 128256


def test_hf_gqa_repeat_and_fp32_softmax():
    # llama-3-8b eager/none: hf adds per block 4·a·s²·b (fp32 softmax) + 2·p·T·h·(1 − g), and
    # (2L + 1)·(4·T·h + 4·T) for the fp32 RMSNorms.
    m = PRESETS["llama-3-8b"]
    s, h, a, L, p = 1024, 4096, 32, 32, 2
    g = 8 / 32
    extra = L * (4 * a * s * s + 2 * p * s * h * (1 - g)) + (2 * L + 1) * (4 * s * h + 4 * s)
    ideal = activation_bytes(Setup(m, seq=s, attention="eager"))
    hf = activation_bytes(Setup(m, seq=s, attention="eager", impl="hf"))
    assert hf - ideal == extra


def test_hf_gelu_new_on_gpt():
    m = PRESETS["gpt2"]
    s, L, f = 1024, 12, 3072
    assert activation_bytes(Setup(m, seq=s, impl="hf")) - activation_bytes(Setup(m, seq=s)) == L * 3 * 2 * s * f


def test_hf_full_recompute_eager_adds_causal_mask():
    m = PRESETS["llama-2-7b"]
    base = Setup(m, attention="eager", recompute="full")
    s, a, L, h = 2048, 32, 32, 4096
    extra = 3 * (4 * s * h + 4 * s) + 4 * a * s * s + 2 * s * s  # 3 fp32 norms, one fp32 softmax, the mask
    assert activation_bytes(Setup(m, attention="eager", recompute="full", impl="hf")) - activation_bytes(base) == extra
