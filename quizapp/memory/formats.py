"""Weight formats and KV-cache element types (memory-model.md section 12; NF4 from section 4).

One function, `weight_bytes`, turns a model and a format name into bytes, split the way the rest of
the calculator needs them: the routed experts apart from everything else (decode reads only the
experts it hits; expert parallelism divides only them). Every scale and zero is counted at the
format's per-weight rate (partial groups ignored), as the spec states.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from quizapp.memory.models import ATTENTION, EXPERT, MLP, ROUTER, SHARED, ModelSpec

# Bytes per weight of a block linear (the quantized tensors), spec section 12.
NF4_BYTES = 0.5 + 4 / 64  # 4-bit values + one fp32 absmax per 64-value block (4.5 bits)
NF4_DQ_BYTES = 0.5 + 1 / 64 + 4 / (64 * 256)  # absmax in 8 bits + one fp32 per 256 blocks (4.127 bits)
Q8_0_BYTES = 34 / 32  # blocks of 32: 32 int8 + an fp16 scale (8.5 bits)
Q6_K_BYTES = 210 / 256  # super-blocks of 256 (6.5625 bits)
Q4_0_BYTES = 18 / 32  # blocks of 32: 16 bytes of nibbles + an fp16 scale (4.5 bits)
# Microscaling 4-bit floats (requested by the numerics writer): FP4 E2M1 elements with a shared scale per block.
# OCP Microscaling Formats (MX) v1.0, section 5: MXFP4 = blocks of k = 32 E2M1 elements + one 8-bit E8M0
# scale (4.25 bits). NVIDIA, "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference" (2025):
# blocks of 16 E2M1 values + one FP8 E4M3 scale (4.5 bits), and one FP32 per-tensor scale (4 bytes a matrix).
MXFP4_BYTES = 0.5 + 1 / 32
NVFP4_BYTES = 0.5 + 1 / 16

FORMATS = ("bf16", "fp16", "fp8", "int8", "gptq-int4", "awq-int4", "nf4", "gguf-q8_0", "gguf-q6_k", "gguf-q4_0",
           "mxfp4", "nvfp4")
GGUF = {"gguf-q8_0": Q8_0_BYTES, "gguf-q6_k": Q6_K_BYTES, "gguf-q4_0": Q4_0_BYTES}
# llama.cpp keeps output.weight (or, with tied embeddings, the token embedding) in this type
GGUF_OUTPUT = {"gguf-q8_0": ("q8_0", Q8_0_BYTES), "gguf-q6_k": ("q6_k", Q6_K_BYTES), "gguf-q4_0": ("q6_k", Q6_K_BYTES)}

KV_BYTES = {"bf16": 2, "fp16": 2, "fp8": 1, "int8": 1, "int4": 0.5}  # scales not counted

_QUANTIZED_KINDS = (ATTENTION, MLP, EXPERT, SHARED)  # routers stay 16-bit (AutoAWQ, AutoGPTQ, bitsandbytes)


def linear_rate(fmt: str, group_size: int = 128, double_quant: bool = True) -> float:
    """Bytes per weight of a quantized block linear, before per-matrix or per-row constants."""
    if fmt in ("bf16", "fp16"):
        return 2
    if fmt in ("fp8", "int8"):
        return 1
    if fmt in ("gptq-int4", "awq-int4"):
        return 0.5 + 2 / group_size + 0.5 / group_size  # fp16 scale + 4-bit zero per group
    if fmt == "nf4":
        return NF4_DQ_BYTES if double_quant else NF4_BYTES
    if fmt == "mxfp4":
        return MXFP4_BYTES
    if fmt == "nvfp4":
        return NVFP4_BYTES
    return GGUF[fmt]


def bits_per_weight(fmt: str, group_size: int = 128, double_quant: bool = True) -> float:
    return 8 * linear_rate(fmt, group_size, double_quant)


def kv_bytes_per_element(dtype: str) -> float:
    return KV_BYTES[dtype]


@dataclass(frozen=True)
class WeightBytes:
    """A model's weights in one format. `routed` = all routed experts, `rest` = everything else,
    `per_expert` = one routed expert of one MoE block (what decode reads per expert hit)."""

    fmt: str
    total: int | float
    routed: int | float
    rest: int | float
    per_expert: int | float
    formula: str
    substituted: str
    rate: float  # bytes per weight of a quantized block linear


def _num(x: int | float) -> str:
    if isinstance(x, int) or float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:,.6g}"


# The rate of each format as its block layout writes it, by format: NF4 (0.5 + 4/64), Q4_0 (18/32) and
# NVFP4 (0.5 + 1/16) are all 0.5625 bytes, so the rate alone cannot say which layout it is.
_RATE_TEXT = {("nf4", NF4_BYTES): "(0.5 + 4/64)", ("nf4", NF4_DQ_BYTES): "(0.5 + 1/64 + 4/16384)",
              ("gguf-q8_0", Q8_0_BYTES): "34/32", ("gguf-q6_k", Q6_K_BYTES): "210/256",
              ("gguf-q4_0", Q4_0_BYTES): "18/32", ("mxfp4", MXFP4_BYTES): "(0.5 + 1/32)",
              ("nvfp4", NVFP4_BYTES): "(0.5 + 1/16)"}


def _rate_text(rate: float, fmt: str, group_size: int | None = None) -> str:
    """`rate` bytes per weight of format `fmt` as its layout writes it (18/32 for Q4_0)."""
    if rate in (0.5, 1, 2):
        return f"{rate:g}"
    if (fmt, rate) in _RATE_TEXT:
        return _RATE_TEXT[(fmt, rate)]
    if group_size:
        return f"(0.5 + 2.5/{group_size})"
    return f"{rate:.6g}"


def _clean(x: float) -> int | float:
    return int(x) if float(x).is_integer() else x


@lru_cache(maxsize=256)
def weight_bytes(model: ModelSpec, fmt: str, group_size: int = 128, double_quant: bool = True) -> WeightBytes:
    """The weights of `model` stored in `fmt` (section 12), split into routed experts and the rest.

    bf16 ... nf4: the block linears (attention, dense MLPs, experts, shared experts) in the format,
    embeddings, LM head, norms and routers in 16 bits. gguf-*: every 2-D tensor in the type except
    output.weight (q6_k for q4_0 and q6_k files, q8_0 for q8_0 files; with tied embeddings the token
    embedding takes that type), routers and 1-D tensors in fp32. A bare parameter count has no tensor
    list: every parameter is charged at the format's rate.
    """
    rate = linear_rate(fmt, group_size, double_quant)
    psi = model.params
    if not model.has_shape:
        total = _clean(rate * psi)
        return WeightBytes(fmt, total, 0, total, 0, f"{_rate_text(rate, fmt)}·Ψ", f"{_rate_text(rate, fmt)} × {_num(psi)}",
                           rate)
    linears = [lin for lin in model.linears() if lin.kind in _QUANTIZED_KINDS]
    routers = model.params_of(ROUTER)
    lin_params = sum(lin.params for lin in linears)
    if fmt in GGUF:
        return _gguf(model, fmt, rate, lin_params, routers)
    extra_of = {  # constants charged per matrix (fp8: one fp32 scale) or per output row (int8)
        "fp8": lambda lin: 4 * lin.count,
        "nvfp4": lambda lin: 4 * lin.count,  # NVFP4's fp32 per-tensor scale
        "int8": lambda lin: 4 * lin.d_out * lin.count,
    }.get(fmt)
    extras = {lin.name: extra_of(lin) for lin in linears} if extra_of else {}
    extra = sum(extras.values())
    others = psi - lin_params  # embeddings, head, norms, biases, routers: 16-bit
    total = _clean(rate * lin_params + extra + 2 * others)
    experts = [lin for lin in linears if lin.kind == EXPERT]
    routed = _clean(sum(rate * lin.params + extras.get(lin.name, 0) for lin in experts))
    n_experts = model.experts * model.moe_layers
    per_expert = _clean(routed / n_experts) if n_experts else 0
    rest = _clean(total - routed)
    if fmt in ("bf16", "fp16"):
        formula, sub = "2·Ψ", f"2 × {_num(psi)}"
    else:
        r = _rate_text(rate, fmt, group_size if fmt in ("gptq-int4", "awq-int4") else None)
        formula = "b·Ψ_linear + 2·(Ψ − Ψ_linear)"
        sub = f"{r} × {_num(lin_params)} + 2 × {_num(others)}"
        if fmt in ("fp8", "nvfp4"):
            formula += " + 4·n_matrices"
            sub += f" + 4 × {_num(extra // 4)}"
        elif fmt == "int8":
            formula += " + 4·rows"
            sub += f" + 4 × {_num(extra // 4)}"
    return WeightBytes(fmt, total, routed, rest, per_expert, formula, sub, rate)


def _gguf(model: ModelSpec, fmt: str, rate: float, lin_params: int, routers: int) -> WeightBytes:
    h, V = model.hidden, model.vocab
    out_type, out_rate = GGUF_OUTPUT[fmt]
    two_d = lin_params + model.positions * h + (0 if model.tied else V * h)  # token embedding in the type
    output = V * h  # output.weight, or the tied token embedding
    vectors = model.params - lin_params - routers - model.positions * h - (1 if model.tied else 2) * V * h
    total = _clean(rate * two_d + out_rate * output + 4 * (vectors + routers))
    routed = _clean(rate * model.routed_expert_params)
    n_experts = model.experts * model.moe_layers
    per_expert = _clean(routed / n_experts) if n_experts else 0
    r, o = _rate_text(rate, fmt), _rate_text(out_rate, f"gguf-{out_type}")
    formula = "b·Ψ_2D + b_out·V·h + 4·Ψ_1D" + (" + 4·Ψ_router" if routers else "")
    sub = f"{r} × {_num(two_d)} + {o} × {_num(output)} + 4 × {_num(vectors)}" + (f" + 4 × {_num(routers)}" if routers else "")
    return WeightBytes(fmt, total, routed, _clean(total - routed), per_expert, formula, sub, rate)


def kv_bytes_per_token(model: ModelSpec, kv_dtype: str) -> int | float:
    """KV-cache bytes per token, all layers, whole model: 2·L·a_kv·d·p_kv, MLA L·(r_kv + d_r)·p_kv."""
    return _clean(model.kv_elements_per_token() * KV_BYTES[kv_dtype])


def kv_bytes_per_sequence(model: ModelSpec, kv_dtype: str, seq: int) -> int | float:
    """KV-cache bytes of one sequence of `seq` tokens, whole model: 2·a_kv·d·Σ_l min(s, W_l)·p_kv
    (section 18: local layers cache at most the window; = kv_bytes_per_token·s without one)."""
    return _clean(model.kv_elements_per_sequence(seq) * KV_BYTES[kv_dtype])


def mha_kv_elements_per_sequence(model: ModelSpec, seq: int) -> int:
    """The multi-head baseline of `kv_ratio` (section 18): every layer global with a_kv = a, K and V of
    d each (MLA: K of d_n + d_r and V of d_v per head, as the non-absorbed form would cache)."""
    if model.is_mla:
        return model.layers * model.heads * (model.qk_nope_dim + model.qk_rope_dim + model.v_head_dim) * seq
    return 2 * model.layers * model.heads * model.head_dim * seq


def derive_kv_ratio(setup):
    """kv_ratio = MHA cache / the model's cache for one sequence at context `seq`, both in `kv_dtype`
    (the element bytes cancel)."""
    from quizapp.memory.derivation import Derivation, Step, num
    from quizapp.memory.notes import note

    m, s = setup.model, setup.seq
    p = KV_BYTES[setup.kv_dtype]
    mha = _clean(mha_kv_elements_per_sequence(m, s) * p)
    own = kv_bytes_per_sequence(m, setup.kv_dtype, s)
    if m.is_mla:
        f_mha = "L·a·(d_n + d_r + d_v)·s·p_kv"
        s_mha = f"{m.layers} × {m.heads} × ({m.qk_nope_dim} + {m.qk_rope_dim} + {m.v_head_dim}) × {num(s)} × {num(p)}"
        f_own, s_own = "L·(r_kv + d_r)·s·p_kv", f"{m.layers} × ({m.kv_lora_rank} + {m.qk_rope_dim}) × {num(s)} × {num(p)}"
    else:
        f_mha, s_mha = "2·L·a·d·s·p_kv", f"2 × {m.layers} × {m.heads} × {m.head_dim} × {num(s)} × {num(p)}"
        if m.windowed:
            f_own = "2·a_kv·d·(L_local·min(s, W) + L_global·s)·p_kv"
            s_own = (f"2 × {m.kv_heads} × {m.head_dim} × ({m.n_local} × {num(min(s, m.window))} + {m.n_global} × "
                     f"{num(s)}) × {num(p)}")
        else:
            f_own, s_own = "2·L·a_kv·d·s·p_kv", f"2 × {m.layers} × {m.kv_heads} × {m.head_dim} × {num(s)} × {num(p)}"
    own_note = note("kernel.note.kv_model", akv=m.kv_heads, a=m.heads)
    if m.windowed:
        own_note = own_note + note("kernel.note.kv_window", w=m.window, local=m.n_local, glob=m.n_global)
    steps = (
        Step("kv_mha_bytes", mha, "bytes", f_mha, s_mha, note("kernel.note.kv_mha")),
        Step("kv_model_bytes", own, "bytes", f_own, s_own, own_note),
        Step("kv_ratio", mha / own, "number", "MHA / model", f"{num(mha)} / {num(own)}", note("kernel.note.kv_ratio")),
    )
    return Derivation("kv_ratio", steps, (note("kernel.note.kv_ratio_dtype"),))


def kv_divisor(model: ModelSpec, tp: int) -> int:
    """How many ways tensor parallelism splits the KV cache: min(t, a_kv); MLA's latent is replicated."""
    if model.is_mla:
        return 1
    return min(tp, model.kv_heads)


