"""Serving figures wired to a Setup (memory-model.md section 13), checked against the spec's numbers."""

from __future__ import annotations

import math

from hypothesis import given, settings, strategies as st

from quizapp.memory import GPUS, PRESETS, evaluate, setup_from_options as opts

LLAMA7_PARAMS = 6_738_415_616  # section 2
LLAMA7_KV = 2 * 32 * 32 * 128 * 2  # 2·L·a_kv·d·p_kv = 524,288 bytes per token (section 11)
GiB = 2**30


def _serve(**over):
    return opts({"model": "llama-2-7b", "method": "inference", "gpu": "a100-80g", **over})


def test_critical_batch_a100_and_h100():
    assert evaluate(_serve(), "critical_batch") == 154
    assert evaluate(_serve(gpu="h100-80g"), "critical_batch") == 296
    assert evaluate(_serve(tp=4), "critical_batch") == 154  # t cancels


def test_kv_bytes_per_token_and_tp_split():
    assert evaluate(_serve(), "kv_bytes_per_token") == LLAMA7_KV
    assert evaluate(_serve(tp=4), "kv_bytes_per_token") == LLAMA7_KV / 4
    # llama-2-70b has 8 KV heads: t = 16 holds one KV head per GPU, replicated
    big = opts({"model": "llama-2-70b", "method": "inference", "tp": 16})
    assert evaluate(big, "kv_bytes_per_token") == 2 * 80 * 8 * 128 * 2 / 8


def test_deepseek_v3_latent_cache_is_replicated():
    s = opts({"model": "deepseek-v3", "method": "inference"})
    assert evaluate(s, "kv_bytes_per_token") == 70_272
    assert evaluate(s.with_(tp=8), "kv_bytes_per_token") == 70_272


def test_kv_budget_tokens_and_concurrency_from_the_spec_formula():
    s = _serve(seq=4096)
    cap = GPUS["a100-80g"].capacity
    budget = 0.9 * cap - 2 * LLAMA7_PARAMS - GiB
    assert evaluate(s, "kv_budget") == budget
    assert evaluate(s, "kv_tokens") == math.floor(budget / (16 * LLAMA7_KV)) * 16
    assert evaluate(s, "max_concurrency") == math.floor(budget / (4096 * LLAMA7_KV))
    # a context of 4097 tokens holds 257 blocks
    assert evaluate(s.with_(seq=4097), "max_concurrency") == math.floor(budget / (257 * 16 * LLAMA7_KV))


def test_decode_roofline_llama_7b():
    s = _serve(batch=8, seq=4096)
    gpu = GPUS["a100-80g"]
    read = 2 * LLAMA7_PARAMS + 8 * 4096 * LLAMA7_KV
    flops = 8 * (2 * LLAMA7_PARAMS + 4 * 32 * 32 * 128 * 4096)
    assert evaluate(s, "decode_bytes") == read
    assert evaluate(s, "decode_flops") == flops
    step = max(read / gpu.mem_bandwidth, flops / (gpu.bf16_tflops * 1e12))
    assert math.isclose(evaluate(s, "decode_step_s"), step, rel_tol=1e-12)
    assert math.isclose(evaluate(s, "decode_tokens_per_s"), 8 / step, rel_tol=1e-12)
    assert math.isclose(evaluate(s, "per_seq_tokens_per_s"), 1 / step, rel_tol=1e-12)


def test_prefill_and_ttft():
    s = _serve(batch=2, seq=4096, prompt=1024)
    gpu = GPUS["a100-80g"]
    flops = 2 * 1024 * (2 * LLAMA7_PARAMS + 4 * 32 * 32 * 128 * 1024)
    assert evaluate(s, "prefill_flops") == flops
    ttft = max(flops / (gpu.bf16_tflops * 1e12 * 0.4), 2 * LLAMA7_PARAMS / gpu.mem_bandwidth)
    assert math.isclose(evaluate(s, "ttft"), ttft, rel_tol=1e-12)


def test_moe_decode_reads_only_the_experts_hit():
    m = PRESETS["mixtral-8x7b"]
    one_expert = 3 * 4096 * 14336 * 2  # a gated MLP of f_e 14336 in bf16
    s = opts({"model": "mixtral-8x7b", "method": "inference", "gpu": "h100-80g", "tp": 4, "batch": 1, "seq": 1})
    total = 2 * m.params  # bf16: every weight 2 bytes (routers too)
    kv = 2 * 32 * 8 * 128 * 2 / 4
    # batch 1, top-2: 2 of 8 experts per block are read
    assert evaluate(s, "decode_bytes") == (total - 32 * 6 * one_expert) / 4 + kv
    # active parameters in the FLOPs (section 11: N of FLOPs is the active count)
    assert evaluate(s, "decode_flops") == (2 * 12_879_925_248 + 4 * 32 * 32 * 128) / 4
    # at batch 4 every expert may be hit: min(E, b·k) = 8
    assert evaluate(s.with_(batch=4), "decode_bytes") == total / 4 + 4 * kv


_serving_models = st.sampled_from(["llama-2-7b", "llama-3-8b", "qwen2.5-7b", "mistral-7b", "llama-3.2-1b"])


@settings(max_examples=60, deadline=None)
@given(model=_serving_models, seq=st.integers(1, 65536), gpu=st.sampled_from(["a100-80g", "h100-80g", "l40s"]),
       block=st.sampled_from([8, 16, 32]), kv=st.sampled_from(["bf16", "fp8", "int4"]))
def test_max_concurrency_times_context_fits_and_one_more_does_not(model, seq, gpu, block, kv):
    s = opts({"model": model, "method": "inference", "gpu": gpu, "seq": seq, "kv_block": block, "kv_dtype": kv})
    n = evaluate(s, "max_concurrency")
    budget = evaluate(s, "kv_budget")
    per_token = evaluate(s, "kv_bytes_per_token")
    per_seq = math.ceil(seq / block) * block * per_token
    assert n * per_seq <= budget
    assert (n + 1) * per_seq > budget


@settings(max_examples=60, deadline=None)
@given(model=_serving_models, seq=st.integers(1, 32768), batch=st.integers(1, 512),
       gpu=st.sampled_from(["a100-80g", "h100-80g", "rtx-4090"]), tp=st.sampled_from([1, 2, 4]),
       eff=st.sampled_from([0.6, 0.8, 1.0]))
def test_decode_step_never_faster_than_either_bound(model, seq, batch, gpu, tp, eff):
    s = opts({"model": model, "method": "inference", "gpu": gpu, "seq": seq, "batch": batch, "tp": tp,
              "bandwidth_efficiency": eff})
    g = GPUS[gpu]
    step = evaluate(s, "decode_step_s")
    assert step >= evaluate(s, "decode_bytes") / (g.mem_bandwidth * eff) * (1 - 1e-12)
    assert step >= evaluate(s, "decode_flops") / (g.bf16_tflops * 1e12) * (1 - 1e-12)
