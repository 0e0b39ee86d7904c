"""Model states per GPU under expert, tensor and pipeline parallelism (memory-model.md sections 11, 14)."""

from __future__ import annotations

import pytest

from quizapp.memory import PRESETS, Setup, breakdown

MIX = PRESETS["mixtral-8x7b"]
E_PARAMS = MIX.routed_expert_params
REST = MIX.params - E_PARAMS


def test_every_expert_is_held_and_trained():
    assert breakdown(Setup(MIX, recompute="full")).model_states == 16 * MIX.params


def test_expert_parallel_divides_only_the_routed_experts():
    # ep 8 over N = 8 without ZeRO: each GPU holds E/ep = 1 expert per block; the rest replicated
    b = breakdown(Setup(MIX, ep=8, gpus=8))
    assert b.model_states == 16 * REST + 16 * E_PARAMS / 8
    assert b.term("weights").bytes == 2 * REST + 2 * E_PARAMS // 8


@pytest.mark.parametrize("stage", [1, 2, 3])
def test_zero_divides_experts_by_their_data_parallel_group(stage):
    # non-expert states / N, expert states / ep and then / (N/ep): both end at / N per GPU
    N, ep = 16, 4
    b = breakdown(Setup(MIX, ep=ep, gpus=N, zero=stage))
    split = {1: {"master_weights", "optimizer_states"}, 2: {"master_weights", "optimizer_states", "gradients"},
             3: {"master_weights", "optimizer_states", "gradients", "weights"}}[stage]
    per = {"weights": 2, "gradients": 2, "master_weights": 4, "optimizer_states": 8}
    for name, k in per.items():
        expected = k * REST / N + k * E_PARAMS / ep / (N / ep) if name in split else k * REST + k * E_PARAMS / ep
        assert b.term(name).bytes == pytest.approx(expected, rel=1e-12), name


def test_tensor_and_pipeline_parallel_divide_the_states():
    m = PRESETS["llama-2-70b"]
    one = breakdown(Setup(m))
    b = breakdown(Setup(m, tp=8, pp=4, gpus=2, zero=1))
    assert b.term("weights").bytes == one.term("weights").bytes / 32
    assert b.term("optimizer_states").bytes == one.term("optimizer_states").bytes / 64
    assert b.setup.world_size == 64


def test_offload_keeps_16_bytes_per_param_on_the_cpu():
    # revised section 3: fp32 master + m + v + an fp32 gradient buffer = 16Ψ, per rank of the partition
    m = PRESETS["llama-2-7b"]
    b = breakdown(Setup(m, offload="optimizer", zero=2, gpus=4))
    assert b.cpu == 16 * m.params / 4
    assert b.model_states == 2 * m.params  # the GPU keeps the 16-bit weights
    names = {t.name: t.bytes for t in b.cpu_terms}
    assert names["gradients"] == 4 * m.params / 4
