"""Kernel validation, peak FLOP/s and ridge per dtype, attention FLOPs, and the figures' value()/as_dict()
(memory-model.md section 17): every refusal's field and exact one-line message, the accepted boundary
inputs, and every expected number hand-derived (the arithmetic is written beside it), never a call of
the code under test. Each test names the mutmut survivors of
benchmarks/mutation/memory-serving.survivors.txt it kills (prefix quizapp.memory.kernels. left out)."""

from __future__ import annotations

import pytest

from quizapp.memory import GPUS
from quizapp.memory.gpus import GB, PCIE4_X16, GPU
from quizapp.memory.kernels import (Kernel, KernelError, KernelFigures, attention_flops, kernel_figures,
                                    peak_flops, ridge_point)

A100, H100, B200, L40S = GPUS["a100-80g"], GPUS["h100-80g"], GPUS["b200"], GPUS["l40s"]
# a card without a published FP32 rate (no preset lacks one: every preset has fp32_tflops > 0)
NO_FP32 = GPU("test-card", 16 * GB, 100.0, 1000 * GB, PCIE4_X16, "a card without an FP32 rate")


def refused(make, field: str, message: str) -> None:
    """`make()` raises KernelError (not a TypeError or AttributeError) with this field and message, and
    its text is the one line `field: message`."""
    with pytest.raises(KernelError) as info:
        make()
    err = info.value
    assert err.field == field
    assert err.message == message
    assert str(err) == f"{field}: {message}" and "\n" not in str(err)
    assert err.args == (f"{field}: {message}",)


# --- KernelError ------------------------------------------------------------------------------------
def test_kernel_error_text_is_field_colon_message():
    # kills xǁKernelErrorǁ__init____mutmut_1 (super().__init__(None): str(err) would be "None")
    err = KernelError("shape", "a gemm needs shape [m, n, k] of positive integers, got None")
    assert str(err) == "shape: a gemm needs shape [m, n, k] of positive integers, got None"
    assert err.field == "shape" and err.message == "a gemm needs shape [m, n, k] of positive integers, got None"
    assert isinstance(err, ValueError)


# --- kind and dtype -----------------------------------------------------------------------------------
def test_unknown_kind_is_refused_with_the_kinds_listed():
    # kills xǁKernelǁ__post_init____mutmut_2, 3, 4, 5, 6, 7 (field None / message None / one argument /
    # no message / "XXkernelXX" / "KERNEL") and 8, 9 (join(None) raises TypeError; "XX | XX" separator)
    refused(lambda: Kernel("conv"), "kernel", "expected gemm | elementwise | attention, got 'conv'")
    refused(lambda: Kernel("GEMM", shape=(1, 1, 1)), "kernel", "expected gemm | elementwise | attention, got 'GEMM'")


def test_unknown_dtype_is_refused_with_the_dtypes_listed():
    # kills xǁKernelǁ__post_init____mutmut_11, 12, 13, 14, 15, 16 (field / message mutants) and
    # 17, 18 (join(None); "XX | XX" separator): DTYPE_BYTES's keys in order fp32, bf16, fp16, fp8
    refused(lambda: Kernel("gemm", dtype="int3", shape=(1, 1, 1)), "dtype",
            "expected fp32 | bf16 | fp16 | fp8, got 'int3'")
    # the dtype is checked before the shape
    refused(lambda: Kernel("gemm", dtype="fp4"), "dtype", "expected fp32 | bf16 | fp16 | fp8, got 'fp4'")


def test_every_dtype_and_kind_at_its_boundary_is_accepted():
    # the smallest valid input of each kind (all ones) passes; kills nothing alone but pins the boundary
    for dtype in ("fp32", "bf16", "fp16", "fp8"):
        assert Kernel("gemm", dtype=dtype, shape=(1, 1, 1)).dtype == dtype
    assert Kernel("elementwise", elements=1, chain=((1, 1),), chain_inputs=1, chain_outputs=1).elements == 1
    assert Kernel("attention", seq=1, head_dim=1, block_rows=1).seq == 1


