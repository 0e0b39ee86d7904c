"""Model shapes and exact parameter counts (memory-model.md section 2).

A `ModelSpec` is either a decoder-only architecture (layers, hidden, heads, ...) or a bare parameter
count ("7B"); the calculator needs the shape only for the terms that depend on it (activations, KV
cache, per-tensor optimizer states), so both live in one type and `has_shape` tells them apart.
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
BIASES = ("none", "qkv", "all")


@dataclass(frozen=True)
class ModelSpec:
    """A decoder-only transformer. style "llama": RMSNorm, SwiGLU (3 MLP matrices), RoPE, no dropout;
    style "gpt": LayerNorm, GELU (2 MLP matrices), learned positions, dropout.

    `count` set means a bare parameter count: the shape fields are 0 and only architecture-free terms
    can be computed.
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

    def __post_init__(self) -> None:
        if self.count is not None:
            if self.count <= 0:
                raise ValueError("a parameter count must be positive")
            return
        for attr in ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab"):
            if getattr(self, attr) <= 0:
                raise ValueError(f"{attr} must be a positive integer")
        if self.positions < 0:
            raise ValueError("positions must be >= 0")
        if self.hidden % self.heads:
            raise ValueError(f"heads {self.heads} does not divide hidden {self.hidden}")
        if self.heads % self.kv_heads:
            raise ValueError(f"kv_heads {self.kv_heads} does not divide heads {self.heads}")
        if self.style not in STYLES or self.bias not in BIASES:
            raise ValueError("bad style or bias")

    # --- derived shape ---------------------------------------------------------------------------
    @property
    def has_shape(self) -> bool:
        return self.count is None

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    @property
    def kv_dim(self) -> int:
        """a_kv · d: the width of the K (and of the V) projection."""
        return self.kv_heads * self.head_dim

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

    def block_matrices(self) -> tuple[tuple[str, int, int], ...]:
        """(name, d_in, d_out) of every linear in one block, in execution order."""
        h, kv, f = self.hidden, self.kv_dim, self.ffn
        attn = (("q", h, h), ("k", h, kv), ("v", h, kv), ("o", h, h))
        if self.gated:
            return attn + (("gate", h, f), ("up", h, f), ("down", f, h))
        return attn + (("fc1", h, f), ("fc2", f, h))

    def block_vectors(self) -> tuple[int, ...]:
        """Sizes of the 1-D tensors of one block (norm weights/biases, linear biases)."""
        h, kv, f = self.hidden, self.kv_dim, self.ffn
        norms = (h, h) if self.style == "llama" else (h, h, h, h)
        if self.bias == "none":
            biases: tuple[int, ...] = ()
        elif self.bias == "qkv":
            biases = (h, kv, kv)
        else:
            biases = (h, kv, kv, h) + ((f, f, h) if self.gated else (f, h))
        return norms + biases

    def tensors(self) -> tuple[tuple[int, int | None, int], ...]:
        """Every parameter tensor as (rows, cols or None for a vector, multiplicity)."""
        out: list[tuple[int, int | None, int]] = []
        for _, d_in, d_out in self.block_matrices():
            out.append((d_out, d_in, self.layers))
        for n in self.block_vectors():
            out.append((n, None, self.layers))
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
    def block_linear_params(self) -> int:
        """Weights of one block's linears (what QLoRA stores in NF4), biases excluded."""
        return sum(d_in * d_out for _, d_in, d_out in self.block_matrices())

    @cached_property
    def block_params(self) -> int:
        return self.block_linear_params + sum(self.block_vectors())

    @cached_property
    def params(self) -> int:
        if self.count is not None:
            return self.count
        outside = self.vocab * self.hidden * (1 if self.tied else 2) + self.positions * self.hidden
        return self.layers * self.block_params + outside + self.norm_params

    def describe(self) -> str:
        if not self.has_shape:
            return f"{self.name}: {self.params:,} parameters (no shape)"
        gqa = f", kv_heads {self.kv_heads}" if self.kv_heads != self.heads else ""
        return (
            f"{self.name}: L={self.layers} h={self.hidden} a={self.heads}{gqa} f={self.ffn} "
            f"V={self.vocab} {self.style}{' tied' if self.tied else ''}"
            f"{f' P={self.positions}' if self.positions else ''}{'' if self.bias == 'none' else ' bias ' + self.bias}"
        )


