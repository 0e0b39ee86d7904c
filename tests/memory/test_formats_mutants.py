"""Mutation-test kills for quizapp/memory/formats.py (benchmarks/mutation/memory-models.partial.txt).

Every expected value is written out by hand from memory-model.md sections 12 and 18, the llama.cpp block
layouts (ggml-common.h: block_q8_0 = fp16 d + 32 int8 = 34 bytes per 32 weights; block_q4_0 = fp16 d +
16 bytes of nibbles = 18 bytes per 32; block_q6_K = 128 + 64 + 16 + 2 = 210 bytes per 256) and the
published configs of the presets, never by calling the code under test. Mutant names are abbreviated:
`_gguf_4` is `quizapp.memory.formats.x__gguf__mutmut_4`, `kv_ratio_17` is `x_derive_kv_ratio__mutmut_17`.
"""

from __future__ import annotations

import pytest

from quizapp.memory import PRESETS, Setup, setup_from_options
from quizapp.memory.asks import derive
from quizapp.memory.derivation import Derivation, Step
from quizapp.memory.formats import (
    WeightBytes, bits_per_weight, kv_bytes_per_token_per_gpu, linear_rate, weight_bytes, weights_per_gpu,
)
from quizapp.memory.models import bare_model
from quizapp.memory.notes import Note
from quizapp.words.calc import render


# --- linear_rate and bits_per_weight (section 12's table) --------------------------------------------
def test_sixteen_and_eight_bit_rates():
    # kills linear_rate_4, 5 (bf16 misspelt: falls through to the GGUF table), 8 (return 3)
    assert linear_rate("bf16") == 2  # bf16: 2 bytes a weight
    # kills linear_rate_6, 7 (fp16 misspelt)
    assert linear_rate("fp16") == 2  # fp16: 2 bytes a weight
    # kills linear_rate_14 (the fp8/int8 branch returning 2)
    assert linear_rate("fp8") == 1  # e4m3: 1 byte a weight (the per-matrix scale is counted apart)
    assert linear_rate("int8") == 1  # LLM.int8: 1 byte a weight (the per-row scale is counted apart)


def test_default_group_is_128_and_double_quantization_is_on():
    # section 12: group_size default 128: 0.5 + 2/128 + 0.5/128 = 0.5 + 0.015625 + 0.00390625 = 0.51953125
    # kills linear_rate_1 (default group 129)
    assert linear_rate("gptq-int4") == 0.51953125
    # section 4: NF4 with double quantization: 0.5 + 1/64 + 4/(64·256) = 0.5 + 0.015625 + 0.000244140625
    # kills linear_rate_2 (default double_quant False)
    assert linear_rate("nf4") == 0.515869140625
    # kills linear_rate_30 (`double_quant and False`: always the plain fp32 absmax)
    assert linear_rate("nf4", 128, True) == 0.515869140625
    # without double quantization: 0.5 + 4/64 = 0.5625 (4.5 bits)
    assert linear_rate("nf4", 128, False) == 0.5625


def test_bits_per_weight_defaults_and_the_double_quant_argument():
    # kills bits_per_weight_1 (default group 129): 8 × 0.51953125 = 4.15625 bits (the spec's 4.156)
    assert bits_per_weight("gptq-int4") == 4.15625
    # kills bits_per_weight_2 (default False) and 7 (double_quant passed as None):
    # 8 × (0.5 + 1/64 + 4/16384) = 4 + 0.125 + 0.001953125 = 4.126953125 bits (the spec's 4.127)
    assert bits_per_weight("nf4") == 4.126953125
    assert bits_per_weight("nf4", 64, True) == 4.126953125
    # kills bits_per_weight_10 (double_quant dropped, so the default True wins): 8 × (0.5 + 4/64) = 4.5 bits
    assert bits_per_weight("nf4", 128, False) == 4.5
    # block layouts: Q8_0 (2 + 32) bytes × 8 / 32 = 8.5; Q6_K 210 × 8 / 256 = 6.5625; Q4_0 (2 + 16) × 8 / 32 = 4.5
    assert bits_per_weight("gguf-q8_0") == 8.5
    assert bits_per_weight("gguf-q6_k") == 6.5625
    assert bits_per_weight("gguf-q4_0") == 4.5