# --- gemm shape ---------------------------------------------------------------------------------------
def test_gemm_shape_refusals():
    # kills xǁKernelǁ__post_init____mutmut_23 (`is None and len(...)`: len(None) raises TypeError, not
    # KernelError), 30, 31, 34, 35 (field None / message None / "XXshapeXX" / "SHAPE")
    msg = "a gemm needs shape [m, n, k] of positive integers, got "
    refused(lambda: Kernel("gemm"), "shape", msg + "None")
    refused(lambda: Kernel("gemm", shape=(1, 2)), "shape", msg + "(1, 2)")
    refused(lambda: Kernel("gemm", shape=(1, 2, 3, 4)), "shape", msg + "(1, 2, 3, 4)")
    refused(lambda: Kernel("gemm", shape=(1, -1, 1)), "shape", msg + "(1, -1, 1)")
    refused(lambda: Kernel("gemm", shape=(1, 1, 1.0)), "shape", msg + "(1, 1, 1.0)")
    refused(lambda: Kernel("gemm", shape=(True, 1, 1)), "shape", msg + "(True, 1, 1)")


def test_zero_is_not_positive():
    # kills x__positive__mutmut_4 (x >= 0 would accept a zero dimension, a zero element count, a zero pair
    # entry, zero chain inputs, a zero sequence)
    msg = "a gemm needs shape [m, n, k] of positive integers, got "
    refused(lambda: Kernel("gemm", shape=(4096, 0, 4096)), "shape", msg + "(4096, 0, 4096)")
    refused(lambda: Kernel("elementwise", elements=0, chain=((1, 1),)), "elements",
            "an elementwise chain needs elements E > 0, got 0")
    refused(lambda: Kernel("attention", seq=0, head_dim=64), "seq", "attention needs seq > 0, got 0")
    assert Kernel("gemm", shape=(1, 1, 1)).shape == (1, 1, 1)  # 1 is the smallest positive integer


# --- elementwise ----------------------------------------------------------------------------------------
def test_elementwise_elements_refusals():
    # kills xǁKernelǁ__post_init____mutmut_41, 42, 43, 44, 45, 46 (field None / message None / one
    # argument / no message / "XXelementsXX" / "ELEMENTS")
    msg = "an elementwise chain needs elements E > 0, got "
    refused(lambda: Kernel("elementwise", chain=((1, 1),)), "elements", msg + "0")  # the default E = 0
    refused(lambda: Kernel("elementwise", elements=-3, chain=((1, 1),)), "elements", msg + "-3")
    refused(lambda: Kernel("elementwise", elements=True, chain=((1, 1),)), "elements", msg + "True")


def test_elementwise_empty_chain_is_refused():
    # kills xǁKernelǁ__post_init____mutmut_48, 49, 50, 51, 52, 53 (field / message mutants) and 54, 55
    # (the message wrapped in XX / upper-cased)
    refused(lambda: Kernel("elementwise", elements=10), "chain",
            "an elementwise chain needs chain [[inputs, outputs], ...], one pair per op")


def test_elementwise_bad_pair_is_refused():
    # kills xǁKernelǁ__post_init____mutmut_56 (`len != 2 and any(...)` accepts [1, 0] and [1]), 62, 63,
    # 64, 65, 66, 67 (field / message mutants) and 68 (list(None) raises TypeError)
    msg = "each op is [inputs, outputs] of positive integers, got "
    refused(lambda: Kernel("elementwise", elements=10, chain=((1, 0),)), "chain", msg + "[1, 0]")
    refused(lambda: Kernel("elementwise", elements=10, chain=((1,),)), "chain", msg + "[1]")
    refused(lambda: Kernel("elementwise", elements=10, chain=((1, 1, 1),)), "chain", msg + "[1, 1, 1]")
    # the second op is checked too
    refused(lambda: Kernel("elementwise", elements=10, chain=((2, 1), (-1, 1))), "chain", msg + "[-1, 1]")


