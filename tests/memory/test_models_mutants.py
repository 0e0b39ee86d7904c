"""Pins for quizapp.memory.models that the mutation run (benchmarks/mutation/memory-models.partial.txt) left
alive: the preset builders' defaults, the exact tensor list, the calculator's model line (describe()),
block_vectors, llama_ffn's rounding and scaled_family's rules.

Every expectation is a literal derived by hand from the published config (arithmetic beside it); the
builders are called directly with and without each default. Mutant names are shortened: `_llama_3` is
quizapp.memory.models.x__llama__mutmut_3, `describe_5` is ...xǁModelSpecǁdescribe__mutmut_5, and so on.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from quizapp.memory import PRESETS
from quizapp.memory.models import ModelSpec, ShapeError, _gpt, _llama, _moe, bare_model, llama_ffn, scaled_family


def _fields(m: ModelSpec, *names: str) -> tuple:
    return tuple(getattr(m, n) for n in names)


# --- ShapeError -------------------------------------------------------------------------------------

def test_shape_error_message_names_the_field():
    # kills ShapeError.__init___1 (the message passed to ValueError replaced by None: str() would be "None")
    err = ShapeError("heads", "expected a positive integer")
    assert str(err) == "heads: expected a positive integer"
    assert (err.field, err.message) == ("heads", "expected a positive integer")
    with pytest.raises(ShapeError) as raised:
        ModelSpec("bad", 2, 100, 3, 3, 400, 1000)  # 100 % 3 = 1
    assert str(raised.value) == ("heads: 3 heads do not divide hidden 100; expected a divisor of hidden "
                                 "(or an explicit head_dim)")


# --- _llama: the builder and its defaults -----------------------------------------------------------

LLAMA_FIELDS = ("name", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "style", "tied", "positions", "bias")


def test_llama_builder_defaults_untied_no_bias_no_positions():
    # kills _llama_1 (tied default True), _llama_2, 3 (bias default "XXnoneXX"/"NONE": ShapeError),
    # _llama_4 to 14 (an argument replaced by None), 15 to 25 (an argument dropped), 26, 27 (style
    # "XXllamaXX"/"LLAMA": ShapeError), 28 (positions 1 instead of 0)
    m = _llama("t", 2, 64, 4, 2, 128, 100)
    assert _fields(m, *LLAMA_FIELDS) == ("t", 2, 64, 4, 2, 128, 100, "llama", False, 0, "none")
    assert m.tied is False
    # head_dim 64 / 4 = 16, kv width 2 × 16 = 32; per block: q 64² + k, v 2 × 64 × 32 + o 64² = 12,288,
    # SwiGLU 3 × 64 × 128 = 24,576, two RMSNorms 2 × 64 = 128 → 36,992; 2 blocks = 73,984;
    # embedding + LM head 2 × 100 × 64 = 12,800, final norm 64 → 73,984 + 12,864 = 86,848
    assert m.params == 86_848
    assert m.describe() == "t: L=2 h=64 a=4, kv_heads 2 f=128 V=100 llama"


def test_llama_builder_tied_and_bias_arguments():
    # kills _llama_12 (tied passed as None: an untied count), _llama_14 (bias None: ShapeError)
    tied = _llama("t", 2, 64, 4, 2, 128, 100, tied=True)
    assert tied.tied is True
    assert tied.params == 80_448  # 86,848 − the LM head 100 × 64 = 6,400
    assert tied.describe() == "t: L=2 h=64 a=4, kv_heads 2 f=128 V=100 llama tied"
    biased = _llama("t", 2, 64, 4, 2, 128, 100, bias="qkv")
    assert biased.bias == "qkv"
    assert biased.params == 87_104  # 86,848 + 2 blocks × (q 64 + k 32 + v 32) = 86,848 + 256
    assert biased.describe() == "t: L=2 h=64 a=4, kv_heads 2 f=128 V=100 llama bias qkv"


# Published configs (Hugging Face config.json): num_hidden_layers, hidden_size, num_attention_heads,
# num_key_value_heads, intermediate_size, vocab_size, tie_word_embeddings; Qwen2.5's q/k/v biases.
LLAMA_PRESETS = {
    "llama-2-7b": (32, 4096, 32, 32, 11008, 32000, False, "none"),
    "llama-2-13b": (40, 5120, 40, 40, 13824, 32000, False, "none"),
    "llama-2-70b": (80, 8192, 64, 8, 28672, 32000, False, "none"),
    "llama-3-8b": (32, 4096, 32, 8, 14336, 128256, False, "none"),
    "llama-3-70b": (80, 8192, 64, 8, 28672, 128256, False, "none"),
    "llama-3.1-8b": (32, 4096, 32, 8, 14336, 128256, False, "none"),
    "llama-3.1-70b": (80, 8192, 64, 8, 28672, 128256, False, "none"),
    "llama-3.1-405b": (126, 16384, 128, 8, 53248, 128256, False, "none"),
    "llama-3.2-1b": (16, 2048, 32, 8, 8192, 128256, True, "none"),
    "llama-3.2-3b": (28, 3072, 24, 8, 8192, 128256, True, "none"),
    "mistral-7b": (32, 4096, 32, 8, 14336, 32000, False, "none"),
    "qwen2.5-0.5b": (24, 896, 14, 2, 4864, 151936, True, "qkv"),
    "qwen2.5-1.5b": (28, 1536, 12, 2, 8960, 151936, True, "qkv"),
    "qwen2.5-7b": (28, 3584, 28, 4, 18944, 152064, False, "qkv"),
    "qwen2.5-14b": (48, 5120, 40, 8, 13824, 152064, False, "qkv"),
    "qwen2.5-72b": (80, 8192, 64, 8, 29568, 152064, False, "qkv"),
    "phi-3-mini": (32, 3072, 32, 32, 8192, 32064, False, "none"),
}


@pytest.mark.parametrize("name", sorted(LLAMA_PRESETS))
def test_llama_presets_match_their_configs(name):
    # kills _llama_1, 12 (tie defaults), 28 (positions 1) and every mutant that shifts an argument
    layers, hidden, heads, kv, ffn, vocab, tied, bias = LLAMA_PRESETS[name]
    m = PRESETS[name]
    assert _fields(m, *LLAMA_FIELDS) == (name, layers, hidden, heads, kv, ffn, vocab, "llama", tied, 0, bias)


def test_llama_preset_counts():
    # kills _llama_1 (tied default True: llama-2-7b loses its LM head), _llama_12 (tied=None: the 1B gains
    # one), _llama_28 (positions 1: + hidden each)
    # 32 × (4 × 4096² + 3 × 4096 × 11008 + 2 × 4096) + 2 × 32000 × 4096 + 4096 = 6,738,415,616
    assert PRESETS["llama-2-7b"].params == 6_738_415_616
    # 16 × (2 × 2048² + 2 × 2048 × 512 + 3 × 2048 × 8192 + 2 × 2048) + 128256 × 2048 + 2048 = 1,235,814,400
    assert PRESETS["llama-3.2-1b"].params == 1_235_814_400
    # 24 × (2 × 896² + 2 × 896 × 128 + (896 + 2 × 128) + 3 × 896 × 4864 + 2 × 896) + 151936 × 896 + 896
    # = 24 × (1,835,008 + 1,152 + 13,074,432 + 1,792) + 136,134,656 + 896 = 494,032,768
    assert PRESETS["qwen2.5-0.5b"].params == 494_032_768


# --- _gpt ---------------------------------------------------------------------------------------------

def test_gpt_builder():
    # kills _gpt_1 to 11 (an argument None), 12 to 22 (an argument dropped), 23, 24 (ffn 4/h, 5h),
    # 25, 26 (style "XXgptXX"/"GPT"), 27 (untied), 28, 29 (bias "XXallXX"/"ALL")
    m = _gpt("t", 2, 64, 4, 100, 32)
    assert _fields(m, *LLAMA_FIELDS) == ("t", 2, 64, 4, 4, 256, 100, "gpt", True, 32, "all")  # ffn 4 × 64
    # per block: attention 4 × 64² = 16,384, MLP 2 × 64 × 256 = 32,768, biases q/k/v/o 4 × 64 + fc1 256 +
    # fc2 64 = 576, two LayerNorms 2 × 2 × 64 = 256 → 49,984; 2 blocks = 99,968; tied embedding
    # 100 × 64 = 6,400, positions 32 × 64 = 2,048, final LayerNorm 2 × 64 = 128 → 99,968 + 8,576 = 108,544
    assert m.params == 108_544
    assert m.describe() == "t: L=2 h=64 a=4 f=256 V=100 gpt tied P=32 bias all"


@pytest.mark.parametrize("name, shape", [
    ("gpt2", (12, 768, 12, 12, 3072, 50257, 1024)),  # openai-community/gpt2: n_layer, n_embd, n_head, n_ctx
    ("gpt2-xl", (48, 1600, 25, 25, 6400, 50257, 1024)),  # openai-community/gpt2-xl
    ("gpt3-175b", (96, 12288, 96, 96, 49152, 50257, 2048)),  # Brown et al. 2020, Table 2.1
])
def test_gpt_presets_match_their_configs(name, shape):
    m = PRESETS[name]
    assert _fields(m, "layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "positions") == shape
    assert _fields(m, "style", "tied", "bias") == ("gpt", True, "all")


def test_gpt2_count():
    # kills _gpt_9, 27 (untied: + 50257 × 768), 24 (ffn 5h)
    # block: 4 × 768² + 4 × 768 + 2 × 768 × 3072 + 3072 + 768 + 2 × 2 × 768 = 7,087,872;
    # 12 × 7,087,872 + 50257 × 768 + 1024 × 768 + 2 × 768 = 124,439,808
    assert PRESETS["gpt2"].params == 124_439_808


# --- _moe ---------------------------------------------------------------------------------------------

MOE_FIELDS = ("name", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "style", "experts", "top_k",
              "expert_ffn", "shared_experts", "shared_ffn", "dense_layers", "head_dim", "qk_norm", "router_bias",
              "moe_family")


def test_moe_builder_ffn_defaults_to_the_expert_width():
    # kills _moe_1 to 11 (an argument None), 12 to 18 (a positional dropped), 20, 21 (experts/top_k dropped:
    # ShapeError), 25 (pop default None), 26, 27 (pop without the default: KeyError), 30, 31 (style)
    m = _moe("t", 2, 64, 4, 2, 100, 4, 2, 32)
    assert _fields(m, *MOE_FIELDS) == ("t", 2, 64, 4, 2, 32, 100, "llama", 4, 2, 32, 0, 32, 0, 16, False, False, "")
    # per block: attention 12,288 (as _llama's), norms 128, 4 experts × 3 × 64 × 32 = 24,576, router 64 × 4
    # = 256 → 37,248; 2 blocks = 74,496 + 2 × 100 × 64 + 64 = 87,360; active: 2 experts of 6,144 each →
    # 2 × (12,288 + 128 + 12,288 + 256) + 12,864 = 62,784
    assert (m.params, m.active_params) == (87_360, 62_784)


def test_moe_builder_takes_ffn_and_the_extras():
    # kills _moe_22 (expert_ffn dropped: it would fall back to ffn 96), 23 (**extra dropped), 24, 28, 29
    # (the "ffn" key not popped: ffn given twice, TypeError)
    m = _moe("t", 2, 64, 4, 2, 100, 4, 2, 32, ffn=96, dense_layers=1, shared_experts=1, moe_family="mixtral")
    assert _fields(m, *MOE_FIELDS) == ("t", 2, 64, 4, 2, 96, 100, "llama", 4, 2, 32, 1, 32, 1, 16, False, False,
                                       "mixtral")
    # block 0 dense: 12,288 + 128 + 3 × 64 × 96 = 30,848; block 1: 37,248 + one shared expert 3 × 64 × 32
    # = 6,144 → 43,392; 30,848 + 43,392 + 12,864 = 87,104
    assert m.params == 87_104


def test_moe_builder_fixes_the_style():
    # kills _moe_19 (the positional "llama" dropped: ModelSpec's default style is also "llama", but the
    # style would then be open to **extra): experts are SwiGLU MLPs, so the builder gives style itself and
    # a style among the extras is a second value for it
    with pytest.raises(TypeError):
        _moe("t", 2, 64, 4, 2, 100, 4, 2, 32, style="llama")


MOE_PRESETS = {
    # Qwen/Qwen3-30B-A3B: intermediate_size 6144, num_experts 128, num_experts_per_tok 8,
    # moe_intermediate_size 768, head_dim 128
    "qwen3-30b-a3b": (48, 2048, 32, 4, 6144, 151936, "llama", 128, 8, 768, 0, 768, 0, 128, True, False, "qwen3-moe"),
    # Qwen/Qwen3-235B-A22B
    "qwen3-235b-a22b": (94, 4096, 64, 4, 12288, 151936, "llama", 128, 8, 1536, 0, 1536, 0, 128, True, False,
                        "qwen3-moe"),
    # mistralai/Mixtral-8x7B-v0.1: intermediate_size 14336 is each expert's width (ffn defaults to it)
    "mixtral-8x7b": (32, 4096, 32, 8, 14336, 32000, "llama", 8, 2, 14336, 0, 14336, 0, 128, False, False,
                     "mixtral"),
    # deepseek-ai/DeepSeek-V3: head_dim 7168 / 128 = 56 (MLA widths are separate)
    "deepseek-v3": (61, 7168, 128, 128, 18432, 129280, "llama", 256, 8, 2048, 1, 2048, 3, 56, False, True,
                    "deepseek"),
    # deepseek-ai/DeepSeek-V2-Lite: head_dim 2048 / 16 = 128
    "deepseek-v2-lite": (27, 2048, 16, 16, 10944, 102400, "llama", 64, 6, 1408, 2, 1408, 1, 128, False, False,
                         "deepseek"),
}


@pytest.mark.parametrize("name", sorted(MOE_PRESETS))
def test_moe_presets_match_their_configs(name):
    assert _fields(PRESETS[name], *MOE_FIELDS) == (name, *MOE_PRESETS[name])


def test_moe_preset_counts():
    # Qwen3-30B-A3B per block: attention 2048 × 4096 + 2 × 2048 × 512 + 4096 × 2048 = 18,874,368, q/k norms
    # 2 × 128, norms 2 × 2048, experts 128 × 3 × 2048 × 768 = 603,979,776, router 2048 × 128 = 262,144
    # → 623,120,640; 48 × 623,120,640 + 2 × 151936 × 2048 + 2048 = 30,532,122,624;
    # active: experts 8 × 3 × 2048 × 768 = 37,748,736 → 48 × 56,889,600 + 622,331,904 = 3,353,032,704
    m = PRESETS["qwen3-30b-a3b"]
    assert (m.params, m.active_params) == (30_532_122_624, 3_353_032_704)
    # Mixtral: 32 × (2 × 4096² + 2 × 4096 × 1024 + 2 × 4096 + 8 × 3 × 4096 × 14336 + 4096 × 8)
    # + 2 × 32000 × 4096 + 4096 = 46,702,792,704; active with 2 experts: 12,879,925,248
    m = PRESETS["mixtral-8x7b"]
    assert (m.params, m.active_params) == (46_702_792_704, 12_879_925_248)
    # DeepSeek-V3: MLA attention 7168 × 1536 + 1536 × 128 × 192 + 7168 × 576 + 512 × 128 × 256 + 128 × 128
    # × 7168 = 187,105,280, vectors 2 × 7168 + 1536 + 512 = 16,384; MoE block 256 × 3 × 7168 × 2048
    # + 3 × 7168 × 2048 + 7168 × 256 + 256 = 11,320,164,608; 61 × 187,121,664 + 3 × 3 × 7168 × 18432
    # + 58 × 11,320,164,608 + 2 × 129280 × 7168 + 7168 = 671,026,419,200 (active, 8 + 1 experts:
    # 37,552,297,472)
    m = PRESETS["deepseek-v3"]
    assert (m.params, m.active_params) == (671_026_419_200, 37_552_297_472)


# --- tensors() (ModelSpec._tensor_list) ------------------------------------------------------------

def test_llama_tensor_list():
    # kills _tensor_list_2 (vectors overwrite the linears), 8, 9, 10 (RMSNorm weights left out), 11 (a
    # LayerNorm bias vector added to llama), 18, 19 (embedding), 22, 23, 24 (LM head), 25, 26 (final norm),
    # 27 (a final bias added to llama)
    assert PRESETS["llama-2-7b"].tensors() == (
        (4096, 4096, 32), (4096, 4096, 32), (4096, 4096, 32), (4096, 4096, 32),  # q, k, v, o (d_out, d_in, L)
        (11008, 4096, 32), (11008, 4096, 32), (4096, 11008, 32),  # gate, up, down
        (4096, None, 64),  # 2 RMSNorms × 32 blocks
        (32000, 4096, 1),  # token embedding
        (32000, 4096, 1),  # LM head (untied)
        (4096, None, 1),  # final norm
    )


def test_tied_llama_tensor_list_has_no_lm_head():
    # kills _tensor_list_22 (the head listed when tied)
    assert PRESETS["llama-3.2-1b"].tensors() == (
        (2048, 2048, 16), (512, 2048, 16), (512, 2048, 16), (2048, 2048, 16),  # kv width 8 × 64 = 512
        (8192, 2048, 16), (8192, 2048, 16), (2048, 8192, 16),
        (2048, None, 32),
        (128256, 2048, 1),
        (2048, None, 1),
    )


def test_gpt_tensor_list():
    # kills _tensor_list_4, 5 (biases left out of gpt), 6, 7 (the 2h LayerNorm entry listed as one vector),
    # 11, 12, 13, 14, 15, 16, 17 (the LayerNorm weight+bias vectors: 2 × 2 × 12 = 48 of h), 20, 21
    # (positions), 22 (a head added when tied), 27, 28, 29, 30, 31 (the final LayerNorm bias)
    assert PRESETS["gpt2"].tensors() == (
        (768, 768, 12), (768, 768, 12), (768, 768, 12), (768, 768, 12),  # q, k, v, o
        (3072, 768, 12), (768, 3072, 12),  # fc1, fc2
        (768, None, 12), (768, None, 12), (768, None, 12), (768, None, 12),  # q/k/v/o biases
        (3072, None, 12), (768, None, 12),  # fc1, fc2 biases
        (768, None, 48),  # 2 LayerNorms × (weight + bias) × 12 blocks
        (50257, 768, 1),  # token embedding (tied: no LM head)
        (1024, 768, 1),  # learned positions
        (768, None, 1), (768, None, 1),  # final LayerNorm weight and bias
    )
    assert all(isinstance(n, int) for _, _, n in PRESETS["gpt2"].tensors())


# --- block_vectors ----------------------------------------------------------------------------------

def test_block_vectors():
    # kills block_vectors_1 (None += list), 2 (= instead of +=), 3 (-=), 6 (list / int), 7 (list × float),
    # 11 (tuple(None)): TypeErrors or a lost entry; 4, 8, 10 (a per-layer vector listed once), 5 (a vector
    # on fewer than L blocks dropped), 9 (the test inverted)
    assert PRESETS["llama-2-7b"].block_vectors() == (4096, 4096)  # 64 norms / 32 blocks = 2 per block
    # gpt2: LayerNorms 2 × (2 × 768), q/k/v/o biases 768 each, fc1 bias 3072, fc2 bias 768
    assert PRESETS["gpt2"].block_vectors() == (1536, 1536, 768, 768, 768, 768, 3072, 768)
    # qwen3-8b: two RMSNorms of 4096, q and k norms of head_dim 128 (72 / 36 = 2 each)
    assert PRESETS["qwen3-8b"].block_vectors() == (4096, 4096, 128, 128)
    # deepseek-v3: norms 122 / 61 = 2, q_a_norm 1536, kv_a_norm 512; the router bias sits on 58 of 61
    # blocks (58 % 61 ≠ 0), so it is listed once: 256
    assert PRESETS["deepseek-v3"].block_vectors() == (7168, 7168, 1536, 512, 256)


# --- describe() -------------------------------------------------------------------------------------

DESCRIBE = {
    "llama-2-7b": "llama-2-7b: L=32 h=4096 a=32 f=11008 V=32000 llama",
    "llama-2-70b": "llama-2-70b: L=80 h=8192 a=64, kv_heads 8 f=28672 V=32000 llama",
    "llama-3.2-1b": "llama-3.2-1b: L=16 h=2048 a=32, kv_heads 8 f=8192 V=128256 llama tied",
    "gpt2": "gpt2: L=12 h=768 a=12 f=3072 V=50257 gpt tied P=1024 bias all",
    "qwen2.5-0.5b": "qwen2.5-0.5b: L=24 h=896 a=14, kv_heads 2 f=4864 V=151936 llama tied bias qkv",
    "qwen3-8b": "qwen3-8b: L=36 h=4096 a=32, kv_heads 8 f=12288 V=151936 llama qk_norm",  # 32 × 128 = 4096
    # 32 × 128 = 4096 ≠ 2048: the explicit head size is shown
    "qwen3-30b-a3b": "qwen3-30b-a3b: L=48 h=2048 a=32, kv_heads 4 f=6144 V=151936 llama d=128 qk_norm E=128 k=8 f_e=768",
    "mixtral-8x7b": "mixtral-8x7b: L=32 h=4096 a=32, kv_heads 8 f=14336 V=32000 llama E=8 k=2 f_e=14336",
    "deepseek-v3": ("deepseek-v3: L=61 h=7168 a=128 f=18432 V=129280 llama E=256 k=8 f_e=2048 S=1 D=3 "
                    "MLA r_q=1536 r_kv=512 d_n=128 d_r=64 d_v=128"),
    "deepseek-v2-lite": ("deepseek-v2-lite: L=27 h=2048 a=16 f=10944 V=102400 llama E=64 k=6 f_e=1408 S=2 D=1 "
                         "MLA r_q=0 r_kv=512 d_n=128 d_r=64 d_v=128"),
    "mistral-7b": "mistral-7b: L=32 h=4096 a=32, kv_heads 8 f=14336 V=32000 llama window=4096 local=32 global=0",
    # 16 × 256 = 4096 ≠ 3584; 42 − 42 // 2 = 21 local layers
    "gemma-2-9b": ("gemma-2-9b: L=42 h=3584 a=16, kv_heads 8 f=14336 V=256000 llama tied d=256 "
                   "window=4096 local=21 global=21"),
}


@pytest.mark.parametrize("name", sorted(DESCRIBE))
def test_describe_presets(name):
    # kills describe_2 ("None" in every line), 3, 4, 5, 6, 7, 8 (the GQA clause: shown only when kv_heads ≠
    # heads and not MLA), 10 ("XXXX"), 11, 12, 13, 14 (d= only for an explicit head size), 17, 19, 20
    # (qk_norm), 21 (E= overwrites d=/qk_norm), 23, 25, 26, 27 (S=), 28, 30, 31, 32 (D=), 33 (MLA overwrites
    # E=), 35 (window overwrites d=), 38 to 42 (tied), 43, 44, 45 (P=), 46 to 54 (bias)
    assert PRESETS[name].describe() == DESCRIBE[name]


def test_describe_mla_hides_kv_heads():
    # kills describe_5, 7 (MLA caches a latent: its kv_heads field is not a GQA group)
    m = replace(PRESETS["deepseek-v2-lite"], kv_heads=8)
    assert m.describe() == ("deepseek-v2-lite: L=27 h=2048 a=16 f=10944 V=102400 llama E=64 k=6 f_e=1408 S=2 D=1 "
                            "MLA r_q=0 r_kv=512 d_n=128 d_r=64 d_v=128")


def test_describe_bare_count():
    # kills describe_1 (`if self.has_shape:` — a bare count would be described by its empty shape, a shaped
    # model as a bare count)
    assert ModelSpec("7B", count=7_000_000_000).describe() == "7B: 7,000,000,000 parameters (no shape)"
    assert bare_model(1_500_000).describe() == "1,500,000 params: 1,500,000 parameters (no shape)"


# --- llama_ffn ----------------------------------------------------------------------------------------

def test_llama_ffn_rounds_up_to_the_multiple():
    assert llama_ffn(4096) == 11008  # int(8 × 4096 / 3) = 10922 → 43 × 256 = 11008
    assert llama_ffn(5120) == 13824  # int(8 × 5120 / 3) = 13653 → 54 × 256 = 13824 (Llama-2-13B)
    # kills llama_ffn_12 (+ 1 instead of − 1): int(8 × 96 / 3) = 256 is already a multiple → 256, not 512
    assert llama_ffn(96) == 256
    # kills llama_ffn_14 (− 2): int(8 × 2 / 3) = 5 → ⌈5 / 4⌉ × 4 = 8, not 4
    assert llama_ffn(2, multiple_of=4) == 8


# --- scaled_family ----------------------------------------------------------------------------------

SCALED_FIELDS = ("name", "layers", "hidden", "heads", "kv_heads", "ffn", "head_dim")


def test_scaled_family_single_head_llama():
    # kills scaled_family_50 (at least 2 layers), 88 (name kept), 93 (ffn not scaled)
    m = scaled_family(PRESETS["llama-2-7b"], 1)
    # hidden 1 × 4096 / 32 = 128; layers max(1, round(1 × 32 / 32)) = 1; kv max(1, 1 // 1) = 1;
    # ffn 64 × ⌈11008 × 128 / 4096 / 64⌉ = 64 × ⌈5.375⌉ = 384
    assert _fields(m, *SCALED_FIELDS) == ("llama-2-7b-family(L=1,a=1)", 1, 128, 1, 1, 384, 128)


def test_scaled_family_keeps_the_gqa_ratio():
    # kills scaled_family_23 (kv at least 2): llama-2-70b groups 64 / 8 = 8 heads, so 8 heads share 1 KV head
    m = scaled_family(PRESETS["llama-2-70b"], 8)
    # hidden 8 × 128 = 1024; layers round(8 × 80 / 64) = 10; ffn 28672 × 1024 / 8192 = 3584 = 56 × 64
    assert _fields(m, *SCALED_FIELDS) == ("llama-2-70b-family(L=10,a=8)", 10, 1024, 8, 1, 3584, 128)


def test_scaled_family_kv_heads_step_down_to_a_divisor():
    # kills scaled_family_26 (kv = 1), 27 (kv += 1: 9), 28 (kv −= 2: 4, 2, 0 → ZeroDivisionError)
    m = scaled_family(PRESETS["gemma-2-9b"], 9)
    # group 16 / 8 = 2 → kv 9 // 2 = 4; 9 % 4 ≠ 0 → 3 divides 9. hidden 9 × 3584 / 16 = 9 × 224 = 2016
    # (head_dim 256 kept); layers round(9 × 42 / 16) = round(23.625) = 24; ffn 14336 × 2016 / 3584 = 8064
    assert _fields(m, *SCALED_FIELDS) == ("gemma-2-9b-family(L=24,a=9)", 24, 2016, 9, 3, 8064, 256)


def test_scaled_family_explicit_head_size_when_heads_do_not_divide_hidden():
    # kills scaled_family_1 (d = None: 6 × None), 4 (always hidden // heads = 33)
    base = ModelSpec("x", 2, 100, 3, 3, 256, 1000, head_dim=32)  # 100 % 3 ≠ 0: per head = head_dim 32
    m = scaled_family(base, 6)
    # hidden 6 × 32 = 192; kv 6; layers round(6 × 2 / 3) = 4; ffn 64 × ⌈256 × 192 / 100 / 64⌉ = 64 × ⌈7.68⌉ = 512
    assert _fields(m, *SCALED_FIELDS) == ("x-family(L=4,a=6)", 4, 192, 6, 6, 512, 32)


def test_scaled_family_width_floor_is_64():
    # kills scaled_family_35 (floor 65)
    m = scaled_family(ModelSpec("t", 2, 256, 4, 4, 128, 1000), 1)
    # hidden 64; ffn 128 × 64 / 256 = 32 → 64 × ⌈0.5⌉ = 64 = max(64, 64); layers max(1, round(0.5) = 0) = 1
    assert _fields(m, *SCALED_FIELDS) == ("t-family(L=1,a=1)", 1, 64, 1, 1, 64, 64)


def test_scaled_family_zero_width_stays_zero():
    # kills scaled_family_30 (0 scaled to 64), 43 (0 scaled to 1): an all-MoE shape with no dense ffn
    base = ModelSpec("m", 2, 256, 4, 4, 0, 1000, experts=4, top_k=2, expert_ffn=512)
    m = scaled_family(base, 8)
    # hidden 512, layers round(8 × 2 / 4) = 4; expert_ffn 512 × 512 / 256 = 1024 (shared_ffn follows)
    assert _fields(m, *SCALED_FIELDS, "expert_ffn", "shared_ffn") == (
        "m-family(L=4,a=8)", 4, 512, 8, 8, 0, 64, 1024, 1024)
    assert m.describe() == "m-family(L=4,a=8): L=4 h=512 a=8 f=0 V=1000 llama E=4 k=2 f_e=1024"


def test_scaled_family_moe_widths_and_dense_blocks():
    # kills scaled_family_62 (expert_ffn not scaled: 128), 63 (shared_ffn not scaled: 512), 66 (shared_ffn
    # from scaled(None) = 0, falling back to expert_ffn 256), 72 (dense min(1, 2 − 2) = 0), 75 (dense
    # zeroed at 2 layers)
    base = ModelSpec("s", 4, 256, 4, 4, 1024, 1000, experts=8, top_k=2, expert_ffn=128, shared_experts=1,
                     shared_ffn=512, dense_layers=1)
    m = scaled_family(base, 8, layers=2)
    # hidden 512 (× 2): ffn 2048, expert_ffn 256, shared_ffn 1024; dense min(1, 2 − 1) = 1
    assert _fields(m, *SCALED_FIELDS, "expert_ffn", "shared_ffn", "dense_layers") == (
        "s-family(L=2,a=8)", 2, 512, 8, 8, 2048, 64, 256, 1024, 1)


def test_scaled_family_caps_dense_blocks_below_layers():
    # kills scaled_family_64 (dense_layers 3 kept: ShapeError at 2 layers), 71 (min(3, 3) = 3: ShapeError),
    # 72 (min(3, 0) = 0), 75 (dense zeroed at 2 layers), 94 (**extra dropped)
    m = scaled_family(PRESETS["deepseek-v3"], 128, layers=2)
    assert _fields(m, *SCALED_FIELDS, "expert_ffn", "shared_ffn", "dense_layers") == (
        "deepseek-v3-family(L=2,a=128)", 2, 7168, 128, 128, 18432, 56, 2048, 2048, 1)  # min(3, 2 − 1) = 1


def test_scaled_family_one_layer_moe_has_no_dense_block():
    # kills scaled_family_76 (dense_layers None: TypeError), 77, 78 (a misspelt key: TypeError from replace),
    # 79 (dense 1 = layers: ShapeError), 94 (dense 3 kept)
    m = scaled_family(PRESETS["deepseek-v3"], 1)
    # layers max(1, round(61 / 128)) = 1; hidden 1 × 7168 / 128 = 56; kv max(1, 1 // 1) = 1;
    # ffn 18432 × 56 / 7168 = 144 → 64 × ⌈2.25⌉ = 192; expert/shared 2048 × 56 / 7168 = 16 → 64
    assert _fields(m, *SCALED_FIELDS, "expert_ffn", "shared_ffn", "dense_layers") == (
        "deepseek-v3-family(L=1,a=1)", 1, 56, 1, 1, 192, 56, 64, 64, 0)
