"""Section 16's misconceptions: each value is produced from its description and named by diagnose()."""

from __future__ import annotations

import math

import pytest

from quizapp.memory import GPUS, PRESETS, diagnose, evaluate, mistake_values, setup_from_options as opts

GiB = 2**30


def _named(setup, ask, value, mistake_id):
    values = mistake_values(setup, ask)
    assert mistake_id in values, sorted(values)
    assert math.isclose(values[mistake_id], value, rel_tol=1e-6), (values[mistake_id], value)
    found = diagnose(setup, ask, value)
    assert found is not None and found[0].id == mistake_id, found


def test_total_as_active_flops():
    # Mixtral decode FLOPs from the total count instead of the active one
    s = opts({"model": "mixtral-8x7b", "method": "inference", "gpu": "h100-80g", "seq": 1})
    total = PRESETS["mixtral-8x7b"].params
    _named(s, "decode_flops", 2 * total + 4 * 32 * 32 * 128, "total-as-active")


def test_total_as_active_memory():
    # Mixtral weights from the active count (12.9B) instead of all 46.7B; routers of the k experts only
    s = opts({"model": "mixtral-8x7b", "method": "inference"})
    active = 12_879_925_248
    router_gap = 32 * 4096 * (8 - 2)  # h·E per block charged as h·k
    _named(s, "weights", 2 * (active - router_gap), "total-as-active")


def test_kv_all_heads_gqa():
    # llama-3-8b: 8 KV heads of 32; counting all 32 gives 4x the cache
    s = opts({"model": "llama-3-8b", "method": "inference", "seq": 4096})
    _named(s, "kv_cache", 2 * 32 * 32 * 128 * 4096 * 2, "kv-all-heads")


def test_kv_all_heads_mla():
    # DeepSeek-V3 cached as K (d_n + d_r) and V (d_v) of all 128 heads instead of the 576-wide latent
    s = opts({"model": "deepseek-v3", "method": "inference"})
    _named(s, "kv_bytes_per_token", 61 * 128 * (128 + 64 + 128) * 2, "kv-all-heads")


def test_decode_compute_bound():
    s = opts({"model": "llama-2-7b", "method": "inference", "gpu": "a100-80g", "batch": 4, "seq": 2048})
    flops = 4 * (2 * 6_738_415_616 + 4 * 32 * 32 * 128 * 2048)
    _named(s, "decode_step_s", flops / 312e12, "decode-compute-bound")


def test_allreduce_once():
    s = opts({"model": "llama-2-7b", "gpus": 8})
    _named(s, "comm_dp_bytes", 2 * 6_738_415_616, "allreduce-once")  # M, not 2·7/8·M


def test_bubble_over_total():
    s = opts({"model": "llama-2-7b", "pp": 4, "microbatches": 8})
    _named(s, "bubble", 3 / 11, "bubble-over-total")


@pytest.mark.parametrize("ask", ["bubble", "comm_dp_bytes"])
def test_right_answers_are_not_mistakes(ask):
    s = opts({"model": "llama-2-7b", "pp": 4, "microbatches": 8, "gpus": 8})
    assert diagnose(s, ask, evaluate(s, ask)) is None
