"""The worked solution of a kernel (memory-model.md section 17), step by step: every step's name, value,
kind, formula, substituted arithmetic and note (key and arguments), for GEMMs, GEMVs, elementwise chains
and attention (standard, FlashAttention-2, the naive-scores mistake; causal or not), with and without a
GPU and a bandwidth efficiency. Every expected value is hand-derived (the arithmetic is written beside
it), never a call of the code under test. Each test names the mutmut survivors of
benchmarks/mutation/memory-serving.survivors.txt it kills (prefix quizapp.memory.kernels. left out)."""

from __future__ import annotations

import pytest

from quizapp.memory import GPUS
from quizapp.memory import setup_from_options as opts
from quizapp.memory.asks import derive
from quizapp.memory.kernels import (Kernel, KernelError, _num, derive_kernel, kernel_figures,
                                    setup_kernel_figures)
from quizapp.memory.notes import Note

A100, H100 = GPUS["a100-80g"], GPUS["h100-80g"]


def N(key: str, *args: tuple[str, object]) -> Note:
    """A note written out as the tuple it is: (key, ((name, value), ...))."""
    return Note(key, tuple(args))


def parts(*notes: Note) -> Note:
    """Two notes joined (what `a + b` makes): the empty key with the `parts` argument."""
    return Note("", (("parts", tuple(notes)),))


ROOFLINE = N("kernel.note.roofline")
DAO_BACKWARD = N("kernel.note.dao_backward")
INTENSITY_NOTE = N("kernel.note.intensity")


def assert_steps(steps, expected) -> None:
    """Each step is (name, value, kind, formula, substituted, note); values compared to 1e-12."""
    assert [s.name for s in steps] == [e[0] for e in expected]
    for step, (name, value, kind, formula, substituted, code) in zip(steps, expected):
        assert isinstance(step.value, (int, float)), name
        assert step.value == pytest.approx(value, rel=1e-12, abs=1e-300), name
        assert (step.kind, step.formula, step.substituted, step.note, step.unit) == (
            kind, formula, substituted, code, ""), name


# --- a GEMM on a GPU, compute-bound ----------------------------------------------------------------------
# 2·m·n·k = 2 × 2,048 × 11,008 × 4,096 = 184,683,593,728
GEMM_FLOPS = ("kernel_flops", 184_683_593_728, "flops", "2·m·n·k", "2 × 2,048 × 11,008 × 4,096",
              N("kernel.note.gemm_flops", ("m", 2048), ("n", 11008), ("k", 4096)))
# p·(m·k + k·n + m·n) = 2 × (8,388,608 + 45,088,768 + 22,544,384) = 2 × 76,021,760 = 152,043,520
GEMM_BYTES = ("kernel_bytes", 152_043_520, "bytes", "p·(m·k + k·n + m·n)",
              "2 × (2,048·4,096 + 4,096·11,008 + 2,048·11,008)",
              N("kernel.note.gemm_bytes", ("dtype", "bf16"), ("p", 2)))  # m = 2,048 > 64: no GEMV note
GEMM_INTENSITY = ("intensity", 184_683_593_728 / 152_043_520, "number", "FLOPs / bytes",  # = 1,214.68 FLOP/B
                  "184,683,593,728 / 152,043,520", INTENSITY_NOTE)
# 312e12 / 2.039e12 = 153.016 FLOP/B; each written with 4 significant digits
A100_BF16_RIDGE = ("ridge", 312e12 / 2.039e12, "number", "peak / bandwidth", "3.12e+14 / 2.039e+12",
                   N("kernel.note.ridge", ("gpu", "a100-80g"), ("dtype", "bf16")))
# compute 184,683,593,728 / 312e12 = 5.919e-4 s > memory 152,043,520 / 2.039e12 = 7.457e-5 s: compute-bound
GEMM_TIME = ("kernel_time", 184_683_593_728 / 312e12, "seconds", "max(FLOPs / peak, bytes / bandwidth)",
             "max(184,683,593,728 / 3.12e+14, 152,043,520 / 2.039e+12)",
             N("kernel.note.time", ("bound", N("kernel.note.bound_compute")), ("compute", "0.0005919"),
               ("memory", "7.457e-05")))