def test_elementwise_fused_inputs_and_outputs_refusals():
    # kills xǁKernelǁ__post_init____mutmut_79, 80, 81, 82 (field None / message None / one argument / no
    # message) and 83, 84, 85, 86 (getattr(None, name) / getattr(self, None) / getattr(name) /
    # getattr(self) raise AttributeError or TypeError)
    refused(lambda: Kernel("elementwise", elements=10, chain=((1, 1),), chain_inputs=0), "chain_inputs",
            "expected a positive integer, got 0")
    refused(lambda: Kernel("elementwise", elements=10, chain=((1, 1),), chain_outputs=-1), "chain_outputs",
            "expected a positive integer, got -1")


# --- attention ------------------------------------------------------------------------------------------
def test_attention_refusals_name_their_field():
    # kills xǁKernelǁ__post_init____mutmut_99, 100, 101, 102 (field None / message None / one argument /
    # no message) and 103, 104, 105, 106 (the getattr mutants raise AttributeError or TypeError)
    refused(lambda: Kernel("attention", head_dim=64), "seq", "attention needs seq > 0, got 0")
    refused(lambda: Kernel("attention", seq=1024), "head_dim", "attention needs head_dim > 0, got 0")
    refused(lambda: Kernel("attention", seq=1024, head_dim=64, block_rows=0), "block_rows",
            "attention needs block_rows > 0, got 0")
    refused(lambda: Kernel("attention", seq=1024, head_dim=-64), "head_dim", "attention needs head_dim > 0, got -64")


def test_attention_flops_full_by_default_and_halved_exactly_when_causal():
    # kills x_attention_flops__mutmut_1 (causal defaults to True: the default call would halve)
    # 4·N²·d = 4 × 4096² × 128 = 8,589,934,592
    assert attention_flops(4096, 128) == 8_589_934_592
    # causal: 4·N²·d // 2 = 4,294,967,296
    assert attention_flops(4096, 128, True) == 4_294_967_296
    # kills x_attention_flops__mutmut_9 (full / 2, a float): the count stays an exact integer.
    # N = 2^27 + 1, d = 1: 4·N²·1 / 2 = 2·(2^54 + 2^28 + 1) = 2^55 + 2^29 + 2 = 36,028,797,555,834,882,
    # which needs 55 significant bits (a float rounds it to ...880)
    exact = attention_flops(2**27 + 1, 1, True)
    assert type(exact) is int and exact == 36_028_797_555_834_882
    assert type(attention_flops(4096, 128, True)) is int
    # what `quizapp calc --kernel attention --json` prints as flops
    figures = kernel_figures(Kernel("attention", seq=2**27 + 1, head_dim=1, causal=True))
    assert figures.as_dict()["flops"] == 36_028_797_555_834_882


# --- peak FLOP/s and ridge per dtype --------------------------------------------------------------------
def test_peak_flops_per_dtype_exactly():
    # kills x_peak_flops__mutmut_26 (bf16: × 1000000000001.0 gives 312,000,000,000,312, not 312e12)
    assert peak_flops(A100, "bf16") == 312e12  # A100 datasheet: 312 TFLOPS dense bf16
    assert peak_flops(A100, "fp16") == 312e12  # fp16 runs at the same 16-bit tensor peak
    assert peak_flops(H100, "bf16") == 989.4e12  # H100 SXM: 989.4 TFLOPS dense
    # kills x_peak_flops__mutmut_24 (fp32: × 1000000000001.0 gives 19,500,000,000,019.5)
    assert peak_flops(A100, "fp32") == 19.5e12  # A100 datasheet: FP32 19.5 TFLOPS
    assert peak_flops(H100, "fp32") == 67e12  # H100 SXM datasheet: FP32 67 TFLOPS
    # kills x_peak_flops__mutmut_12 (fp8: × 1000000000001.0 adds 1,978.9 FLOP/s on H100)
    assert peak_flops(H100, "fp8") == 1978.9e12  # H100 SXM: fp8 1978.9 TFLOPS dense
    assert peak_flops(B200, "fp8") == 4500e12  # HGX B200: fp8 4.5 PFLOPS dense per GPU
    assert peak_flops(L40S, "fp8") == 733e12  # L40S: fp8 733 TFLOPS dense


