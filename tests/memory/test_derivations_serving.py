"""The derivations of the asks that are no memory term (derive_serving, derive_comm, derive_training,
derive_fit): the last step is the asked value, equal to `evaluate`, and a few hand-computed literals.

The literals are worked out by hand from the preset numbers in the comments beside them, not by
the calculator, so a derivation that prints the right formula with the wrong numbers fails.
"""

from __future__ import annotations

import pytest

from quizapp.memory import evaluate, setup_from_options
from quizapp.memory.asks import derive, derived_asks
from quizapp.words import TEXT

LLAMA_70B_TRAIN = {"model": "llama-3.1-70b", "method": "full", "precision": "bf16-mixed", "optimizer": "adamw",
                   "batch": 1, "seq": 4096}
SERVE_8B = {"model": "llama-3.1-8b", "method": "inference", "weights": "bf16", "kv_dtype": "bf16", "batch": 1,
            "seq": 1024, "gpu": "h100-80g"}

# one setup per derived ask (the asks of sections 7-16 that no memory term explains)
SETUPS = {
    "kv_bytes_per_token": {**SERVE_8B},
    "kv_budget": {**SERVE_8B},
    "kv_tokens": {**SERVE_8B},
    "max_concurrency": {**SERVE_8B, "seq": 8192},
    "max_context": {**SERVE_8B, "batch": 8},
    "min_tp": {**SERVE_8B, "model": "llama-3.1-70b", "batch": 32, "seq": 8192},
    "decode_bytes": {**SERVE_8B, "batch": 16},
    "decode_flops": {**SERVE_8B, "batch": 16},
    "decode_step_s": {**SERVE_8B, "batch": 16},
    "decode_tokens_per_s": {**SERVE_8B, "batch": 16},
    "per_seq_tokens_per_s": {**SERVE_8B, "batch": 16},
    "prefill_flops": {**SERVE_8B, "seq": 4096, "prompt": 2048},
    "ttft": {**SERVE_8B, "seq": 4096, "prompt": 2048},
    "critical_batch": {**SERVE_8B},
    "comm_dp_bytes": {**LLAMA_70B_TRAIN, "gpus": 8, "zero": 1, "gpu": "h100-80g"},
    "comm_tp_bytes": {**LLAMA_70B_TRAIN, "tp": 8, "gpu": "h100-80g"},
    "comm_pp_bytes": {**LLAMA_70B_TRAIN, "pp": 4, "microbatches": 8, "gpu": "h100-80g"},
    "comm_ep_bytes": {"model": "mixtral-8x7b", "method": "full", "precision": "bf16-mixed", "optimizer": "adamw",
                      "gpus": 8, "ep": 8, "batch": 1, "seq": 4096, "gpu": "h100-80g"},
    "comm_total_bytes": {**LLAMA_70B_TRAIN, "gpus": 2, "tp": 8, "gpu": "h100-80g"},
    "comm_total_s": {**LLAMA_70B_TRAIN, "gpus": 2, "tp": 8, "gpu": "h100-80g"},
    "bubble": {**LLAMA_70B_TRAIN, "pp": 4, "microbatches": 8},
    "params": {"model": "llama-2-7b", "method": "inference"},
    "active_params": {"model": "mixtral-8x7b", "method": "inference"},
    "trainable_params": {"model": "llama-2-7b", "method": "lora", "lora_rank": 16},
    "bytes_per_param": {"model": "llama-2-7b", "method": "full", "precision": "bf16-mixed", "optimizer": "adamw"},
    "flops_per_token": {**LLAMA_70B_TRAIN},
    "step_time": {**LLAMA_70B_TRAIN, "pp": 4, "microbatches": 8, "tp": 8, "gpu": "h100-80g"},
    "mfu": {**LLAMA_70B_TRAIN, "recompute": "full", "tp": 8, "pp": 4, "gpu": "h100-80g"},
    "hfu": {**LLAMA_70B_TRAIN, "tp": 8, "pp": 4, "gpu": "h100-80g", "tokens_per_s": 2000},
    "tokens_per_s": {**LLAMA_70B_TRAIN, "tp": 8, "pp": 4, "gpu": "h100-80g"},
    "compute_budget_flops": {"model": "llama-2-7b", "method": "full", "train_tokens": 2e12},
    "chinchilla_tokens": {"model": "llama-2-7b", "method": "full"},
    "train_days": {**LLAMA_70B_TRAIN, "tp": 8, "pp": 4, "gpus": 64, "gpu": "h100-80g", "train_tokens": 15e12},
    "headroom": {"model": "llama-2-7b", "method": "inference", "gpu": "a100-80g", "batch": 4, "seq": 4096},
    "max_batch": {"model": "llama-2-7b", "method": "inference", "gpu": "a100-80g", "seq": 4096},
    "max_seq": {"model": "llama-2-7b", "method": "inference", "gpu": "a100-80g", "batch": 8},
    "max_params": {"model": "7B", "method": "full", "precision": "bf16-mixed", "optimizer": "adamw", "gpu": "h100-80g"},
    "min_gpus": {**LLAMA_70B_TRAIN, "seq": 1024, "recompute": "full", "gpu": "h100-80g"},
}


def test_every_derived_ask_has_a_setup_here():
    assert set(derived_asks()) == set(SETUPS)


@pytest.mark.parametrize("ask", sorted(SETUPS))
def test_the_last_step_is_the_asked_value_and_equals_evaluate(ask):
    setup = setup_from_options(SETUPS[ask])
    derivation = derive(setup, ask)
    assert derivation is not None and derivation.ask == ask
    assert derivation.steps[-1].name == ask
    assert derivation.value == evaluate(setup, ask)  # exactly: the same functions, not a second computation
    for step in derivation.steps:
        assert step.formula and step.substituted, step.name
        assert f"solution.row.{step.name}" in TEXT or f"term.{step.name}" in TEXT, step.name