def test_gemm_on_a100_every_step_and_figure():
    # kills x__step__mutmut_3, 5 (kind, substituted); x_kernel_figures__mutmut_30, 31, 40, 41, 50, 51 (the
    # gemm FLOPs formula, arithmetic and note key), 53 (no GEMV note when it applies: see the GEMV test),
    # 54 (a GEMV note on m = 2,048), 66, 67, 76, 77, 85, 86 (the gemm bytes formula, arithmetic, note key),
    # 377, 378, 387, 388, 389, 393, 394 (the intensity step), 405, 409, 410, 419, 420, 429, 430 (the ridge
    # step), 449, 450 (efficiency 1 takes the plain formula), 459, 460, 461, 467, 468, 487, 488, 489 (the
    # time step), 490-496 (the figures)
    s = opts({"kernel": "gemm", "shape": [2048, 11008, 4096], "gpu": "a100-80g"})
    figures = setup_kernel_figures(s)
    assert_steps(figures.steps, [GEMM_FLOPS, GEMM_BYTES, GEMM_INTENSITY, A100_BF16_RIDGE, GEMM_TIME])
    assert figures.flops == 184_683_593_728 and figures.bytes == 152_043_520
    assert figures.intensity == pytest.approx(184_683_593_728 / 152_043_520)
    assert figures.ridge == pytest.approx(312e12 / 2.039e12)  # 153.0
    assert figures.compute_s == pytest.approx(184_683_593_728 / 312e12)  # 5.919e-4 s
    assert figures.memory_s == pytest.approx(152_043_520 / 2.039e12)  # 7.457e-5 s
    assert figures.time_s == pytest.approx(184_683_593_728 / 312e12)
    assert figures.bound == "compute"
    # a GEMM has no elementwise figures: both None (the CLI's JSON tests `is not None`) -- kills mutmut_6
    assert figures.unfused_bytes is None and figures.fused_bytes is None and figures.fusion_saving is None


def test_gemm_derivations_show_the_steps_of_each_ask():
    # kills x_derive_kernel__mutmut_41, 42 (the roofline note key), 51 (the derivation's ask)
    s = opts({"kernel": "gemm", "shape": [2048, 11008, 4096], "gpu": "a100-80g"})
    shown = {
        "kernel_flops": [GEMM_FLOPS],
        "kernel_bytes": [GEMM_BYTES],
        "intensity": [GEMM_FLOPS, GEMM_BYTES, GEMM_INTENSITY],
        "ridge": [A100_BF16_RIDGE],
        "kernel_time": [GEMM_FLOPS, GEMM_BYTES, GEMM_INTENSITY, A100_BF16_RIDGE, GEMM_TIME],
    }
    for ask, expected in shown.items():
        d = derive(s, ask)
        assert d.ask == ask
        assert_steps(d.steps, expected)
        assert d.notes == (ROOFLINE,)  # a GEMM: no FlashAttention backward note


def test_kernel_figures_defaults_are_full_bandwidth_and_the_real_score_traffic():
    # kills x_kernel_figures__mutmut_1 (default bandwidth_efficiency 2.0) and 2 (default naive_scores True)
    gemm = Kernel("gemm", shape=(2048, 11008, 4096))
    figures = kernel_figures(gemm, A100)
    assert figures.memory_s == pytest.approx(152_043_520 / 2.039e12)  # bytes / bandwidth, no efficiency
    assert_steps(figures.steps, [GEMM_FLOPS, GEMM_BYTES, GEMM_INTENSITY, A100_BF16_RIDGE, GEMM_TIME])
    # standard attention: p·(4·N·d + 4·N²) = 2 × (2,097,152 + 67,108,864) = 138,412,032, not p·4·N·d
    assert kernel_figures(Kernel("attention", seq=4096, head_dim=128)).bytes == 138_412_032


def test_kernel_figures_without_a_gpu_stop_at_the_intensity():
    # kills x_kernel_figures__mutmut_395 (ridge/time "" instead of None), 396 (bound "" instead of None)
    figures = kernel_figures(Kernel("gemm", shape=(2048, 11008, 4096)))
    assert_steps(figures.steps, [GEMM_FLOPS, GEMM_BYTES, GEMM_INTENSITY])
    assert figures.ridge is None and figures.time_s is None
    assert figures.compute_s is None and figures.memory_s is None and figures.bound is None
    assert figures.value("ridge") is None and figures.value("kernel_time") is None
    assert figures.as_dict() == {"flops": 184_683_593_728, "bytes": 152_043_520,
                                 "intensity": pytest.approx(184_683_593_728 / 152_043_520), "ridge": None,
                                 "time_s": None, "bound": None}