def test_peak_flops_refusals():
    # kills x_peak_flops__mutmut_17, 18, 19, 20, 21, 22 (the FP32 refusal's field None / message None /
    # one argument / no message / "XXdtypeXX" / "DTYPE")
    refused(lambda: peak_flops(NO_FP32, "fp32"), "dtype",
            "test-card has no FP32 rate in its preset; expected bf16 or fp16")
    refused(lambda: peak_flops(A100, "fp8"), "dtype", "a100-80g has no fp8 tensor cores; expected bf16, fp16 or fp32")
    assert peak_flops(NO_FP32, "bf16") == 100e12  # its 16-bit peak still works: 100 TFLOPS


def test_ridge_point_per_dtype():
    # ridge_point is called by nothing in quizapp (kernel_figures and ridge_step divide inline); it is the
    # calculator's public peak / bandwidth. kills x_ridge_point__mutmut_1 (peak × bandwidth), 2
    # (peak_flops(None, ...) raises AttributeError), 3 (dtype None falls through to the bf16 peak: the
    # fp32 and fp8 ridges tell), 4, 5 (one argument: TypeError)
    assert ridge_point(A100, "bf16") == 312e12 / 2039e9  # = 153.016 FLOP/B (section 17: 153.0)
    assert ridge_point(A100, "bf16") == pytest.approx(153.016, abs=1e-3)
    assert ridge_point(A100, "fp32") == 19.5e12 / 2039e9  # = 9.5635 FLOP/B
    assert ridge_point(A100, "fp32") == pytest.approx(9.5635, abs=1e-4)
    assert ridge_point(H100, "fp8") == 1978.9e12 / 3350e9  # = 590.716 FLOP/B
    assert ridge_point(H100, "fp8") == pytest.approx(590.716, abs=1e-3)
    assert ridge_point(H100, "bf16") == pytest.approx(295.343, abs=1e-3)  # 989.4e12 / 3.35e12
    refused(lambda: ridge_point(A100, "fp8"), "dtype", "a100-80g has no fp8 tensor cores; expected bf16, fp16 or fp32")


# --- the figures: value() and as_dict() -----------------------------------------------------------------
GEMM = Kernel("gemm", shape=(4096, 4096, 4096))
GEMM_FLOPS = 137_438_953_472  # 2·m·n·k = 2 × 4096³
GEMM_BYTES = 100_663_296  # p·(m·k + k·n + m·n) = 2 × 3 × 4096²
GEMM_INTENSITY = 4096 / 3  # 2·4096³ / (6·4096²) = 1365.33 FLOP/B
A100_RIDGE = 312e12 / 2039e9  # 153.016 FLOP/B
GEMM_TIME = 137_438_953_472 / 312e12  # compute-bound: 4.405e-4 s > 100,663,296 / 2.039e12 = 4.94e-5 s


def test_as_dict_of_a_gemm_on_a100():
    # what `quizapp calc --kernel gemm --shape 4096,4096,4096 --gpu a100-80g --json` prints under "kernel"
    # kills xǁKernelFiguresǁas_dict__mutmut_1..14 (each renamed key; _plain(None) raises TypeError)
    out = kernel_figures(GEMM, A100).as_dict()
    assert out == {"flops": GEMM_FLOPS, "bytes": GEMM_BYTES, "intensity": GEMM_INTENSITY, "ridge": A100_RIDGE,
                   "time_s": GEMM_TIME, "bound": "compute"}
    assert list(out) == ["flops", "bytes", "intensity", "ridge", "time_s", "bound"]
    assert type(out["flops"]) is int and type(out["bytes"]) is int


