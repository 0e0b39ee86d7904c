"""The memory breakdown: ordered terms with formula, numbers and assumption (spec sections 3-6, 10-15).

Peak = sum of the terms (the standard estimate of the ZeRO paper and Transformer Math 101). Every
term carries its formula in symbols and with numbers so a worked solution can be printed from it,
and a note as a code (`notes.Note`: a words key and its arguments) that quizapp.words renders in
English or Chinese. Figures are per GPU: ZeRO divides by the data-parallel degree N, tensor and
pipeline parallelism by t·pp, expert parallelism the routed experts by ep (sections 11, 13, 14).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

from quizapp.memory.activations import activation_formula, activation_parts
from quizapp.memory.formats import (
    GGUF, GGUF_OUTPUT, NF4_BYTES, NF4_DQ_BYTES, bits_per_weight, kv_bytes_per_sequence, kv_bytes_per_token, kv_divisor,
    setup_weights,
    weight_bytes,
)
from quizapp.memory.models import ModelSpec
from quizapp.memory.notes import EMPTY, Note, joined
from quizapp.memory.setup import Setup

TERM_NAMES = ("weights", "gradients", "master_weights", "optimizer_states", "reference_weights", "reward_weights",
              "activations", "kv_cache", "rollout_kv_cache", "overhead")
STATE_TERMS = ("weights", "gradients", "master_weights", "optimizer_states", "reference_weights", "reward_weights")

__all__ = ["NF4_BYTES", "NF4_DQ_BYTES", "TERM_NAMES", "STATE_TERMS", "Term", "Breakdown", "Adjust", "NO_ADJUST",
           "breakdown", "lora_params", "critic_params"]


class Term(NamedTuple):
    """One term of a breakdown (a NamedTuple: immutable and cheap, a breakdown makes dozens)."""

    name: str  # one of TERM_NAMES
    bytes: int | float
    formula: str  # symbols, e.g. "2·Ψ"
    substituted: str  # numbers, e.g. "2 × 6,738,415,616"
    code: Note | str  # the note: a code quizapp.words.calc.render turns into words (a str is shown as is)
    parts: tuple["Term", ...] = ()  # named pieces (activations, actor/critic), for worked solutions


@dataclass(frozen=True)
class Breakdown:
    setup: Setup
    params: int
    trainable_params: int
    terms: tuple[Term, ...]
    total: int | float
    model_states: int | float
    cpu: int | float
    codes: tuple[Note | str, ...] = ()  # the convention lines as codes (render with quizapp.words.calc)
    cpu_terms: tuple[Term, ...] = field(default=())  # what offload keeps in host memory, per rank
    missing: tuple[str, ...] = ()  # terms the total leaves out because they cannot be computed (MLA activations)
    active_params: int = 0  # parameters one token uses (MoE: k of E routed experts); = params if dense

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


def _say(key: str, **args: object) -> Note:
    """The calculator note `key` with `args` (call sites pass keywords in a fixed order)."""
    if not args:
        cached = _CONSTANT.get(key)
        if cached is None:
            cached = _CONSTANT[key] = Note("calc.note." + key)
        return cached
    return Note("calc.note." + key, tuple(args.items()))


_CONSTANT: dict[str, Note] = {}  # argument-less notes, made once (a pure cache of immutable values)


def _num(x: int | float) -> str:
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e18):
        return f"{int(x):,}"
    return f"{x:,.6g}" if abs(x) >= 1 else repr(x)


def _div(x: int | float, n: int | float) -> int | float:
    if n == 1:
        return x
    if isinstance(x, int) and isinstance(n, int) and x % n == 0:
        return x // n
    return x / n


def _clean(x: int | float) -> int | float:
    return int(x) if isinstance(x, float) and x.is_integer() and abs(x) < 2**62 else x


def _term(name: str, value, formula: str, substituted: str, code: Note | str, parts: tuple[Term, ...] = ()) -> Term:
    return Term(name, value, formula, substituted, code, parts)


def lora_params(model: ModelSpec, rank: int, targets: str) -> int:
    """r·(d_in + d_out) per adapted matrix per block; qv = q and v, all-linear = every block linear."""
    chosen = [(d_in, d_out) for name, d_in, d_out in model.block_matrices() if targets == "all-linear" or name in ("q", "v")]
    return model.layers * sum(rank * (d_in + d_out) for d_in, d_out in chosen)


def critic_params(model: ModelSpec) -> int:
    """A PPO critic or reward model on `model`'s shape: the LM head (V·h, untied) replaced by a value
    head of h + 1 parameters; with tied embeddings the embedding stays and the head adds h + 1. A bare
    count is taken as is (the critic counted as the actor's size)."""
    if not model.has_shape:
        return model.params
    return model.params - (0 if model.tied else model.vocab * model.hidden) + model.hidden + 1


def _critic_tensors(model: ModelSpec) -> list[tuple[int, int | None, int]]:
    tensors = list(model.tensors())
    if not model.tied:
        tensors.remove((model.vocab, model.hidden, 1))  # the LM head
    return tensors + [(1, model.hidden, 1), (1, None, 1)]  # value head weight and bias


class _Trained(NamedTuple):
    """One trained model: its trainable count, the routed-expert share, its tensor list."""

    label: str  # "" (the model), "actor", "critic"
    model: ModelSpec
    psi: int  # trainable parameters
    psi_e: int  # of which routed experts
    tensors: tuple[tuple[int, int | None, int], ...]
    expert_tensors: tuple[tuple[int, int | None, int], ...]


def _trained_models(setup: Setup) -> list[_Trained]:
    m = setup.model
    if setup.method in ("lora", "qlora"):
        r = setup.lora_rank
        tensors: list[tuple[int, int | None, int]] = []
        for name, d_in, d_out in m.block_matrices():
            if setup.lora_targets == "all-linear" or name in ("q", "v"):
                tensors += [(r, d_in, m.layers), (d_out, r, m.layers)]
        return [_Trained("", m, lora_params(m, r, setup.lora_targets), 0, tuple(tensors), ())]
    shaped = m.count is None
    actor = _Trained("actor" if setup.method == "ppo" else "", m, m.params,
                     m.routed_expert_params if shaped else 0, m.tensors() if shaped else (),
                     m.expert_tensors if shaped else ())
    if setup.method != "ppo":
        return [actor]
    c = setup.critic_model or m
    c_experts = c.expert_tensors if c.has_shape else ()
    critic = _Trained("critic", c, critic_params(c), c.routed_expert_params if c.has_shape else 0,
                      tuple(_critic_tensors(c)) if c.has_shape else (), c_experts)
    return [actor, critic]


def _state_dtype_bytes(setup: Setup) -> int:
    return 2 if setup.precision == "bf16" else 4


def _optimizer_bytes(setup: Setup, trainable: int, tensors, has_shape: bool, sym: str) -> tuple[int | float, str, str, Note]:
    """(bytes, formula, substituted, note) for the optimizer states of `trainable` parameters."""
    opt, sd = setup.optimizer, _state_dtype_bytes(setup)
    dtype = "bf16" if sd == 2 else "fp32"
    if opt in ("adam", "adamw"):
        k = 2 * sd
        return k * trainable, f"{k}·{sym}", f"{k} × {_num(trainable)}", _say("adam", dtype=dtype, k=k)
    if opt == "sgd":
        return 0, "0", "0", _say("sgd")
    if opt in ("sgd-momentum", "lion"):
        return sd * trainable, f"{sd}·{sym}", f"{sd} × {_num(trainable)}", _say("momentum", dtype=dtype, k=sd)
    if opt == "adafactor":
        total = sum(sd * ((rows + cols) if cols else rows) * n for rows, cols, n in tensors)
        return (total, f"Σ_matrices {sd}·(rows + cols) + Σ_vectors {sd}·n", f"{_num(total)} over {len(tensors)} tensor shapes",
                _say("adafactor"))
    # adamw-8bit (bitsandbytes): 2 bytes/param + fp32 absmax per 256-value block per state;
    # tensors under 4096 elements stay 32-bit (halved in pure bf16).
    if not has_shape:
        total = 2 * trainable + (trainable // 32 if trainable % 32 == 0 else trainable / 32)  # 8/256 = 1/32
        return total, f"(2 + 8/256)·{sym}", f"2.03125 × {_num(trainable)}", _say("adam8_bare")
    total = 0
    for rows, cols, n in tensors:
        size = rows * (cols or 1)
        total += n * ((2 * size + 8 * math.ceil(size / 256)) if size >= 4096 else 2 * sd * size)
    return (total, "Σ_{n≥4096} (2·n + 8·⌈n/256⌉) + Σ_{n<4096} " + f"{2 * sd}·n", f"{_num(total)} summed per tensor",
            _say("adam8"))


class _Shard:
    """Per-GPU division of model states: t·pp for every state, the routed experts also by ep, and
    ZeRO by N (non-expert) or N/ep (expert: their data-parallel group) where the stage applies."""

    def __init__(self, setup: Setup) -> None:
        self.N, self.t, self.pp, self.ep = setup.gpus, setup.tp, setup.pp, setup.ep
        self.mp = self.t * self.pp

    def divisors(self, zero: bool) -> tuple[int, int, str, str]:
        z = zero and self.N > 1
        d_ne = self.mp * (self.N if z else 1)
        d_e = self.mp * self.ep * ((self.N // self.ep) if z else 1)
        sym = [s for s, v in (("t", self.t), ("pp", self.pp)) if v > 1]
        sym_ne = sym + (["N"] if z else [])
        sym_e = sym + (["ep"] if self.ep > 1 else []) + ((["(N/ep)"] if self.ep > 1 else ["N"]) if z else [])
        return d_ne, d_e, "·".join(sym_ne), "·".join(sym_e)

    def apply(self, total, expert, formula: str, sub: str, zero: bool) -> tuple[int | float, str, str]:
        """`total` bytes of which `expert` are routed experts -> (per GPU, formula, substituted)."""
        if self.mp == 1 and self.ep == 1 and (not zero or self.N == 1):
            return total, formula, sub
        d_ne, d_e, s_ne, s_e = self.divisors(zero)
        if not expert or d_ne == d_e:
            if d_ne == 1:
                return total, formula, sub
            return _div(total, d_ne), f"({formula})/{s_ne}", f"({sub}) / {d_ne}"
        rest = total - expert
        value = _clean(_div(rest, d_ne) + _div(expert, d_e))
        f_ne = f"({formula})_non-expert" + (f"/{s_ne}" if d_ne > 1 else "")
        return (value, f"{f_ne} + ({formula})_experts/{s_e}",
                f"{_num(rest)}" + (f" / {d_ne}" if d_ne > 1 else "") + f" + {_num(expert)} / {d_e}")


def breakdown(setup: Setup, adjust: Adjust = NO_ADJUST) -> Breakdown:
    """All terms of `setup` per GPU, in the order of TERM_NAMES. `adjust` is for mistakes.py only."""
    if setup.training:
        return _training(setup, adjust)
    return _inference(setup, adjust)


def _format_note(setup: Setup, fmt: str) -> Note:
    """What a weight format stores (section 12), as a note."""
    if fmt in ("bf16", "fp16"):
        return _say("fmt_16")
    bits = f"{bits_per_weight(fmt, setup.group_size, setup.double_quant):.4g}"
    if fmt == "fp8":
        n = _say("fmt_fp8")
    elif fmt == "int8":
        n = _say("fmt_int8")
    elif fmt in ("gptq-int4", "awq-int4"):
        n = _say("fmt_int4", fmt=fmt, g=setup.group_size, bits=bits)
    elif fmt == "nf4":
        n = _say("fmt_nf4", bits=_say("nf4_dq") if setup.double_quant else _say("nf4"))
    elif fmt in ("mxfp4", "nvfp4"):
        n = _say(f"fmt_{fmt}")
    else:
        out, _ = GGUF_OUTPUT[fmt]
        tied = setup.model.has_shape and setup.model.tied
        n = _say("fmt_gguf", type=fmt.removeprefix("gguf-"), bits=bits, out=out,
                 out_name=_say("out_tied") if tied else _say("out_weight"))
    if not setup.model.has_shape:
        return n + _say("fmt_bare")
    if fmt in ("gptq-int4", "awq-int4") or fmt in GGUF:
        return n + _say("quant_rate")
    return n


def _training(setup: Setup, adjust: Adjust) -> Breakdown:
    m = setup.model
    psi = m.params
    lora = setup.method in ("lora", "qlora")
    N, stage = setup.gpus, setup.zero
    w = 4 if setup.precision == "fp32" else 2
    g = 4 if setup.precision == "fp32" else setup.grads // 8
    master = 4 if setup.mixed else 0
    shard = _Shard(setup)
    notes: list[Note] = []
    trained = _trained_models(setup)
    trainable = sum(x.psi for x in trained)
    tsym = "Ψ_LoRA" if lora else "Ψ"

    # --- per-model states (before division) ---
    # (label, weights, expert share, formula, sub) ... for each state
    rows: dict[str, list[tuple[str, int | float, int | float, str, str, Note]]] = {k: [] for k in STATE_TERMS[:4]}
    opt_note: Note = EMPTY
    for x in trained:
        label = x.label
        sym = "Ψ_c" if label == "critic" else tsym
        # weights
        if lora:
            fmt = "nf4" if setup.method == "qlora" else setup.weights
            if fmt in ("bf16", "fp16"):
                wv = w * psi + w * x.psi
                wf, ws = f"{w}·Ψ_base + {w}·Ψ_LoRA", f"{w} × {_num(psi)} + {w} × {_num(x.psi)}"
                wn = _say("weights_lora", dtype="fp32" if w == 4 else "16-bit")
            else:
                wb = weight_bytes(m, fmt, setup.group_size, setup.double_quant)
                wv = _clean(wb.total + w * x.psi)
                wf = wb.formula + f" + {w}·Ψ_LoRA"
                ws = wb.substituted + f" + {w} × {_num(x.psi)}"
                if fmt == "nf4":
                    wn = _say("weights_qlora", bits=_say("nf4_dq") if setup.double_quant else _say("nf4"))
                else:
                    wn = _say("weights_lora_format", fmt=_format_note(setup, fmt), dtype="fp32" if w == 4 else "16-bit")
            we = 0
        else:
            wv, we = w * x.psi, w * x.psi_e
            wf, ws = f"{w}·{sym}", f"{w} × {_num(x.psi)}"
            wn = _say("weights", dtype="fp32" if w == 4 else "16-bit", w=w)
        rows["weights"].append((label, wv, we, wf, ws, wn))
        rows["gradients"].append((label, g * x.psi, g * x.psi_e, f"{g}·{sym}", f"{g} × {_num(x.psi)}", EMPTY))
        if setup.mixed:
            rows["master_weights"].append((label, master * x.psi, master * x.psi_e, f"{master}·{sym}",
                                           f"{master} × {_num(x.psi)}", EMPTY))
        if adjust.state_bytes is not None:
            ov: int | float = adjust.state_bytes * x.psi
            oe: int | float = adjust.state_bytes * x.psi_e
            of, os_, on = f"{adjust.state_bytes:g}·{sym}", f"{adjust.state_bytes:g} × {_num(x.psi)}", _say("adjusted")
        else:
            ov, of, os_, on = _optimizer_bytes(setup, x.psi, x.tensors, x.model.has_shape, sym)
            oe = _optimizer_bytes(setup, x.psi_e, x.expert_tensors, x.model.has_shape, sym)[0] if x.psi_e else 0
        rows["optimizer_states"].append((label, ov, oe, of, os_, on))
        opt_note = on

    zero_applies = {"weights": stage >= 3, "gradients": stage >= 2, "master_weights": stage >= 1,
                    "optimizer_states": stage >= 1}
    zero_note: Note = EMPTY
    if stage:
        if N > 1 and setup.ep > 1 and m.is_moe:
            zero_note = _say("zero_ep", stage=stage, n=N, ne=N // setup.ep)
        else:
            zero_note = _say("zero_split", stage=stage, n=N) if N > 1 else _say("zero_one", stage=stage)
    par_note: Note = EMPTY
    if shard.mp > 1:
        par_note = _say("model_parallel", div=shard.mp)
    if setup.ep > 1 and m.is_moe:
        par_note = par_note + _say("expert_parallel", ep=setup.ep, per=m.experts // setup.ep, e=m.experts)

    def per_gpu(name: str) -> tuple[int | float, str, str, tuple[Term, ...]]:
        row = rows[name]
        if len(row) == 1 and not row[0][0]:
            v, f, s = shard.apply(row[0][1], row[0][2], row[0][3], row[0][4], zero_applies[name])
            return v, f, s, ()
        parts: list[Term] = []
        total: int | float = 0
        forms, subs = [], []
        for label, value, expert, formula, sub, _ in rows[name]:
            v, f, s = shard.apply(value, expert, formula, sub, zero_applies[name])
            total += v
            forms.append(f)
            subs.append(s)
            if label:
                parts.append(Term(name, v, f, s, label))
        return _clean(total), " + ".join(forms), " + ".join(subs), tuple(parts)

    g_note = _say("grads", bits=g * 8) + (_say("grads_16") if g == 2 else EMPTY)
    m_note = _say("master")
    term_values: dict[str, list] = {}
    for name in STATE_TERMS[:4]:
        if name == "master_weights" and not setup.mixed:
            continue
        term_values[name] = list(per_gpu(name))
    w_note = rows["weights"][0][5]
    if setup.rlhf:
        models = _say("actor_critic") if setup.method == "ppo" else _say("policy")
        w_note = w_note + _say("rlhf_trained", models=models)
    cpu_terms: list[Term] = []
    if setup.offload != "none":
        # ZeRO-Offload (revised section 3): the CPU holds the fp32 master copy, the optimizer states and an
        # fp32 gradient buffer of the partition (stages >= 1 divide it by N like the master copy); the GPU
        # keeps the 16-bit weights (/N with stage 3)
        buf_total: int | float = 0
        bf, bs = [], []
        for x in trained:
            sym = "Ψ_c" if x.label == "critic" else tsym
            v, f, s_ = shard.apply(4 * x.psi, 4 * x.psi_e, f"4·{sym}", f"4 × {_num(x.psi)}", stage >= 1)
            buf_total += v
            bf.append(f)
            bs.append(s_)
        cpu_terms = [_term("gradients", _clean(buf_total), " + ".join(bf), " + ".join(bs), _say("grads_cpu"))]
        if "master_weights" in term_values:
            mv, mf, ms, _ = term_values["master_weights"]
            cpu_terms.append(_term("master_weights", mv, mf, ms, _say("on_cpu", note=m_note)))
        ov_, of_, os2, _ = term_values["optimizer_states"]
        cpu_terms.append(_term("optimizer_states", ov_, of_, os2, _say("on_cpu", note=opt_note)))
        k = 4 + master + 2 * _state_dtype_bytes(setup)  # what the note quotes: the Adam figure
        notes.append(_say("offload", k=k))
        term_values["gradients"] = [0, "0", "0", ()]
        g_note = _say("grads_offloaded")
        if "master_weights" in term_values:
            term_values["master_weights"] = [0, "0", "0", ()]
            m_note = _say("offloaded")
        term_values["optimizer_states"] = [0, "0", "0", ()]
        opt_note = _say("offloaded")
        if setup.offload == "optimizer+params":
            wv, wf, ws, _ = term_values["weights"]
            cpu_terms.insert(0, _term("weights", wv, wf, ws, _say("weights_cpu")))
            term_values["weights"] = [w * m.block_params, f"{w}·Ψ_block", f"{w} × {_num(m.block_params)}", ()]
            w_note = _say("weights_param_offload")

    notes_by_term = {"weights": joined(w_note, zero_note, par_note) if (zero_note or par_note) else w_note, "gradients": g_note, "master_weights": m_note,
                     "optimizer_states": opt_note}
    terms: list[Term] = []
    for name in STATE_TERMS[:4]:
        if name not in term_values:
            continue
        value, formula, sub, parts = term_values[name]
        if name in adjust.zero:
            value, sub = 0, "0 (left out)"
        terms.append(_term(name, value, formula, sub, notes_by_term[name], parts))
    cpu_terms = [t for t in cpu_terms if t.name not in adjust.zero]

    # --- frozen models (RLHF) ---
    if setup.rlhf:
        wv, we = 2 * psi, 2 * (m.routed_expert_params if m.has_shape else 0)
        value, formula, sub = shard.apply(wv, we, "2·Ψ", f"2 × {_num(psi)}", stage >= 3)
        if "reference_weights" not in adjust.zero:
            terms.append(_term("reference_weights", value, formula, sub, _say("reference_weights", name=m.name)))
        if setup.method == "ppo":
            rm = setup.reward_model or setup.critic_model or m
            rp = critic_params(rm)
            value, formula, sub = shard.apply(2 * rp, 2 * (rm.routed_expert_params if rm.has_shape else 0),
                                              "2·Ψ_r", f"2 × {_num(rp)}", stage >= 3)
            if "reward_weights" not in adjust.zero:
                terms.append(_term("reward_weights", value, formula, sub, _say("reward_weights", name=rm.name)))

    # --- activations ---
    missing: tuple[str, ...] = ()
    if not m.has_shape:
        notes.append(_say("no_activations"))
    elif m.is_mla or (setup.method == "ppo" and setup.critic_model is not None and setup.critic_model.is_mla):
        notes.append(_say("mla_no_activations"))
        missing = ("activations",)
    elif setup.method == "ppo" and setup.critic_model is not None and not setup.critic_model.has_shape:
        notes.append(_say("no_activations"))
        missing = ("activations",)
    else:
        parts = activation_parts(setup)
        act = _clean(sum(p.total for p in parts))
        formula, sub = activation_formula(parts)
        if "activations" in adjust.zero:
            act, sub = 0, "0 (left out)"
        profile = _say("profile_ideal") if setup.impl == "ideal" else _say("profile_hf")
        if lora and m.style == "llama":
            dropout = _say("lora_dropout", p=f"{setup.lora_dropout:g}") if setup.lora_dropout else EMPTY
            a_note = _say("activations_lora", targets=setup.lora_targets, dropout=dropout, attention=setup.attention,
                          recompute=setup.recompute, profile=profile)
        else:
            a_note = _say("activations", attention=setup.attention, recompute=setup.recompute, profile=profile)
        if setup.tp > 1:
            a_note = a_note + _say("per_gpu_tp", t=setup.tp, sp=_say("with_sp") if setup.sp else EMPTY)
        if setup.pp > 1:
            a_note = a_note + _say("per_gpu_pp")
        terms.append(_term(
            "activations", act, formula, sub, a_note,
            tuple(Term("activations", p.total, p.formula + (f" ×{p.count}" if p.count > 1 else ""), p.substituted, p.name)
                  for p in parts),
        ))
        notes.append(_say("activation_terms", s=setup.seq, b=setup.batch, p=setup.activation_bytes, impl=setup.impl))
        if setup.impl == "hf" and setup.loss == "standard":
            notes.append(_say("hf_logits"))
        if setup.tp > 1:
            notes.append(_say("tp_activations", t=setup.tp,
                              rest=_say("tp_rest_sp") if setup.sp else _say("tp_rest_whole")))
        if setup.pp > 1:
            notes.append(_say("pp_activations", layers=math.ceil(m.layers / setup.pp), L=m.layers,
                              m=min(setup.pp, setup.microbatches)))

    # --- rollout KV cache (RLHF generation) ---
    if (setup.rollout_batch is not None and setup.method in ("ppo", "grpo") and m.has_shape
            and "rollout_kv_cache" not in adjust.zero):
        kv, kf, ks, kn = _kv_term(setup, setup.rollout_batch, "rollout_kv")
        terms.append(_term("rollout_kv_cache", kv, kf, ks, kn))
    if setup.overhead:
        terms.append(_term("overhead", setup.overhead, "overhead", _num(setup.overhead), _say("overhead")))

    # --- notes ---
    if not lora and adjust == NO_ADJUST and len(trained) == 1:
        opt_rows = rows["optimizer_states"][0]
        per = [w, g, master, (opt_rows[1] / trainable if trainable else 0)]
        name = {"adam": "Adam", "adamw": "Adam", "adamw-8bit": "8-bit Adam", "sgd": "SGD", "sgd-momentum": "momentum",
                "lion": "Lion", "adafactor": "Adafactor"}[setup.optimizer]
        pieces = [_say("piece_weights", n=_num(per[0])), _say("piece_grads", n=_num(per[1]))]
        pieces += [_say("piece_master", n=per[2])] if master else []
        pieces.append(_say("piece_optimizer", n=f"{per[3]:.4g}", name=name))
        plus = _say("plus")
        chain: list[Note] = [pieces[0]]
        for piece in pieces[1:]:
            chain += [plus, piece]
        notes.insert(0, _say("per_param", total=f"{sum(per):.4g}", pieces=joined(*chain)))
    elif lora:
        notes.insert(0, _say("lora", method=setup.method, n=_num(trainable), r=setup.lora_rank,
                             targets=setup.lora_targets))
        if m.style == "llama":
            notes.append(_say("lora_exact"))
            if setup.method == "qlora":
                notes.append(_say("qlora_untraced"))
        else:
            notes.append(_say("lora_activations"))
    notes.insert(1 if notes else 0, _say("peak"))
    if setup.method == "ppo":
        notes.append(_say("ppo"))
        critic = setup.critic_model or m
        if critic.has_shape:
            notes.append(_say("critic_shape", name=critic.name, params=_num(critic_params(critic))))
    elif setup.method == "dpo":
        notes.append(_say("dpo", n=2 * setup.batch))
    elif setup.method == "grpo":
        notes.append(_say("grpo", g=setup.group, n=setup.group * setup.batch))
    if m.is_moe:
        notes.append(_say("moe_counts", total=_num(psi), active=_num(m.active_params), k=m.top_k, e=m.experts))
    if setup.world_size > 1 and (setup.tp > 1 or setup.pp > 1):
        notes.append(_say("per_gpu", n=N, t=setup.tp, pp=setup.pp, world=setup.world_size))
    if setup.training and setup.gpu is not None and (setup.tp > 1 or setup.pp > 1 or setup.microbatches > 1):
        # what compute.step_time assumes (section 7 with section 14's bubble)
        v_m = setup.interleave * setup.microbatches
        bubble = f"{setup.pp - 1}/{v_m} = {(setup.pp - 1) / v_m:.1%}" if setup.pp > 1 else "0"
        notes.append(_say("step_time", m=setup.microbatches, split=setup.tp * setup.pp, bubble=bubble))
    if stage and N == 1:
        notes.append(_say("zero_n1", stage=stage))
    return _finish(setup, psi, trainable, terms, notes, cpu_terms, missing)


def _kv_term(setup: Setup, batch: int, key: str) -> tuple[int | float, str, str, Note]:
    """The KV cache of `batch` sequences of `seq` tokens, per GPU under tensor parallelism."""
    m = setup.model
    s = setup.seq
    per_token = kv_bytes_per_token(m, setup.kv_dtype)
    pkv = {"bf16": 2, "fp16": 2, "fp8": 1, "int8": 1, "int4": 0.5}[setup.kv_dtype]
    div = kv_divisor(m, setup.tp)
    kv = _clean(per_token * s * batch)
    if m.is_mla:
        w = m.kv_lora_rank + m.qk_rope_dim
        formula = "L·(r_kv + d_r)·s·b·p_kv"
        sub = f"{m.layers} × ({m.kv_lora_rank} + {m.qk_rope_dim}) × {_num(s)} × {batch} × {pkv}"
        n = _say("kv_mla", w=w, n=batch, s=s, dtype=setup.kv_dtype)
        if setup.tp > 1:
            n = n + _say("kv_mla_tp")
    else:
        L, akv, d = m.layers, m.kv_heads, m.head_dim
        formula = "2·L·a_kv·d·s·b·p_kv"
        sub = f"2 × {L} × {akv} × {d} × {_num(s)} × {batch} × {pkv}"
        gqa = _say("gqa", akv=akv, a=m.heads) if akv != m.heads else EMPTY
        n = _say(key, n=batch, s=s, dtype=setup.kv_dtype, gqa=gqa)
        if m.windowed:  # section 18: local layers cache at most W tokens
            kv = _clean(kv_bytes_per_sequence(m, setup.kv_dtype, s) * batch)
            formula = "2·a_kv·d·(L_local·min(s, W) + L_global·s)·b·p_kv"
            sub = (f"2 × {akv} × {d} × ({m.n_local} × {_num(min(s, m.window))} + {m.n_global} × {_num(s)})"
                   f" × {batch} × {pkv}")
            n = n + Note("kernel.note.kv_window", (("w", m.window), ("local", m.n_local), ("glob", m.n_global)))
        if div > 1:
            kv = _clean(_div(kv, div))
            formula, sub = f"({formula})/min(t, a_kv)", f"({sub}) / {div}"
            n = n + _say("kv_tp", div=div)
    return kv, formula, sub, n


def _inference(setup: Setup, adjust: Adjust) -> Breakdown:
    m = setup.model
    psi = m.params
    wb = setup_weights(setup)
    weights, formula, sub = wb.total, wb.formula, wb.substituted
    w_note = _format_note(setup, wb.fmt)
    if setup.tp > 1:
        weights = _clean(_div(weights, setup.tp))
        formula, sub = f"({formula})/t", f"({sub}) / {setup.tp}"
        w_note = w_note + _say("tp_weights", t=setup.tp)
    if "weights" in adjust.zero:
        weights = 0
    terms = [_term("weights", weights, formula, sub, w_note)]
    notes = [_say("inference"), _say("peak_inference")]
    if m.has_shape:
        kv, kf, ks, kn = _kv_term(setup, setup.batch, "kv_cache")
        if adjust.kv_divisor != 1:
            kv = _div(kv, adjust.kv_divisor)
        if "kv_cache" in adjust.zero:
            kv = 0
        terms.append(_term("kv_cache", kv, kf, ks, kn))
    else:
        notes.append(_say("no_kv"))
    if setup.overhead:
        terms.append(_term("overhead", setup.overhead, "overhead", _num(setup.overhead), _say("overhead")))
    if wb.fmt in GGUF:
        notes.append(_say("gguf_mixed"))
    if m.is_moe:
        notes.append(_say("moe_counts", total=_num(psi), active=_num(m.active_params), k=m.top_k, e=m.experts))
    return _finish(setup, psi, 0, terms, notes, [], ())


def _finish(setup, psi, trainable, terms, notes: list[Note], cpu_terms, missing) -> Breakdown:
    total = _clean(sum(t.bytes for t in terms))
    states = _clean(sum(t.bytes for t in terms if t.name in STATE_TERMS))
    cpu = _clean(sum(t.bytes for t in cpu_terms))
    if cpu_terms:
        notes.append(_say("cpu", names=", ".join(t.name for t in cpu_terms)))
    active = setup.model.active_params if setup.model.has_shape else psi
    return Breakdown(setup, psi, trainable, tuple(terms), total, states, cpu, tuple(notes), tuple(cpu_terms),
                     missing, active)
