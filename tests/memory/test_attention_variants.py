"""Attention variants (memory-model.md section 18): sliding windows, local/global interleaving, kv_ratio.

Presets are checked against their published config.json (figures below); every expected value is the
spec's formula with those numbers written out.
"""

from __future__ import annotations

import math

import pytest

from quizapp.memory import GPUS, PRESETS, SetupError, diagnose, evaluate
from quizapp.memory import setup_from_options as opts
from quizapp.memory.models import ModelSpec, ShapeError

MiB, GiB = 2**20, 2**30


def test_mistral_7b_v01_config():
    # https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json: sliding_window 4096,
    # 32 layers, hidden 4096, 32 heads, 8 KV heads, intermediate 14336, vocab 32000
    m = PRESETS["mistral-7b"]
    assert (m.window, m.n_local, m.n_global) == (4096, 32, 0)
    assert m.params == 7_241_732_096  # section 2's count: the window adds no parameters


def test_gemma_2_9b_config():
    # https://huggingface.co/google/gemma-2-9b/blob/main/config.json: num_hidden_layers 42, hidden_size 3584,
    # num_attention_heads 16, num_key_value_heads 8, head_dim 256, intermediate_size 14336, vocab_size 256000,
    # query_pre_attn_scalar 256 (a score scale, no weights), sliding_window 4096, tie_word_embeddings;
    # transformers' Gemma2 makes even layers local: 21 local, 21 global
    m = PRESETS["gemma-2-9b"]
    assert (m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim, m.ffn, m.vocab, m.tied) == (
        42, 3584, 16, 8, 256, 14336, 256000, True)
    assert (m.window, m.n_local, m.n_global) == (4096, 21, 21)
    block = 3584 * 16 * 256 * 2 + 3584 * 8 * 256 * 2 + 3 * 3584 * 14336 + 4 * 3584  # q, o; k, v; MLP; 4 norms
    assert m.params == 42 * block + 256000 * 3584 + 3584  # + tied embedding + final norm = 9,241,705,984


def test_gemma_3_12b_config():
    # https://huggingface.co/google/gemma-3-12b-pt/blob/main/config.json text_config: num_hidden_layers 48,
    # hidden_size 3840, num_attention_heads 16, num_key_value_heads 8, head_dim 256, intermediate_size 15360,
    # vocab_size 262208, sliding_window 1024, sliding_window_pattern 6 (5 local per global: layers 5, 11, ...
    # are global, 8 of 48), q_norm/k_norm of head_dim, four RMSNorms per block, tied embeddings
    m = PRESETS["gemma-3-12b"]
    assert (m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim, m.ffn, m.vocab) == (
        48, 3840, 16, 8, 256, 15360, 262208)
    assert (m.window, m.n_local, m.n_global, m.qk_norm, m.tied) == (1024, 40, 8, True, True)
    block = 3840 * 4096 * 2 + 3840 * 2048 * 2 + 3 * 3840 * 15360 + 4 * 3840 + 2 * 256
    assert m.params == 48 * block + 262208 * 3840 + 3840 == 11_766_034_176  # the 12B's language model


def test_gemma_3_27b_config():
    # https://huggingface.co/google/gemma-3-27b-pt/blob/main/config.json text_config: num_hidden_layers 62,
    # hidden_size 5376, num_attention_heads 32, num_key_value_heads 16, head_dim 128, intermediate_size 21504,
    # vocab_size 262208, query_pre_attn_scalar 168, sliding_window 1024, sliding_window_pattern 6:
    # 62 − ⌊62/6⌋ = 52 local layers, 10 global
    m = PRESETS["gemma-3-27b"]
    assert (m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim, m.ffn, m.vocab) == (
        62, 5376, 32, 16, 128, 21504, 262208)
    assert (m.window, m.n_local, m.n_global) == (1024, 52, 10)
    block = 5376 * 4096 * 2 + 5376 * 2048 * 2 + 3 * 5376 * 21504 + 4 * 5376 + 2 * 128
    assert m.params == 62 * block + 262208 * 5376 + 5376  # 27,009,346,304 (the language model)
    # its cache at 32K, bf16: 2·16·128·(52·1024 + 10·32768)·2
    assert _kv("gemma-3-27b", 32768) == 2 * 16 * 128 * (52 * 1024 + 10 * 32768) * 2


