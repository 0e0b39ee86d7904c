"""Weights in the 4-bit microscaling formats mxfp4 (OCP MX v1.0) and nvfp4 (NVIDIA 2025), on request."""

from __future__ import annotations

import pytest

from quizapp.memory import evaluate, setup_from_options

# Llama 3.1 8B (config.json): L = 32, h = 4096, 8 KV heads x 128, ffn 14336, vocab 128256, untied
L, H, KV, FFN, V = 32, 4096, 8 * 128, 14336, 128256
LINEARS = L * (2 * H * H + 2 * H * KV + 3 * H * FFN)  # 6,979,321,856 block-linear weights
SIXTEEN_BIT = 2 * (2 * V * H) + 2 * (2 * L + 1) * H  # embedding + LM head + 65 norms, 2 bytes each
MATRICES = L * 7  # q, k, v, o, gate, up, down


def _weights(fmt: str) -> float:
    return evaluate(setup_from_options({"model": "llama-3.1-8b", "method": "inference", "weights": fmt}), "weights")


def test_mxfp4_is_e2m1_plus_an_e8m0_scale_per_32():
    # 0.5 + 1/32 = 0.53125 bytes per weight: 6,979,321,856 x 0.53125 + 2,101,878,784 = 5,809,643,520
    assert LINEARS == 6_979_321_856
    assert _weights("mxfp4") == LINEARS * (0.5 + 1 / 32) + SIXTEEN_BIT == 5_809_643_520


def test_nvfp4_is_e2m1_plus_an_e4m3_scale_per_16_and_an_fp32_per_tensor():
    # 0.5 + 1/16 = 0.5625 bytes per weight + 4 bytes per matrix (the request's 6,027,747,328 + 896)
    assert _weights("nvfp4") == LINEARS * (0.5 + 1 / 16) + SIXTEEN_BIT + 4 * MATRICES == 6_027_748_224


def test_aliases():
    assert _weights("NV-FP4") == _weights("nvfp4")
    assert _weights("mx_fp4") == _weights("mxfp4")


def test_the_breakdown_note_names_the_format():
    from quizapp.memory import breakdown
    from quizapp.words.calc import render

    b = breakdown(setup_from_options({"model": "llama-3.1-8b", "method": "inference", "weights": "mxfp4"}))
    note = render(b.term("weights").code, "en")
    assert "MXFP4" in note and "4.25 bits" in note
    assert "MXFP4" in render(b.term("weights").code, "zh")
    assert b.term("weights").substituted.startswith("(0.5 + 1/32) × 6,979,321,856")


@pytest.mark.parametrize("fmt", ["mxfp4", "nvfp4"])
def test_training_refuses_them_like_any_quantized_format(fmt):
    from quizapp.memory import SetupError

    with pytest.raises(SetupError, match="weights: "):
        setup_from_options({"model": "llama-3.1-8b", "weights": fmt})
