"""Model shapes and exact parameter counts (memory-model.md sections 2 and 11).

A `ModelSpec` is either a decoder-only architecture (layers, hidden, heads, ...) or a bare parameter
count ("7B"); the calculator needs the shape only for the terms that depend on it (activations, KV
cache, per-tensor optimizer states), so both live in one type and `has_shape` tells them apart.
Section 11's extensions live here too: an explicit head size and QK-norm (Qwen3, Gemma), mixture of
experts (routed and shared experts, leading dense blocks, a router with an optional bias) and
multi-head latent attention (DeepSeek-V2/V3). Every parameter tensor is listed once, by `linears()`
and `vectors()`, so total and active counts, quantized sizes and per-tensor optimizer states all
come from the same list.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Mapping

STYLES = ("llama", "gpt")
MOE_FAMILIES = ("", "mixtral", "qwen3-moe", "qwen2-moe", "deepseek")
BIASES = ("none", "qkv", "all")

# Kinds of linear matrices (what a weight format quantizes and what expert parallelism shards).
ATTENTION, MLP, EXPERT, SHARED, ROUTER = "attention", "mlp", "expert", "shared", "router"


class ShapeError(ValueError):
    """An impossible shape; `field` names the setting at fault (for SetupError)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Linear:
    """`count` matrices of d_in x d_out in the whole model (e.g. q in every block: count = L)."""

    name: str
    d_in: int
    d_out: int
    count: int
    kind: str  # ATTENTION | MLP | EXPERT | SHARED | ROUTER

    @property
    def params(self) -> int:
        return self.d_in * self.d_out * self.count