def _kv(model: str, seq: int, batch: int = 1, **extra) -> float:
    return evaluate(opts({"model": model, "method": "inference", "seq": seq, "batch": batch, **extra}), "kv_cache")


def test_sliding_window_kv_cache():
    # 2·L·a_kv·d·min(s, W)·p: mistral-7b at 8192 tokens caches 4096: 2·32·8·128·4096·2 = 536,870,912
    assert _kv("mistral-7b", 8192) == 2 * 32 * 8 * 128 * 4096 * 2 == 536_870_912
    # within the window nothing changes: 2·32·8·128·2048·2
    assert _kv("mistral-7b", 2048) == 2 * 32 * 8 * 128 * 2048 * 2
    # llama-3-8b has the same shape and no window: twice as much at 8192
    assert _kv("llama-3-8b", 8192) == 2 * 32 * 8 * 128 * 8192 * 2
    # a window given as a setting on a preset
    assert _kv("llama-3-8b", 8192, window=1024) == 2 * 32 * 8 * 128 * 1024 * 2


def test_local_global_kv_cache():
    # gemma-2-9b, s = 8192: 2·a_kv·d·(21·min(8192, 4096) + 21·8192)·p = 2·8·256·(86,016 + 172,032)·2
    assert _kv("gemma-2-9b", 8192) == 2 * 8 * 256 * (21 * 4096 + 21 * 8192) * 2 == 2_113_929_216
    # gemma-3-12b, s = 32768, batch 2: 2·8·256·(40·1024 + 8·32768)·2·2
    assert _kv("gemma-3-12b", 32768, batch=2) == 2 * 8 * 256 * (40 * 1024 + 8 * 32768) * 2 * 2
    # global_every and local_layers on a custom shape: 12 layers, every 4th global -> 9 local, 3 global
    custom = {"layers": 12, "hidden": 1024, "heads": 8, "kv_heads": 2, "window": 512, "global_every": 4}
    s = opts({"method": "inference", "seq": 4096, **custom})
    assert evaluate(s, "kv_cache") == 2 * 2 * 128 * (9 * 512 + 3 * 4096) * 2
    s = opts({"method": "inference", "seq": 4096, **custom, "local_layers": 6})
    assert evaluate(s, "kv_cache") == 2 * 2 * 128 * (6 * 512 + 6 * 4096) * 2


def test_kv_bytes_per_token_of_a_windowed_model_is_the_average_at_seq():
    # no single per-token figure: kv_cache(seq) / seq (docs/memory.md, Part III)
    s = opts({"model": "gemma-2-9b", "method": "inference", "seq": 8192})
    assert evaluate(s, "kv_bytes_per_token") == 2 * 8 * 256 * (21 * 4096 + 21 * 8192) * 2 / 8192 == 258_048
    # within every window it is the all-layer figure 2·L·a_kv·d·p = 2·42·8·256·2
    s = opts({"model": "gemma-2-9b", "method": "inference", "seq": 1024})
    assert evaluate(s, "kv_bytes_per_token") == 2 * 42 * 8 * 256 * 2