# --- _rate_text: the rate as the substituted formula shows it ----------------------------------------
L7 = PRESETS["llama-2-7b"]  # meta-llama/Llama-2-7b-hf: L 32, h 4096, a 32, f 11008, V 32000, untied
LINEAR_7B = 6_476_005_376  # 32 × (4·4096·4096 + 3·4096·11008) = 32 × (67,108,864 + 135,266,304)
OTHERS_7B = 262_410_240  # 2 × 32000 × 4096 (embedding + head) + 65 × 4096 (norms) = 262,144,000 + 266,240


def test_gptq_group_one_shows_the_group_formula():
    # g = 1 (any integer >= 1 is accepted): 0.5 + 2/1 + 0.5/1 = 3.0 bytes a weight, written "(0.5 + 2.5/1)"
    # kills _rate_text_4 (3 in the integer list would print "3")
    assert setup_from_options({"model": "llama-2-7b", "method": "inference", "weights": "gptq-int4",
                               "group_size": 1}).group_size == 1
    w = weight_bytes(L7, "gptq-int4", 1)
    assert w.substituted == "(0.5 + 2.5/1) × 6,476,005,376 + 2 × 262,410,240"
    assert w.total == 19_952_836_608  # 3 × 6,476,005,376 + 2 × 262,410,240 = 19,428,016,128 + 524,820,480
    assert w.formula == "b·Ψ_linear + 2·(Ψ − Ψ_linear)"


def test_gptq_group_five_is_exactly_one_byte():
    # g = 5: 0.5 + 2/5 + 0.5/5 = 0.5 + 0.4 + 0.1 = 1.0 byte a weight, an integer rate written "1"
    # kills _rate_text_3 (1 dropped from the integer list: "(0.5 + 2.5/5)")
    w = weight_bytes(L7, "gptq-int4", 5)
    assert w.substituted == "1 × 6,476,005,376 + 2 × 262,410,240"
    assert w.total == 7_000_825_856  # 6,476,005,376 + 524,820,480


def test_a_huge_group_rounds_the_rate_to_half_a_byte():
    # g = 10^20 (30 digits are accepted): 0.5 + 2.5e-20 is 0.5 in binary64 (half an ulp of 0.5 is 5.6e-17),
    # so the rate prints as the plain "0.5". kills _rate_text_2 (0.5 replaced by 1.5 in the integer list)
    s = setup_from_options({"model": "llama-2-7b", "method": "inference", "weights": "gptq-int4",
                            "group_size": "100000000000000000000"})
    assert s.group_size == 10**20
    w = weight_bytes(L7, "gptq-int4", 10**20)
    assert w.rate == 0.5
    assert w.substituted == "0.5 × 6,476,005,376 + 2 × 262,410,240"
    assert w.total == 3_762_823_168  # 0.5 × 6,476,005,376 + 2 × 262,410,240 = 3,238,002,688 + 524,820,480


# --- _gguf: llama.cpp files of one pure type (section 12) --------------------------------------------
def test_gguf_q8_0_of_an_untied_model():
    # llama-2-7b q8_0: 2-D = linears + token embedding = 6,476,005,376 + 32000·4096 (131,072,000) = 6,607,077,376;
    # output.weight 131,072,000 stays q8_0; 1-D = 65 × 4096 = 266,240 in fp32.
    # 34/32 × (6,607,077,376 + 131,072,000) = 34 × 210,567,168 = 7,159,283,712; + 4 × 266,240 = 1,064,960
    # kills _gguf_4, 8, 10 (token embedding dropped, negated or V/h), 12 (output V/h), 14, 17, 19, 20, 22, 24
    # (the 1-D count), 27 to 32 (the total's operators and the fp32 factor), _rate_text_1, 5 ("34/32" text)
    assert weight_bytes(L7, "gguf-q8_0") == WeightBytes(
        "gguf-q8_0", 7_160_348_672, 0, 7_160_348_672, 0, "b·Ψ_2D + b_out·V·h + 4·Ψ_1D",
        "34/32 × 6,607,077,376 + 34/32 × 131,072,000 + 4 × 266,240", 1.0625)


