"""Disaggregated serving: the prompt's KV cache moved from the prefill to the decode worker."""

from __future__ import annotations

import pytest

from quizapp.memory import SetupError, evaluate, setup_from_options


def test_kv_transfer_of_a_llama_3_1_8b_prompt():
    # Llama 3.1 8B: 32 layers, 8 KV heads x 128 (config.json); bf16: 2*32*8*128*2 = 131,072 bytes per token
    per_token = 2 * 32 * 8 * 128 * 2
    setup = setup_from_options({"model": "llama-3.1-8b", "prompt": 8192, "seq": 8192, "link_bandwidth": "50 GB/s"})
    assert evaluate(setup, "kv_transfer_bytes") == 8192 * per_token  # 1.07 GB
    assert evaluate(setup, "kv_transfer_s") == pytest.approx(8192 * per_token / 50e9)  # 21.5 ms


def test_fp8_kv_halves_it_and_a_named_link_works():
    setup = setup_from_options({"model": "llama-3.1-8b", "kv_dtype": "fp8", "prompt": 4096, "seq": 4096, "link": "pcie5"})
    assert evaluate(setup, "kv_transfer_bytes") == 4096 * 2 * 32 * 8 * 128 * 1
    assert evaluate(setup, "kv_transfer_s") == pytest.approx(4096 * 65536 / (16 * 32e9 * 128 / 130 / 8))


def test_kv_transfer_needs_a_shaped_model_and_a_link():
    with pytest.raises(SetupError, match="model: "):
        evaluate(setup_from_options({"model": "7B", "link_bandwidth": "50 GB/s"}), "kv_transfer_bytes")
    with pytest.raises(SetupError, match="link: missing"):
        evaluate(setup_from_options({"model": "llama-3.1-8b"}), "kv_transfer_s")