# --- the same, read from a Setup (what serving, solves and asks call) --------------------------------
def setup_weights(setup) -> WeightBytes:
    """The stored weights of `setup`'s model in its format (qlora: nf4), whole model, all GPUs."""
    fmt = "nf4" if setup.method == "qlora" else setup.weights
    return weight_bytes(setup.model, fmt, setup.group_size, setup.double_quant)


def weights_per_gpu(setup) -> int | float:
    """Serving: every matrix sharded over tp GPUs (vLLM), W / t."""
    total = setup_weights(setup).total
    return total if setup.tp == 1 else total / setup.tp


def weights_read(setup, experts_hit_per_block: int | None = None) -> int | float:
    """Weight bytes one forward pass reads, whole model: all of a dense model; for MoE everything
    outside the routed experts plus `experts_hit_per_block` routed experts per MoE block (capped at E;
    None = every expert)."""
    w = setup_weights(setup)
    m = setup.model
    if not m.is_moe or experts_hit_per_block is None:
        return w.total
    hit = min(m.experts, experts_hit_per_block)
    return _clean(w.rest + m.moe_layers * hit * w.per_expert)


def kv_bytes_per_token_per_gpu(setup) -> int | float:
    """KV-cache bytes per token on one GPU: kv_bytes_per_token / min(t, a_kv) (MLA: / 1).

    A windowed model (section 18) has no single per-token figure: its local layers stop growing at W.
    This is then the average over a sequence of `seq` tokens, kv_bytes_per_sequence(seq) / seq, so that
    b·s·(this) is the cache of b sequences and the serving figures (kv_tokens, max_concurrency, decode
    bytes) use min(s, W) on the local layers; it equals the all-layer figure while s <= W."""
    m = setup.model
    per = kv_bytes_per_token(m, setup.kv_dtype)
    if m.has_shape and m.windowed:
        per = _clean(kv_bytes_per_sequence(m, setup.kv_dtype, setup.seq) / setup.seq)
    div = kv_divisor(setup.model, setup.tp)
    return per if div == 1 else _clean(per / div)
