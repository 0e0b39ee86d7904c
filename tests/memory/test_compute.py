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


# --- revised section 7 and section 16: HFU and MFU, active parameters, head_dim and MLA -------------------
def test_hfu_0_4_is_mfu_0_3_under_full_recomputation():
    from quizapp.memory.compute import hfu, mfu_from_hfu, hfu_from_mfu

    s = Setup(PRESETS["llama-2-7b"], recompute="full", mfu=0.4)
    assert hfu(s) == 0.4
    assert mfu_from_hfu(s) == pytest.approx(0.3, rel=1e-12)
    assert hfu_from_mfu(s, 0.3) == pytest.approx(0.4, rel=1e-12)
    plain = Setup(PRESETS["llama-2-7b"], mfu=0.4)
    assert mfu_from_hfu(plain) == 0.4


def test_moe_flops_use_active_parameters():
    m = PRESETS["mixtral-8x7b"]
    s = Setup(m, seq=4096)
    assert flops_per_token(s) == 6 * m.active_params + 12 * 32 * 32 * 128 * 4096


def test_explicit_head_dim_and_mla_attention_flops():
    from quizapp.memory.compute import attention_flops_per_token

    q = PRESETS["qwen3-30b-a3b"]
    assert attention_flops_per_token(q, 1000) == 4 * 48 * 32 * 128 * 1000  # a·d = 4096, not h = 2048
    ds = PRESETS["deepseek-v3"]
    assert attention_flops_per_token(ds, 1000) == 2 * 61 * 128 * (128 + 64 + 128) * 1000
    # section 16: MLA training attention 6·L·a·(d_n + d_r + d_v)·s
    s = Setup(ds, seq=1000)
    assert flops_per_token(s) == 6 * ds.active_params + 6 * 61 * 128 * (128 + 64 + 128) * 1000


def test_fp8_compute_uses_the_fp8_peak():
    from quizapp.memory import SetupError
    from quizapp.memory.compute import peak_tflops

    h100, a100 = GPUS["h100-80g"], GPUS["a100-80g"]
    assert step_time(Setup(PRESETS["llama-2-7b"], compute="fp8"), h100) < step_time(Setup(PRESETS["llama-2-7b"]), h100)
    assert peak_tflops(Setup(PRESETS["llama-2-7b"], compute="fp8"), h100) == h100.fp8_tflops
    with pytest.raises(SetupError):
        peak_tflops(Setup(PRESETS["llama-2-7b"], compute="fp8"), a100)
