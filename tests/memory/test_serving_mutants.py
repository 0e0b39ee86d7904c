"""Tests aimed at the surviving mutants of serving.py and throughput.py (mutmut 3).

Every expectation is a literal derived by hand from memory-model.md and the published configs (the
arithmetic is written beside it), never a value the code under test computed. Each test names the
mutants of benchmarks/mutation/memory-serving.survivors.txt it kills; the mutants that cannot change
any output are listed, with the proof, in benchmarks/mutation/equivalent-serving.txt.
"""

from __future__ import annotations

import pytest
from deadline import within

from quizapp.memory import GPUS, SetupError, setup_from_options
from quizapp.memory import serving as S
from quizapp.memory import throughput as T

GiB = 2**30
A100_80G_BYTES = 81920 * 2**20  # 81,920 MiB as nvidia-smi reports = 85,899,345,920 B
LLAMA7_PARAMS = 6_738_415_616  # meta-llama/Llama-2-7b-hf (spec section 2)
LLAMA7_BF16 = 13_476_831_232  # 2 B × 6,738,415,616
LLAMA7_KV = 524_288  # 2 × 32 layers × 32 kv heads × 128 × 2 B per token
LLAMA7_ATTN = 524_288  # section 13: 4·L·a·d = 4 × 32 × 32 × 128 forward FLOPs per context token


def _inference(**over):
    return setup_from_options({"model": "llama-2-7b", "method": "inference", **over})


def _answers_within(seconds: float):
    """The correction loops of `_largest_multiple` take a step or two; a mutant that walks to the answer
    one by one from 1, or never stops, hangs the calculator: fail instead."""
    return within(seconds, "the calculator's answer")


# --- _largest_multiple, through kv_tokens / max_concurrency / max_context -------------------------------
def test_zero_per_item_size_is_refused_with_its_message():
    # kills x__largest_multiple__mutmut_1 (unit < 0 lets 0 through: ZeroDivisionError, not ValueError)
    # and mutmut_3, 4, 5 (the message). kv 0 B per token: unit = 16 × 0 = 0
    with pytest.raises(ValueError) as info:
        S.kv_tokens(1_000, 0)
    assert type(info.value) is ValueError
    assert str(info.value) == "a per-item size must be positive"
    with pytest.raises(ValueError) as info:
        S.max_concurrency(1_000, 0, 4096)
    assert str(info.value) == "a per-item size must be positive"


def test_budget_of_exactly_one_block():
    # kills x__largest_multiple__mutmut_6 (budget <= unit returns 0 at the boundary)
    # one block of 16 tokens at 100 B per token = 1,600 B: a budget of exactly 1,600 B holds 16 tokens
    assert S.kv_tokens(1_600, 100) == 16
    assert S.kv_tokens(1_599, 100) == 0  # one byte short of a block
    # one sequence of 16 tokens (1 block × 16 × 100 B = 1,600 B) fits a budget of exactly 1,600 B
    assert S.max_concurrency(1_600, 100, 16) == 1
    # max_context at concurrency 1: unit = 1 × 16 × 100 = 1,600 B, so 1 block = 16 tokens
    assert S.max_context(1_600, 100, 1) == 16


def test_quotient_rounded_up_past_the_budget_is_corrected_down():
    # kills x__largest_multiple__mutmut_14 (n / unit > budget never corrects) and
    # mutmut_17 (n += 1 in the downward loop never stops).
    # block 1, context 1: one sequence costs 1 × 1 × 1.3 = 1.3 B. In binary floating point
    # 3.9 / 1.3 = 3.0 exactly, but 3 × 1.3 = 3.9000000000000004 > 3.9, so only 2 sequences fit
    # (2 × 1.3 = 2.6 <= 3.9): the docstring's "exact for the floats given".
    with _answers_within(2.0):
        assert S.max_concurrency(3.9, 1.3, 1, block=1) == 2
        assert S.kv_tokens(3.9, 1.3, block=1) == 2