# --- a decode GEMV in fp32 at 80 % of the bandwidth -----------------------------------------------------
def test_fp32_gemv_with_bandwidth_efficiency_every_step():
    # kills x_kernel_figures__mutmut_53 (the GEMV note dropped), 55, 56, 58, 59, 60 (its key and b), 400
    # (the peak of dtype None is the bf16 one: 312e12 instead of the fp32 19.5e12), 449 (efficiency 0.8
    # takes the plain formula), 451, 452, 453, 454 (the efficiency formula), 455 (its memory arithmetic)
    s = opts({"kernel": "gemm", "shape": [1, 4096, 4096], "dtype": "fp32", "gpu": "a100-80g",
              "bandwidth_efficiency": 0.8})
    figures = setup_kernel_figures(s)
    gemv_bytes = parts(N("kernel.note.gemm_bytes", ("dtype", "fp32"), ("p", 4)), N("kernel.note.gemv", ("b", 1)))
    assert_steps(figures.steps, [
        ("kernel_flops", 33_554_432, "flops", "2·m·n·k", "2 × 1 × 4,096 × 4,096",  # 2·1·4096·4096
         N("kernel.note.gemm_flops", ("m", 1), ("n", 4096), ("k", 4096))),
        # 4 × (1·4096 + 4096·4096 + 1·4096) = 4 × 16,785,408 = 67,141,632
        ("kernel_bytes", 67_141_632, "bytes", "p·(m·k + k·n + m·n)", "4 × (1·4,096 + 4,096·4,096 + 1·4,096)",
         gemv_bytes),
        # 33,554,432 / 67,141,632 = 0.49976: I ≈ 2·b/p = 2·1/4
        ("intensity", 33_554_432 / 67_141_632, "number", "FLOPs / bytes", "33,554,432 / 67,141,632",
         INTENSITY_NOTE),
        # fp32 runs at the A100's 19.5 TFLOP/s: 19.5e12 / 2.039e12 = 9.5635
        ("ridge", 19.5e12 / 2.039e12, "number", "peak / bandwidth", "1.95e+13 / 2.039e+12",
         N("kernel.note.ridge", ("gpu", "a100-80g"), ("dtype", "fp32"))),
        # compute 33,554,432 / 19.5e12 = 1.721e-6 s < memory 67,141,632 / (2.039e12 × 0.8) = 4.116e-5 s
        ("kernel_time", 67_141_632 / (2.039e12 * 0.8), "seconds",
         "max(FLOPs / peak, bytes / (bandwidth·efficiency))",
         "max(33,554,432 / 1.95e+13, 67,141,632 / (2.039e+12 × 0.8))",
         N("kernel.note.time", ("bound", N("kernel.note.bound_memory")), ("compute", "1.721e-06"),
           ("memory", "4.116e-05"))),
    ])
    assert figures.bound == "memory"
    assert figures.compute_s == pytest.approx(33_554_432 / 19.5e12)
    assert figures.memory_s == pytest.approx(67_141_632 / (2.039e12 * 0.8))


def test_the_gemv_note_stops_after_64_tokens():
    # kills x_kernel_figures__mutmut_61 (m < 64 drops the note at m = 64), 62 (m <= 65 adds it at m = 65)
    at64 = kernel_figures(Kernel("gemm", shape=(64, 4096, 4096)))
    assert_steps(at64.steps[1:2], [
        # 2 × (64·4096 + 4096·4096 + 64·4096) = 2 × 17,301,504 = 34,603,008
        ("kernel_bytes", 34_603_008, "bytes", "p·(m·k + k·n + m·n)", "2 × (64·4,096 + 4,096·4,096 + 64·4,096)",
         parts(N("kernel.note.gemm_bytes", ("dtype", "bf16"), ("p", 2)), N("kernel.note.gemv", ("b", 64))))])
    at65 = kernel_figures(Kernel("gemm", shape=(65, 4096, 4096)))
    assert_steps(at65.steps[1:2], [
        # 2 × (65·4096 + 4096·4096 + 65·4096) = 2 × 17,309,696 = 34,619,392
        ("kernel_bytes", 34_619_392, "bytes", "p·(m·k + k·n + m·n)", "2 × (65·4,096 + 4,096·4,096 + 65·4,096)",
         N("kernel.note.gemm_bytes", ("dtype", "bf16"), ("p", 2)))])


