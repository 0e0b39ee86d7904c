"""Section 13's formulas as pure functions: numbers derived from the spec's text, not the code."""

from __future__ import annotations

import math

from hypothesis import given, settings, strategies as st

from quizapp.memory import serving as S


def test_critical_batch_spec_examples():
    # spec section 13: dense bf16 critical batch = ceil(peak / bandwidth) (W = 2·N_active)
    n = 6_738_415_616
    assert S.critical_batch(peak_flops=312e12, bandwidth=2.039e12, weight_bytes=2 * n, active_params=n) == 154
    assert S.critical_batch(peak_flops=989.4e12, bandwidth=3.35e12, weight_bytes=2 * n, active_params=n) == 296
    # tp cancels: W/t over 2·N/t
    assert S.critical_batch(peak_flops=312e12, bandwidth=2.039e12, weight_bytes=2 * n, active_params=n, tp=4) == 154


def test_critical_batch_exact_ratio_not_rounded_up():
    # peak / bandwidth = 100 exactly: the batch is 100, not 101
    assert S.critical_batch(peak_flops=100e12, bandwidth=1e12, weight_bytes=2, active_params=1) == 100


def test_kv_budget_and_tokens():
    # u·capacity − W/t − overhead, then floor(budget / (B·kv))·B
    budget = S.kv_budget(80 * 2**30, 13_476_831_232, 0.9, 2**30)
    assert budget == 0.9 * 80 * 2**30 - 13_476_831_232 - 2**30
    kv = 524_288  # llama-2-7b bf16 bytes per token (spec section 11)
    assert S.kv_tokens(budget, kv) == math.floor(budget / (16 * kv)) * 16
    assert S.kv_tokens(-5.0, kv) == 0


def test_max_concurrency_rounds_context_up_to_blocks():
    kv = 100
    # context 17 holds 2 blocks of 16 = 32 tokens: 3,200 bytes a sequence
    assert S.max_concurrency(32_000, kv, 17) == 10
    assert S.max_concurrency(31_999, kv, 17) == 9
    assert S.max_concurrency(32_000, kv, 16) == 20
    assert S.blocks_for(17, 16) == 2 and S.blocks_for(16, 16) == 1 and S.blocks_for(1, 16) == 1


def test_max_context_at_a_concurrency():
    # 4 sequences, 3,200 bytes of budget per block-of-16 group... budget 64,000 at kv 100: 160 tokens total
    assert S.max_context(64_000, 100, 4) == 160
    assert S.max_context(64_000, 100, 5) == 128  # 64,000 / (5·16·100) = 8 blocks


@settings(max_examples=200, deadline=None)
@given(budget=st.floats(0, 2e11), kv=st.integers(1, 2_000_000), context=st.integers(1, 200_000),
       block=st.sampled_from([1, 8, 16, 32]))
def test_max_concurrency_fits_and_one_more_does_not(budget, kv, context, block):
    n = S.max_concurrency(budget, kv, context, block)
    per_seq = S.blocks_for(context, block) * block * kv
    assert n * per_seq <= budget
    assert (n + 1) * per_seq > budget


def _roofline(**over):
    base = dict(weight_read_bytes=13.5e9, kv_bytes_per_token=524_288, batch=8, context=4096,
                active_params=6_738_415_616, attention_flops_per_token=4 * 32 * 32 * 128, tp=1,
                peak_flops=312e12, bandwidth=2.039e12)
    base.update(over)
    return S.decode_roofline(**base)


def test_decode_roofline_terms():
    r = _roofline()
    assert r.bytes == 13.5e9 + 8 * 4096 * 524_288
    assert r.flops == 8 * (2 * 6_738_415_616 + 4 * 32 * 32 * 128 * 4096)
    assert r.step_s == max(r.bytes / 2.039e12, r.flops / 312e12)
    assert r.bound == "memory"
    assert r.tokens_per_s == 8 / r.step_s and r.per_seq_tokens_per_s == 1 / r.step_s


def test_decode_bandwidth_efficiency_scales_the_memory_side():
    assert _roofline(bandwidth_efficiency=0.8).memory_s == _roofline().memory_s / 0.8


@settings(max_examples=200, deadline=None)
@given(batch=st.integers(1, 4096), context=st.integers(1, 131072), tp=st.sampled_from([1, 2, 4, 8]),
       peak=st.floats(1e12, 5e15), bw=st.floats(1e11, 1e13), eff=st.floats(0.3, 1.0))
def test_decode_step_never_faster_than_either_bound(batch, context, tp, peak, bw, eff):
    r = _roofline(batch=batch, context=context, tp=tp, peak_flops=peak, bandwidth=bw, bandwidth_efficiency=eff)
    assert r.step_s >= r.bytes / (bw * eff)
    assert r.step_s >= r.flops / peak
    assert r.bound == ("compute" if r.flops / peak > r.bytes / (bw * eff) else "memory")


def test_prefill_uses_mfu_and_reads_weights_once():
    p = S.prefill_roofline(weight_read_bytes=13.5e9, batch=2, prompt=4000, active_params=10**9,
                           attention_flops_per_token=1000, tp=2, peak_flops=1e15, mfu=0.4, bandwidth=1e12)
    assert p.flops == 2 * 4000 * (2e9 + 1000 * 4000) / 2
    assert p.compute_s == p.flops / (1e15 * 0.4)
    assert p.memory_s == 13.5e9 / 2 / 1e12
    assert p.bound == "compute"  # 8.0e12 FLOPs at 0.4 PFLOP/s: 20 ms > 6.75 ms of weights


def test_moe_weight_read_counts_hit_experts():
    # 8 experts of 100 bytes in each of 2 MoE blocks, 1,000 bytes elsewhere: batch 1, top-2 reads 2 per block
    total = 1000 + 2 * 8 * 100
    assert S.routed_weight_bytes(total, 100, 8, 2, tokens_routed=1, top_k=2) == 1000 + 2 * 2 * 100
    assert S.routed_weight_bytes(total, 100, 8, 2, tokens_routed=64, top_k=2) == total
    assert S.routed_weight_bytes(total, 100, 0, 0, tokens_routed=1, top_k=0) == total


def test_attention_flops_per_context_token():
    assert S.attention_flops_per_context_token(32, 32, 128, 128) == 4 * 32 * 32 * 128
    # MLA non-absorbed: 2·L·a·(d_n + d_r + d_v)
    assert S.attention_flops_per_context_token(61, 128, 128 + 64, 128) == 2 * 61 * 128 * (128 + 64 + 128)
