"""Section 14's volumes as pure functions, checked against the spec's reference numbers."""

from __future__ import annotations

from hypothesis import given, strategies as st

from quizapp.memory import comm as C

PSI = 6_738_415_616  # llama-2-7b


def test_ring_collectives():
    assert C.all_reduce(8, 800) == 2 * 7 / 8 * 800
    assert C.reduce_scatter(8, 800) == C.all_gather(8, 800) == C.all_to_all(8, 800) == 700
    assert C.all_reduce(1, 800) == 0


def test_ddp_and_zero_reference_volumes():
    g = 2 * PSI  # bf16 gradients: 13,476,831,232 bytes
    assert g == 13_476_831_232
    assert C.dp_bytes(8, 0, g, 2 * PSI) == 2 * 7 / 8 * 2 * PSI == 23_584_454_656  # ring all-reduce: 2 (N-1)/N x bf16 grads
    assert C.dp_bytes(8, 3, g, 2 * PSI) == 3 * 7 / 8 * 2 * PSI == 35_376_681_984  # ZeRO-3: 2 all-gathers + 1 reduce-scatter
    # stages 1-2 equal DDP's volume with 16-bit gradients (ZeRO paper section 7)
    assert C.dp_bytes(8, 1, g, 2 * PSI) == C.dp_bytes(8, 2, g, 2 * PSI) == 2 * 7 / 8 * 2 * PSI == 23_584_454_656  # ring all-reduce: 2 (N-1)/N x bf16 grads


def test_tp_all_reduce_count_and_volume():
    L, T, h, p = 32, 4096, 4096, 2
    assert C.tp_all_reduces(L, False) == 4 * L and C.tp_all_reduces(L, True) == 6 * L
    assert C.tp_bytes(4, L, T, h, p) == 4 * L * 2 * 3 / 4 * p * T * h
    assert C.tp_bytes(4, L, T, h, p, full_recompute=True) == 6 * L * 2 * 3 / 4 * p * T * h
    assert C.tp_bytes(1, L, T, h, p) == 0


def test_pp_point_to_point():
    assert C.pp_bytes(4, 8, 2048, 4096, 2) == 2 * 8 * 2 * 2048 * 4096
    assert C.pp_bytes(4, 8, 2048, 4096, 2, stage="first") == 8 * 2 * 2048 * 4096
    assert C.pp_bytes(2, 8, 2048, 4096, 2) == 8 * 2 * 2048 * 4096  # two stages: both are ends
    assert C.pp_bytes(1, 8, 2048, 4096, 2) == 0


def test_bubble_formulas():
    assert C.bubble(4, 8) == 3 / 8
    assert C.bubble(4, 8, 2) == 3 / 16
    assert C.bubble_of_step(4, 8) == 3 / 11
    assert C.bubble(1, 8) == 0


@given(pp=st.integers(2, 64), m=st.integers(1, 512), v=st.integers(1, 8))
def test_bubble_falls_as_microbatches_grow(pp, m, v):
    assert C.bubble(pp, m + 1, v) < C.bubble(pp, m, v)
    assert C.bubble(pp, m, v + 1) < C.bubble(pp, m, v)


def test_ep_all_to_alls():
    # 4 all-to-alls per MoE block of p·k·T·h, each sending (ep−1)/ep
    assert C.ep_bytes(8, 48, 4096, 8, 2048, 2) == 4 * 48 * 7 / 8 * 2 * 8 * 4096 * 2048
    assert C.ep_bytes(1, 48, 4096, 8, 2048, 2) == 0