def test_a_tie_between_compute_and_memory_counts_as_memory_bound():
    # kills x_kernel_figures__mutmut_446 (>= calls the tie compute-bound)
    # 1/m + 1/n + 1/k = 2039/312000 makes FLOPs / peak equal bytes / bandwidth exactly on the A100:
    # FLOPs = 2·154·33000·87360 = 887,927,040,000; bytes = 2 × (13,453,440 + 2,882,880,000 + 5,082,000)
    # = 5,802,830,880; 887,927,040,000 × 2,039 = 5,802,830,880 × 312,000 = 1,810,483,234,560,000
    figures = kernel_figures(Kernel("gemm", shape=(154, 33000, 87360)), A100)
    assert figures.flops == 887_927_040_000 and figures.bytes == 5_802_830_880
    assert figures.compute_s == figures.memory_s  # 887,927,040,000 / 312e12 = 2.846e-3 s, both
    assert figures.bound == "memory"
    assert figures.steps[-1].note == N("kernel.note.time", ("bound", N("kernel.note.bound_memory")),
                                       ("compute", "0.002846"), ("memory", "0.002846"))


def test_flops_of_10_to_the_18_are_written_with_4_significant_digits():
    # kills x__num__mutmut_1 (or: 10^18 written in full), 4 (<= 1e18 writes it in full), 9 (abs(None))
    # 2·10^6·10^6·5·10^5 = 10^18 FLOPs; 2 × (5e11 + 5e11 + 1e12) = 4e12 bytes; I = 250,000
    figures = kernel_figures(Kernel("gemm", shape=(1_000_000, 1_000_000, 500_000)))
    assert figures.flops == 10**18
    assert_steps(figures.steps[2:], [("intensity", 250_000, "number", "FLOPs / bytes", "1e+18 / 4,000,000,000,000",
                                      INTENSITY_NOTE)])


# --- an elementwise chain on an H100 ---------------------------------------------------------------------
# a residual add [2, 1] then a norm [1, 1] over E = 3,000,000 bf16 elements; fused: 2 inputs, 1 output
EW = {"kernel": "elementwise", "elements": 3_000_000, "chain": [[2, 1], [1, 1]], "chain_inputs": 2,
      "chain_outputs": 1, "gpu": "h100"}
EW_UNFUSED = ("unfused_bytes", 30_000_000, "bytes", "Σ(in + out)·E·p",  # (3 + 2) × 3,000,000 × 2
              "((2 + 1) + (1 + 1)) × 3,000,000 × 2", N("kernel.note.unfused", ("ops", 2)))
EW_FUSED = ("fused_bytes", 18_000_000, "bytes", "(in_fused + out_fused)·E·p",  # 3 × 3,000,000 × 2
            "(2 + 1) × 3,000,000 × 2", N("kernel.note.fused", ("inputs", 2), ("outputs", 1)))
EW_SAVING = ("fusion_saving", 30_000_000 / 18_000_000, "number", "unfused / fused",  # = 1.667
             "30,000,000 / 18,000,000", N("kernel.note.fusion_saving"))
EW_FLOPS = ("kernel_flops", 0, "flops", "0", "0", N("kernel.note.ew_flops"))
# 989.4e12 / 3.35e12 = 295.34 FLOP/B
H100_BF16_RIDGE = ("ridge", 989.4e12 / 3.35e12, "number", "peak / bandwidth", "9.894e+14 / 3.35e+12",
                   N("kernel.note.ridge", ("gpu", "h100-80g"), ("dtype", "bf16")))


