"""Regression tests for the errors the expert review found in the bundled bank (content-review.md).

Every expected value is derived here from memory-model.md (sections 2-5 and 8) and the models'
published shapes, never copied from the calculator: the drills must agree with the spec.
- Zero-offload: the CPU holds the fp32 master copy, m, v and an fp32 gradient buffer, 16 bytes per
  parameter (section 3), not the 14 of a 16-bit gradient.
- The H200 is 143,771 MiB as nvidia-smi reports it (section 8), not "141 GB"; the H100 80GB is
  81,559 MiB. Every headroom / max-batch variant on those cards follows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from quizapp.content import load_bank
from quizapp.content.drills import base_options
from quizapp.locations import bundled_content_dir
from quizapp.memory import evaluate, setup_from_options

MiB = 2**20
GiB = 2**30
RESERVE = GiB  # fit checks reserve 1 GiB (section 1)
H200 = 143_771 * MiB
H100_80G = 81_559 * MiB
A100_80G = 81_920 * MiB


@dataclass(frozen=True)
class Shape:
    """A decoder's published shape and its exact parameter count (memory-model.md section 2)."""

    params: int
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


SHAPES = {
    "llama-2-7b": Shape(6_738_415_616, 32, 4096, 32, 32, 11008, 32000),
    "llama-2-13b": Shape(13_015_864_320, 40, 5120, 40, 40, 13824, 32000),
    "llama-2-70b": Shape(68_976_648_192, 80, 8192, 64, 8, 28672, 32000),
    "llama-3-8b": Shape(8_030_261_248, 32, 4096, 32, 8, 14336, 128256),
    "mistral-7b": Shape(7_241_732_096, 32, 4096, 32, 8, 14336, 32000),
}


def llama_block_bytes(shape: Shape, tokens: int, p: int = 2) -> int:
    """Section 5: what one LLaMA-style block keeps (no dropout, SwiGLU, RMSNorm, flash attention)."""
    g_h = shape.kv_heads * shape.head_dim  # g*h, the k and v widths
    attention = p * tokens * (3 * shape.hidden + 2 * g_h) + 4 * shape.heads * tokens
    mlp = p * tokens * shape.hidden + 4 * p * tokens * shape.ffn
    norms = 2 * p * tokens * shape.hidden
    return attention + mlp + norms


def full_recompute_activations(shape: Shape, seq: int, batch: int = 1, p: int = 2) -> int:
    """Section 5, `recompute: full`: every block's input, one block's terms, the logits and the loss."""
    tokens = seq * batch
    inputs = shape.layers * p * tokens * shape.hidden
    logits = 2 * p * tokens * shape.hidden + 4 * tokens * shape.vocab
    return inputs + llama_block_bytes(shape, tokens, p) + logits


def adamw_8bit_states(params: int) -> float:
    """Section 3: m and v in 8 bits plus one fp32 absmax per 256-element block per state.

    Every tensor of the llama shapes has at least 4096 elements and a multiple of 256 of them, so
    none stays 32-bit and the blocks tile exactly: 2 + 8/256 bytes per parameter.
    """
    return params * (2 + 8 / 256)


REVIEWED_TOPICS = ("llm-training", "compute", "fine-tuning", "inference")  # the 21 reviewed questions


@pytest.fixture(scope="module")
def bank():
    loaded = load_bank([bundled_content_dir() / topic for topic in REVIEWED_TOPICS])
    assert [str(p) for p in loaded.problems] == []
    return loaded


def drill_value(bank, reference: str, **overrides) -> float:
    """The calculator's answer for QID/DRILL with some `vary` choices fixed (base units: bytes, counts)."""
    question_id, drill_id = reference.split("/")
    question = bank.question(question_id)
    assert question is not None, question_id
    drill = question.drill(drill_id)
    assert drill is not None, reference
    for field, value in overrides.items():
        assert field in drill.setup or value in drill.vary.get(field, []), (reference, field, value)
    options = {**base_options(drill), **overrides}
    return float(evaluate(setup_from_options(options), drill.ask))


# --- zero-offload: 16 bytes per parameter on the CPU -----------------------------------------------


@pytest.mark.parametrize("model", ["llama-2-7b", "llama-2-13b", "llama-3-8b", "llama-2-70b"])
def test_zero_offload_cpu_memory_is_16_bytes_per_param(bank, model):
    # fp32 master 4 + m 4 + v 4 + the fp32 gradient buffer 4 (the 16-bit gradients streamed over PCIe
    # are accumulated into fp32 on the CPU); a 16-bit gradient buffer would give the reviewed 14.
    expected = (4 + 4 + 4 + 4) * SHAPES[model].params
    assert drill_value(bank, "zero-offload/off-cpu", model=model) == pytest.approx(expected, rel=1e-9)
    assert drill_value(bank, "zero-offload/off-cpu", model=model) != pytest.approx(14 * SHAPES[model].params, rel=0.05)


def test_the_seed_cards_offload_cpu_drill_agrees(bank):
    expected = 16 * SHAPES["llama-2-7b"].params
    assert drill_value(bank, "single-gpu-requirements/offload-7b-cpu") == pytest.approx(expected, rel=1e-9)


# --- the H200 (and H100) capacity as the card reports it -------------------------------------------