def test_large_quotient_rounded_up_is_corrected_in_a_step():
    # kills x__largest_multiple__mutmut_16 (n = 1 in the downward loop: the upward loop then walks
    # 2**50 steps, the calculator hangs) and mutmut_17 (never stops).
    # budget 788,129,934,789,837.4 B at 0.7 B per item: budget / 0.7 = 1,125,899,906,842,625.0 (2**50 + 1,
    # rounded up), but (2**50 + 1) × 0.7 = 788,129,934,789,837.5 > budget while
    # 2**50 × 0.7 = 788,129,934,789,836.8 <= budget: the answer is 2**50 = 1,125,899,906,842,624
    with _answers_within(2.0):
        assert S.max_concurrency(788_129_934_789_837.4, 0.7, 1, block=1) == 1_125_899_906_842_624


def test_quotient_rounded_down_below_a_fit_is_corrected_up():
    # kills x__largest_multiple__mutmut_21 ((n + 2) stops one short), 22 (< misses the exact fit),
    # 23 (n = 1 loops forever), 24 (n -= 1 loops forever), 25 (n += 2 overshoots).
    # In binary floating point 3 × 0.7 = 2.0999999999999996 exactly, while
    # 2.0999999999999996 / 0.7 = 2.9999999999999996 floors to 2: three items of 0.7 B fill the budget
    # exactly (4 × 0.7 = 2.8 does not fit), so the answer is 3.
    with _answers_within(2.0):
        assert S.max_concurrency(2.0999999999999996, 0.7, 1, block=1) == 3
        assert S.kv_tokens(2.0999999999999996, 0.7, block=1) == 3


def test_max_context_refuses_zero_concurrency_with_its_message():
    # kills x_max_context__mutmut_3, 4, 5 (the message)
    with pytest.raises(ValueError) as info:
        S.max_context(64_000, 100, 0)
    assert str(info.value) == "concurrency must be at least 1"


# --- rooflines and the critical batch --------------------------------------------------------------
def test_prefill_roofline_fields():
    # kills x_prefill_roofline__mutmut_12 (bytes None), 16 (batch None), 23 (bandwidth / efficiency)
    p = S.prefill_roofline(weight_read_bytes=13.5e9, batch=2, prompt=4000, active_params=10**9,
                           attention_flops_per_token=1000, tp=2, peak_flops=1e15, mfu=0.4, bandwidth=1e12,
                           bandwidth_efficiency=0.5)
    assert p.bytes == 6.75e9  # W / t = 13.5e9 / 2
    assert p.batch == 2
    # 6.75e9 B / (1e12 B/s × 0.5) = 13.5 ms (the mutant's 1e12 / 0.5 gives 3.375 ms)
    assert p.memory_s == pytest.approx(0.0135, rel=1e-12)
    # FLOPs 2 × 4000 × (2e9 + 1000 × 4000) / 2 = 8.016e12 at 1e15 × 0.4: 20.04 ms > 13.5 ms
    assert p.step_s == pytest.approx(0.02004, rel=1e-12)
    assert p.tokens_per_s == pytest.approx(2 / 0.02004, rel=1e-12)


def test_critical_batch_divides_by_the_reached_bandwidth():
    # kills x_critical_batch__mutmut_12 (bandwidth / efficiency)
    # dense 16-bit (W = 2·N): ⌈peak / (bandwidth × efficiency)⌉ = ⌈312e12 / (2.039e12 × 0.8)⌉
    # = ⌈191.27⌉ = 192 (the mutant's 312e12 × 0.8 / 2.039e12 = 122.4 gives 123)
    assert S.critical_batch(peak_flops=312e12, bandwidth=2.039e12, weight_bytes=2 * LLAMA7_PARAMS,
                            active_params=LLAMA7_PARAMS, bandwidth_efficiency=0.8) == 192


# --- wired to a Setup: errors --------------------------------------------------------------------------
def test_serving_figures_refuse_a_training_setup():
    # kills x_check_serving__mutmut_2, 7, 8 (the message) and x__setup_error__mutmut_2 (message None)
    with pytest.raises(SetupError) as info:
        S.serving_figures(setup_from_options({"model": "llama-2-7b", "method": "full"}))
    assert info.value.field == "method"
    assert info.value.message == "serving figures are inference quantities; expected method inference"


def test_serving_figures_refuse_a_bare_count():
    # kills x_check_serving__mutmut_11, 16, 17 (the message)
    with pytest.raises(SetupError) as info:
        S.serving_figures(setup_from_options({"model": "7B", "method": "inference"}))
    assert info.value.field == "model"
    assert info.value.message == ("serving figures need a shape (a preset or layers/hidden/heads), "
                                  "not a bare count")