def test_gguf_q4_0_of_an_untied_model_is_the_spec_figure():
    # section 12: 6,607,077,376 × 18/32 + 131,072,000 × 210/256 + 266,240 × 4
    #   = 3,716,481,024 + 107,520,000 + 1,064,960 = 3,825,065,984 bytes; output.weight in q6_k
    # kills _gguf_70 (routed None), 71 (rest None), 72 (per_expert None), 75 (rate None), 39 (per_expert
    # None), 44 (a dense model's per_expert 1); a dense model has no routed bytes, so 85 needs the MoE test
    w = weight_bytes(L7, "gguf-q4_0")
    assert (w.fmt, w.total, w.routed, w.rest, w.per_expert, w.rate) == (
        "gguf-q4_0", 3_825_065_984, 0, 3_825_065_984, 0, 0.5625)  # Q4_0 rate 18/32 = 0.5625
    assert w.formula == "b·Ψ_2D + b_out·V·h + 4·Ψ_1D"
    # kills _gguf_58 and 67 (the empty router suffixes replaced by "XXXX"), 54 and 65 (router terms always)
    assert w.substituted.endswith(" + 210/256 × 131,072,000 + 4 × 266,240")
    # the Q4_0 rate as its block writes it (fp16 d + 16 bytes of nibbles = 18 bytes per 32 weights), not
    # NVFP4's (0.5 + 1/16), the same 0.5625 bytes: the text once came from the rate alone
    assert w.substituted == "18/32 × 6,607,077,376 + 210/256 × 131,072,000 + 4 × 266,240"


def test_formats_of_the_same_rate_each_show_their_own_layout():
    # NF4 without double quantization (0.5 + 4/64), Q4_0 (18/32) and NVFP4 (0.5 + 1/16) are all 0.5625 bytes
    # per weight; each worked formula names its own layout. A bare count has no tensor list: rate × Ψ.
    bare = bare_model(7_000_000_000)
    assert weight_bytes(bare, "nf4", double_quant=False).substituted == "(0.5 + 4/64) × 7,000,000,000"
    assert weight_bytes(bare, "gguf-q4_0").substituted == "18/32 × 7,000,000,000"
    assert weight_bytes(bare, "nvfp4").substituted == "(0.5 + 1/16) × 7,000,000,000"
    assert weight_bytes(bare, "nf4").substituted == "(0.5 + 1/64 + 4/16384) × 7,000,000,000"


GPT2 = PRESETS["gpt2"]  # openai-community/gpt2: L 12, h 768, a 12, V 50257, n_positions 1024, tied, biases
# 2-D: linears 12 × (4·768² + 2·768·3072) = 12 × (2,359,296 + 4,718,592) = 84,934,656; positions 1024 × 768 =
# 786,432, so Ψ_2D = 85,721,088 (the tied token embedding is the output: 50257 × 768 = 38,597,376).
# 1-D: 12 × (2 LayerNorms 4·768 + q/k/v/o biases 4·768 + MLP biases 3072 + 768) + final LayerNorm 2·768
#      = 12 × 9,984 + 1,536 = 121,344. Ψ = 84,934,656 + 786,432 + 38,597,376 + 121,344 = 124,439,808.


def test_gguf_of_a_tied_model_with_learned_positions():
    # q8_0: 34/32 × 85,721,088 = 34 × 2,678,784 = 91,078,656; 34/32 × 38,597,376 = 34 × 1,206,168 = 41,009,712;
    # 4 × 121,344 = 485,376; total 91,078,656 + 41,009,712 + 485,376 = 132,573,744
    # kills _gguf_5, 6 (positions subtracted or divided), 7 (tied ignored: embedding counted twice), 9 (+1),
    # 15, 18 (positions in the 1-D count), 21, 23 (tied models subtract one V·h, not two)
    assert weight_bytes(GPT2, "gguf-q8_0") == WeightBytes(
        "gguf-q8_0", 132_573_744, 0, 132_573_744, 0, "b·Ψ_2D + b_out·V·h + 4·Ψ_1D",
        "34/32 × 85,721,088 + 34/32 × 38,597,376 + 4 × 121,344", 1.0625)
    # q6_k: 210/256 × (85,721,088 + 38,597,376) = 210 × 485,619 = 101,979,990; + 485,376 = 102,465,366
    assert weight_bytes(GPT2, "gguf-q6_k") == WeightBytes(
        "gguf-q6_k", 102_465_366, 0, 102_465_366, 0, "b·Ψ_2D + b_out·V·h + 4·Ψ_1D",
        "210/256 × 85,721,088 + 210/256 × 38,597,376 + 4 × 121,344", 0.8203125)
    # q4_0 keeps the tied embedding in q6_k: 18/32 × 85,721,088 = 18 × 2,678,784 = 48,218,112;
    # 210/256 × 38,597,376 = 210 × 150,771 = 31,661,910; total 48,218,112 + 31,661,910 + 485,376 = 80,365,398
    assert weight_bytes(GPT2, "gguf-q4_0").total == 80_365_398