@pytest.mark.parametrize("model", ["llama-2-7b", "mistral-7b", "llama-3-8b"])
def test_full_finetune_headroom_on_h200_uses_143771_mib(bank, model):
    shape = SHAPES[model]
    total = 16 * shape.params + full_recompute_activations(shape, seq=2048)
    expected = H200 - RESERVE - total
    assert drill_value(bank, "choosing-a-gpu/full-7b-h200", model=model) == pytest.approx(expected, rel=1e-9)


def test_llama_2_7b_h200_headroom_is_the_reviewed_40_7_gb(bank):
    # the review's own figure, 40.7 GB, where the "141 GB" preset gave 30.96 GB
    assert drill_value(bank, "choosing-a-gpu/full-7b-h200", model="llama-2-7b") / 1e9 == pytest.approx(40.72, abs=0.01)


@pytest.mark.parametrize(
    ("reference", "gpu", "capacity"),
    [
        ("max-memory-allocated-vs-nvidia-smi/fit-headroom", "h200", H200),
        ("max-memory-allocated-vs-nvidia-smi/fit-headroom", "h100-80g", H100_80G),
        ("max-memory-allocated-vs-nvidia-smi/fit-headroom", "a100-80g", A100_80G),
        ("single-gpu-requirements/a100-8bit-headroom", "h200", H200),
    ],
)
def test_8bit_adamw_headroom_on_each_card(bank, reference, gpu, capacity):
    shape = SHAPES["llama-2-7b"]
    states = (2 + 2 + 4) * shape.params + adamw_8bit_states(shape.params)
    total = states + full_recompute_activations(shape, seq=2048)
    assert drill_value(bank, reference, gpu=gpu) == pytest.approx(capacity - RESERVE - total, rel=1e-9)


def test_max_micro_batch_on_h200(bank):
    # gradient-accumulation/ga-maxbatch[h200]: every activation term is linear in the micro-batch
    shape = SHAPES["llama-2-7b"]
    states = (2 + 2 + 4) * shape.params + adamw_8bit_states(shape.params)
    per_sample = full_recompute_activations(shape, seq=2048, batch=1)
    expected = math.floor((H200 - RESERVE - states) / per_sample)
    assert expected == 71  # the review's figure (63 with the "141 GB" preset)
    assert drill_value(bank, "gradient-accumulation/ga-maxbatch", gpu="h200") == expected


def test_serving_max_batch_on_h200(bank):
    # kv-cache/serve-max-batch[h200]: llama-2-13b bf16 weights, 4096-token sequences of 16-bit KV
    shape = SHAPES["llama-2-13b"]
    kv_per_sequence = 2 * shape.layers * shape.kv_heads * shape.head_dim * 4096 * 2
    expected = math.floor((H200 - RESERVE - 2 * shape.params) / kv_per_sequence)
    assert expected == 36  # the review's figure (33 with the "141 GB" preset)
    assert drill_value(bank, "kv-cache/serve-max-batch", gpu="h200") == expected


def test_largest_model_on_h200_uses_the_reported_capacity(bank):
    # model states only, 16 bytes per parameter
    expected = (H200 - RESERVE) / 16
    assert drill_value(bank, "largest-model-single-gpu/max-params-full", gpu="h200") == pytest.approx(expected, rel=1e-3)


# --- numbers typed in prose next to {{drill}} references stay true ---------------------------------


def test_checkpointing_saves_about_89_percent_at_7b(bank):
    # single-gpu-requirements errata: "省掉约 89%" (and "近九成" in its answer and gradient-checkpointing)
    none = drill_value(bank, "single-gpu-requirements/act-7b-flash", seq=2048)
    full = drill_value(bank, "single-gpu-requirements/act-7b-full")
    assert 1 - full / none == pytest.approx(0.89, abs=0.005)


def test_seed_vocabulary_claim_holds_for_32k_and_fails_for_152k(bank):
    # the seed's 0.5 GB for a 1.5B model after recomputation: about right with a 32K vocabulary,
    # far off with Qwen2.5's 152K (the fp32 log-softmax 4*T*V alone is over 1 GB)
    small = drill_value(bank, "single-gpu-requirements/act-1p5b-32k", vocab=32000)
    large = drill_value(bank, "single-gpu-requirements/act-1p5b-32k", vocab=151936)
    assert 0.4e9 < small < 0.8e9
    assert large > 1.2e9
    assert large - small == pytest.approx(4 * 2048 * (151936 - 32000), rel=1e-9)


def test_qv_lora_keeps_about_a_fifth_less_than_full_finetuning(bank):
    # lora-memory and largest-model-single-gpu say qv LoRA keeps "约两成" less per layer than full
    # fine-tuning, and all-linear LoRA keeps more (spec section 4). Per layer (llama-2-7b, g = 1, p = 2):
    # full (6 + 2g)pTh + 4pTf, qv (5 + 2g)pTh + 3pTf + 2pTr.
    h, f, r = 4096, 11008, 16
    full_layer = 8 * 2 * h + 4 * 2 * f
    qv_layer = 7 * 2 * h + 3 * 2 * f + 2 * 2 * r
    assert 1 - qv_layer / full_layer == pytest.approx(0.2, abs=0.02)
    full = drill_value(bank, "lora-memory/full-act")
    qv = drill_value(bank, "lora-memory/lora-total", recompute="none", seq=2048)
    qv_states = drill_value(bank, "lora-memory/lora-states")
    all_linear = drill_value(bank, "lora-memory/lora-all-act", lora_rank=16)
    assert 0.15 < 1 - (qv - qv_states) / full < 0.25
    assert all_linear > full