@dataclass(frozen=True)
class ModelSpec:
    """A decoder-only transformer. style "llama": RMSNorm, SwiGLU (3 MLP matrices), RoPE, no dropout;
    style "gpt": LayerNorm, GELU (2 MLP matrices), learned positions, dropout.

    `count` set means a bare parameter count: the shape fields are 0 and only architecture-free terms
    can be computed. `head_dim` 0 means hidden / heads. `experts` > 0 makes the blocks after the
    first `dense_layers` mixture-of-experts blocks; `kv_lora_rank` > 0 makes attention MLA.
    """

    name: str
    layers: int = 0
    hidden: int = 0
    heads: int = 0
    kv_heads: int = 0
    ffn: int = 0
    vocab: int = 0
    style: str = "llama"
    tied: bool = False
    positions: int = 0
    bias: str = "none"
    count: int | None = field(default=None, compare=True)
    head_dim: int = 0  # d; 0 = hidden // heads (set in __post_init__)
    qk_norm: bool = False
    experts: int = 0  # E routed experts per MoE block; 0 = dense
    top_k: int = 0  # k experts per token
    expert_ffn: int = 0  # f_e; 0 = ffn
    shared_experts: int = 0  # S
    shared_ffn: int = 0  # f_s; 0 = f_e
    dense_layers: int = 0  # D leading blocks with a dense MLP of width ffn
    router_bias: bool = False  # + E per MoE block (DeepSeek-V3's score-correction bias)
    q_lora_rank: int = 0  # r_q; 0 = no query compression
    kv_lora_rank: int = 0  # r_kv; > 0 = MLA
    qk_nope_dim: int = 0  # d_n
    qk_rope_dim: int = 0  # d_r
    v_head_dim: int = 0  # d_v
    block_norms: int = 2  # norms per block (Gemma 2's sandwich norms: 4)
    moe_family: str = ""  # "" | mixtral | qwen3-moe | qwen2-moe | deepseek: which hf-profile MoE extras apply
    # Attention variants (section 18): local layers cache and attend to at most `window` W tokens.
    window: int = 0  # W; 0 = every layer attends to the whole context
    global_every: int = 0  # with a window: every g-th layer is global (Gemma 2: 2, Gemma 3: 6); 0 = all local
    local_layers: int = 0  # with a window: an explicit count of local layers (0 = from global_every)

    def __post_init__(self) -> None:
        if self.count is not None:
            if self.count <= 0:
                raise ValueError("a parameter count must be positive")
            return
        for attr in ("layers", "hidden", "heads", "kv_heads", "vocab"):
            if not isinstance(getattr(self, attr), int) or getattr(self, attr) <= 0:
                raise ShapeError(attr, "expected a positive integer")
        if self.ffn <= 0 and not (self.experts and self.dense_layers == 0):
            raise ShapeError("ffn", "expected a positive integer")
        for attr in ("positions", "head_dim", "experts", "top_k", "expert_ffn", "shared_experts", "shared_ffn",
                     "dense_layers", "q_lora_rank", "kv_lora_rank", "qk_nope_dim", "qk_rope_dim", "v_head_dim"):
            if getattr(self, attr) < 0:
                raise ShapeError(attr, "expected an integer >= 0")
        for attr in ("window", "global_every", "local_layers"):
            if not isinstance(getattr(self, attr), int) or getattr(self, attr) < 0:
                raise ShapeError(attr, "expected an integer >= 0")
        if (self.global_every or self.local_layers) and not self.window:
            raise ShapeError("window", "local/global interleaving needs the local layers' window; set window too")
        if self.local_layers > self.layers:
            raise ShapeError("local_layers", f"expected at most layers = {self.layers} local layers, got {self.local_layers}")
        if self.window and self.kv_lora_rank:
            raise ShapeError("window", "a sliding window on MLA is not modelled; expected window 0 with kv_lora_rank")
        if self.moe_family not in MOE_FAMILIES:
            raise ShapeError("moe_family", f"expected {' | '.join(repr(f) for f in MOE_FAMILIES)}, got {self.moe_family!r}")
        if self.block_norms < 1:
            raise ShapeError("block_norms", "expected an integer >= 1")
        if self.style not in STYLES:
            raise ShapeError("style", f"expected {' | '.join(STYLES)}, got {self.style!r}")
        if self.bias not in BIASES:
            raise ShapeError("bias", f"expected {' | '.join(BIASES)}, got {self.bias!r}")
        if self.head_dim == 0:
            if self.hidden % self.heads:
                raise ShapeError("heads", f"{self.heads} heads do not divide hidden {self.hidden}; expected a "
                                          "divisor of hidden (or an explicit head_dim)")
            object.__setattr__(self, "head_dim", self.hidden // self.heads)
        if self.heads % self.kv_heads:
            raise ShapeError("kv_heads", f"{self.kv_heads} KV heads do not divide {self.heads} heads; "
                                         "expected a divisor of heads")
        if self.experts:
            if not 1 <= self.top_k <= self.experts:
                raise ShapeError("top_k", f"expected 1 to experts = {self.experts} experts per token, got {self.top_k}")
            if self.dense_layers >= self.layers:
                raise ShapeError("dense_layers", f"expected fewer than layers = {self.layers} dense blocks, "
                                                 f"got {self.dense_layers}")
            if self.style != "llama":
                raise ShapeError("experts", "experts are gated (SwiGLU) MLPs; expected style llama")
            if self.bias == "all":
                raise ShapeError("bias", "MLP biases of experts are not modelled; expected none or qkv with experts")
            if self.expert_ffn == 0:
                object.__setattr__(self, "expert_ffn", self.ffn)
            if self.expert_ffn <= 0:
                raise ShapeError("expert_ffn", "expected a positive integer (each expert's MLP width)")
            if self.shared_ffn == 0:
                object.__setattr__(self, "shared_ffn", self.expert_ffn)
        else:
            for attr in ("top_k", "shared_experts", "dense_layers"):
                if getattr(self, attr):
                    raise ShapeError(attr, "applies to a mixture-of-experts model; set experts too")
            if self.router_bias:
                raise ShapeError("router_bias", "applies to a mixture-of-experts model; set experts too")
        if self.kv_lora_rank:
            for attr in ("qk_nope_dim", "qk_rope_dim", "v_head_dim"):
                if getattr(self, attr) <= 0:
                    raise ShapeError(attr, "MLA (kv_lora_rank > 0) needs qk_nope_dim, qk_rope_dim and v_head_dim")
            if self.bias != "none":
                raise ShapeError("bias", "MLA projections have no biases; expected none with kv_lora_rank")
            if self.style != "llama":
                raise ShapeError("kv_lora_rank", "MLA is modelled on llama-style blocks; expected style llama")
        else:
            for attr in ("q_lora_rank", "qk_nope_dim", "qk_rope_dim", "v_head_dim"):
                if getattr(self, attr):
                    raise ShapeError(attr, "applies to MLA; set kv_lora_rank too")

    # --- derived shape ---------------------------------------------------------------------------
    @property
    def has_shape(self) -> bool:
        return self.count is None

    @property
    def is_moe(self) -> bool:
        return self.experts > 0

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def q_dim(self) -> int:
        """a · d: the width of the query projection (= hidden unless head_dim is explicit)."""
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        """a_kv · d: the width of the K (and of the V) projection."""
        return self.kv_heads * self.head_dim

    @property
    def moe_layers(self) -> int:
        return self.layers - self.dense_layers if self.experts else 0

    @property
    def dense_mlp_layers(self) -> int:
        return self.dense_layers if self.experts else self.layers

    @property
    def gated(self) -> bool:
        return self.style == "llama"

    @property
    def dropout(self) -> bool:
        return self.style == "gpt"

    @property
    def norm_params(self) -> int:
        """Weights of one norm: RMSNorm h, LayerNorm 2h (scale and shift)."""
        return self.hidden if self.style == "llama" else 2 * self.hidden

    @property
    def windowed(self) -> bool:
        return self.window > 0 and self.n_local > 0

    @property
    def n_local(self) -> int:
        """Local (sliding-window) layers: local_layers if given, else L − ⌊L/g⌋ (every g-th layer global,
        as Gemma 2's odd layers and Gemma 3's layers 5, 11, ...), else every layer (Mistral)."""
        if not self.window:
            return 0
        if self.local_layers:
            return self.local_layers
        if self.global_every:
            return self.layers - self.layers // self.global_every
        return self.layers

    @property
    def n_global(self) -> int:
        return self.layers - self.n_local

    def cached_tokens(self, seq: int) -> int:
        """Σ over layers of the tokens each caches (and attends to) at context `seq`:
        L_local·min(s, W) + L_global·s (= L·s without a window)."""
        return self.n_local * min(seq, self.window) + self.n_global * seq

    def kv_elements_per_sequence(self, seq: int) -> int:
        """Elements one sequence of `seq` tokens keeps in the KV cache: 2·a_kv·d·Σ_l min(s, W_l)
        (2·L·a_kv·d·s without a window; MLA L·(r_kv + d_r)·s)."""
        if self.is_mla:
            return self.layers * (self.kv_lora_rank + self.qk_rope_dim) * seq
        return 2 * self.kv_dim * self.cached_tokens(seq)

    def kv_elements_per_token(self) -> int:
        """Elements the KV cache holds per token, all layers: 2·L·a_kv·d, MLA L·(r_kv + d_r)."""
        if self.is_mla:
            return self.layers * (self.kv_lora_rank + self.qk_rope_dim)
        return 2 * self.layers * self.kv_dim

    def attention_matrices(self) -> tuple[tuple[str, int, int], ...]:
        """(name, d_in, d_out) of one block's attention linears, in execution order."""
        h = self.hidden
        if self.is_mla:
            a, qk = self.heads, self.qk_nope_dim + self.qk_rope_dim
            q: tuple[tuple[str, int, int], ...]
            if self.q_lora_rank:
                q = (("q_a", h, self.q_lora_rank), ("q_b", self.q_lora_rank, a * qk))
            else:
                q = (("q", h, a * qk),)
            return q + (("kv_a", h, self.kv_lora_rank + self.qk_rope_dim),
                        ("kv_b", self.kv_lora_rank, a * (self.qk_nope_dim + self.v_head_dim)),
                        ("o", a * self.v_head_dim, h))
        qd, kv = self.q_dim, self.kv_dim
        return (("q", h, qd), ("k", h, kv), ("v", h, kv), ("o", qd, h))

    def mlp_matrices(self, width: int) -> tuple[tuple[str, int, int], ...]:
        h = self.hidden
        if self.gated:
            return (("gate", h, width), ("up", h, width), ("down", width, h))
        return (("fc1", h, width), ("fc2", width, h))

    def block_matrices(self) -> tuple[tuple[str, int, int], ...]:
        """(name, d_in, d_out) of every linear of one dense block, in execution order (LoRA's view)."""
        return self.attention_matrices() + self.mlp_matrices(self.ffn)

    @cached_property
    def _linears(self) -> tuple[Linear, ...]:
        L = self.layers
        out = [Linear(n, i, o, L, ATTENTION) for n, i, o in self.attention_matrices()]
        if self.dense_mlp_layers:
            out += [Linear(n, i, o, self.dense_mlp_layers, MLP) for n, i, o in self.mlp_matrices(self.ffn)]
        if self.experts:
            Lm = self.moe_layers
            out += [Linear(f"expert_{n}", i, o, Lm * self.experts, EXPERT)
                    for n, i, o in self.mlp_matrices(self.expert_ffn)]
            if self.shared_experts:
                out += [Linear(f"shared_{n}", i, o, Lm * self.shared_experts, SHARED)
                        for n, i, o in self.mlp_matrices(self.shared_ffn)]
            out.append(Linear("router", self.hidden, self.experts, Lm, ROUTER))
        return tuple(out)

    def linears(self) -> tuple[Linear, ...]:
        """Every 2-D parameter inside the blocks, with how many of it the model holds."""
        return self._linears

    @cached_property
    def _vectors(self) -> tuple[tuple[str, int, int], ...]:
        h, L = self.hidden, self.layers
        out: list[tuple[str, int, int]] = [("norm", self.norm_params, self.block_norms * L)]
        if self.qk_norm:
            out.append(("qk_norm", self.head_dim, 2 * L))
        if self.is_mla:
            if self.q_lora_rank:
                out.append(("q_a_norm", self.q_lora_rank, L))
            out.append(("kv_a_norm", self.kv_lora_rank, L))
        if self.bias != "none":
            qd, kv = self.q_dim, self.kv_dim
            out += [("q_bias", qd, L), ("k_bias", kv, L), ("v_bias", kv, L)]
            if self.bias == "all":
                out.append(("o_bias", h, L))
                f = self.ffn
                mlp = (f, f, h) if self.gated else (f, h)
                out += [(f"mlp_bias{i}", n, self.dense_mlp_layers) for i, n in enumerate(mlp)]
        if self.router_bias:
            out.append(("router_bias", self.experts, self.moe_layers))
        return tuple(out)

    def vectors(self) -> tuple[tuple[str, int, int], ...]:
        """Every 1-D parameter inside the blocks as (name, size, how many)."""
        return self._vectors

    def block_vectors(self) -> tuple[int, ...]:
        """Sizes of the 1-D tensors of one dense block (norm weights/biases, linear biases)."""
        out: list[int] = []
        for _, n, count in self.vectors():
            out += [n] * (count // self.layers) if count % self.layers == 0 else [n]
        return tuple(out)

    def tensors(self) -> tuple[tuple[int, int | None, int], ...]:
        """Every parameter tensor as (rows, cols or None for a vector, multiplicity)."""
        return self._tensors if self.count is None else ()

    def _tensor_list(self) -> tuple[tuple[int, int | None, int], ...]:
        out: list[tuple[int, int | None, int]] = [(lin.d_out, lin.d_in, lin.count) for lin in self.linears()]
        out += [(n, None, count) for name, n, count in self.vectors()
                if name != "norm" or self.style == "llama"]
        if self.style == "gpt":  # a LayerNorm is a weight and a bias vector
            out.append((self.hidden, None, 2 * self.block_norms * self.layers))
        out.append((self.vocab, self.hidden, 1))  # token embedding
        if self.positions:
            out.append((self.positions, self.hidden, 1))
        if not self.tied:
            out.append((self.vocab, self.hidden, 1))  # LM head
        out.append((self.hidden, None, 1))  # final norm weight
        if self.style == "gpt":
            out.append((self.hidden, None, 1))  # final LayerNorm bias
        return tuple(out)

    @cached_property
    def expert_tensors(self) -> tuple[tuple[int, int | None, int], ...]:
        """The routed experts' matrices as (rows, cols, multiplicity), like tensors()."""
        return tuple((lin.d_out, lin.d_in, lin.count) for lin in self.linears() if lin.kind == EXPERT)

    @cached_property
    def _tensors(self) -> tuple[tuple[int, int | None, int], ...]:
        return self._tensor_list()

    def params_of(self, *kinds: str) -> int:
        """Weights of the block linears of the given kinds (ATTENTION, MLP, EXPERT, SHARED, ROUTER)."""
        return sum(lin.params for lin in self.linears() if lin.kind in kinds)

    @cached_property
    def block_linear_params(self) -> int:
        """Weights of one dense block's linears (what QLoRA stores in NF4), biases excluded."""
        return sum(d_in * d_out for _, d_in, d_out in self.block_matrices())

    @cached_property
    def block_params(self) -> int:
        """Parameters of the largest block (its linears and vectors)."""
        h = self.hidden
        attn = sum(i * o for _, i, o in self.attention_matrices())
        vec = sum(n * (count // self.layers) for _, n, count in self.vectors() if count % self.layers == 0)
        if self.experts:
            mlp = 3 * h * (self.experts * self.expert_ffn + self.shared_experts * self.shared_ffn) + h * self.experts
            mlp += self.experts if self.router_bias else 0
            dense = sum(i * o for _, i, o in self.mlp_matrices(self.ffn)) if self.dense_layers else 0
            mlp = max(mlp, dense)
        else:
            mlp = sum(i * o for _, i, o in self.mlp_matrices(self.ffn))
            vec += sum(n for name, n, _ in self.vectors() if name.startswith("mlp_bias"))
        return attn + mlp + vec

    @cached_property
    def linear_params(self) -> int:
        """Weights of every block linear except the routers (what a weight format quantizes)."""
        return self.params_of(ATTENTION, MLP, EXPERT, SHARED)

    @cached_property
    def routed_expert_params(self) -> int:
        """Weights of all routed experts (what expert parallelism divides by ep)."""
        return self.params_of(EXPERT)

    @cached_property
    def outside_params(self) -> int:
        """Embeddings, positions, LM head and final norm."""
        if self.count is not None:
            return 0
        final = self.hidden if self.style == "llama" else 2 * self.hidden
        return self.vocab * self.hidden * (1 if self.tied else 2) + self.positions * self.hidden + final

    @cached_property
    def params(self) -> int:
        if self.count is not None:
            return self.count
        blocks = sum(lin.params for lin in self.linears()) + sum(n * c for _, n, c in self.vectors())
        return blocks + self.outside_params

    @cached_property
    def active_params(self) -> int:
        """Parameters one token uses: the total with E routed experts per MoE block replaced by top_k."""
        if not self.experts:
            return self.params
        return self.params - self.routed_expert_params // self.experts * (self.experts - self.top_k)

    def describe(self) -> str:
        if not self.has_shape:
            return f"{self.name}: {self.params:,} parameters (no shape)"
        gqa = f", kv_heads {self.kv_heads}" if self.kv_heads != self.heads and not self.is_mla else ""
        extra = ""
        if self.head_dim * self.heads != self.hidden and not self.is_mla:
            extra += f" d={self.head_dim}"
        if self.qk_norm:
            extra += " qk_norm"
        if self.experts:
            extra += f" E={self.experts} k={self.top_k} f_e={self.expert_ffn}"
            extra += f" S={self.shared_experts}" if self.shared_experts else ""
            extra += f" D={self.dense_layers}" if self.dense_layers else ""
        if self.is_mla:
            extra += (f" MLA r_q={self.q_lora_rank} r_kv={self.kv_lora_rank} d_n={self.qk_nope_dim} "
                      f"d_r={self.qk_rope_dim} d_v={self.v_head_dim}")
        if self.windowed:
            extra += f" window={self.window} local={self.n_local} global={self.n_global}"
        return (
            f"{self.name}: L={self.layers} h={self.hidden} a={self.heads}{gqa} f={self.ffn} "
            f"V={self.vocab} {self.style}{' tied' if self.tied else ''}"
            f"{f' P={self.positions}' if self.positions else ''}{'' if self.bias == 'none' else ' bias ' + self.bias}"
            + extra
        )


def _llama(name, layers, hidden, heads, kv_heads, ffn, vocab, tied=False, bias="none") -> ModelSpec:
    return ModelSpec(name, layers, hidden, heads, kv_heads, ffn, vocab, "llama", tied, 0, bias)


def _gpt(name, layers, hidden, heads, vocab, positions) -> ModelSpec:
    return ModelSpec(name, layers, hidden, heads, heads, 4 * hidden, vocab, "gpt", True, positions, "all")


def _moe(name, layers, hidden, heads, kv_heads, vocab, experts, top_k, expert_ffn, **extra) -> ModelSpec:
    return ModelSpec(name, layers, hidden, heads, kv_heads, extra.pop("ffn", expert_ffn), vocab, "llama",
                     experts=experts, top_k=top_k, expert_ffn=expert_ffn, **extra)


# Published configs (Hugging Face config.json of each model; GPT-3 from Brown et al. 2020, Table 2.1).
# The counts each must reproduce are in tests/memory/test_models.py, with the model card's figure.
_PRESET_LIST = (
    _gpt("gpt2", 12, 768, 12, 50257, 1024),  # openai-community/gpt2
    _gpt("gpt2-xl", 48, 1600, 25, 50257, 1024),  # openai-community/gpt2-xl
    _gpt("gpt3-175b", 96, 12288, 96, 50257, 2048),  # GPT-3 paper: n_ctx 2048, GPT-2 tokenizer
    _llama("llama-2-7b", 32, 4096, 32, 32, 11008, 32000),  # meta-llama/Llama-2-7b-hf
    _llama("llama-2-13b", 40, 5120, 40, 40, 13824, 32000),  # meta-llama/Llama-2-13b-hf
    _llama("llama-2-70b", 80, 8192, 64, 8, 28672, 32000),  # meta-llama/Llama-2-70b-hf
    _llama("llama-3-8b", 32, 4096, 32, 8, 14336, 128256),  # meta-llama/Meta-Llama-3-8B
    _llama("llama-3-70b", 80, 8192, 64, 8, 28672, 128256),  # meta-llama/Meta-Llama-3-70B
    _llama("llama-3.1-8b", 32, 4096, 32, 8, 14336, 128256),  # meta-llama/Llama-3.1-8B
    _llama("llama-3.1-70b", 80, 8192, 64, 8, 28672, 128256),  # meta-llama/Llama-3.1-70B
    _llama("llama-3.1-405b", 126, 16384, 128, 8, 53248, 128256),  # meta-llama/Llama-3.1-405B
    _llama("llama-3.2-1b", 16, 2048, 32, 8, 8192, 128256, tied=True),  # meta-llama/Llama-3.2-1B
    _llama("llama-3.2-3b", 28, 3072, 24, 8, 8192, 128256, tied=True),  # meta-llama/Llama-3.2-3B
    # mistralai/Mistral-7B-v0.1 config.json: sliding_window 4096 on every layer (v0.2 and later drop it)
    replace(_llama("mistral-7b", 32, 4096, 32, 8, 14336, 32000), window=4096),
    _llama("qwen2.5-0.5b", 24, 896, 14, 2, 4864, 151936, tied=True, bias="qkv"),  # Qwen/Qwen2.5-0.5B
    _llama("qwen2.5-1.5b", 28, 1536, 12, 2, 8960, 151936, tied=True, bias="qkv"),  # Qwen/Qwen2.5-1.5B
    _llama("qwen2.5-7b", 28, 3584, 28, 4, 18944, 152064, bias="qkv"),  # Qwen/Qwen2.5-7B
    _llama("qwen2.5-14b", 48, 5120, 40, 8, 13824, 152064, bias="qkv"),  # Qwen/Qwen2.5-14B
    _llama("qwen2.5-72b", 80, 8192, 64, 8, 29568, 152064, bias="qkv"),  # Qwen/Qwen2.5-72B
    # Qwen/Qwen3-8B: head_dim 128, q/k RMSNorm, untied
    ModelSpec("qwen3-8b", 36, 4096, 32, 8, 12288, 151936, head_dim=128, qk_norm=True),
    # Qwen/Qwen3-30B-A3B: every block MoE (decoder_sparse_step 1), moe_intermediate_size 768,
    # intermediate_size 6144 unused; no shared expert
    _moe("qwen3-30b-a3b", 48, 2048, 32, 4, 151936, 128, 8, 768, ffn=6144, head_dim=128, qk_norm=True,
         moe_family="qwen3-moe"),
    # Qwen/Qwen3-235B-A22B: 94 MoE blocks, 128 experts top-8, moe_intermediate_size 1536
    _moe("qwen3-235b-a22b", 94, 4096, 64, 4, 151936, 128, 8, 1536, ffn=12288, head_dim=128, qk_norm=True,
         moe_family="qwen3-moe"),
    # mistralai/Mixtral-8x7B-v0.1: 8 experts top-2, intermediate_size 14336
    _moe("mixtral-8x7b", 32, 4096, 32, 8, 32000, 8, 2, 14336, moe_family="mixtral"),
    # deepseek-ai/DeepSeek-V3: first_k_dense_replace 3 (intermediate_size 18432), 256 routed experts top-8
    # (moe_intermediate_size 2048), 1 shared expert, e_score_correction_bias; MLA q_lora_rank 1536,
    # kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128; the MTP module not counted
    _moe("deepseek-v3", 61, 7168, 128, 128, 129280, 256, 8, 2048, ffn=18432, shared_experts=1, dense_layers=3,
         router_bias=True, q_lora_rank=1536, kv_lora_rank=512, qk_nope_dim=128, qk_rope_dim=64, v_head_dim=128,
         moe_family="deepseek"),
    # deepseek-ai/DeepSeek-V2-Lite: q_lora_rank null, kv_lora_rank 512, 64 routed experts top-6
    # (moe_intermediate_size 1408), 2 shared experts, first_k_dense_replace 1 (intermediate_size 10944)
    _moe("deepseek-v2-lite", 27, 2048, 16, 16, 102400, 64, 6, 1408, ffn=10944, shared_experts=2, dense_layers=1,
         kv_lora_rank=512, qk_nope_dim=128, qk_rope_dim=64, v_head_dim=128, moe_family="deepseek"),
    # google/gemma-2-9b config.json (https://huggingface.co/google/gemma-2-9b/blob/main/config.json):
    # num_hidden_layers 42, hidden_size 3584, num_attention_heads 16, num_key_value_heads 8, head_dim 256,
    # intermediate_size 14336, vocab_size 256000, query_pre_attn_scalar 256 (a score scale: no parameters),
    # sliding_window 4096, tied embeddings; four RMSNorms per block (pre/post attention and MLP).
    # transformers' Gemma2 makes layer i local when i is even: 21 local + 21 global layers (global_every 2).
    ModelSpec("gemma-2-9b", 42, 3584, 16, 8, 14336, 256000, tied=True, head_dim=256, block_norms=4,
              window=4096, global_every=2),
    # google/gemma-3-12b-pt config.json text_config (https://huggingface.co/google/gemma-3-12b-pt/blob/main/config.json):
    # num_hidden_layers 48, hidden_size 3840, num_attention_heads 16, num_key_value_heads 8, head_dim 256,
    # intermediate_size 15360, vocab_size 262208, sliding_window 1024, sliding_window_pattern 6 (layer i is
    # global when (i + 1) % 6 == 0: 40 local + 8 global), q/k RMSNorm, four RMSNorms per block, tied. The
    # language model only (the SigLIP vision tower of the multimodal checkpoint is not counted).
    ModelSpec("gemma-3-12b", 48, 3840, 16, 8, 15360, 262208, tied=True, head_dim=256, qk_norm=True, block_norms=4,
              window=1024, global_every=6),
    # google/gemma-3-27b-pt config.json text_config (https://huggingface.co/google/gemma-3-27b-pt/blob/main/config.json):
    # num_hidden_layers 62, hidden_size 5376, num_attention_heads 32, num_key_value_heads 16, head_dim 128,
    # intermediate_size 21504, vocab_size 262208, query_pre_attn_scalar 168, sliding_window 1024,
    # sliding_window_pattern 6: 52 local + 10 global; otherwise as the 12B (language model only)
    ModelSpec("gemma-3-27b", 62, 5376, 32, 16, 21504, 262208, tied=True, head_dim=128, qk_norm=True, block_norms=4,
              window=1024, global_every=6),
    # microsoft/Phi-3-mini-4k-instruct: MHA, fused qkv and gate_up (same counts), untied
    _llama("phi-3-mini", 32, 3072, 32, 32, 8192, 32064),
)

PRESETS: Mapping[str, ModelSpec] = MappingProxyType({m.name: m for m in _PRESET_LIST})


# --- bare parameter counts -------------------------------------------------------------------------
_COUNT_SUFFIX = {
    "": 1,
    "k": 10**3,
    "thousand": 10**3,
    "m": 10**6,
    "mn": 10**6,
    "million": 10**6,
    "millions": 10**6,
    "b": 10**9,
    "bn": 10**9,
    "billion": 10**9,
    "billions": 10**9,
    "g": 10**9,
    "t": 10**12,
    "trillion": 10**12,
    "万": 10**4,
    "亿": 10**8,
    "百万": 10**6,
    "千万": 10**7,
    "十亿": 10**9,
    "百亿": 10**10,
    "千亿": 10**11,
    "万亿": 10**12,
}
_COUNT_RE = re.compile(r"^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e([+-]?[0-9]+))?\s*([a-z]*|[万亿百千十]+)\s*(?:params?|parameters?|参数)?$")


MAX_COUNT = 10**16  # above any real model (10^16 parameters = 20 PB of bf16 weights)


class CountRangeError(ValueError):
    """A well-formed number that is not a usable parameter count (negative, zero, or above MAX_COUNT)."""


def parse_count(text: str | int | float) -> int:
    """Read a parameter count: 7B, 7e9, 6.7 billion, 70亿, 7,000,000,000 (full-width digits too).

    Raises ValueError with a one-line reason; a count must be a positive whole number of parameters.
    A readable number outside 1..MAX_COUNT raises CountRangeError (a ValueError), so callers can tell
    "not a count" from "a count out of range".
    """
    if isinstance(text, bool):
        raise ValueError(f"expected a parameter count like 7B, got {text!r}")
    if isinstance(text, (int, float)):
        value = float(text)
    else:
        raw = unicodedata.normalize("NFKC", str(text)).strip().lower().replace(",", "").replace("_", "")
        match = _COUNT_RE.match(raw)
        if not match or match.group(4) not in _COUNT_SUFFIX:
            raise ValueError(f"expected a parameter count like 7B, 7e9, 6.7 billion or 70亿, got {text!r}")
        sign, mantissa, exponent, suffix = match.groups()
        try:
            value = float(mantissa) * 10.0 ** int(exponent or 0) * _COUNT_SUFFIX[suffix]
        except OverflowError:
            value = math.inf
        if sign == "-" and value:
            value = -value
    if math.isnan(value):
        raise ValueError(f"expected a parameter count like 7B, got {text!r}")
    if value < 0:
        raise CountRangeError(f"a parameter count cannot be negative; expected 1 to 10^16 parameters, got {text!r}")
    if value < 1 or value > MAX_COUNT:
        raise CountRangeError(f"parameter count out of range; expected 1 to 10^16 parameters (e.g. 7B), got {text!r}")
    return round(value)


def bare_model(count: int, name: str | None = None) -> ModelSpec:
    return ModelSpec(name=name or f"{count:,} params", count=count)


def llama_ffn(hidden: int, multiple_of: int = 256) -> int:
    """LLaMA's default MLP width: 2/3 of 4h, rounded up to a multiple of 256 (11008 for h = 4096)."""
    f = int(2 * 4 * hidden / 3)
    return multiple_of * ((f + multiple_of - 1) // multiple_of)


def scaled_family(base: ModelSpec, heads: int, layers: int | None = None) -> ModelSpec:
    """The member of `base`'s family with `heads` heads (hidden = heads × hidden/heads of the base,
    = heads × head_dim unless the head size is explicit, as in Qwen3).

    Kept from the base: head_dim, the heads : kv_heads ratio (kv_heads >= 1 and dividing heads), the
    ffn : hidden ratio (rounded up to a multiple of 64; expert widths likewise), vocabulary, style,
    tying, positions, bias, experts and the MoE/MLA settings. Layers default to the base's
    layers : heads aspect ratio (at least 1; dense leading blocks kept, at most layers - 1).
    """
    d = base.head_dim
    per_head = base.hidden // base.heads if base.hidden % base.heads == 0 else d
    hidden = heads * per_head
    group = max(1, base.heads // base.kv_heads)
    kv = max(1, heads // group)
    while heads % kv:
        kv -= 1

    def scaled(width: int) -> int:
        return max(64, 64 * math.ceil(width * hidden / base.hidden / 64)) if width else 0

    if layers is None:
        layers = max(1, round(heads * base.layers / base.heads))
    extra: dict[str, int] = {}
    if base.experts:
        extra = dict(expert_ffn=scaled(base.expert_ffn), shared_ffn=scaled(base.shared_ffn),
                     dense_layers=min(base.dense_layers, layers - 1))
        if layers == 1 and base.dense_layers:
            extra["dense_layers"] = 0
    return replace(
        base, name=f"{base.name}-family(L={layers},a={heads})", layers=layers, hidden=hidden,
        heads=heads, kv_heads=kv, ffn=scaled(base.ffn), **extra,
    )
