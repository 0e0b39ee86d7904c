"""The serving and cluster solves: the answer fits and one step further does not."""

from __future__ import annotations

import math

import pytest

from quizapp.memory import GPUS, PRESETS, SetupError, breakdown, evaluate, setup_from_options as opts

GiB = 2**30


def _budget(gpu: str, weights_per_gpu: float) -> float:
    return 0.9 * GPUS[gpu].capacity - weights_per_gpu - GiB  # section 13


def test_max_concurrency_is_the_concurrency_solve():
    s = opts({"model": "llama-3-8b", "method": "inference", "gpu": "h100-80g", "seq": 8000})
    kv = 2 * 32 * 8 * 128 * 2
    n = evaluate(s, "max_concurrency")
    budget = _budget("h100-80g", 2 * PRESETS["llama-3-8b"].params)
    assert n * 500 * 16 * kv <= budget < (n + 1) * 500 * 16 * kv


@pytest.mark.parametrize("batch", [1, 7, 64])
def test_max_context_fits_and_one_more_block_does_not(batch):
    s = opts({"model": "llama-2-7b", "method": "inference", "gpu": "a100-80g", "batch": batch})
    ctx = evaluate(s, "max_context")
    assert ctx % 16 == 0
    assert evaluate(s.with_(seq=int(ctx)), "max_concurrency") >= batch
    assert evaluate(s.with_(seq=int(ctx) + 1), "max_concurrency") < batch


def test_min_tp_llama_70b():
    # bf16 weights 137.95 GB; the smallest divisor of 64 heads whose shard leaves room for 32 x 4096 tokens
    w = 2 * PRESETS["llama-2-70b"].params
    kv = 2 * 80 * 8 * 128 * 2
    s = opts({"model": "llama-2-70b", "method": "inference", "gpu": "a100-80g", "batch": 32, "seq": 4096})
    expected = next(t for t in (1, 2, 4, 8, 16, 32, 64)
                    if _budget("a100-80g", w / t) >= 32 * 4096 * kv / min(t, 8))
    assert evaluate(s, "min_tp") == expected
    assert expected == 4


def test_min_tp_none_fits():
    # 64 sequences of 128K tokens: 541 GB of KV per GPU even once the 8 KV heads are split 8 ways
    s = opts({"model": "llama-3.1-405b", "method": "inference", "gpu": "rtx-4090", "batch": 64, "seq": 131072})
    assert evaluate(s, "min_tp") == 0


def test_min_gpus_zero3_fits_and_one_fewer_does_not():
    s = opts({"model": "llama-2-70b", "gpu": "a100-80g", "recompute": "full"})
    n = int(evaluate(s, "min_gpus"))
    usable = GPUS["a100-80g"].capacity - GiB
    assert breakdown(s.with_(zero=3, gpus=n)).total <= usable
    assert breakdown(s.with_(zero=3, gpus=n - 1)).total > usable


def test_min_gpus_is_a_training_solve():
    with pytest.raises(SetupError):
        evaluate(opts({"model": "llama-2-7b", "method": "inference", "gpu": "a100-80g"}), "min_gpus")


def test_min_gpus_tp_x_pp_is_the_smallest_product_that_fits():
    s = opts({"model": "llama-2-13b", "gpu": "a100-80g", "recompute": "full", "tp": 2})
    usable = GPUS["a100-80g"].capacity - GiB
    plan = __import__("quizapp.memory", fromlist=["min_gpus"]).min_gpus(s)
    assert plan.strategy == "tp x pp" and plan.gpus == plan.tp * plan.pp
    assert breakdown(s.with_(tp=plan.tp, pp=plan.pp)).total <= usable
    heads, layers = PRESETS["llama-2-13b"].heads, PRESETS["llama-2-13b"].layers
    smaller = [(t, p) for t in range(1, heads + 1) if heads % t == 0 for p in range(1, layers + 1)
               if t * p < plan.gpus]
    assert all(breakdown(s.with_(tp=t, pp=p)).total > usable for t, p in smaller)
    assert evaluate(s, "min_gpus") == plan.gpus
