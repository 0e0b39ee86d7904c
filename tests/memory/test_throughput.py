"""MFU, tokens/s, compute budgets and training days wired to a Setup (memory-model.md section 16)."""

from __future__ import annotations

import math

import pytest

from quizapp.memory import GPUS, SetupError, evaluate, setup_from_options as opts

PSI = 6_738_415_616
L, H, S = 32, 4096, 2048
FPT = 6 * PSI + 12 * L * H * S  # section 7, per token


def _train(**over):
    return opts({"model": "llama-2-7b", "gpu": "a100-80g", **over})


def test_mfu_from_measured_tokens_per_s():
    s = _train(gpus=8, tokens_per_s=20_000)
    assert math.isclose(evaluate(s, "mfu"), 20_000 * FPT / (8 * 312e12), rel_tol=1e-12)
    assert math.isclose(evaluate(s, "hfu"), evaluate(s, "mfu"), rel_tol=1e-12)  # no recomputation


def test_hfu_and_mfu_under_full_recomputation():
    # section 7: the setting is the HFU; 0.4 HFU is 0.3 MFU under full recomputation
    s = _train(recompute="full", mfu=0.4)
    assert evaluate(s, "hfu") == 0.4
    assert math.isclose(evaluate(s, "mfu"), 0.3, rel_tol=1e-12)
    measured = s.with_(tokens_per_s=1000.0)
    executed = FPT + 2 * PSI + 4 * L * H * S
    assert math.isclose(evaluate(measured, "hfu"), 1000 * executed / 312e12, rel_tol=1e-12)
    assert math.isclose(evaluate(measured, "mfu"), 1000 * FPT / 312e12, rel_tol=1e-12)


def test_tokens_per_s_from_an_mfu_counts_every_gpu():
    s = _train(gpus=4, tp=2, mfu=0.5)
    assert math.isclose(evaluate(s, "tokens_per_s"), 0.5 * 8 * 312e12 / FPT, rel_tol=1e-12)


def test_compute_budget_with_the_attention_term():
    s = _train(train_tokens="2T")
    assert evaluate(s, "compute_budget_flops") == (6 * PSI + 12 * L * 32 * 128 * S) * 2e12
    bare = opts({"model": "70B", "train_tokens": "1.4T"})
    assert evaluate(bare, "compute_budget_flops") == 6 * 70e9 * 1.4e12


def test_chinchilla_dense_only():
    assert evaluate(opts({"model": "70B"}), "chinchilla_tokens") == 1.4e12
    assert evaluate(_train(), "chinchilla_tokens") == 20 * PSI
    with pytest.raises(SetupError, match="dense"):
        evaluate(opts({"model": "mixtral-8x7b"}), "chinchilla_tokens")


def test_train_days():
    s = _train(gpus=1024, train_tokens="2T", mfu=0.4)
    days = 2e12 * FPT / (1024 * 312e12 * 0.4) / 86400
    assert math.isclose(evaluate(s, "train_days") / 86400, days, rel_tol=1e-12)


def test_compute_fp8_uses_the_fp8_peak():
    gpu = GPUS["h100-80g"]
    assert gpu.fp8_tflops > gpu.bf16_tflops
    bf16 = evaluate(_train(gpu="h100-80g"), "tokens_per_s")
    fp8 = evaluate(_train(gpu="h100-80g", compute="fp8"), "tokens_per_s")
    assert math.isclose(fp8 / bf16, gpu.fp8_tflops / gpu.bf16_tflops, rel_tol=1e-12)
    with pytest.raises(SetupError) as err:
        evaluate(_train(gpu="a100-80g", compute="fp8"), "tokens_per_s")  # Ampere has no fp8
    assert err.value.field == "compute"
