"""FLOPs per token and step time (memory-model.md section 7)."""

from __future__ import annotations

import pytest

from quizapp.memory import GPUS, PRESETS, Setup, SetupError, flops_per_token, step_time


def test_training_flops_palm(llama7b):
    N, L, h, s = llama7b.params, 32, 4096, 2048
    assert flops_per_token(Setup(llama7b)) == 6 * N + 12 * L * h * s
    assert flops_per_token(Setup(llama7b, recompute="full")) == 8 * N + 16 * L * h * s


def test_step_time_at_mfu(llama7b):
    g = GPUS["h100-80g"]
    setup = Setup(llama7b, batch=4, mfu=0.5)
    expected = (6 * llama7b.params + 12 * 32 * 4096 * 2048) * 4 * 2048 / (989.4e12 * 0.5)
    assert step_time(setup, g) == pytest.approx(expected, rel=1e-12)


def test_offload_adds_pcie_transfer():
    setup = Setup(PRESETS["gpt2"].__class__(name="x", count=10**9), offload="optimizer")
    g = GPUS["rtx-4090"]
    plain = step_time(Setup(setup.model), g)
    assert step_time(setup, g) - plain == pytest.approx(4e9 / 32e9)


def test_step_time_needs_gpu_and_training(llama7b):
    with pytest.raises(SetupError):
        step_time(Setup(llama7b), None)
    with pytest.raises(SetupError):
        step_time(Setup(llama7b, method="inference"), GPUS["h100-80g"])