MIXTRAL = PRESETS["mixtral-8x7b"]  # mistralai/Mixtral-8x7B-v0.1: L 32, h 4096, a 32, a_kv 8, E 8, f_e 14336, V 32000
# per layer: attention 2·4096² + 2·4096·1024 = 41,943,040; experts 8 × 3 × 4096 × 14336 = 1,409,286,144;
# router 4096 × 8 = 32,768. Linears 32 × 1,451,229,184 = 46,439,333,888, routed 32 × 1,409,286,144 =
# 45,097,156,608, routers 32 × 32,768 = 1,048,576, 1-D 65 × 4096 = 266,240, 2-D 46,439,333,888 + 131,072,000.


def test_gguf_q8_0_of_a_moe_model_with_fp32_routers():
    # total: 34/32 × (46,570,405,888 + 131,072,000) = 34 × 1,459,421,184 = 49,620,320,256;
    #        + 4 × (266,240 + 1,048,576) = 5,259,264 -> 49,625,579,520
    # routed: 34/32 × 45,097,156,608 = 34 × 1,409,286,144 = 47,915,728,896
    # per expert: 47,915,728,896 / (8 experts × 32 MoE layers) = 187,170,816 (= 34/32 × 3·4096·14336)
    # rest: 49,625,579,520 − 47,915,728,896 = 1,709,850,624
    # kills _gguf_16, 33 (routers added, subtracted), 37, 40 (per_expert 0), 42 (TypeError), 43 (routed × n),
    # 85 (rest = total + routed), 53, 64 (router terms dropped), 50 to 52, 55 to 57 (formula text), 66 (TypeError)
    assert weight_bytes(MIXTRAL, "gguf-q8_0") == WeightBytes(
        "gguf-q8_0", 49_625_579_520, 47_915_728_896, 1_709_850_624, 187_170_816,
        "b·Ψ_2D + b_out·V·h + 4·Ψ_1D + 4·Ψ_router",
        "34/32 × 46,570,405,888 + 34/32 × 131,072,000 + 4 × 266,240 + 4 × 1,048,576", 1.0625)


def test_gguf_q4_0_of_a_moe_model():
    # 18/32 × 46,570,405,888 = 18 × 1,455,325,184 = 26,195,853,312; 210/256 × 131,072,000 = 210 × 512,000 =
    # 107,520,000; + 5,259,264 -> 26,308,632,576. routed 18 × 1,409,286,144 = 25,367,150,592;
    # per expert 25,367,150,592 / 256 = 99,090,432; rest 26,308,632,576 − 25,367,150,592 = 941,481,984
    w = weight_bytes(MIXTRAL, "gguf-q4_0")
    assert (w.total, w.routed, w.rest, w.per_expert, w.rate) == (
        26_308_632_576, 25_367_150_592, 941_481_984, 99_090_432, 0.5625)
    assert w.substituted.endswith(" + 210/256 × 131,072,000 + 4 × 266,240 + 4 × 1,048,576")


# --- derive_kv_ratio: the worked solution of `ask: kv_ratio` (section 18) -----------------------------
def _kv(model: str, seq: int, **extra) -> Derivation:
    return derive(setup_from_options({"model": model, "method": "inference", "seq": seq, **extra}), "kv_ratio")


RATIO_NOTES = (Note("kernel.note.kv_ratio_dtype", ()),)