def test_budget_of_needs_a_gpu():
    # kills x_budget_of__mutmut_2 .. 10 (field, message, missing arguments: TypeError, not SetupError)
    with pytest.raises(SetupError) as info:
        S.budget_of(_inference())
    assert info.value.field == "gpu"
    assert info.value.message == "the KV budget needs a GPU preset"
    assert str(info.value) == "gpu: the KV budget needs a GPU preset"


# --- wired to a Setup: figures -------------------------------------------------------------------------
def test_peak_flops_reads_the_gpu_given():
    # kills x_peak_flops__mutmut_3, 5 (the GPU argument dropped: the setup's H100 used instead)
    setup = _inference(gpu="h100-80g")
    assert S.peak_flops(setup, GPUS["a100-80g"]) == 312e12  # A100 datasheet: 312 TFLOP/s dense bf16
    assert S.peak_flops(setup.with_(gpu=None), GPUS["a100-80g"]) == 312e12  # no GPU in the setup at all


def _served(**over):
    # llama-2-7b bf16 on A100 80GB, t = 2, reserve 2 GiB + overhead 1 GiB, blocks of 32, 8 sequences of
    # 4,096 tokens, prompts of 1,024, 80 % of the bandwidth, 50 % MFU, causal attention count
    return _inference(gpu="a100-80g", tp=2, reserve="2 GiB", overhead="1 GiB", kv_block=32, batch=8, seq=4096,
                      prompt=1024, bandwidth_efficiency=0.8, mfu=0.5, attention_flops="causal", **over)


# u·C − W/t − (reserve + overhead) = 0.9 × 85,899,345,920 − 13,476,831,232 / 2 − 3 × 2**30
# = 77,309,411,328 − 6,738,415,616 − 3,221,225,472 = 67,349,770,240 B
SERVED_BUDGET = 67_349_770_240


def test_budget_of_subtracts_reserve_and_overhead():
    # kills x_budget_of__mutmut_18 (the default 1 GiB instead of 3 GiB), 20 (reserve − overhead = 1 GiB)
    assert S.budget_of(_served()) == SERVED_BUDGET


def test_serving_figures_without_a_gpu():
    # kills x_serving_figures__mutmut_12, 13, 14 (a field None), 19 (W × t)
    s = S.serving_figures(_inference(tp=2))
    assert s.kv_bytes_per_token == 262_144  # 524,288 B / min(t = 2, a_kv = 32)
    assert s.weight_bytes == LLAMA7_BF16  # 13,476,831,232 B in all
    assert s.weight_bytes_per_gpu == 6_738_415_616  # 13,476,831,232 / 2
    assert s.active_params == LLAMA7_PARAMS
    assert s.budget is None and s.decode is None and s.critical_batch is None


def test_serving_figures_on_a_gpu():
    # kills x_serving_figures__mutmut_30 (default overhead), 31 (W × t), 32 (reserve − overhead),
    # 140 (prefill without the bandwidth efficiency), 153 (critical batch without it), 155, 157 (a field
    # None), 174 (W × t), 180 (kv_tokens with the default block of 16)
    s = S.serving_figures(_served())
    assert s.weight_bytes == LLAMA7_BF16
    assert s.weight_bytes_per_gpu == 6_738_415_616
    assert s.active_params == LLAMA7_PARAMS
    assert s.budget == SERVED_BUDGET
    # blocks of 32 tokens × 262,144 B = 8,388,608 B: 67,349,770,240 / 8,388,608 = 8,028.72 → 8,028 blocks
    # = 256,896 tokens (blocks of 16: 16,057.44 → 16,057 × 16 = 256,912)
    assert s.kv_tokens == 256_896
    # a sequence of 4,096 tokens = 128 blocks × 32 × 262,144 B = 1,073,741,824 B: 62.72 → 62
    assert s.max_concurrency == 62
    # decode reads W/t + b·s·kv = 6,738,415,616 + 8 × 4,096 × 262,144 = 15,328,350,208 B at
    # 2.039e12 × 0.8 B/s; its FLOPs: the whole context, causal or not: 8 × (2N + 524,288 × 4,096) / 2
    assert s.decode.bytes == 15_328_350_208
    assert s.decode.memory_s == pytest.approx(15_328_350_208 / 1.6312e12, rel=1e-12)
    assert s.decode.flops == 62_497_259_520  # 8 × (13,476,831,232 + 2,147,483,648) / 2
    # prefill reads W/t = 6,738,415,616 B once at 2.039e12 × 0.8 B/s
    assert s.prefill.bytes == 6_738_415_616
    assert s.prefill.memory_s == pytest.approx(6_738_415_616 / 1.6312e12, rel=1e-12)
    # prefill FLOPs b·s·(2N + 4·L·a·d × ½ × s) / t = 8 × 1,024 × (13,476,831,232 + 262,144 × 1,024) / 2
    # = 8,192 × 13,745,266,688 / 2 = 56,300,612,354,048, at 312e12 × 0.5
    assert s.prefill.flops == 56_300_612_354_048
    assert s.prefill.compute_s == pytest.approx(56_300_612_354_048 / 156e12, rel=1e-12)
    # ⌈312e12 / (2.039e12 × 0.8)⌉ = ⌈191.27⌉ = 192 (without the efficiency: 154)
    assert s.critical_batch == 192


