"""Activation memory of one training micro-batch, term by term (memory-model.md sections 4, 5, 11, 14).

The term list, not Korthikanti's GPT closed form, is the model: for GPT (LayerNorm, GELU, f = 4h,
dropout, eager) it sums to exactly s·b·h·(34 + 5as/h) per layer, and it also covers SwiGLU, GQA, an
explicit head size with QK-norm, mixture-of-experts blocks, LoRA's frozen linears, FlashAttention,
recomputation, the `hf` implementation profile's extras and, per GPU, tensor, sequence and pipeline
parallelism. Every piece says how tensor parallelism treats it (`shard`): what the sharded linears
produce is divided by t; what every GPU holds in full is divided only with sequence parallelism.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from quizapp.memory.models import ModelSpec
from quizapp.memory.setup import Setup, SetupError

TP, SP, WHOLE = "tp", "sp", ""  # divided by t / divided by t only with SP / never divided


class Part(NamedTuple):
    """One named piece of the activation term; `per_layer` pieces are multiplied by `count` layers.
    (A NamedTuple: a breakdown makes a dozen of these, and they must be cheap.)"""

    name: str
    bytes: int | float
    formula: str
    substituted: str
    count: int = 1  # how many times `bytes` is kept (L for per-block pieces)
    shard: str = WHOLE  # how tensor parallelism divides it (already applied to `bytes`)
    per: str = ""  # `count` in symbols for the formula: "L", "D", "(L − D)", "⌈L/pp⌉·min(pp, m)" ("" = 1)

    @property
    def total(self) -> int | float:
        return self.bytes * self.count


def _n(x: int) -> str:
    return f"{x:,}"


MLA_REFUSAL = ("training activations of MLA (multi-head latent attention) blocks are out of scope "
               "(memory-model.md section 11); weights, states, KV cache and FLOPs work")


def check_activations(setup: Setup, model: ModelSpec | None = None) -> None:
    """Raise SetupError with a one-line reason where the spec gives no activation list."""
    m = model or setup.model
    if not m.has_shape:
        raise SetupError("model", "activations need a shape (a preset or layers/hidden/heads), not a bare count")
    if m.is_mla:
        raise SetupError("model", f"{m.name}: {MLA_REFUSAL}")


def check_mla_training(setup: Setup) -> None:
    """SetupError (check_activations' one line) when a training setup's model, or PPO's critic, uses
    MLA: a quantity that includes its activations (the total, an inverse solve) cannot be given."""
    if not setup.training:
        return
    for model in (setup.model, setup.critic_model if setup.method == "ppo" else None):
        if model is not None and model.has_shape and model.is_mla:
            check_activations(setup, model)


class _Ctx:
    """The numbers every piece needs, computed once."""

    __slots__ = ("m", "p", "s", "b", "T", "h", "a", "akv", "d", "qd", "kvd", "f", "hf", "llama", "lora", "t",
                 "sp", "critic")

    def __init__(self, setup: Setup, model: ModelSpec, batch: int, critic: bool) -> None:
        self.m = model
        self.p = setup.activation_bytes
        self.s, self.b = setup.seq, batch
        self.T = setup.seq * batch
        self.h, self.a, self.akv, self.d = model.hidden, model.heads, model.kv_heads, model.head_dim
        self.qd, self.kvd, self.f = model.q_dim, model.kv_dim, model.ffn
        self.hf = setup.impl == "hf"
        self.llama = model.style == "llama"
        self.lora = setup.method in ("lora", "qlora")
        self.t = setup.tp
        self.sp = setup.sp
        self.critic = critic


def _piece(c: _Ctx, name: str, n: int, formula: str, sub: str, shard: str) -> tuple[str, int | float, str, str, str]:
    """Divide by t where tensor (or sequence) parallelism shards the piece."""
    if c.t > 1 and (shard == TP or (shard == SP and c.sp)):
        n2 = n // c.t if n % c.t == 0 else n / c.t
        return name, n2, f"({formula})/t", f"({sub}) / {c.t}", shard
    return name, n, formula, sub, shard


def _attention_parts(c: _Ctx, keep_core: bool, attention: str) -> list[tuple]:
    p, T, h, a, akv, d, qd, kvd, s, b = c.p, c.T, c.h, c.a, c.akv, c.d, c.qd, c.kvd, c.s, c.b
    m = c.m
    out = [_piece(c, "attention: q,k,v input", p * T * h, "p·T·h", f"{p} × {_n(T)} × {_n(h)}", SP)]
    if qd == h and kvd == h:
        out.append(_piece(c, "attention: q, k, v, o input", 4 * p * T * h, "4·p·T·h", f"4 × {p} × {_n(T)} × {_n(h)}", TP))
    elif qd == h:
        out.append(_piece(c, "attention: q, k, v, o input", p * T * (2 * h + 2 * kvd), "(2 + 2g)·p·T·h",
                          f"{p} × {_n(T)} × (2 × {_n(h)} + 2 × {_n(kvd)})", TP))
    else:
        out.append(_piece(c, "attention: q, k, v, o input", p * T * (2 * qd + 2 * kvd), "p·T·(2·a·d + 2·a_kv·d)",
                          f"{p} × {_n(T)} × (2 × {_n(qd)} + 2 × {_n(kvd)})", TP))
    if m.qk_norm:
        out.append(_piece(c, "QK-norm outputs", p * T * (qd + kvd), "p·T·(a·d + a_kv·d)",
                          f"{p} × {_n(T)} × ({_n(qd)} + {_n(kvd)})", TP))
        if c.hf:
            out.append(_piece(c, "hf: q/k norms in fp32", 4 * T * (a + akv) * d + 4 * T * (a + akv),
                              "4·T·(a + a_kv)·d + 4·T·(a + a_kv)", f"4 × {_n(T)} × {a + akv} × {d} + 4 × {_n(T)} × {a + akv}", TP))
    out += _core_parts(c, keep_core, attention)
    return out


def _core_parts(c: _Ctx, keep_core: bool, attention: str) -> list[tuple]:
    p, T, a, akv, d, s, b = c.p, c.T, c.a, c.akv, c.d, c.s, c.b
    out: list[tuple] = []
    if not keep_core:
        return out
    if attention == "eager":
        out.append(_piece(c, "attention core: softmax output", p * a * s * s * b, "p·a·s²·b", f"{p} × {a} × {_n(s)}² × {b}", TP))
        if c.m.dropout:
            out.append(_piece(c, "attention core: dropout mask + dropped probabilities", (1 + p) * a * s * s * b,
                              "(1 + p)·a·s²·b", f"{1 + p} × {a} × {_n(s)}² × {b}", TP))
        if c.hf and c.llama and p == 2:
            out.append(_piece(c, "hf: softmax also kept in fp32", 4 * a * s * s * b, "4·a·s²·b", f"4 × {a} × {_n(s)}² × {b}", TP))
        if c.hf and akv != a:
            if a * d == c.h:
                out.append(_piece(c, "hf: K and V repeated to all heads", 2 * p * T * d * (a - akv), "2·p·T·h·(1 − g)",
                                  f"2 × {p} × {_n(T)} × ({_n(c.h)} − {_n(c.kvd)})", TP))
            else:
                out.append(_piece(c, "hf: K and V repeated to all heads", 2 * p * T * d * (a - akv), "2·p·T·d·(a − a_kv)",
                                  f"2 × {p} × {_n(T)} × {d} × ({a} − {akv})", TP))
    else:
        out.append(_piece(c, "attention core: fp32 log-sum-exp (flash)", 4 * a * T, "4·a·T", f"4 × {a} × {_n(T)}", TP))
    return out


def _mlp_parts(c: _Ctx, moe: bool) -> list[tuple]:
    p, T, h, f = c.p, c.T, c.h, c.f
    m = c.m
    if not moe:
        k = 4 if m.gated else 2
        out = [_piece(c, "MLP: input", p * T * h, "p·T·h", f"{p} × {_n(T)} × {_n(h)}", SP),
               _piece(c, "MLP: intermediates", k * p * T * f, f"{k}·p·T·f", f"{k} × {p} × {_n(T)} × {_n(f)}", TP)]
        if c.hf and not c.llama:
            out.append(_piece(c, "hf: gelu_new keeps five tensors", 3 * p * T * f, "3·p·T·f", f"3 × {p} × {_n(T)} × {_n(f)}", TP))
        return out
    E, k, fe, S, fs = m.experts, m.top_k, m.expert_ffn, m.shared_experts, m.shared_ffn
    out = [
        _piece(c, "MoE: norm output (router and shared-expert input)", p * T * h, "p·T·h", f"{p} × {_n(T)} × {_n(h)}", SP),
        _piece(c, "MoE: router softmax (fp32)", 4 * T * E, "4·T·E", f"4 × {_n(T)} × {E}", SP),
        _piece(c, "MoE: top-k indices (int64)", 8 * k * T, "8·k·T", f"8 × {k} × {_n(T)}", SP),
        _piece(c, "MoE: dispatched expert inputs", p * k * T * h, "p·k·T·h", f"{p} × {k} × {_n(T)} × {_n(h)}", SP),
        _piece(c, "MoE: gated intermediates", 4 * p * k * T * fe, "4·p·k·T·f_e", f"4 × {p} × {k} × {_n(T)} × {_n(fe)}", TP),
        _piece(c, "MoE: expert outputs for the combine", p * k * T * h, "p·k·T·h", f"{p} × {k} × {_n(T)} × {_n(h)}", SP),
    ]
    qwen = m.moe_family in ("qwen3-moe", "qwen2-moe")
    if c.hf and qwen:
        out.append(_piece(c, "hf: combine weights in the activation dtype", p * k * T, "p·k·T", f"{p} × {k} × {_n(T)}", SP))
    else:
        out.append(_piece(c, "MoE: combine weights (fp32)", 4 * k * T, "4·k·T", f"4 × {k} × {_n(T)}", SP))
    if S:
        out.append(_piece(c, "MoE: shared-expert intermediates", S * 4 * p * T * fs, "S·4·p·T·f_s",
                          f"{S} × 4 × {p} × {_n(T)} × {_n(fs)}", TP))
    if c.hf:
        out.append(_piece(c, "hf: grouped-GEMM index tensors", 24 * k * T + 4 * E, "24·k·T + 4·E",
                          f"24 × {k} × {_n(T)} + 4 × {E}", SP))
        if m.moe_family in ("mixtral", "qwen3-moe"):
            out.append(_piece(c, "hf: renormalised top-k weights and row sums", 4 * k * T + 4 * T, "4·k·T + 4·T",
                              f"4 × {k} × {_n(T)} + 4 × {_n(T)}", SP))
        if m.moe_family == "qwen2-moe" and S:
            out.append(_piece(c, "hf: sigmoid gate of the shared expert", p * T * h + p * T, "p·T·h + p·T",
                              f"{p} × {_n(T)} × {_n(h)} + {p} × {_n(T)}", SP))
    return out


def _norm_parts(c: _Ctx) -> list[tuple]:
    p, T, h = c.p, c.T, c.h
    n = c.m.block_norms
    out = [_piece(c, "norm inputs", n * p * T * h, f"{n}·p·T·h", f"{n} × {p} × {_n(T)} × {_n(h)}", SP)]
    if c.hf and c.llama:
        out.append(_piece(c, f"hf: {n} RMSNorms computed in fp32", n * (4 * T * h + 4 * T), f"{n}·(4·T·h + 4·T)",
                          f"{n} × (4 × {_n(T)} × {_n(h)} + 4 × {_n(T)})", SP))
    return out


def _dense_block(c: _Ctx, keep_core: bool, attention: str, moe: bool) -> list[tuple]:
    parts = _attention_parts(c, keep_core, attention) + _mlp_parts(c, moe) + _norm_parts(c)
    if c.m.dropout:
        parts.append(_piece(c, "dropout masks (attention output, MLP output)", 2 * c.T * c.h, "2·T·h",
                            f"2 × {_n(c.T)} × {_n(c.h)}", SP))
    return parts


def _lora_block(c: _Ctx, setup: Setup, keep_core: bool) -> list[tuple]:
    """Section 4: frozen linears keep nothing for their weights; each adapter keeps its input (once per
    distinct tensor) and x@A. `hf` (peft's fp32 adapters): every adapter its own fp32 input copy and
    fp32 x@A; RMSNorms keep fp32 input and statistics instead of the 16-bit input."""
    p, T, h, f, a, r = c.p, c.T, c.h, c.f, c.a, setup.lora_rank
    kvd = c.kvd
    all_linear = setup.lora_targets == "all-linear"
    dropout = setup.lora_dropout
    n = c.m.block_norms
    out: list[tuple] = []
    # the frozen core F = (4 + 2g)·p·T·h + 3·p·T·f + 4·a·T (flash)
    if c.hf:
        out.append(_piece(c, f"norms: fp32 inputs and statistics (hf)", n * (4 * T * h + 4 * T), f"{n}·(4·T·h + 4·T)",
                          f"{n} × (4 × {_n(T)} × {_n(h)} + 4 × {_n(T)})", SP))
    else:
        out.append(_piece(c, "norm inputs", n * p * T * h, f"{n}·p·T·h", f"{n} × {p} × {_n(T)} × {_n(h)}", SP))
    out.append(_piece(c, "attention: q, k, v, attention output", p * T * (2 * h + 2 * kvd), "(2 + 2g)·p·T·h",
                      f"{p} × {_n(T)} × (2 × {_n(h)} + 2 × {_n(kvd)})", TP))
    out += _core_parts(c, keep_core, setup.attention)
    out.append(_piece(c, "MLP: gate output, its activation, up output", 3 * p * T * f, "3·p·T·f",
                      f"3 × {p} × {_n(T)} × {_n(f)}", TP))
    # adapters: (name, d_in, input already kept by the frozen core or another adapter)
    if all_linear:
        adapters = (("q", h), ("k", h), ("v", h), ("o", h), ("gate", h), ("up", h), ("down", f))
    else:
        adapters = (("q", h), ("v", h))
    names = "/".join(x for x, _ in adapters)
    na = len(adapters)
    if c.hf:
        if dropout:
            size = sum(8 * T * d_in for _, d_in in adapters)
            out.append(_piece(c, f"LoRA ({names}): fp32 dropped inputs and fp32 masks (hf)", size, "Σ 8·T·d_in",
                              " + ".join(f"8 × {_n(T)} × {_n(d)}" for _, d in adapters), SP))
        else:
            size = sum(4 * T * d_in for _, d_in in adapters)
            out.append(_piece(c, f"LoRA ({names}): fp32 input copies (hf)", size, "Σ 4·T·d_in",
                              " + ".join(f"4 × {_n(T)} × {_n(d)}" for _, d in adapters), SP))
        out.append(_piece(c, f"LoRA ({names}): x@A in fp32 (hf)", na * 4 * T * r, f"{na}·4·T·r", f"{na} × 4 × {_n(T)} × {r}", SP))
        return out
    if dropout:
        if all_linear:
            out.append(_piece(c, "LoRA: dropped inputs and 1-byte masks", (p + 1) * T * (6 * h + f), "(p + 1)·T·(6·h + f)",
                              f"{p + 1} × {_n(T)} × (6 × {_n(h)} + {_n(f)})", SP))
        else:
            out.append(_piece(c, "LoRA: dropped inputs and 1-byte masks", 2 * (p + 1) * T * h, "2·(p + 1)·T·h",
                              f"2 × {p + 1} × {_n(T)} × {_n(h)}", SP))
    elif all_linear:
        # q,k,v share the norm output; o reads the attention output (kept); gate/up share the second
        # norm output; down reads the gated product
        out.append(_piece(c, "LoRA: adapter inputs (norm outputs, gated product)", 2 * p * T * h + p * T * f,
                          "2·p·T·h + p·T·f", f"2 × {p} × {_n(T)} × {_n(h)} + {p} × {_n(T)} × {_n(f)}", SP))
    else:
        out.append(_piece(c, "LoRA: adapter input (the norm output q and v share)", p * T * h, "p·T·h",
                          f"{p} × {_n(T)} × {_n(h)}", SP))
    out.append(_piece(c, f"LoRA ({names}): x@A", na * p * T * r, f"{na}·p·T·r", f"{na} × {p} × {_n(T)} × {r}", SP))
    return out


def _block_parts(c: _Ctx, setup: Setup, keep_core: bool, moe: bool) -> list[tuple]:
    if c.lora and c.llama and not c.critic:
        return _lora_block(c, setup, keep_core)
    return _dense_block(c, keep_core, setup.attention, moe)


def _model_parts(setup: Setup, model: ModelSpec, batch: int, critic: bool = False) -> list[Part]:
    c = _Ctx(setup, model, batch, critic)
    m = model
    L, p, s, b, h, V = m.layers, c.p, c.s, c.b, c.h, m.vocab
    T = c.T
    pp = setup.pp
    # pipeline: the first stage holds ceil(L/pp) layers and min(pp, m) micro-batches in flight (1F1B)
    stage_layers = L if pp == 1 else math.ceil(L / pp)
    inflight = 1 if pp == 1 else min(pp, setup.microbatches)
    dense_layers = m.dense_mlp_layers
    # which layers of the first stage are dense and which MoE (dense layers come first)
    stage_dense = min(dense_layers, stage_layers)
    stage_moe = stage_layers - stage_dense
    parts: list[Part] = []
    kinds = [(False, stage_dense), (True, stage_moe)] if m.is_moe else [(False, stage_layers)]
    # the multiplier is layers × micro-batches in flight, so the label names min(pp, m), not m
    stage = "L" if pp == 1 else "⌈L/pp⌉·min(pp, m)"
    per_kind = {False: "D" if pp == 1 else "D·min(pp, m)",
                True: stage if not m.dense_layers else ("(L − D)" if pp == 1 else "(⌈L/pp⌉ − D)·min(pp, m)")}
    if setup.recompute == "full":
        x = _piece(c, "checkpointed block inputs", p * T * h, "p·T·h", f"{p} × {_n(T)} × {_n(h)}", SP)
        parts.append(Part(x[0], x[1], x[2], x[3], stage_layers * inflight, x[4], stage))
        moe_block = m.is_moe and stage_moe > 0
        for name, n, formula, sub, shard in _block_parts(c, setup, True, moe_block):
            parts.append(Part(f"rematerialised block: {name}", n, formula, sub, 1, shard))
        if setup.impl == "hf" and setup.attention == "eager":
            parts.append(Part("hf: causal mask (eager, full recompute)", p * s * s * b, "p·s²·b", f"{p} × {_n(s)}² × {b}"))
    else:
        keep = setup.recompute == "none"
        for moe, layers in kinds:
            if layers == 0:
                continue
            prefix = ("MoE block: " if moe else "dense block: ") if m.is_moe else ""
            for name, n, formula, sub, shard in _block_parts(c, setup, keep, moe):
                parts.append(Part(prefix + name, n, formula, sub, layers * inflight, shard,
                                  per_kind[moe] if m.is_moe else stage))
    last_stage = pp == 1  # the first stage is the reported one; the loss lives on the last
    if last_stage:
        head = "value-head" if critic else "LM-head"
        parts.append(_part(c, f"final norm input", p * T * h, "p·T·h", f"{p} × {_n(T)} × {_n(h)}", SP))
        parts.append(_part(c, f"{head} input", p * T * h, "p·T·h", f"{p} × {_n(T)} × {_n(h)}", SP))
        if critic:
            parts.append(_part(c, "value loss (fp32 values)", 4 * T, "4·T", f"4 × {_n(T)}", SP))
        elif setup.loss == "standard":
            parts.append(_part(c, "fp32 log-softmax for the loss", 4 * T * V, "4·T·V", f"4 × {_n(T)} × {_n(V)}", TP))
        if setup.impl == "hf" and m.style == "llama":
            parts.append(_part(c, "hf: final RMSNorm in fp32", 4 * T * h + 4 * T, "4·T·h + 4·T",
                               f"4 × {_n(T)} × {_n(h)} + 4 × {_n(T)}", SP))
    if m.dropout:
        x = _piece(c, "embedding dropout mask", T * h, "T·h", f"{_n(T)} × {_n(h)}", SP)
        parts.append(Part(x[0], x[1], x[2], x[3], inflight, x[4], "" if pp == 1 else "m"))
    return parts


def _part(c: _Ctx, name: str, n: int, formula: str, sub: str, shard: str) -> Part:
    x = _piece(c, name, n, formula, sub, shard)
    return Part(x[0], x[1], x[2], x[3], 1, x[4])


def activation_batch(setup: Setup) -> int:
    """Sequences one micro-batch pushes through the trained model: DPO 2·b (chosen and rejected),
    GRPO G·b (the group's responses), otherwise b."""
    if setup.method == "dpo":
        return 2 * setup.batch
    if setup.method == "grpo":
        return setup.group * setup.batch
    return setup.batch


def activation_parts(setup: Setup) -> list[Part]:
    """Every piece of the activation term for `setup` (a shaped model in training), per GPU.

    PPO adds the critic's pieces (prefixed "critic: "), the same list on the critic's shape with a
    value head: its loss keeps 4·T, not 4·T·V.
    """
    check_activations(setup)
    parts = _model_parts(setup, setup.model, activation_batch(setup))
    if setup.method == "ppo":
        critic = setup.critic_model or setup.model
        check_activations(setup, critic)
        parts += [Part("critic: " + x.name, x.bytes, x.formula, x.substituted, x.count, x.shard, x.per)
                  for x in _model_parts(setup, critic, setup.batch, critic=True)]
    return parts


def activation_bytes(setup: Setup) -> int | float:
    return sum(part.total for part in activation_parts(setup))


def activation_formula(parts: list[Part]) -> tuple[str, str]:
    """The whole term as one formula in symbols and with numbers: L·[per-block] + model-level pieces."""
    groups: dict[tuple[int, str], list[Part]] = {}
    single: list[Part] = []
    for p in parts:
        if p.count > 1 or p.per:
            groups.setdefault((p.count, p.per or "L"), []).append(p)
        else:
            single.append(p)
    sym, num = [], []
    for (count, per), group in groups.items():
        sym.append(f"{per}·[" + " + ".join(p.formula for p in group) + "]")
        num.append(f"{count} × [" + " + ".join(p.substituted for p in group) + "]")
    sym += [p.formula for p in single]
    num += [p.substituted for p in single]
    return " + ".join(sym), " + ".join(num)


def korthikanti_gpt_layer(s: int, b: int, h: int, a: int, t: int = 1, sp: bool = False) -> float:
    """Korthikanti et al. 2022: bytes one GPT layer keeps per GPU. No parallelism: s·b·h·(34 + 5·a·s/h)
    (eq. 1); tensor parallel t: s·b·h·(10 + 24/t + 5·a·s/(h·t)) (eq. 2); with sequence parallelism
    s·b·h·(34 + 5·a·s/h)/t (eq. 4)."""
    if sp:
        return s * b * h * (34 + 5 * a * s / h) / t
    return s * b * h * (10 + 24 / t + 5 * a * s / (h * t))
