"""Communication per step wired to a Setup (memory-model.md section 14)."""

from __future__ import annotations

import math

import pytest

from quizapp.memory import PRESETS, SetupError, evaluate, setup_from_options as opts

PSI = 6_738_415_616  # llama-2-7b


def _train(**over):
    return opts({"model": "llama-2-7b", **over})


def test_ddp_and_zero3_reference_numbers():
    assert evaluate(_train(gpus=8), "comm_dp_bytes") == 2 * 7 / 8 * 2 * PSI == 23_584_454_656  # ring all-reduce: 2 (N-1)/N x bf16 grads
    assert evaluate(_train(gpus=8, zero=3), "comm_dp_bytes") == 3 * 7 / 8 * 2 * PSI == 35_376_681_984  # ZeRO-3: 2 all-gathers + 1 reduce-scatter
    assert evaluate(_train(gpus=8, zero=1), "comm_dp_bytes") == 2 * 7 / 8 * 2 * PSI == 23_584_454_656  # ring all-reduce: 2 (N-1)/N x bf16 grads
    assert evaluate(_train(gpus=8, zero=2), "comm_dp_bytes") == 2 * 7 / 8 * 2 * PSI == 23_584_454_656  # ring all-reduce: 2 (N-1)/N x bf16 grads
    # 32-bit gradients: G = 4Ψ
    assert evaluate(_train(gpus=8, grads=32), "comm_dp_bytes") == 2 * 7 / 8 * 4 * PSI
    assert evaluate(_train(gpus=1), "comm_dp_bytes") == 0


def test_tp_all_reduces_per_step():
    L, h, T, p = 32, 4096, 2048, 2
    s = _train(tp=4)
    assert evaluate(s, "comm_tp_bytes") == 4 * L * 2 * 3 / 4 * p * T * h
    assert evaluate(s.with_(sp=True), "comm_tp_bytes") == evaluate(s, "comm_tp_bytes")  # RS + AG, same volume
    assert evaluate(s.with_(recompute="full"), "comm_tp_bytes") == 6 * L * 2 * 3 / 4 * p * T * h


def test_pp_point_to_point_and_tokens_of_the_step():
    s = _train(pp=4, microbatches=8, batch=2, seq=1024)
    assert evaluate(s, "comm_pp_bytes") == 2 * 8 * 2 * (2 * 1024) * 4096
    # TP over a pipeline stage: L/pp layers, T = m·T_mb tokens
    both = _train(pp=4, tp=2, microbatches=8, batch=2, seq=1024)
    assert evaluate(both, "comm_tp_bytes") == 4 * 8 * 2 * 1 / 2 * 2 * (8 * 2 * 1024) * 4096


def test_bubble():
    assert evaluate(_train(pp=4, microbatches=8), "bubble") == 3 / 8
    assert evaluate(_train(pp=4, microbatches=8, interleave=2), "bubble") == 3 / 16
    assert evaluate(_train(), "bubble") == 0


def test_ep_all_to_alls():
    m = PRESETS["mixtral-8x7b"]
    s = opts({"model": "mixtral-8x7b", "gpus": 8, "ep": 8, "seq": 4096})
    assert evaluate(s, "comm_ep_bytes") == 4 * 32 * 7 / 8 * 2 * 2 * 4096 * 4096
    # experts' gradients travel in their own group of N/ep = 1: only the rest is all-reduced
    dense = m.params - m.routed_expert_params
    assert evaluate(s, "comm_dp_bytes") == 2 * 7 / 8 * 2 * dense


def test_total_and_seconds_no_overlap():
    s = _train(gpus=8, tp=2, pp=2, microbatches=4, link_bandwidth="50 GB/s")
    parts = [evaluate(s, f"comm_{k}_bytes") for k in ("dp", "tp", "pp", "ep")]
    assert evaluate(s, "comm_total_bytes") == sum(parts)
    assert math.isclose(evaluate(s, "comm_total_s"), sum(parts) / 50e9, rel_tol=1e-12)


def test_nvlink_from_the_preset():
    s = _train(gpus=8, gpu="h100-80g")
    assert math.isclose(evaluate(s, "comm_total_s"), 23_584_454_656 / 450e9, rel_tol=1e-12)


def test_communication_is_a_training_figure():
    with pytest.raises(SetupError, match="training"):
        evaluate(opts({"model": "llama-2-7b", "method": "inference"}), "comm_total_bytes")
    with pytest.raises(SetupError) as err:
        evaluate(_train(gpus=8), "comm_total_s")
    assert err.value.field == "gpu"


def test_lora_syncs_adapters_and_zero3_gathers_the_base():
    from quizapp.memory import lora_params

    m = PRESETS["llama-2-7b"]
    r = lora_params(m, 8, "qv")
    assert evaluate(_train(method="lora", gpus=8), "comm_dp_bytes") == 2 * 7 / 8 * 2 * r
    # ZeRO-3 reduce-scatters the adapters' gradients and gathers every weight twice (base and adapters)
    assert evaluate(_train(method="lora", gpus=8, zero=3), "comm_dp_bytes") == pytest.approx(
        7 / 8 * (2 * r + 2 * (2 * r + 2 * m.params)))


def test_ppo_syncs_the_critic_too():
    m = PRESETS["llama-2-7b"]
    critic = m.params - m.vocab * m.hidden + m.hidden + 1  # section 15: the LM head becomes a value head
    assert evaluate(_train(method="ppo", gpus=8), "comm_dp_bytes") == pytest.approx(2 * 7 / 8 * 2 * (m.params + critic))
    assert evaluate(_train(method="dpo", gpus=8), "comm_dp_bytes") == 23_584_454_656  # the policy only
