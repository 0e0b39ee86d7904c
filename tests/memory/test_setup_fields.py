"""The Part II setup keys (memory-model.md sections 11-16): defaults, parsing, one-line errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

from quizapp.memory import OPTION_KEYS, PRESETS, Setup, SetupError, setup_from_options

CONTRACT = (  # /tmp/team/OWNERS.md, the calculator contract
    "head_dim qk_norm experts top_k expert_ffn shared_experts shared_ffn dense_layers router_bias q_lora_rank "
    "kv_lora_rank qk_nope_dim qk_rope_dim v_head_dim weights group_size kv_dtype tp pp ep sp microbatches "
    "interleave link_bandwidth kv_block gpu_util bandwidth_efficiency prompt group critic_model reward_model "
    "rollout_batch tokens_per_s train_tokens compute weights_dtype"
).split()


def test_every_contract_key_is_accepted():
    assert set(CONTRACT) <= set(OPTION_KEYS)


def test_defaults():
    s = Setup(PRESETS["llama-2-7b"])
    assert (s.tp, s.pp, s.ep, s.sp, s.microbatches, s.interleave) == (1, 1, 1, False, 1, 1)
    assert (s.link_bandwidth, s.kv_block, s.gpu_util, s.bandwidth_efficiency, s.prompt) == (None, 16, 0.9, 1.0, None)
    assert (s.weights, s.kv_dtype, s.group_size, s.compute) == ("bf16", "bf16", 128, "bf16")
    assert (s.critic_model, s.reward_model, s.rollout_batch, s.tokens_per_s, s.train_tokens) == (None,) * 5
    assert s.prompt_tokens == s.seq and s.world_size == 1


def test_values_parse_from_strings():
    s = setup_from_options({
        "model": "mixtral-8x7b", "tp": "2", "pp": "2", "ep": "4", "gpus": "8", "sp": "yes", "microbatches": "16",
        "interleave": "2", "link_bandwidth": "400 Gb/s", "kv_block": "32", "gpu_util": "95%",
        "bandwidth_efficiency": "0.8", "seq": "8k", "prompt": "2k", "tokens_per_s": "12k", "train_tokens": "2T tokens",
        "compute": "FP8", "group_size": 64,
    })
    assert (s.tp, s.pp, s.ep, s.gpus, s.sp, s.microbatches, s.interleave) == (2, 2, 4, 8, True, 16, 2)
    assert s.link_bandwidth == 50e9  # 400 Gb/s is bits
    assert (s.kv_block, s.gpu_util, s.bandwidth_efficiency) == (32, 0.95, 0.8)
    assert (s.seq, s.prompt, s.tokens_per_s, s.train_tokens, s.compute, s.group_size) == (
        8192, 2048, 12000.0, 2 * 10**12, "fp8", 64)
    assert s.world_size == 8 * 2 * 2


@pytest.mark.parametrize("text, value", [("50 GB/s", 50e9), ("450GB/s", 450e9), ("5e10", 5e10), ("100Gbps", 12.5e9),
                                         ("1 TB/s", 1e12)])
def test_link_bandwidth_units(text, value):
    assert setup_from_options({"model": "7B", "link_bandwidth": text}).link_bandwidth == value


@pytest.mark.parametrize("options, field, fragment", [
    ({"model": "llama-2-7b", "tp": 0}, "tp", "integer >= 1"),
    ({"model": "llama-2-7b", "tp": 5}, "tp", "divisor of heads"),
    ({"model": "llama-2-7b", "pp": 64}, "pp", "at most layers"),
    ({"model": "llama-2-7b", "method": "inference", "pp": 2}, "pp", "training"),
    ({"model": "llama-2-7b", "interleave": 2}, "interleave", "pp"),
    ({"model": "llama-2-7b", "gpu_util": 2}, "gpu_util", "fraction"),
    ({"model": "llama-2-7b", "bandwidth_efficiency": "0"}, "bandwidth_efficiency", "fraction"),
    ({"model": "llama-2-7b", "link_bandwidth": "fast"}, "link_bandwidth", "GB/s"),
    ({"model": "llama-2-7b", "tokens_per_s": "-3"}, "tokens_per_s", "tokens/s"),
    ({"model": "llama-2-7b", "train_tokens": "lots"}, "train_tokens", "2T"),
    ({"model": "llama-2-7b", "compute": "fp4"}, "compute", "bf16 | fp8"),
    ({"model": "llama-2-7b", "weights": "q4_k_m", "method": "inference"}, "weights", "gguf-q4_0"),
    ({"model": "llama-2-7b", "weights_dtype": "int4"}, "weights_dtype", "qlora"),
    ({"model": "llama-2-7b", "weights": "int8", "weights_dtype": "int8"}, "weights_dtype", "both"),
    ({"model": "llama-2-7b", "kv_dtype": "fp4", "method": "inference"}, "kv_dtype", "fp8"),
    ({"model": "llama-2-7b", "prompt": "4k"}, "prompt", "at most seq"),
    ({"model": "llama-2-7b", "method": "qlora", "weights": "int8"}, "weights", "lora"),
    ({"model": "mixtral-8x7b", "method": "lora"}, "method", "not modelled"),
    ({"model": "llama-2-7b", "group_size": 0}, "group_size", "integer >= 1"),
])
def test_errors_are_one_line_and_name_the_field(options, field, fragment):
    with pytest.raises(SetupError) as err:
        setup_from_options(options)
    assert err.value.field == field, err.value
    assert fragment in err.value.message and "\n" not in str(err.value)


def test_method_choices_include_rlhf():
    with pytest.raises(SetupError) as err:
        setup_from_options({"model": "7B", "method": "grp"})
    assert "ppo | dpo | grpo" in err.value.message and "did you mean grpo" in err.value.message


def test_importing_memory_loads_no_words():
    code = "import sys, quizapp.memory; print(any(m.startswith('quizapp.words') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