def test_fused_elementwise_chain_every_step_and_figure():
    # kills x_kernel_figures__mutmut_92 (FLOPs 1), 109, 111 (the pairs), 114, 115, 116, 117, 125, 126, 127,
    # 128, 129, 131, 132, 133 (the unfused step), 136-139, 147-152, 154-157 (the fused step), 163, 164,
    # 165, 173, 174, 177, 178, 179 (the saving step), 186, 187, 188, 196, 198, 199, 203, 204, 206, 207 (the
    # fused kernel_bytes step), 213, 214, 215, 224-228 (the FLOPs step), 499, 500, 510, 511 (the figures)
    figures = setup_kernel_figures(opts(EW))
    assert_steps(figures.steps, [
        EW_UNFUSED, EW_FUSED, EW_SAVING,
        ("kernel_bytes", 18_000_000, "bytes", "fused", "18,000,000", N("kernel.note.ew_bytes_fused")),
        EW_FLOPS,
        ("intensity", 0.0, "number", "FLOPs / bytes", "0 / 18,000,000", INTENSITY_NOTE),
        H100_BF16_RIDGE,
        # compute 0 / 989.4e12 = 0 s < memory 18,000,000 / 3.35e12 = 5.373e-6 s
        ("kernel_time", 18_000_000 / 3.35e12, "seconds", "max(FLOPs / peak, bytes / bandwidth)",
         "max(0 / 9.894e+14, 18,000,000 / 3.35e+12)",
         N("kernel.note.time", ("bound", N("kernel.note.bound_memory")), ("compute", "0"), ("memory", "5.373e-06"))),
    ])
    assert figures.flops == 0 and figures.bytes == 18_000_000 and figures.intensity == 0.0
    assert figures.unfused_bytes == 30_000_000 and figures.fused_bytes == 18_000_000
    assert figures.fusion_saving == pytest.approx(30 / 18)  # 1.667
    assert figures.bound == "memory" and figures.compute_s == 0


def test_unfused_elementwise_chain_kernel_bytes_step():
    # kills x_kernel_figures__mutmut_197, 200, 201 (the unfused formula), 205, 208, 209 (its note key)
    figures = setup_kernel_figures(opts({**EW, "fused": False}))
    assert_steps(figures.steps[3:6], [
        ("kernel_bytes", 30_000_000, "bytes", "unfused", "30,000,000", N("kernel.note.ew_bytes_unfused")),
        EW_FLOPS,
        ("intensity", 0.0, "number", "FLOPs / bytes", "0 / 30,000,000", INTENSITY_NOTE),
    ])
    assert figures.bytes == 30_000_000


def test_elementwise_derivations_show_the_steps_of_each_ask():
    # kills x_derive_kernel__mutmut_51 (the ask), 41, 42 (the roofline note)
    s = opts(EW)
    d = derive(s, "fusion_saving")
    assert d.ask == "fusion_saving" and d.notes == (ROOFLINE,)
    assert_steps(d.steps, [EW_UNFUSED, EW_FUSED, EW_SAVING])
    d = derive(s, "kernel_bytes")
    assert_steps(d.steps, [EW_UNFUSED, EW_FUSED, ("kernel_bytes", 18_000_000, "bytes", "fused", "18,000,000",
                                                  N("kernel.note.ew_bytes_fused"))])


# --- attention -------------------------------------------------------------------------------------------
ATTN = {"kernel": "attention", "seq": 4096, "head_dim": 128, "gpu": "h100"}
ATTN_FLOPS = ("kernel_flops", 8_589_934_592, "flops", "4·N²·d", "4 × 4,096² × 128",  # 4·4096²·128
              N("kernel.note.attn_flops"))
# p·(4·N·d + 4·N²) = 2 × (2,097,152 + 67,108,864) = 138,412,032
ATTN_BYTES = ("kernel_bytes", 138_412_032, "bytes", "p·(4·N·d + 4·N²)", "2 × (4·4,096·128 + 4·4,096²)",
              parts(N("kernel.note.attn_bytes_standard", ("dtype", "bf16")), N("kernel.note.attn_dao")))