def test_decode_flops_without_attention():
    # kills x_serving_figures__mutmut_43, 45, 47, 48 (attention_flops none still counts attention, or 1)
    s = S.serving_figures(_inference(gpu="a100-80g", batch=1, seq=4096, attention_flops="none"))
    assert s.decode.flops == 13_476_831_232  # 1 × (2 × 6,738,415,616 + 0 × 4,096) / 1


def test_prefill_flops_under_the_causal_count():
    # kills x_serving_figures__mutmut_50 (attention / share: × 2 instead of × ½)
    s = S.serving_figures(_inference(gpu="a100-80g", batch=1, seq=4096, attention_flops="causal"))
    # 4,096 × (2 × 6,738,415,616 + 524,288 × ½ × 4,096) = 4,096 × (13,476,831,232 + 1,073,741,824)
    # = 4,096 × 14,550,573,056 = 59,599,147,237,376
    assert s.prefill.flops == 59_599_147_237_376


def _mistral(**over):
    # mistralai/Mistral-7B-v0.1: sliding_window 4096 on all 32 layers; 32 heads of 128, 8 KV heads
    return setup_from_options({"model": "mistral-7b", "method": "inference", "gpu": "a100-80g", "batch": 1,
                               "seq": 8192, **over})


MISTRAL_PARAMS = 7_241_732_096
# 2 × 32,000 × 4,096 (untied embeddings) + 32 × (2 × 4,096² + 2 × 4,096 × 1,024 + 3 × 4,096 × 14,336
# + 2 × 4,096) + 4,096 = 262,144,000 + 32 × 218,112,000 + 4,096


def test_windowed_decode_flops_without_attention():
    # kills x_serving_figures__mutmut_53, 55, 57, 58 (the windowed branch counts attention under none, or 1)
    s = S.serving_figures(_mistral(attention_flops="none"))
    assert s.decode.flops == 14_483_464_192  # 2 × 7,241,732,096, no attention term


def test_windowed_prefill_flops_under_the_causal_count():
    # kills x_serving_figures__mutmut_65 (windowed attention / share)
    s = S.serving_figures(_mistral(attention_flops="causal"))
    # section 18: per context token on average 4·a·d·Σ_l min(s, W) / s = 4 × 32 × 128 × 32 × 4,096 / 8,192
    # = 262,144, causal ½ → 131,072; FLOPs 8,192 × (2 × 7,241,732,096 + 131,072 × 8,192)
    # = 8,192 × (14,483,464,192 + 1,073,741,824) = 8,192 × 15,557,206,016 = 127,444,631,683,072
    assert s.prefill.flops == 127_444_631_683_072
    # decode attends to the whole window whatever the mask: 1 × (14,483,464,192 + 262,144 × 8,192)
    assert s.decode.flops == 16_630_947_840


