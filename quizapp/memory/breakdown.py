"""The memory breakdown: ordered terms with formula, numbers and assumption (spec sections 3, 4, 6, 10).

Peak = sum of the terms (the standard estimate of the ZeRO paper and Transformer Math 101). Every
term carries its formula in symbols and with numbers so a worked solution can be printed from it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from quizapp.memory.activations import activation_formula, activation_parts
from quizapp.memory.models import ModelSpec
from quizapp.memory.setup import Setup

TERM_NAMES = ("weights", "gradients", "master_weights", "optimizer_states", "activations", "kv_cache", "overhead")
STATE_TERMS = ("weights", "gradients", "master_weights", "optimizer_states")

NF4_BYTES = 0.5 + 4 / 64  # 4-bit values + one fp32 absmax per 64-value block (4.5 bits)
NF4_DQ_BYTES = 0.5 + 1 / 64 + 4 / (64 * 256)  # absmax in 8 bits + one fp32 per 256 blocks (4.127 bits)


@dataclass(frozen=True)
class Term:
    name: str  # one of TERM_NAMES
    bytes: int | float
    formula: str  # symbols, e.g. "2·Ψ"
    substituted: str  # numbers, e.g. "2 × 6,738,415,616"
    note: str  # one line: the convention / assumption
    parts: tuple["Term", ...] = ()  # named pieces (activations), for worked solutions


@dataclass(frozen=True)
class Breakdown:
    setup: Setup
    params: int
    trainable_params: int
    terms: tuple[Term, ...]
    total: int | float
    model_states: int | float
    cpu: int | float
    notes: tuple[str, ...] = ()
    cpu_terms: tuple[Term, ...] = field(default=())  # what offload keeps in host memory, per rank

    def term(self, name: str) -> Term | None:
        for t in self.terms:
            if t.name == name:
                return t
        return None

    def bytes_of(self, name: str) -> int | float:
        t = self.term(name)
        return t.bytes if t else 0


@dataclass(frozen=True)
class Adjust:
    """A deliberate distortion of the calculation, used to reproduce common mistakes (mistakes.py):
    `zero` terms are dropped (on GPU and CPU), `state_bytes` replaces optimizer bytes per trainable
    parameter."""

    zero: frozenset[str] = frozenset()
    state_bytes: float | None = None
    kv_divisor: int = 1  # the KV cache divided (one layer only, or only K)


NO_ADJUST = Adjust()


def _num(x: int | float) -> str:
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e18):
        return f"{int(x):,}"
    return f"{x:,.6g}" if abs(x) >= 1 else repr(x)




def lora_params(model: ModelSpec, rank: int, targets: str) -> int:
    """r·(d_in + d_out) per adapted matrix per block; qv = q and v, all-linear = every block linear."""
    chosen = [(d_in, d_out) for name, d_in, d_out in model.block_matrices() if targets == "all-linear" or name in ("q", "v")]
    return model.layers * sum(rank * (d_in + d_out) for d_in, d_out in chosen)


def _trainable_tensors(setup: Setup) -> list[tuple[int, int | None, int]]:
    m = setup.model
    if setup.method == "full":
        return list(m.tensors())
    r = setup.lora_rank
    out: list[tuple[int, int | None, int]] = []
    for name, d_in, d_out in m.block_matrices():
        if setup.lora_targets == "all-linear" or name in ("q", "v"):
            out += [(r, d_in, m.layers), (d_out, r, m.layers)]
    return out


def _state_dtype_bytes(setup: Setup) -> int:
    return 2 if setup.precision == "bf16" else 4


def _optimizer_bytes(setup: Setup, trainable: int) -> tuple[int | float, str, str, str]:
    """(bytes, formula, substituted, note) for the optimizer states of all trainable parameters."""
    opt, sd = setup.optimizer, _state_dtype_bytes(setup)
    dtype = "bf16" if sd == 2 else "fp32"
    if opt in ("adam", "adamw"):
        k = 2 * sd
        return k * trainable, f"{k}·Ψ", f"{k} × {_num(trainable)}", f"Adam m and v in {dtype}: {k} bytes/param"
    if opt == "sgd":
        return 0, "0", "0", "plain SGD keeps no optimizer state"
    if opt in ("sgd-momentum", "lion"):
        return sd * trainable, f"{sd}·Ψ", f"{sd} × {_num(trainable)}", f"one momentum buffer in {dtype}: {sd} bytes/param"
    if opt == "adafactor":
        tensors = _trainable_tensors(setup)
        total = sum(sd * ((rows + cols) if cols else rows) * n for rows, cols, n in tensors)
        return (total, f"Σ_matrices {sd}·(rows + cols) + Σ_vectors {sd}·n", f"{_num(total)} over {len(tensors)} tensor shapes",
                "Adafactor: factored second moment, no first moment (beta1 = None)")
    # adamw-8bit (bitsandbytes): 2 bytes/param + fp32 absmax per 256-value block per state;
    # tensors under 4096 elements stay 32-bit (halved in pure bf16).
    if not setup.model.has_shape:
        total = 2 * trainable + (trainable // 32 if trainable % 32 == 0 else trainable / 32)  # 8/256 = 1/32
        return (total, "(2 + 8/256)·Ψ", f"2.03125 × {_num(trainable)}",
                "8-bit AdamW, block 256 with fp32 absmax; small tensors' 32-bit states not counted (no shape)")
    total = 0
    for rows, cols, n in _trainable_tensors(setup):
        size = rows * (cols or 1)
        total += n * ((2 * size + 8 * math.ceil(size / 256)) if size >= 4096 else 2 * sd * size)
    return (total, "Σ_{n≥4096} (2·n + 8·⌈n/256⌉) + Σ_{n<4096} " + f"{2 * sd}·n", f"{_num(total)} summed per tensor",
            "bitsandbytes 8-bit AdamW: block 256, fp32 absmax per block per state; tensors < 4096 stay 32-bit")


def _div(x: int | float, n: int) -> int | float:
    if n == 1:
        return x
    if isinstance(x, int) and x % n == 0:
        return x // n
    return x / n


def breakdown(setup: Setup, adjust: Adjust = NO_ADJUST) -> Breakdown:
    """All terms of `setup`, in the order of TERM_NAMES. `adjust` is for mistakes.py only."""
    if setup.training:
        return _training(setup, adjust)
    return _inference(setup, adjust)


def _training(setup: Setup, adjust: Adjust) -> Breakdown:
    m = setup.model
    psi = m.params
    full = setup.method == "full"
    trainable = psi if full else lora_params(m, setup.lora_rank, setup.lora_targets)
    N, stage = setup.gpus, setup.zero
    w = 4 if setup.precision == "fp32" else 2
    g = 4 if setup.precision == "fp32" else setup.grads // 8
    master = 4 if setup.mixed else 0
    notes: list[str] = []

    # --- weights ---
    if full:
        weights: int | float = w * psi
        w_formula, w_sub = f"{w}·Ψ", f"{w} × {_num(psi)}"
        w_note = f"{'fp32' if w == 4 else '16-bit'} weights: {w} bytes/param"
    elif setup.method == "lora":
        weights = w * psi + w * trainable
        w_formula, w_sub = f"{w}·Ψ_base + {w}·Ψ_LoRA", f"{w} × {_num(psi)} + {w} × {_num(trainable)}"
        w_note = f"frozen base in {'fp32' if w == 4 else '16-bit'} (weights only) + LoRA adapters"
    else:
        lin = m.layers * m.block_linear_params
        q = NF4_DQ_BYTES if setup.double_quant else NF4_BYTES
        weights = q * lin + w * (psi - lin) + w * trainable
        bits = "4.127 bits, double quantization" if setup.double_quant else "4.5 bits, fp32 absmax per 64"
        w_formula = "b_NF4·Ψ_linear + 2·(Ψ − Ψ_linear) + 2·Ψ_LoRA" if w == 2 else f"b_NF4·Ψ_linear + {w}·(Ψ − Ψ_linear) + {w}·Ψ_LoRA"
        w_sub = f"{q!r} × {_num(lin)} + {w} × {_num(psi - lin)} + {w} × {_num(trainable)}"
        w_note = f"NF4 block linears ({bits}); embeddings, head and norms 16-bit; LoRA adapters"
    grads = g * trainable
    masters = master * trainable
    if adjust.state_bytes is not None:
        states: int | float = adjust.state_bytes * trainable
        o_formula, o_sub, o_note = f"{adjust.state_bytes:g}·Ψ", f"{adjust.state_bytes:g} × {_num(trainable)}", "adjusted"
    else:
        states, o_formula, o_sub, o_note = _optimizer_bytes(setup, trainable)
    if not full:
        o_formula = o_formula.replace("Ψ", "Ψ_LoRA")
    tsym = "Ψ" if full else "Ψ_LoRA"

    # --- ZeRO partitioning ---
    def part(value, formula, sub, divided):
        if divided and N > 1:
            return _div(value, N), f"({formula})/N", f"({sub}) / {N}"
        return value, formula, sub

    zero_note = ""
    if stage:
        zero_note = f"; ZeRO-{stage} over N = {N}" if N > 1 else f"; ZeRO-{stage} with N = 1 partitions nothing"
    cpu_terms: list[Term] = []
    weights_gpu, wf, ws = part(weights, w_formula, w_sub, stage >= 3)
    grads_gpu, gf, gs = part(grads, f"{g}·{tsym}", f"{g} × {_num(trainable)}", stage >= 2)
    master_gpu, mf, ms = part(masters, f"{master}·{tsym}", f"{master} × {_num(trainable)}", stage >= 1)
    states_gpu, of, os_ = part(states, o_formula, o_sub, stage >= 1)
    g_note = f"{g * 8}-bit gradients" + (" (Megatron, DeepSpeed and HF keep fp32 gradients: grads 32)" if g == 2 else "")
    m_note = "fp32 master copy of the weights (mixed precision)"
    if setup.offload != "none":
        cpu_terms = [
            Term("gradients", grads_gpu, gf, gs, "streamed to CPU as they are produced (ZeRO-Offload)"),
            Term("master_weights", master_gpu, mf, ms, m_note + ", on CPU"),
            Term("optimizer_states", states_gpu, of, os_, o_note + ", on CPU"),
        ]
        notes.append("offload: the optimizer step runs on the CPU; the GPU keeps the 16-bit weights")
        grads_gpu, gf, gs, g_note = 0, "0", "0", "offloaded: gradients are streamed to CPU memory"
        master_gpu, mf, ms, m_note = 0, "0", "0", "offloaded to CPU memory"
        states_gpu, of, os_, o_note = 0, "0", "0", "offloaded to CPU memory"
        if setup.offload == "optimizer+params":
            cpu_terms.insert(0, Term("weights", weights_gpu, wf, ws, "16-bit weights partition on CPU"))
            weights_gpu = w * m.block_params
            wf, ws = f"{w}·Ψ_block", f"{w} × {_num(m.block_params)}"
            w_note = "parameter offload: the GPU holds roughly the largest block's weights"

    term_values = {
        "weights": (weights_gpu, wf, ws, w_note + zero_note),
        "gradients": (grads_gpu, gf, gs, g_note),
        "master_weights": (master_gpu, mf, ms, m_note),
        "optimizer_states": (states_gpu, of, os_, o_note),
    }
    terms: list[Term] = []
    for name in STATE_TERMS:
        value, formula, sub, note = term_values[name]
        if name == "master_weights" and not setup.mixed:
            continue
        if name in adjust.zero:
            value, sub = 0, "0 (left out)"
        terms.append(Term(name, value, formula, sub, note))
    cpu_terms = [t for t in cpu_terms if t.name not in adjust.zero]

    # --- activations ---
    if m.has_shape:
        parts = activation_parts(setup)
        act = sum(p.total for p in parts)
        formula, sub = activation_formula(parts)
        if "activations" in adjust.zero:
            act, sub = 0, "0 (left out)"
        profile = "ideal (fused kernels, 1-byte masks)" if setup.impl == "ideal" else "hf (Hugging Face eager code)"
        terms.append(Term(
            "activations", act, formula, sub,
            f"memory-model §5 term list, {setup.attention} attention, recompute {setup.recompute}, profile {profile}",
            tuple(Term("activations", p.total, p.formula + (" ×L" if p.count > 1 else ""), p.substituted, p.name) for p in parts),
        ))
        notes.append(
            f"activations: the §5 term list (T = s·b = {setup.seq}·{setup.batch}, p = {setup.activation_bytes}), "
            f"profile {setup.impl}; not Korthikanti's GPT closed form s·b·h·(34 + 5as/h), which assumes "
            "GPT with dropout and eager attention"
        )
        if setup.impl == "hf" and setup.loss == "standard":
            notes.append("hf: at the loss, the fp32 logits' backward briefly holds 8·T·V more (a transient, not counted)")
    else:
        notes.append("activations not counted: a bare parameter count has no shape (give a preset or layers/hidden/heads)")
    if setup.overhead:
        terms.append(Term("overhead", setup.overhead, "overhead", _num(setup.overhead), "CUDA context and allocator slack, as given"))

    # --- notes ---
    per = [w if full else 0, g, master, (states / trainable if trainable else 0)]
    if full and adjust == NO_ADJUST:
        name = {"adam": "Adam", "adamw": "Adam", "adamw-8bit": "8-bit Adam", "sgd": "SGD", "sgd-momentum": "momentum",
                "lion": "Lion", "adafactor": "Adafactor"}[setup.optimizer]
        pieces = [f"{_num(per[0])} weights", f"{_num(per[1])} grads"] + ([f"{per[2]} master"] if master else [])
        pieces.append(f"{per[3]:.4g} {name}")
        notes.insert(0, f"{sum(per):.4g} bytes/param: " + " + ".join(pieces) + " (before ZeRO/offload)")
    elif not full:
        notes.insert(0, f"{setup.method}: frozen base weights only; {_num(trainable)} trainable LoRA parameters "
                        f"(rank {setup.lora_rank}, {setup.lora_targets}) charged like full fine-tuning")
        notes.append("LoRA activations charged as in full fine-tuning: an upper bound (frozen linears need not keep inputs)")
    notes.insert(1, "peak = sum of terms, the standard estimate (ZeRO paper, Transformer Math 101); the real peak is "
                    "slightly lower (activations freed as gradients appear) or higher (optimizer temporaries, fragmentation)")
    if stage and N == 1:
        notes.append(f"ZeRO-{stage} with N = 1: nothing to partition across, so it saves nothing")
    return _finish(setup, psi, trainable, terms, notes, cpu_terms)


def _inference(setup: Setup, adjust: Adjust) -> Breakdown:
    m = setup.model
    psi = m.params
    wd = setup.weights_dtype
    if wd == "16-bit":
        per: float | int = 2
        note = "16-bit weights: 2 bytes/param"
    elif wd == "int8":
        per, note = 1, "int8 weights: 1 byte/param (scales not counted)"
    else:
        per = NF4_DQ_BYTES if setup.double_quant else NF4_BYTES
        note = f"{wd}: 0.5 byte + block constants ({'double quantization, 4.127 bits' if setup.double_quant else 'fp32 absmax per 64, 4.5 bits'})"
    weights = per * psi
    terms = [Term("weights", weights if "weights" not in adjust.zero else 0, f"{per!r}·Ψ" if not isinstance(per, int) else f"{per}·Ψ",
                  f"{per!r} × {_num(psi)}", note + "; all parameters at this width")]
    notes = [
        "inference: weights + KV cache; transient activations of one forward pass are not counted",
        "peak = sum of terms, the standard estimate; the real peak is higher by the forward pass's transient activations and allocator slack",
    ]
    if m.has_shape:
        pkv = {"16-bit": 2, "fp8": 1, "int8": 1, "int4": 0.5}[setup.kv_dtype]
        L, akv, d, s, b = m.layers, m.kv_heads, m.head_dim, setup.seq, setup.batch
        kv = 2 * L * akv * d * s * b * pkv
        kv = int(kv) if float(kv).is_integer() else kv
        if adjust.kv_divisor != 1:
            kv = _div(kv, adjust.kv_divisor)
        if "kv_cache" in adjust.zero:
            kv = 0
        gqa = f"; GQA: a_kv = {akv} of a = {m.heads} heads" if akv != m.heads else ""
        terms.append(Term("kv_cache", kv, "2·L·a_kv·d·s·b·p_kv", f"2 × {L} × {akv} × {d} × {_num(s)} × {b} × {pkv}",
                          f"K and V for {b} sequence(s) of {s} tokens in {setup.kv_dtype}{gqa}"))
    else:
        notes.append("KV cache not counted: a bare parameter count has no shape (give a preset or layers/heads)")
    if setup.overhead:
        terms.append(Term("overhead", setup.overhead, "overhead", _num(setup.overhead), "CUDA context and allocator slack, as given"))
    return _finish(setup, psi, 0, terms, notes, [])


def _finish(setup, psi, trainable, terms, notes, cpu_terms) -> Breakdown:
    total = sum(t.bytes for t in terms)
    states = sum(t.bytes for t in terms if t.name in STATE_TERMS)
    cpu = sum(t.bytes for t in cpu_terms)
    if cpu_terms:
        notes.append(f"cpu: {', '.join(t.name for t in cpu_terms)} in host memory, per rank")
    return Breakdown(setup, psi, trainable, tuple(terms), total, states, cpu, tuple(notes), tuple(cpu_terms))