def test_standard_attention_on_h100_every_step():
    # kills x_kernel_figures__mutmut_237, 238, 243, 244, 245 (the full FLOPs formula), 246, 248, 251 (its
    # arithmetic), 255, 256, 257, 265, 266, 270, 271 (its step and note), 346, 347, 348, 356, 357, 358,
    # 360, 361, 363-368 (the standard bytes step and its two notes); x_derive_kernel__mutmut_46 (+= kept
    # the roofline note), 51; x_setup_kernel_figures__mutmut_1 (default naive_scores True)
    s = opts(ATTN)
    figures = setup_kernel_figures(s)
    expected = [
        ATTN_FLOPS, ATTN_BYTES,
        # 8,589,934,592 / 138,412,032 = 62.06 < 295.3: memory-bound
        ("intensity", 8_589_934_592 / 138_412_032, "number", "FLOPs / bytes", "8,589,934,592 / 138,412,032",
         INTENSITY_NOTE),
        H100_BF16_RIDGE,
        # compute 8,589,934,592 / 989.4e12 = 8.682e-6 s < memory 138,412,032 / 3.35e12 = 4.132e-5 s
        ("kernel_time", 138_412_032 / 3.35e12, "seconds", "max(FLOPs / peak, bytes / bandwidth)",
         "max(8,589,934,592 / 9.894e+14, 138,412,032 / 3.35e+12)",
         N("kernel.note.time", ("bound", N("kernel.note.bound_memory")), ("compute", "8.682e-06"),
           ("memory", "4.132e-05"))),
    ]
    assert_steps(figures.steps, expected)
    d = derive(s, "kernel_time")
    assert d.ask == "kernel_time" and d.notes == (ROOFLINE, DAO_BACKWARD)
    assert_steps(d.steps, expected)


def test_derive_kernel_defaults_to_the_real_score_traffic():
    # kills x_derive_kernel__mutmut_1 (default naive_scores True)
    d = derive_kernel(opts(ATTN), "kernel_bytes")
    assert d.ask == "kernel_bytes" and d.notes == (ROOFLINE, DAO_BACKWARD)
    assert_steps(d.steps, [ATTN_BYTES])


def test_naive_scores_bytes_step():
    # kills x_kernel_figures__mutmut_320, 321, 322, 330-335 (the naive-scores bytes step)
    d = derive(opts(ATTN), "intensity", naive_scores=True)
    assert_steps(d.steps, [
        ATTN_FLOPS,
        # p·4·N·d = 2 × 4 × 4096 × 128 = 4,194,304
        ("kernel_bytes", 4_194_304, "bytes", "p·4·N·d", "2 × 4·4,096·128", N("kernel.note.attn_naive")),
        # 8,589,934,592 / 4,194,304 = 2,048
        ("intensity", 2048, "number", "FLOPs / bytes", "8,589,934,592 / 4,194,304", INTENSITY_NOTE),
    ])


def test_causal_flash_attention_every_step():
    # kills x_kernel_figures__mutmut_237, 239, 240, 241, 242 (the causal FLOPs formula), 246, 249, 250
    # (its " / 2"), 255, 256, 257, 265, 267, 268, 269 (its note key), 286, 299 (the flash arithmetic: ⌈N/B_r⌉,
    # not N·B_r), 307, 308, 310, 311 (the flash notes)
    s = opts({"kernel": "attention", "seq": 3000, "head_dim": 64, "flash": True, "block_rows": 64,
              "dtype": "fp16", "attention_flops": "causal"})
    figures = setup_kernel_figures(s)
    expected = [
        # 4·N²·d / 2 = 4 × 9,000,000 × 64 / 2 = 1,152,000,000
        ("kernel_flops", 1_152_000_000, "flops", "4·N²·d / 2", "4 × 3,000² × 64 / 2",
         N("kernel.note.attn_flops_causal")),
        # ⌈3000/64⌉ = ⌈46.875⌉ = 47; 2 × (2·3000·64 + 2·47·3000·64) + 4·3000
        # = 2 × (384,000 + 18,048,000) + 12,000 = 36,876,000
        ("kernel_bytes", 36_876_000, "bytes", "p·(2·N·d + 2·⌈N/B_r⌉·N·d) + 4·N",
         "2 × (2·3,000·64 + 2·47·3,000·64) + 4·3,000",
         parts(N("kernel.note.attn_bytes_flash", ("b", 64), ("dtype", "fp16")), N("kernel.note.attn_dao"))),
        # 1,152,000,000 / 36,876,000 = 31.24
        ("intensity", 1_152_000_000 / 36_876_000, "number", "FLOPs / bytes", "1,152,000,000 / 36,876,000",
         INTENSITY_NOTE),
    ]
    assert_steps(figures.steps, expected)
    d = derive(s, "intensity")
    assert d.ask == "intensity" and d.notes == (ROOFLINE, DAO_BACKWARD)
    assert_steps(d.steps, expected)