def test_moe_prefill_reads_only_the_experts_its_tokens_hit():
    # kills x_serving_figures__mutmut_88 (experts None), 89 (moe_layers None): every expert read;
    # 98 (batch / prompt tokens routed: 0.5 × 2 = 1 expert)
    s = S.serving_figures(setup_from_options({"model": "mixtral-8x7b", "method": "inference", "gpu": "h200",
                                              "batch": 1, "seq": 2, "prompt": 2}))
    # mistralai/Mixtral-8x7B-v0.1: 46,702,792,704 parameters = 93,405,585,408 B in bf16; one expert
    # 3 × 4,096 × 14,336 × 2 B = 352,321,536 B. 1 × 2 prompt tokens × top-2 = 4 of 8 experts per block:
    # 93,405,585,408 − 32 blocks × (8 − 4) × 352,321,536 = 93,405,585,408 − 45,097,156,608
    assert s.prefill.bytes == 48_308_428_800
    # decode: 1 token × top-2 = 2 of 8: 93,405,585,408 − 32 × 6 × 352,321,536 + 1 × 2 × 131,072 B of KV
    # (2 × 32 layers × 8 kv heads × 128 × 2 B = 131,072 B per token)
    assert s.decode.bytes == 25_759_850_496 + 262_144


# --- throughput: errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("call", "ask"), [
    (T.utilisation, "mfu"), (T.training_tokens_per_s, "tokens_per_s"), (T.setup_train_days, "train_days"),
])
def test_training_figures_refuse_inference(call, ask):
    # kills x__training__mutmut_2 .. 7 (field, message, missing arguments), x_utilisation__mutmut_2, 5, 6,
    # x_training_tokens_per_s__mutmut_2, 5, 6, x_setup_train_days__mutmut_2, 5, 6 (the ask's name)
    with pytest.raises(SetupError) as info:
        call(_inference(gpu="a100-80g", train_tokens="2T"))
    assert info.value.field == "method"
    assert info.value.message == f"{ask} is a training figure; expected a training method, not inference"


def test_compute_budget_needs_the_training_tokens():
    # kills x_setup_compute_budget__mutmut_3, 8, 9, 10 (the message)
    with pytest.raises(SetupError) as info:
        T.setup_compute_budget(setup_from_options({"model": "llama-2-7b"}))
    assert info.value.field == "train_tokens"
    assert info.value.message == "the compute budget needs D, the training tokens (e.g. 1.4T)"


def test_train_days_need_the_training_tokens():
    # kills x_setup_train_days__mutmut_9, 14, 15, 16 (the message)
    with pytest.raises(SetupError) as info:
        T.setup_train_days(setup_from_options({"model": "llama-2-7b", "gpu": "a100-80g"}))
    assert info.value.field == "train_tokens"
    assert info.value.message == "training days need D, the training tokens (e.g. 1.4T)"


def test_chinchilla_refuses_a_mixture_of_experts():
    # kills x_setup_chinchilla_tokens__mutmut_9, 10, 12, 13 (the message)
    with pytest.raises(SetupError) as info:
        T.setup_chinchilla_tokens(setup_from_options({"model": "mixtral-8x7b"}))
    assert info.value.field == "model"
    assert info.value.message == ("Chinchilla's D = 20·N was fitted on dense models; it does not apply to a "
                                  "mixture of experts")


# --- throughput: figures ---------------------------------------------------------------------------------
def test_compute_budget_without_an_attention_term_is_exactly_6nd():
    # kills x_compute_budget__mutmut_1 (default attention term 1 FLOP per token)
    # Chinchilla 70B on 1.4T tokens: 6 × 70e9 × 1.4e12 = 588,000,000,000,000,000,000,000 exactly
    assert T.compute_budget(70 * 10**9, 1_400_000_000_000) == 588_000_000_000_000_000_000_000
    assert T.compute_budget(10, 100) == 6_000  # 6 × 10 × 100 (the mutant: 61 × 100)


def test_compute_budget_halves_attention_under_the_causal_count():
    # kills x_attention_budget_per_token__mutmut_2 (attention / share: × 2 instead of × ½)
    setup = setup_from_options({"model": "llama-2-7b", "seq": 4096, "attention_flops": "causal",
                                "train_tokens": "2T"})
    # section 16: 3 × 4·L·a·d·s × ½ = 3 × 4 × 32 × 32 × 128 × 4,096 × ½ = 3,221,225,472 FLOPs per token
    assert T.attention_budget_per_token(setup) == 3_221_225_472
    # C = (6 × 6,738,415,616 + 3,221,225,472) × 2e12 = 43,651,719,168 × 2e12 (Llama 2: 2T tokens)
    assert T.setup_compute_budget(setup) == 87_303_438_336_000_000_000_000
