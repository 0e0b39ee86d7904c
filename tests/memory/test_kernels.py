"""Kernel arithmetic (memory-model.md section 17): every expected value is the spec's formula with the
numbers written out, never a call of the code under test."""

from __future__ import annotations

import math

import pytest

from quizapp.memory import GPUS, SetupError, diagnose, evaluate
from quizapp.memory import setup_from_options as opts
from quizapp.memory.asks import derive
from quizapp.memory.conventions import convention_value
from quizapp.memory.kernels import Kernel, KernelError, kernel_figures, peak_flops
from quizapp.words import say
from quizapp.words.calc import render

A100, H100 = GPUS["a100-80g"], GPUS["h100-80g"]


def test_ridge_points_of_the_spec():
    # section 17: A100 80GB bf16 312e12 / 2.039e12 = 153.0; H100 SXM 989.4e12 / 3.35e12 = 295.3
    assert evaluate(opts({"dtype": "bf16", "gpu": "a100-80g"}), "ridge") == pytest.approx(153.0, abs=0.05)
    assert evaluate(opts({"dtype": "bf16", "gpu": "h100-80g"}), "ridge") == pytest.approx(295.3, abs=0.05)
    # fp8 doubles the peak on H100 (1978.9 TFLOP/s, datasheet): 1978.9e12 / 3.35e12 = 590.7
    assert evaluate(opts({"dtype": "fp8", "gpu": "h100"}), "ridge") == pytest.approx(1978.9e12 / 3.35e12)
    # fp32 runs on the CUDA cores: A100 datasheet FP32 19.5 TFLOPS -> 19.5e12 / 2.039e12 = 9.56
    assert evaluate(opts({"dtype": "fp32", "gpu": "a100-80g"}), "ridge") == pytest.approx(19.5e12 / 2.039e12)


def test_every_preset_has_a_dense_fp32_rate_below_its_tensor_peak():
    for gpu in GPUS.values():
        assert 0 < gpu.fp32_tflops < gpu.bf16_tflops, gpu.name


def test_fp8_on_a_card_without_it_is_refused_in_one_line():
    with pytest.raises(SetupError) as info:
        evaluate(opts({"dtype": "fp8", "gpu": "a100-80g"}), "ridge")
    assert info.value.field == "dtype" and "no fp8" in info.value.message and "\n" not in str(info.value)
    with pytest.raises(KernelError):
        peak_flops(GPUS["v100-32g"], "fp8")


def test_gemm_square_bf16_on_a100():
    s = opts({"kernel": "gemm", "shape": [4096, 4096, 4096], "gpu": "a100-80g"})
    flops = 2 * 4096 * 4096 * 4096  # 2·m·n·k = 137,438,953,472
    nbytes = 2 * (4096 * 4096 * 3)  # p·(m·k + k·n + m·n) = 100,663,296
    assert evaluate(s, "kernel_flops") == flops == 137_438_953_472
    assert evaluate(s, "kernel_bytes") == nbytes == 100_663_296
    assert evaluate(s, "intensity") == pytest.approx(flops / nbytes)  # 1365.3 FLOP/B, far above 153
    # compute-bound: 137,438,953,472 / 312e12 = 4.405e-4 s > 100,663,296 / 2.039e12 = 4.94e-5 s
    assert evaluate(s, "kernel_time") == pytest.approx(flops / 312e12)
    assert kernel_figures(s.kernel, A100).bound == "compute"


def test_decode_gemv_is_memory_bound_at_about_one_flop_per_byte():
    # m = 1 token, a 4096 x 4096 weight in bf16: I ≈ 2·b/p = 1
    s = opts({"kernel": "gemm", "shape": "1,4096,4096", "gpu": "a100-80g"})
    flops = 2 * 1 * 4096 * 4096  # 33,554,432
    nbytes = 2 * (1 * 4096 + 4096 * 4096 + 1 * 4096)  # 33,570,816
    assert evaluate(s, "kernel_bytes") == nbytes
    assert evaluate(s, "intensity") == pytest.approx(flops / nbytes) == pytest.approx(1.0, abs=1e-3)
    assert evaluate(s, "kernel_time") == pytest.approx(nbytes / 2.039e12)  # memory-bound
    assert kernel_figures(s.kernel, A100).bound == "memory"
    # the ridge is reached near b = p · ridge / 2 = 2 · 153 / 2 = 153 tokens
    s153 = opts({"kernel": "gemm", "shape": [153, 4096, 4096], "gpu": "a100-80g"})
    assert evaluate(s153, "intensity") == pytest.approx(2 * 153 * 4096 * 4096 / (2 * (153 * 4096 * 2 + 4096 * 4096)))