def test_serving_figures_use_the_window():
    h100 = GPUS["h100-80g"]
    base = {"model": "gemma-3-12b", "method": "inference", "seq": 32768, "gpu": "h100-80g"}
    per_seq = 2 * 8 * 256 * (40 * 1024 + 8 * 32768) * 2  # 2,483,027,968 bytes
    budget = 0.9 * h100.capacity - 2 * 11_766_034_176 - GiB  # u·capacity − weights − 1 GiB
    # ⌈s/B⌉·B = s (32768 is a whole number of 16-token blocks), so each sequence costs per_seq
    assert evaluate(opts(base), "max_concurrency") == math.floor(budget / per_seq)
    # decode reads the weights and b·(the cache of one sequence)
    s4 = opts({**base, "batch": 4})
    assert evaluate(s4, "decode_bytes") == pytest.approx(2 * 11_766_034_176 + 4 * per_seq)
    # decode FLOPs: b·(2·N + 4·a·d·Σ_l min(s, W_l)) = 4·(2·N + 4·16·256·(40·1024 + 8·32768))
    assert evaluate(s4, "decode_flops") == pytest.approx(4 * (2 * 11_766_034_176 + 4 * 16 * 256 * (40 * 1024 + 8 * 32768)))
    # prefill of one prompt: s·(2·N + 4·a·d·Σ_l min(s, W_l)) (PaLM's full count)
    assert evaluate(opts({**base, "prompt": 32768}), "prefill_flops") == pytest.approx(
        32768 * (2 * 11_766_034_176 + 4 * 16 * 256 * (40 * 1024 + 8 * 32768)))


def test_max_context_with_windows():
    base = {"model": "gemma-2-9b", "method": "inference", "batch": 8, "gpu": "h100-80g"}
    budget = 0.9 * GPUS["h100-80g"].capacity - 2 * PRESETS["gemma-2-9b"].params - GiB

    def cache(s: int) -> int:  # 8 sequences, 2·8·256·(21·min(s, 4096) + 21·s)·2
        return 8 * 2 * 8 * 256 * (21 * min(s, 4096) + 21 * s) * 2

    s = int(evaluate(opts(base), "max_context"))
    assert s % 16 == 0 and cache(s) <= budget < cache(s + 16)
    # every layer windowed: the cache stops at W, so any context fits: refused in one line
    with pytest.raises(SetupError) as info:
        evaluate(opts({**base, "model": "mistral-7b"}), "max_context")
    assert info.value.field == "model" and "windowed" in info.value.message


def test_kv_ratio():
    # MHA (a_kv = a, every layer global) / the model's cache: llama-2-70b GQA-8: 64 / 8 = 8
    assert evaluate(opts({"model": "llama-2-70b", "method": "inference", "seq": 4096}), "kv_ratio") == 8
    assert evaluate(opts({"model": "llama-2-7b", "method": "inference", "seq": 4096}), "kv_ratio") == 1
    # gemma-2-9b at 8192: (2·42·16·256·8192) / (2·8·256·(21·4096 + 21·8192)) = 8/3
    ratio = (2 * 42 * 16 * 256 * 8192) / (2 * 8 * 256 * (21 * 4096 + 21 * 8192))
    assert evaluate(opts({"model": "gemma-2-9b", "method": "inference", "seq": 8192}), "kv_ratio") == pytest.approx(ratio)
    # mistral-7b at 32768: GQA 4x times the window 8x = 32
    assert evaluate(opts({"model": "mistral-7b", "method": "inference", "seq": 32768}), "kv_ratio") == 32
    # MLA: deepseek-v3's 61·128·(128 + 64 + 128) over 61·(512 + 64)
    assert evaluate(opts({"model": "deepseek-v3", "method": "inference", "seq": 4096}), "kv_ratio") == pytest.approx(
        128 * (128 + 64 + 128) / (512 + 64))


def test_window_ignored_is_named():
    s = opts({"model": "gemma-3-12b", "method": "inference", "seq": 32768})
    no_window = 2 * 48 * 8 * 256 * 32768 * 2  # every layer caching all 32768 tokens
    found = diagnose(s, "kv_cache", no_window * 1.01)
    assert found is not None and found[0].id == "kv-no-window"


def test_bad_window_settings():
    with pytest.raises(SetupError) as info:
        opts({"model": "llama-3-8b", "global_every": 2})
    assert info.value.field == "window"
    with pytest.raises(SetupError) as info:
        opts({"model": "llama-3-8b", "window": 4096, "local_layers": 33})
    assert info.value.field == "local_layers"
    with pytest.raises(ShapeError):
        ModelSpec("mla", 2, 64, 2, 2, 128, 100, kv_lora_rank=16, qk_nope_dim=8, qk_rope_dim=8, v_head_dim=8, window=16)