def test_kv_ratio_of_mla():
    # deepseek-ai/DeepSeek-V3: L 61, a 128, d_n 128, d_r 64, d_v 128, r_kv 512, bf16 cache (p 2), s 4096
    # MHA: 61 × 128 × (128 + 64 + 128) × 4096 × 2 = 7,808 × 320 × 8,192 = 20,468,203,520
    # MLA: 61 × (512 + 64) × 4096 × 2 = 35,136 × 8,192 = 287,834,112; ratio 128 × 320 / 576 = 640/9 = 71.11
    # kills kv_ratio_17 to 21 (MHA formula and arithmetic), 25 to 27 (MLA formula), 76 to 94 (the MHA step),
    # 95 to 110 (the model step), 111 to 135 (the ratio step), 55 to 62 (the model note), 136 to 146
    d = _kv("deepseek-v3", 4096)
    assert d.ask == "kv_ratio"
    assert d.steps == (
        Step("kv_mha_bytes", 20_468_203_520, "bytes", "L·a·(d_n + d_r + d_v)·s·p_kv",
             "61 × 128 × (128 + 64 + 128) × 4,096 × 2", Note("kernel.note.kv_mha", ())),
        Step("kv_model_bytes", 287_834_112, "bytes", "L·(r_kv + d_r)·s·p_kv", "61 × (512 + 64) × 4,096 × 2",
             Note("kernel.note.kv_model", (("akv", 128), ("a", 128)))),
        Step("kv_ratio", 640 / 9, "number", "MHA / model", "20,468,203,520 / 287,834,112",
             Note("kernel.note.kv_ratio", ())),
    )
    assert d.notes == RATIO_NOTES
    assert d.value == 640 / 9


def test_kv_ratio_of_gqa():
    # meta-llama/Llama-2-70b-hf: L 80, a 64, a_kv 8, d 8192/64 = 128, s 4096, p 2
    # MHA 2 × 80 × 64 × 128 × 4096 × 2 = 1,310,720 × 8,192 = 10,737,418,240; GQA 1/8 of it = 1,342,177,280
    # kills kv_ratio_31 to 33 (MHA formula), 49 to 51 (the plain model formula), the step and note mutants again
    d = _kv("llama-2-70b", 4096)
    assert d == Derivation("kv_ratio", (
        Step("kv_mha_bytes", 10_737_418_240, "bytes", "2·L·a·d·s·p_kv", "2 × 80 × 64 × 128 × 4,096 × 2",
             Note("kernel.note.kv_mha", ())),
        Step("kv_model_bytes", 1_342_177_280, "bytes", "2·L·a_kv·d·s·p_kv", "2 × 80 × 8 × 128 × 4,096 × 2",
             Note("kernel.note.kv_model", (("akv", 8), ("a", 64)))),
        Step("kv_ratio", 8.0, "number", "MHA / model", "10,737,418,240 / 1,342,177,280",
             Note("kernel.note.kv_ratio", ())),
    ), RATIO_NOTES)


def test_kv_ratio_of_local_global_interleaving():
    # google/gemma-2-9b: L 42 (21 local with sliding_window 4096, 21 global), a 16, a_kv 8, head_dim 256, s 8192
    # MHA 2 × 42 × 16 × 256 × 8192 × 2 = 344,064 × 16,384 = 5,637,144,576
    # model 2 × 8 × 256 × (21 × 4096 + 21 × 8192) × 2 = 4,096 × 258,048 × 2 = 2,113,929,216; ratio 8/3
    # kills kv_ratio_36 to 40 (windowed formula and arithmetic), 63, 65 to 74 (the window note and its arguments)
    d = _kv("gemma-2-9b", 8192)
    model_note = Note("", (("parts", (Note("kernel.note.kv_model", (("akv", 8), ("a", 16))),
                                      Note("kernel.note.kv_window", (("w", 4096), ("local", 21), ("glob", 21))))),))
    assert d == Derivation("kv_ratio", (
        Step("kv_mha_bytes", 5_637_144_576, "bytes", "2·L·a·d·s·p_kv", "2 × 42 × 16 × 256 × 8,192 × 2",
             Note("kernel.note.kv_mha", ())),
        Step("kv_model_bytes", 2_113_929_216, "bytes", "2·a_kv·d·(L_local·min(s, W) + L_global·s)·p_kv",
             "2 × 8 × 256 × (21 × 4,096 + 21 × 8,192) × 2", model_note),
        Step("kv_ratio", 8 / 3, "number", "MHA / model", "5,637,144,576 / 2,113,929,216",
             Note("kernel.note.kv_ratio", ())),
    ), RATIO_NOTES)
    # what the worked solution prints
    assert [render(s.note, "en") for s in d.steps] == [
        "one sequence, the MHA baseline: every query head keeps its K and V, every layer global",
        "one sequence, the model: a_kv = 8 of a = 16 heads; sliding window W = 4096 on 21 local layers, "
        "the whole context on 21 global",
        "how many times smaller the cache is than MHA's at this context",
    ]
    assert render(d.notes[0], "en") == "both caches in the same element type: bytes per element cancel"