def test_standard_attention_io_per_head_and_sequence():
    s = opts({"kernel": "attention", "seq": 4096, "head_dim": 128, "gpu": "h100"})
    # p·(4·N·d + 4·N²) = 2·(4·4096·128 + 4·4096²) = 2·(2,097,152 + 67,108,864) = 138,412,032
    assert evaluate(s, "kernel_bytes") == 138_412_032
    # 4·N²·d = 4·4096²·128 = 8,589,934,592
    assert evaluate(s, "kernel_flops") == 8_589_934_592
    assert evaluate(s, "intensity") == pytest.approx(8_589_934_592 / 138_412_032)  # 62.1 < 295: memory-bound
    assert evaluate(s, "kernel_time") == pytest.approx(138_412_032 / 3.35e12)


def test_flash_attention_2_io_and_the_causal_convention():
    s = opts({"kernel": "attention", "seq": 4096, "head_dim": 128, "flash": True, "block_rows": 128, "gpu": "h100"})
    # p·(2·N·d + 2·⌈N/B_r⌉·N·d) + 4·N = 2·(2·4096·128 + 2·32·4096·128) + 4·4096 = 69,222,400
    assert evaluate(s, "kernel_bytes") == 2 * (2 * 4096 * 128 + 2 * 32 * 4096 * 128) + 4 * 4096 == 69_222_400
    # B_r = 64 reads K and V 64 times: 2·(2·4096·128 + 2·64·4096·128) + 4·4096
    s64 = opts({"kernel": "attention", "seq": 4096, "head_dim": 128, "flash": True, "block_rows": 64})
    assert evaluate(s64, "kernel_bytes") == 2 * (2 * 4096 * 128 + 2 * 64 * 4096 * 128) + 4 * 4096
    causal = opts({"kernel": "attention", "seq": 4096, "head_dim": 128, "flash": True, "attention_flops": "causal"})
    assert evaluate(causal, "kernel_flops") == 4 * 4096**2 * 128 // 2  # half of 4·N²·d
    # section 19: a full count is graded under the causal convention (and vice versa)
    options = {"kernel": "attention", "seq": 4096, "head_dim": 128, "flash": True}
    assert convention_value(options, "kernel_flops", "causal") == 4 * 4096**2 * 128 / 2


def test_attention_worked_solution_names_dao_and_the_backward():
    d = derive(opts({"kernel": "attention", "seq": 2048, "head_dim": 64, "flash": True}), "kernel_bytes")
    text = " ".join(render(n, "en") for n in (*d.notes, *(s.note for s in d.steps)))
    assert "Dao et al. 2022" in text and "backward" in text and "recomputes S and P" in text
    zh = " ".join(render(n, "zh") for n in d.notes)
    assert "Dao et al. 2022" in zh and "backward" in zh and "重算 S 和 P" in zh
    assert d.steps[-1].name == "kernel_bytes" and d.steps[-1].formula == "p·(2·N·d + 2·⌈N/B_r⌉·N·d) + 4·N"


def test_elementwise_chain_fused_and_unfused():
    # bias add, GELU, dropout: 3 ops of one input and one output on E = 2^24 bf16 elements
    s = opts({"kernel": "elementwise", "elements": 2**24, "chain": [[1, 1], [1, 1], [1, 1]], "gpu": "h100"})
    unfused = (2 + 2 + 2) * 2**24 * 2  # Σ (in + out)·E·p = 201,326,592
    fused = (1 + 1) * 2**24 * 2  # (distinct inputs + final outputs)·E·p = 67,108,864
    assert evaluate(s, "fusion_saving") == pytest.approx(unfused / fused) == pytest.approx(3.0)
    assert evaluate(s, "kernel_bytes") == fused
    assert evaluate(opts({"kernel": "elementwise", "elements": 2**24, "chain": "1:1,1:1,1:1", "fused": False}),
                    "kernel_bytes") == unfused
    assert evaluate(s, "kernel_flops") == 0 and evaluate(s, "kernel_time") == pytest.approx(fused / 3.35e12)
    # a residual add reads two tensors: [[2, 1]] then a norm [[1, 1]]; fused reads x and the residual once
    s2 = opts({"kernel": "elementwise", "elements": 1000, "chain": [[2, 1], [1, 1]], "chain_inputs": 2})
    assert evaluate(s2, "fusion_saving") == pytest.approx(((2 + 1) + (1 + 1)) / (2 + 1))