@pytest.mark.parametrize("ask", ["weights", "gradients", "optimizer_states", "activations", "model_states", "total"])
def test_memory_terms_keep_their_breakdown(ask):
    setup = setup_from_options({**LLAMA_70B_TRAIN, "gpu": "h100-80g"})
    assert derive(setup, ask) is None


def _step(derivation, name):
    return next(s for s in derivation.steps if s.name == name)


def test_pipeline_bubble_by_hand():
    derivation = derive(setup_from_options(SETUPS["bubble"]), "bubble")
    last = derivation.steps[-1]
    assert last.formula == "(p − 1) / m"
    assert last.substituted == "(4 − 1) / 8"
    assert last.value == 0.375  # (p − 1)/m = 3/8 = 37.50 % for p = 4, m = 8


def test_interleaved_bubble_by_hand():
    derivation = derive(setup_from_options({**SETUPS["bubble"], "interleave": 2}), "bubble")
    assert derivation.steps[-1].formula == "(p − 1) / (v·m)"
    assert derivation.value == 0.1875  # (4 − 1)/(2·8) = 3/16


def test_critical_batch_by_hand():
    # dense bf16: W/(2·N) = 2 bytes per param / 2 FLOPs per param = 1, so ⌈peak / bandwidth⌉:
    # H100 SXM 989.4 TFLOP/s / 3.35 TB/s = 295.34... -> 296
    derivation = derive(setup_from_options(SETUPS["critical_batch"]), "critical_batch")
    assert derivation.value == 296
    assert "⌈peak·(W/t) / (bandwidth·2·N_active/t)⌉" == derivation.steps[-1].formula


def test_all_to_all_bytes_by_hand():
    # Mixtral 8x7B: 32 MoE blocks, h = 4,096, top-2; T = b·s = 4,096 tokens, p = 2 bytes.
    # one all-to-all: (8−1)/8 · 2·2·4,096·4,096 = 58,720,256 bytes; 4 per block: 4·32·58,720,256
    derivation = derive(setup_from_options(SETUPS["comm_ep_bytes"]), "comm_ep_bytes")
    assert _step(derivation, "all_to_all_bytes").value == 58_720_256
    assert derivation.value == 7_516_192_768  # 128 × 58,720,256


def test_kv_bytes_per_token_by_hand():
    # Llama 3.1 8B: 2·L·a_kv·d·p = 2·32·8·128·2 = 131,072 bytes per token (bf16)
    derivation = derive(setup_from_options(SETUPS["kv_bytes_per_token"]), "kv_bytes_per_token")
    assert derivation.steps[-1].substituted == "2 × 32 × 8 × 128 × 2"
    assert derivation.value == 131_072


def test_max_concurrency_by_hand():
    # h100-80g holds 81,559 MiB = 85,520,809,984 bytes; budget: 0.9 × 85,520,809,984 − 16,060,522,496 weights
    # − 1 GiB reserve = 59,834,464,665.6 bytes; one 8,192-token sequence: 8,192 × 131,072 = 1,073,741,824
    # bytes; ⌊59,834,464,665.6 / 1,073,741,824⌋ = ⌊55.72⌋ = 55
    derivation = derive(setup_from_options(SETUPS["max_concurrency"]), "max_concurrency")
    assert _step(derivation, "kv_budget").value == pytest.approx(59_834_464_665.6, abs=1)
    assert _step(derivation, "kv_per_sequence").value == 1_073_741_824
    assert derivation.value == 55


def test_chinchilla_tokens_by_hand():
    # D = 20·N = 20 × 6,738,415,616 (Llama 2 7B)
    derivation = derive(setup_from_options(SETUPS["chinchilla_tokens"]), "chinchilla_tokens")
    assert derivation.steps[-1].formula == "D = 20·N"
    assert derivation.value == 134_768_312_320


def test_data_parallel_bytes_by_hand():
    # ZeRO-1 over N = 8 (one GPU per replica): (N−1)/N · (G + 2Ψ) with G = 2Ψ, so 7/8 · 4Ψ = 3.5·Ψ bytes
    setup = setup_from_options(SETUPS["comm_dp_bytes"])
    derivation = derive(setup, "comm_dp_bytes")
    assert derivation.steps[-1].formula == "(N−1)/N · (G + 2Ψ)"
    assert derivation.value == pytest.approx(3.5 * setup.model.params)


def test_an_inverse_solve_shows_it_fits_and_one_more_does_not():
    setup = setup_from_options(SETUPS["max_batch"])
    derivation = derive(setup, "max_batch")
    usable = _step(derivation, "usable").value
    assert usable == 80 * 2**30 - 2**30  # a100-80g less the 1 GiB reserve
    assert _step(derivation, "total_at_batch").value <= usable < _step(derivation, "total_above_batch").value
    assert derivation.value == evaluate(setup, "max_batch")


def test_every_ask_is_a_memory_term_or_derived():
    from quizapp.memory import ASKS
    from quizapp.memory.extra_asks import EXTRA_ASKS
    from quizapp.memory.kernels import KERNEL_ASKS

    memory = {"weights", "gradients", "master_weights", "optimizer_states", "activations", "kv_cache", "overhead",
              "model_states", "total", "cpu", "reference_weights", "reward_weights", "rollout_kv_cache"}
    derived = set(derived_asks()) | set(EXTRA_ASKS) | set(KERNEL_ASKS) | {"kv_ratio"}
    assert not memory & derived
    assert set(ASKS) == memory | derived