def test_kv_ratio_of_a_window_on_every_layer_in_fp8():
    # mistralai/Mistral-7B-v0.1: L 32 all local (sliding_window 4096), a 32, a_kv 8, d 128; fp8 cache (p 1), s 32768
    # MHA 2 × 32 × 32 × 128 × 32768 × 1 = 8,589,934,592; model 2 × 8 × 128 × (32 × 4096 + 0 × 32768) × 1 =
    # 2,048 × 131,072 = 268,435,456; ratio 4 (GQA) × 8 (window) = 32
    d = _kv("mistral-7b", 32768, kv_dtype="fp8")
    assert [(s.name, s.value, s.substituted) for s in d.steps] == [
        ("kv_mha_bytes", 8_589_934_592, "2 × 32 × 32 × 128 × 32,768 × 1"),
        ("kv_model_bytes", 268_435_456, "2 × 8 × 128 × (32 × 4,096 + 0 × 32,768) × 1"),
        ("kv_ratio", 32.0, "8,589,934,592 / 268,435,456"),
    ]
    assert d.steps[1].note.parts[1] == Note("kernel.note.kv_window", (("w", 4096), ("local", 32), ("glob", 0)))


# --- weights_per_gpu and kv_bytes_per_token_per_gpu (section 13) --------------------------------------
def test_tensor_parallel_two_halves_weights_and_kv():
    # kills weights_per_gpu_6 (tp == 2 treated as one GPU): llama-2-7b bf16 2 × 6,738,415,616 / 2 = 6,738,415,616
    assert weights_per_gpu(Setup(L7, method="inference", tp=2)) == 6_738_415_616
    # kills kv_bytes_per_token_per_gpu_25 (div == 2 not divided): llama-3-8b 2·32·8·128·2 = 131,072 / min(2, 8)
    assert kv_bytes_per_token_per_gpu(Setup(PRESETS["llama-3-8b"], method="inference", tp=2)) == 65_536


def test_one_gpu_keeps_exact_integer_bytes_beyond_two_to_the_53():
    # A custom shape the options accept: layers 10^16 + 1, hidden 1, heads 1 (a_kv 1, d 1), llama style:
    # ffn llama_ffn(1) = 256, vocab 32000. These figures exceed 2^53, where a float division by 1 rounds.
    s = setup_from_options({"layers": 10**16 + 1, "hidden": 1, "heads": 1, "method": "inference"})
    # KV per token 2 × L × a_kv × d × p = 2 × (10^16 + 1) × 1 × 1 × 2 = 40,000,000,000,000,004 (the float
    # nearest is 4e16). kills kv_bytes_per_token_per_gpu_22, 25 (per / 1 on one GPU), 7 (the windowed
    # average kv_bytes_per_sequence / seq taken for an unwindowed shape)
    assert kv_bytes_per_token_per_gpu(s) == 40_000_000_000_000_004
    # params 774 × L + 64,001 (per layer q, k, v, o 4 + gate/up/down 3 × 256 + 2 norms = 774; embedding and
    # head 2 × 32000 + final norm 1) = 7,740,000,000,000,000,774 + 64,001 = 7,740,000,000,000,064,775;
    # bf16 2 × that = 15,480,000,000,000,129,550. kills weights_per_gpu_3, 6 (total / 1 on one GPU)
    assert weights_per_gpu(s) == 15_480_000_000_000_129_550