def test_bad_kernel_inputs_name_their_key():
    cases = [
        ({"kernel": "gemm"}, "shape"),
        ({"kernel": "gemm", "shape": [1, 2]}, "shape"),
        ({"kernel": "gemm", "shape": [4096, 0, 4096]}, "shape"),
        ({"kernel": "attention", "seq": 1024}, "head_dim"),
        ({"kernel": "attention", "seq": 1024, "head_dim": 64, "block_rows": 64}, "block_rows"),
        ({"kernel": "elementwise", "elements": 10, "chain": "1;1"}, "chain"),
        ({"kernel": "conv", "shape": [1, 1, 1]}, "kernel"),
        ({"kernel": "gemm", "shape": [1, 1, 1], "dtype": "int3"}, "dtype"),
        ({"shape": [1, 1, 1], "model": "7B"}, "shape"),
        ({"kernel": "gemm", "shape": [1, 1, 1], "chain": "1:1"}, "chain"),
    ]
    for options, field in cases:
        with pytest.raises(SetupError) as info:
            opts(options)
        assert info.value.field == field, options
    with pytest.raises(SetupError) as info:
        evaluate(opts({"kernel": "gemm", "shape": [1, 1, 1]}), "kernel_time")
    assert info.value.field == "gpu"
    with pytest.raises(SetupError) as info:
        evaluate(opts({"kernel": "gemm", "shape": [1, 1, 1]}), "fusion_saving")
    assert info.value.field == "kernel"
    with pytest.raises(SetupError) as info:  # a kernel setup has no model to ask about
        evaluate(opts({"kernel": "gemm", "shape": [1, 1, 1]}), "weights")
    assert info.value.field == "model"
    with pytest.raises(KernelError):
        Kernel("gemm", shape=(1, -1, 1))


def test_forgetting_the_score_round_trip_is_named():
    s = opts({"kernel": "attention", "seq": 4096, "head_dim": 128})
    # p·4·N·d = 2·4·4096·128 = 4,194,304: standard attention without S and P through HBM
    found = diagnose(s, "kernel_bytes", 4.2e6)
    assert found is not None and found[0].id == "attention-no-scores"
    assert found[1] == 2 * 4 * 4096 * 128
    assert say("attention-no-scores", "zh") != "attention-no-scores"
    # FlashAttention never writes S or P: the mistake does not apply
    assert diagnose(opts({"kernel": "attention", "seq": 4096, "head_dim": 128, "flash": True}),
                    "kernel_bytes", 4.2e6) is None


def test_derivations_end_with_the_asked_step():
    s = opts({"kernel": "gemm", "shape": [4096, 4096, 4096], "gpu": "a100-80g"})
    for ask in ("kernel_flops", "kernel_bytes", "intensity", "ridge", "kernel_time"):
        d = derive(s, ask)
        assert d.steps[-1].name == ask and math.isclose(d.value, evaluate(s, ask))
        for step in d.steps:  # words in both languages for every row and note
            assert say(f"solution.row.{step.name}", "en") != f"solution.row.{step.name}"
            assert render(step.note, "zh") and render(step.note, "en")
    assert [st.name for st in derive(s, "kernel_time").steps] == [
        "kernel_flops", "kernel_bytes", "intensity", "ridge", "kernel_time"]


def test_bandwidth_efficiency_scales_the_memory_side():
    # section 13's bandwidth_efficiency: bytes / (bandwidth · 0.8) for the memory-bound GEMV
    s = opts({"kernel": "gemm", "shape": [1, 4096, 4096], "gpu": "a100-80g", "bandwidth_efficiency": 0.8})
    assert evaluate(s, "kernel_time") == pytest.approx(2 * (4096 + 4096 * 4096 + 4096) / (2.039e12 * 0.8))
