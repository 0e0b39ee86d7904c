"""Section 16's formulas as pure functions."""

from __future__ import annotations

import pytest

from quizapp.memory import throughput as T


def test_mfu_and_tokens_per_s_are_inverse():
    fpt = 6 * 7e9
    m = T.mfu(3000, fpt, 8, 312e12)
    assert m == pytest.approx(3000 * fpt / (8 * 312e12))
    assert T.tokens_per_s(m, fpt, 8, 312e12) == pytest.approx(3000)


def test_compute_budget_and_chinchilla():
    # Chinchilla 70B on 1.4T tokens: D = 20·N, C = 6·N·D ≈ 5.88e23
    assert T.chinchilla_tokens(70 * 10**9) == 1_400_000_000_000
    assert T.compute_budget(70 * 10**9, 1.4e12) == pytest.approx(5.88e23)
    # attention term: 12·L·a·d·s per token = 6·L·a·(d + d)·s
    assert T.attention_train_flops_per_token(32, 32, 128, 128, 4096) == 12 * 32 * 32 * 128 * 4096
    assert T.compute_budget(10, 100, attention_per_token=40) == (60 + 40) * 100


def test_train_days():
    # 1e12 tokens × 6e10 FLOPs on 1024 GPUs at 312 TFLOP/s × 0.4
    seconds = 1e12 * 6e10 / (1024 * 312e12 * 0.4)
    assert T.train_days(1e12, 6e10, 1024, 312e12, 0.4) == pytest.approx(seconds / 86400)