def _llama(name, layers, hidden, heads, kv_heads, ffn, vocab, tied=False, bias="none") -> ModelSpec:
    return ModelSpec(name, layers, hidden, heads, kv_heads, ffn, vocab, "llama", tied, 0, bias)


def _gpt(name, layers, hidden, heads, vocab, positions) -> ModelSpec:
    return ModelSpec(name, layers, hidden, heads, heads, 4 * hidden, vocab, "gpt", True, positions, "all")


# Published configs (Hugging Face config.json of each model; GPT-3 from Brown et al. 2020, Table 2.1).
_PRESET_LIST = (
    _gpt("gpt2", 12, 768, 12, 50257, 1024),  # openai-community/gpt2
    _gpt("gpt2-xl", 48, 1600, 25, 50257, 1024),  # openai-community/gpt2-xl
    _gpt("gpt3-175b", 96, 12288, 96, 50257, 2048),  # GPT-3 paper: n_ctx 2048, GPT-2 tokenizer
    _llama("llama-2-7b", 32, 4096, 32, 32, 11008, 32000),  # meta-llama/Llama-2-7b-hf
    _llama("llama-2-13b", 40, 5120, 40, 40, 13824, 32000),  # meta-llama/Llama-2-13b-hf
    _llama("llama-2-70b", 80, 8192, 64, 8, 28672, 32000),  # meta-llama/Llama-2-70b-hf
    _llama("llama-3-8b", 32, 4096, 32, 8, 14336, 128256),  # meta-llama/Meta-Llama-3-8B
    _llama("llama-3-70b", 80, 8192, 64, 8, 28672, 128256),  # meta-llama/Meta-Llama-3-70B
    _llama("llama-3.1-405b", 126, 16384, 128, 8, 53248, 128256),  # meta-llama/Llama-3.1-405B
    _llama("llama-3.2-1b", 16, 2048, 32, 8, 8192, 128256, tied=True),  # meta-llama/Llama-3.2-1B
    _llama("llama-3.2-3b", 28, 3072, 24, 8, 8192, 128256, tied=True),  # meta-llama/Llama-3.2-3B
    _llama("mistral-7b", 32, 4096, 32, 8, 14336, 32000),  # mistralai/Mistral-7B-v0.1
    _llama("qwen2.5-0.5b", 24, 896, 14, 2, 4864, 151936, tied=True, bias="qkv"),  # Qwen/Qwen2.5-0.5B
    _llama("qwen2.5-1.5b", 28, 1536, 12, 2, 8960, 151936, tied=True, bias="qkv"),  # Qwen/Qwen2.5-1.5B
    _llama("qwen2.5-7b", 28, 3584, 28, 4, 18944, 152064, bias="qkv"),  # Qwen/Qwen2.5-7B
    _llama("qwen2.5-14b", 48, 5120, 40, 8, 13824, 152064, bias="qkv"),  # Qwen/Qwen2.5-14B
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
    """The member of `base`'s family with `heads` heads (hidden = heads × head_dim).

    Kept from the base: head_dim, the heads : kv_heads ratio (kv_heads >= 1 and dividing heads), the
    ffn : hidden ratio (rounded up to a multiple of 64), vocabulary, style, tying, positions and bias.
    Layers default to the base's layers : heads aspect ratio (at least 1).
    """
    d = base.head_dim
    hidden = heads * d
    group = max(1, base.heads // base.kv_heads)
    kv = max(1, heads // group)
    while heads % kv:
        kv -= 1
    ffn = max(64, 64 * math.ceil(base.ffn * hidden / base.hidden / 64))
    if layers is None:
        layers = max(1, round(heads * base.layers / base.heads))
    return replace(
        base, name=f"{base.name}-family(L={layers},a={heads})", layers=layers, hidden=hidden,
        heads=heads, kv_heads=kv, ffn=ffn,
    )
