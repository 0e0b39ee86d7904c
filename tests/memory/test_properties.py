"""Property tests: monotonicity in batch, sequence and ZeRO stage; terms always sum to the total."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings, strategies as st

from quizapp.memory import PRESETS, Setup, breakdown

_models = st.sampled_from(["gpt2", "llama-2-7b", "llama-3-8b", "qwen2.5-0.5b", "llama-2-70b"]).map(PRESETS.__getitem__)
from quizapp.words.calc import render


@st.composite
def setups(draw):
    model = draw(_models)
    method = draw(st.sampled_from(["full", "lora", "qlora", "inference"]))
    if method == "inference":
        return Setup(model, method=method, batch=draw(st.integers(1, 64)), seq=draw(st.integers(1, 32768)),
                     weights=draw(st.sampled_from(["16-bit", "int8", "int4", "nf4", "bf16", "fp8", "gptq-int4",
                                                   "awq-int4", "gguf-q8_0", "gguf-q6_k", "gguf-q4_0"])),
                     kv_dtype=draw(st.sampled_from(["16-bit", "bf16", "fp8", "int8", "int4"])))
    zero = draw(st.integers(0, 3))
    offload = draw(st.sampled_from(["none", "optimizer"] + (["optimizer+params"] if zero == 3 else [])))
    return Setup(
        model, method=method,
        precision=draw(st.sampled_from(["fp32", "bf16-mixed", "fp16-mixed", "bf16"])),
        optimizer=draw(st.sampled_from(["adamw", "adam", "adamw-8bit", "sgd", "sgd-momentum", "lion", "adafactor"])),
        batch=draw(st.integers(1, 64)), seq=draw(st.integers(1, 8192)),
        recompute=draw(st.sampled_from(["none", "selective", "full"])),
        attention=draw(st.sampled_from(["flash", "eager"])), loss=draw(st.sampled_from(["standard", "chunked"])),
        impl=draw(st.sampled_from(["ideal", "hf"])), zero=zero, gpus=draw(st.integers(1, 64)), offload=offload,
        lora_rank=draw(st.integers(1, 128)), lora_targets=draw(st.sampled_from(["qv", "all-linear"])),
    )


@settings(max_examples=200, deadline=None)
@given(setups(), st.integers(1, 16))
def test_more_batch_never_less_memory(setup, more):
    assert breakdown(replace(setup, batch=setup.batch + more)).total >= breakdown(setup).total


@settings(max_examples=200, deadline=None)
@given(setups(), st.integers(1, 4096))
def test_longer_sequence_never_less_memory(setup, more):
    assert breakdown(replace(setup, seq=setup.seq + more)).total >= breakdown(setup).total


@settings(max_examples=200, deadline=None)
@given(setups())
def test_higher_zero_stage_never_more(setup):
    if not setup.training:
        return
    setup = replace(setup, offload="none")
    totals = [breakdown(replace(setup, zero=z)).total for z in range(4)]
    assert all(a >= b for a, b in zip(totals, totals[1:]))


@settings(max_examples=300, deadline=None)
@given(setups())
def test_terms_sum_to_total(setup):
    b = breakdown(setup)
    assert b.total == sum(t.bytes for t in b.terms)
    assert b.model_states == sum(t.bytes for t in b.terms if t.name in ("weights", "gradients", "master_weights", "optimizer_states"))
    assert b.cpu == sum(t.bytes for t in b.cpu_terms)
    assert all(t.bytes >= 0 and t.formula and t.substituted and render(t.code) for t in b.terms)
    act = b.term("activations")
    if act is not None:
        assert act.bytes == sum(p.bytes for p in act.parts)