# --- the ridge point alone, and the refusals -------------------------------------------------------------
def test_ridge_without_a_kernel_is_one_step():
    # kills x_ridge_step__mutmut_8, 9, 10, 19, 20, 23, 24, 25, 27, 28, 29, 30 (the ridge step);
    # x_derive_kernel__mutmut_17 (the ask), 19, 22 (no notes), 27, 28, 29 (the roofline note key)
    d = derive(opts({"dtype": "fp8", "gpu": "h100"}), "ridge")
    assert d.ask == "ridge" and d.notes == (ROOFLINE,)
    # H100 fp8 1978.9e12 / 3.35e12 = 590.72 FLOP/B
    assert_steps(d.steps, [("ridge", 1978.9e12 / 3.35e12, "number", "peak / bandwidth", "1.979e+15 / 3.35e+12",
                            N("kernel.note.ridge", ("gpu", "h100-80g"), ("dtype", "fp8")))])


def test_ridge_of_an_attention_kernel_keeps_the_backward_note():
    # kills x_derive_kernel__mutmut_2 (or: a kernel's ridge took the kernel-less branch, one note only)
    d = derive(opts(ATTN), "ridge")
    assert d.ask == "ridge" and d.notes == (ROOFLINE, DAO_BACKWARD)
    assert_steps(d.steps, [H100_BF16_RIDGE])


def test_derive_kernel_refuses_a_ridge_without_a_gpu():
    # kills x_derive_kernel__mutmut_8-16 (the refusal's field and message)
    with pytest.raises(KernelError) as info:
        derive_kernel(opts({"dtype": "bf16"}), "ridge")
    assert info.value.field == "gpu" and info.value.message == "the ridge point needs a GPU preset"
    assert str(info.value) == "gpu: the ridge point needs a GPU preset"


def test_a_kernel_ask_without_a_kernel_is_refused():
    # kills x_setup_kernel_figures__mutmut_3-10 (the refusal's field and message); x_derive_kernel__mutmut_2
    # (or: kernel_flops without a kernel answered with the ridge)
    message = "expected a kernel: gemm | elementwise | attention"
    with pytest.raises(KernelError) as info:
        setup_kernel_figures(opts({"dtype": "bf16", "gpu": "a100-80g"}))
    assert info.value.field == "kernel" and info.value.message == message
    assert str(info.value) == "kernel: " + message
    with pytest.raises(KernelError) as info:
        derive_kernel(opts({"dtype": "bf16", "gpu": "a100-80g"}), "kernel_flops")
    assert info.value.field == "kernel" and info.value.message == message


# --- _num: how the substituted arithmetic writes a number ------------------------------------------------
def test_num_formats():
    # kills x__num__mutmut_1 (or: 1.5 written as the integer 1), 4 (<=: 10^18 in full), 7 (and False:
    # 1,365.3 without its separator), 9 (abs(None))
    assert _num(4096) == "4,096"  # an integer: thousands separators
    assert _num(184_683_593_728) == "184,683,593,728"
    assert _num(3.0) == "3"  # an integral float: written as the integer
    assert _num(10**18 - 1) == "999,999,999,999,999,999"  # below 1e18 still in full
    assert _num(10**18) == "1e+18"  # 1e18 and above: 4 significant digits
    assert _num(2.5e18) == "2.5e+18"
    assert _num(1.5) == "1.5"  # >= 1: 4 significant digits
    assert _num(1365.3333) == "1,365"  # 4 significant digits of 1,365.3333, with the separator
    assert _num(153.01618) == "153"
    assert _num(62.0606) == "62.06"
    assert _num(0.49976) == "0.4998"  # < 1: 4 significant digits
    assert _num(0.00012345) == "0.0001234"  # 0.00012345 is stored just below ...45: 0.0001234