def test_as_dict_of_a_gemm_without_a_gpu():
    # no GPU: no ridge, no time, no bound (kills the same renamed-key as_dict mutants)
    out = kernel_figures(GEMM).as_dict()
    assert out == {"flops": GEMM_FLOPS, "bytes": GEMM_BYTES, "intensity": GEMM_INTENSITY, "ridge": None,
                   "time_s": None, "bound": None}


def test_as_dict_writes_whole_float_counts_as_integers_below_2_to_62():
    # KernelFigures.flops/bytes are typed float; as_dict writes a whole one as a JSON integer, a fractional
    # one or one at or above 2^62 as it is. kills x__plain__mutmut_1 (never int: 2.0 stays 2.0), 2 (always
    # int: 2.5 -> 2), 3 (int(None)), 4 (`or`: 2.5 -> 2), 5 (float(None)), 6 (abs(None)), 7 (<= 2^62:
    # 2.0**62 -> int), 8 (< 2·62 = 124: 1024.0 stays a float), 9 (< 3^62) and 10 (< 2^63): 2.0**62 -> int
    def figures(flops: float, nbytes: float) -> dict[str, object]:
        return KernelFigures(flops, nbytes, 0.5, None, None, None, None, None, ()).as_dict()

    out = figures(2.0, 2.5)
    assert type(out["flops"]) is int and out["flops"] == 2
    assert type(out["bytes"]) is float and out["bytes"] == 2.5
    out = figures(2.0**62, 1024.0)
    assert type(out["flops"]) is float and out["flops"] == 4_611_686_018_427_387_904.0  # 2^62
    assert type(out["bytes"]) is int and out["bytes"] == 1024
    out = figures(2.0**62 - 1024, 0.0)  # a whole float just below 2^62 (floats there are 512 apart)
    assert type(out["flops"]) is int and out["flops"] == 4_611_686_018_427_386_880  # 2^62 - 1024
    assert type(out["bytes"]) is int and out["bytes"] == 0
    out = figures(-3.0, -2.5)  # the rule is on |x|
    assert type(out["flops"]) is int and out["flops"] == -3
    assert out["bytes"] == -2.5 and type(out["bytes"]) is float


def test_value_per_ask_of_a_gemm_on_a100_and_without_a_gpu():
    # value() is called by nothing in quizapp: the figure an ask names. kills xǁKernelFiguresǁvalue__mutmut_1
    # .. 12 (each renamed key raises KeyError for its ask)
    on = kernel_figures(GEMM, A100)
    assert on.value("kernel_flops") == GEMM_FLOPS
    assert on.value("kernel_bytes") == GEMM_BYTES
    assert on.value("intensity") == GEMM_INTENSITY
    assert on.value("ridge") == A100_RIDGE
    assert on.value("kernel_time") == GEMM_TIME
    assert on.value("fusion_saving") is None  # a gemm has no fused/unfused pair
    off = kernel_figures(GEMM)
    assert [off.value(a) for a in ("kernel_flops", "kernel_bytes", "intensity")] == [GEMM_FLOPS, GEMM_BYTES,
                                                                                     GEMM_INTENSITY]
    assert off.value("ridge") is None and off.value("kernel_time") is None and off.value("fusion_saving") is None
    with pytest.raises(KeyError):
        on.value("weights")


def test_value_of_an_elementwise_chain():
    # three 1-in 1-out ops on E = 2^24 bf16 elements: unfused Σ(in + out)·E·p = 6 × 2^24 × 2 = 201,326,592;
    # fused (1 + 1) × 2^24 × 2 = 67,108,864; saving 3.0; FLOPs 0; intensity 0 / 67,108,864 = 0.0
    figures = kernel_figures(Kernel("elementwise", elements=2**24, chain=((1, 1), (1, 1), (1, 1))), H100)
    assert figures.value("fusion_saving") == 3.0
    assert figures.value("kernel_bytes") == 67_108_864
    assert figures.value("kernel_flops") == 0
    assert figures.value("intensity") == 0.0
    assert figures.value("kernel_time") == 67_108_864 / 3350e9  # memory-bound: bytes / 3.35e12 B/s
