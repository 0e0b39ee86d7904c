"""Activation memory of one training micro-batch, term by term (memory-model.md section 5).

The term list, not Korthikanti's GPT closed form, is the model: for GPT (LayerNorm, GELU, f = 4h,
dropout, eager) it sums to exactly s·b·h·(34 + 5as/h) per layer, and it also covers SwiGLU, GQA,
FlashAttention, recomputation and the `hf` implementation profile's extras.
"""

from __future__ import annotations

from dataclasses import dataclass

from quizapp.memory.setup import Setup


@dataclass(frozen=True)
class Part:
    """One named piece of the activation term; `per_layer` pieces are multiplied by `count` layers."""

    name: str
    bytes: int
    formula: str
    substituted: str
    count: int = 1  # how many times `bytes` is kept (L for per-block pieces)

    @property
    def total(self) -> int:
        return self.bytes * self.count


def _n(x: int) -> str:
    return f"{x:,}"


def _block_parts(setup: Setup, keep_core: bool) -> list[tuple[str, int, str, str]]:
    """(name, bytes, formula, substituted) of what one block keeps for its backward pass."""
    m = setup.model
    p, s, b, h, f, a = setup.activation_bytes, setup.seq, setup.batch, m.hidden, m.ffn, m.heads
    T = s * b
    kv = m.kv_dim  # h·g
    hf = setup.impl == "hf"
    llama = m.style == "llama"
    parts: list[tuple[str, int, str, str]] = []
    if kv == h:
        parts.append(("attention: q,k,v input, q, k, v, o input", 5 * p * T * h, "5·p·T·h", f"5 × {p} × {_n(T)} × {_n(h)}"))
    else:
        parts.append((
            "attention: q,k,v input, q, k, v, o input", p * T * (3 * h + 2 * kv), "(3 + 2g)·p·T·h",
            f"{p} × {_n(T)} × (3 × {_n(h)} + 2 × {_n(kv)})",
        ))
    if keep_core:
        if setup.attention == "eager":
            parts.append(("attention core: softmax output", p * a * s * s * b, "p·a·s²·b", f"{p} × {a} × {_n(s)}² × {b}"))
            if m.dropout:
                parts.append(("attention core: dropout mask + dropped probabilities", (1 + p) * a * s * s * b,
                              "(1 + p)·a·s²·b", f"{1 + p} × {a} × {_n(s)}² × {b}"))
            if hf and llama and p == 2:
                parts.append(("hf: softmax also kept in fp32", 4 * a * s * s * b, "4·a·s²·b", f"4 × {a} × {_n(s)}² × {b}"))
            if hf and kv != h:
                parts.append(("hf: K and V repeated to all heads", 2 * p * T * (h - kv), "2·p·T·h·(1 − g)",
                              f"2 × {p} × {_n(T)} × ({_n(h)} − {_n(kv)})"))
        else:
            parts.append(("attention core: fp32 log-sum-exp (flash)", 4 * a * T, "4·a·T", f"4 × {a} × {_n(T)}"))
    k = 4 if m.gated else 2
    parts.append(("MLP: input and intermediates", p * T * h + k * p * T * f, f"p·T·h + {k}·p·T·f",
                  f"{p} × {_n(T)} × {_n(h)} + {k} × {p} × {_n(T)} × {_n(f)}"))
    if hf and not llama:
        parts.append(("hf: gelu_new keeps five tensors", 3 * p * T * f, "3·p·T·f", f"3 × {p} × {_n(T)} × {_n(f)}"))
    parts.append(("norm inputs", 2 * p * T * h, "2·p·T·h", f"2 × {p} × {_n(T)} × {_n(h)}"))
    if hf and llama:
        parts.append(("hf: two RMSNorms computed in fp32", 2 * (4 * T * h + 4 * T), "2·(4·T·h + 4·T)",
                      f"2 × (4 × {_n(T)} × {_n(h)} + 4 × {_n(T)})"))
    if m.dropout:
        parts.append(("dropout masks (attention output, MLP output)", 2 * T * h, "2·T·h", f"2 × {_n(T)} × {_n(h)}"))
    return parts


def activation_parts(setup: Setup) -> list[Part]:
    """Every piece of the activation term for `setup` (a shaped model in training)."""
    m = setup.model
    L, p, s, b, h, V = m.layers, setup.activation_bytes, setup.seq, setup.batch, m.hidden, m.vocab
    T = s * b
    parts: list[Part] = []
    if setup.recompute == "full":
        parts.append(Part("checkpointed block inputs", p * T * h, "p·T·h", f"{p} × {_n(T)} × {_n(h)}", L))
        for name, n, formula, sub in _block_parts(setup, keep_core=True):
            parts.append(Part(f"rematerialised block: {name}", n, formula, sub, 1))
        if setup.impl == "hf" and setup.attention == "eager":
            parts.append(Part("hf: causal mask (eager, full recompute)", p * s * s * b, "p·s²·b", f"{p} × {_n(s)}² × {b}"))
    else:
        for name, n, formula, sub in _block_parts(setup, keep_core=setup.recompute == "none"):
            parts.append(Part(name, n, formula, sub, L))
    parts.append(Part("final norm and LM-head inputs", 2 * p * T * h, "2·p·T·h", f"2 × {p} × {_n(T)} × {_n(h)}"))
    if setup.loss == "standard":
        parts.append(Part("fp32 log-softmax for the loss", 4 * T * V, "4·T·V", f"4 × {_n(T)} × {_n(V)}"))
    if m.dropout:
        parts.append(Part("embedding dropout mask", T * h, "T·h", f"{_n(T)} × {_n(h)}"))
    if setup.impl == "hf" and m.style == "llama":
        parts.append(Part("hf: final RMSNorm in fp32", 4 * T * h + 4 * T, "4·T·h + 4·T", f"4 × {_n(T)} × {_n(h)} + 4 × {_n(T)}"))
    return parts


def activation_bytes(setup: Setup) -> int:
    return sum(part.total for part in activation_parts(setup))


def activation_formula(parts: list[Part]) -> tuple[str, str]:
    """The whole term as one formula in symbols and with numbers: L·[per-block] + model-level pieces."""
    per_layer = [p for p in parts if p.count > 1]
    single = [p for p in parts if p.count == 1]
    sym, num = [], []
    if per_layer:
        L = per_layer[0].count
        sym.append("L·[" + " + ".join(p.formula for p in per_layer) + "]")
        num.append(f"{L} × [" + " + ".join(p.substituted for p in per_layer) + "]")
    sym += [p.formula for p in single]
    num += [p.substituted for p in single]
    return " + ".join(sym), " + ".join(num)


def korthikanti_gpt_layer(s: int, b: int, h: int, a: int) -> float:
    """Korthikanti et al. 2022, eq. (1): bytes one GPT layer keeps, s·b·h·(34 + 5·a·s/h)."""
    return s * b * h * (34 + 5 * a * s / h)
