"""The memory breakdown: ordered terms with formula, numbers and assumption (spec sections 3, 4, 6, 10).

Peak = sum of the terms (the standard estimate of the ZeRO paper and Transformer Math 101). Every
term carries its formula in symbols and with numbers so a worked solution can be printed from it.
Notes come in English and Chinese (`note`/`note_zh`, `notes`/`notes_zh`), both filled from one table
of (en, zh) templates, `_TEXT`, so the two languages always say the same thing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

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
    note_zh: str = ""  # the note in Chinese (technical terms stay English); "" = same as `note`

    def __post_init__(self) -> None:
        if not self.note_zh:
            object.__setattr__(self, "note_zh", self.note)


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
    notes_zh: tuple[str, ...] = ()  # `notes` in Chinese, line for line; () = same as `notes`

    def __post_init__(self) -> None:
        if not self.notes_zh:
            object.__setattr__(self, "notes_zh", self.notes)

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


# Every note, as (English, Chinese) templates filled with the same str.format arguments.
_TEXT: dict[str, tuple[str, str]] = {
    # term notes
    "weights": ("{dtype} weights: {w} bytes/param", "{dtype} 权重：每参数 {w} 字节"),
    "weights_lora": ("frozen base in {dtype} (weights only) + LoRA adapters",
                     "冻结的基座为 {dtype}（只有权重）+ LoRA adapter"),
    "weights_qlora": ("NF4 block linears ({bits}); embeddings, head and norms 16-bit; LoRA adapters",
                      "block 内线性层为 NF4（{bits}）；embedding、输出头和 norm 为 16-bit；外加 LoRA adapter"),
    "nf4_dq": ("4.127 bits, double quantization", "4.127 bits，双重量化"),
    "nf4": ("4.5 bits, fp32 absmax per 64", "4.5 bits，每 64 个值一个 fp32 absmax"),
    "zero_split": ("; ZeRO-{stage} over N = {n}", "；ZeRO-{stage}，在 N = {n} 张卡间切分"),
    "zero_one": ("; ZeRO-{stage} with N = 1 partitions nothing", "；ZeRO-{stage} 在 N = 1 时什么也不切分"),
    "grads": ("{bits}-bit gradients", "{bits}-bit 梯度"),
    "grads_16": (" (Megatron, DeepSpeed and HF keep fp32 gradients: grads 32)",
                 "（Megatron、DeepSpeed 和 HF 保留 fp32 梯度：grads 32）"),
    "master": ("fp32 master copy of the weights (mixed precision)", "权重的 fp32 主副本（混合精度）"),
    "adam": ("Adam m and v in {dtype}: {k} bytes/param", "Adam 的 m 和 v 为 {dtype}：每参数 {k} 字节"),
    "sgd": ("plain SGD keeps no optimizer state", "普通 SGD 没有优化器状态"),
    "momentum": ("one momentum buffer in {dtype}: {k} bytes/param", "一个 {dtype} 动量缓冲：每参数 {k} 字节"),
    "adafactor": ("Adafactor: factored second moment, no first moment (beta1 = None)",
                  "Adafactor：二阶矩分解存储，没有一阶矩（beta1 = None）"),
    "adam8_bare": ("8-bit AdamW, block 256 with fp32 absmax; small tensors' 32-bit states not counted (no shape)",
                   "8-bit AdamW：块大小 256，每块一个 fp32 absmax；没有形状，小张量的 32-bit 状态未计入"),
    "adam8": ("bitsandbytes 8-bit AdamW: block 256, fp32 absmax per block per state; tensors < 4096 stay 32-bit",
              "bitsandbytes 8-bit AdamW：块大小 256，每个状态每块一个 fp32 absmax；少于 4096 个元素的张量保持 32-bit"),
    "adjusted": ("adjusted", "已调整"),
    "on_cpu": ("{note}, on CPU", "{note}，在 CPU 上"),
    "grads_streamed": ("streamed to CPU as they are produced (ZeRO-Offload)", "一产生就流式传到 CPU（ZeRO-Offload）"),
    "weights_cpu": ("16-bit weights partition on CPU", "16-bit 权重分片在 CPU 上"),
    "grads_offloaded": ("offloaded: gradients are streamed to CPU memory", "已 offload：梯度流式传到 CPU 内存"),
    "offloaded": ("offloaded to CPU memory", "已 offload 到 CPU 内存"),
    "weights_param_offload": ("parameter offload: the GPU holds roughly the largest block's weights",
                              "参数 offload：GPU 上大约只留最大一个 block 的权重"),
    "activations": ("memory-model §5 term list, {attention} attention, recompute {recompute}, profile {profile}",
                    "memory-model §5 项列表，{attention} attention，重计算 {recompute}，实现配置 {profile}"),
    "profile_ideal": ("ideal (fused kernels, 1-byte masks)", "ideal（融合算子，1 字节 mask）"),
    "profile_hf": ("hf (Hugging Face eager code)", "hf（Hugging Face eager 代码）"),
    "overhead": ("CUDA context and allocator slack, as given", "CUDA context 与分配器余量（按给定值）"),
    "inf_16": ("16-bit weights: 2 bytes/param", "16-bit 权重：每参数 2 字节"),
    "inf_int8": ("int8 weights: 1 byte/param (scales not counted)", "int8 权重：每参数 1 字节（未计 scale）"),
    "inf_4bit": ("{dtype}: 0.5 byte + block constants ({bits})", "{dtype}：每参数 0.5 字节 + 块常数（{bits}）"),
    "nf4_dq_inf": ("double quantization, 4.127 bits", "双重量化，4.127 bits"),
    "nf4_inf": ("fp32 absmax per 64, 4.5 bits", "每 64 个值一个 fp32 absmax，4.5 bits"),
    "all_params": ("{note}; all parameters at this width", "{note}；所有参数都按这个宽度"),
    "kv_cache": ("K and V for {b} sequence(s) of {s} tokens in {dtype}{gqa}",
                 "{b} 条序列、每条 {s} 个 token 的 K 和 V，{dtype}{gqa}"),
    "gqa": ("; GQA: a_kv = {akv} of a = {a} heads", "；GQA：a = {a} 个头中 a_kv = {akv}"),
    # breakdown notes
    "offload": ("offload: the optimizer step runs on the CPU; the GPU keeps the 16-bit weights",
                "offload：优化器步骤在 CPU 上运行；GPU 上保留 16-bit 权重"),
    "activation_terms": (
        "activations: the §5 term list (T = s·b = {s}·{b}, p = {p}), profile {impl}; not Korthikanti's GPT "
        "closed form s·b·h·(34 + 5as/h), which assumes GPT with dropout and eager attention",
        "激活：按 §5 项列表计算（T = s·b = {s}·{b}，p = {p}），实现配置 {impl}；不用 Korthikanti 的 GPT 闭式 "
        "s·b·h·(34 + 5as/h)，它假设 GPT、带 dropout、eager attention",
    ),
    "hf_logits": ("hf: at the loss, the fp32 logits' backward briefly holds 8·T·V more (a transient, not counted)",
                  "hf：在 loss 处，fp32 logits 的反向会短暂多占 8·T·V（瞬时，未计入）"),
    "no_activations": ("activations not counted: a bare parameter count has no shape (give a preset or layers/hidden/heads)",
                       "未计激活：只有参数量就没有形状（请给出预设或 layers/hidden/heads）"),
    "per_param": ("{total} bytes/param: {pieces} (before ZeRO/offload)", "每参数 {total} 字节：{pieces}（ZeRO/offload 之前）"),
    "piece_weights": ("{n} weights", "{n} 权重"),
    "piece_grads": ("{n} grads", "{n} 梯度"),
    "piece_master": ("{n} master", "{n} 主权重"),
    "piece_optimizer": ("{n} {name}", "{n} {name}"),
    "lora": ("{method}: frozen base weights only; {n} trainable LoRA parameters (rank {r}, {targets}) charged like "
             "full fine-tuning",
             "{method}：基座冻结，只计权重；{n} 个可训练的 LoRA 参数（rank {r}，{targets}）按全量微调计"),
    "lora_activations": ("LoRA activations charged as in full fine-tuning: an upper bound (frozen linears need not keep inputs)",
                         "LoRA 的激活按全量微调计：这是上界（冻结的线性层不必保存输入）"),
    "peak": ("peak = sum of terms, the standard estimate (ZeRO paper, Transformer Math 101); the real peak is "
             "slightly lower (activations freed as gradients appear) or higher (optimizer temporaries, fragmentation)",
             "峰值 = 各项之和，标准估算（ZeRO 论文、Transformer Math 101）；实际峰值略低（梯度产生时激活已释放）"
             "或略高（优化器临时张量、显存碎片）"),
    "zero_n1": ("ZeRO-{stage} with N = 1: nothing to partition across, so it saves nothing",
                "ZeRO-{stage} 在 N = 1 时：没有可以切分的对象，所以一点显存也不省"),
    "inference": ("inference: weights + KV cache; transient activations of one forward pass are not counted",
                  "推理：权重 + KV cache；一次前向的瞬时激活未计入"),
    "peak_inference": ("peak = sum of terms, the standard estimate; the real peak is higher by the forward pass's "
                       "transient activations and allocator slack",
                       "峰值 = 各项之和，标准估算；实际峰值还要加上前向的瞬时激活和分配器余量"),
    "no_kv": ("KV cache not counted: a bare parameter count has no shape (give a preset or layers/heads)",
              "未计 KV cache：只有参数量就没有形状（请给出预设或 layers/heads）"),
    "cpu": ("cpu: {names} in host memory, per rank", "cpu：{names} 在主机内存中，每个 rank"),
}


class Said(tuple):
    """One note in both languages: (en, zh). `+` joins two notes language by language."""

    def __new__(cls, en: str, zh: str) -> "Said":
        return super().__new__(cls, (en, zh))

    @property
    def en(self) -> str:
        return self[0]

    @property
    def zh(self) -> str:
        return self[1]

    def __add__(self, other: "Said") -> "Said":  # type: ignore[override]
        return Said(self[0] + other[0], self[1] + other[1])


@lru_cache(maxsize=1024)  # a pure function of hashable arguments; solves ask for the same notes many times
def _say(key: str, **args: object) -> Said:
    """The note `key` in English and Chinese; a Said argument is filled language by language."""
    en, zh = _TEXT[key]
    return Said(
        en.format(**{k: v.en if isinstance(v, Said) else v for k, v in args.items()}),
        zh.format(**{k: v.zh if isinstance(v, Said) else v for k, v in args.items()}),
    )


def _term(name: str, value, formula: str, substituted: str, note: Said, parts: tuple[Term, ...] = ()) -> Term:
    return Term(name, value, formula, substituted, note.en, parts, note.zh)


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


def _optimizer_bytes(setup: Setup, trainable: int) -> tuple[int | float, str, str, Said]:
    """(bytes, formula, substituted, note) for the optimizer states of all trainable parameters."""
    opt, sd = setup.optimizer, _state_dtype_bytes(setup)
    dtype = "bf16" if sd == 2 else "fp32"
    if opt in ("adam", "adamw"):
        k = 2 * sd
        return k * trainable, f"{k}·Ψ", f"{k} × {_num(trainable)}", _say("adam", dtype=dtype, k=k)
    if opt == "sgd":
        return 0, "0", "0", _say("sgd")
    if opt in ("sgd-momentum", "lion"):
        return sd * trainable, f"{sd}·Ψ", f"{sd} × {_num(trainable)}", _say("momentum", dtype=dtype, k=sd)
    if opt == "adafactor":
        tensors = _trainable_tensors(setup)
        total = sum(sd * ((rows + cols) if cols else rows) * n for rows, cols, n in tensors)
        return (total, f"Σ_matrices {sd}·(rows + cols) + Σ_vectors {sd}·n", f"{_num(total)} over {len(tensors)} tensor shapes",
                _say("adafactor"))
    # adamw-8bit (bitsandbytes): 2 bytes/param + fp32 absmax per 256-value block per state;
    # tensors under 4096 elements stay 32-bit (halved in pure bf16).
    if not setup.model.has_shape:
        total = 2 * trainable + (trainable // 32 if trainable % 32 == 0 else trainable / 32)  # 8/256 = 1/32
        return (total, "(2 + 8/256)·Ψ", f"2.03125 × {_num(trainable)}",
                _say("adam8_bare"))
    total = 0
    for rows, cols, n in _trainable_tensors(setup):
        size = rows * (cols or 1)
        total += n * ((2 * size + 8 * math.ceil(size / 256)) if size >= 4096 else 2 * sd * size)
    return (total, "Σ_{n≥4096} (2·n + 8·⌈n/256⌉) + Σ_{n<4096} " + f"{2 * sd}·n", f"{_num(total)} summed per tensor",
            _say("adam8"))


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
    notes: list[Said] = []

    # --- weights ---
    if full:
        weights: int | float = w * psi
        w_formula, w_sub = f"{w}·Ψ", f"{w} × {_num(psi)}"
        w_note = _say("weights", dtype="fp32" if w == 4 else "16-bit", w=w)
    elif setup.method == "lora":
        weights = w * psi + w * trainable
        w_formula, w_sub = f"{w}·Ψ_base + {w}·Ψ_LoRA", f"{w} × {_num(psi)} + {w} × {_num(trainable)}"
        w_note = _say("weights_lora", dtype="fp32" if w == 4 else "16-bit")
    else:
        lin = m.layers * m.block_linear_params
        q = NF4_DQ_BYTES if setup.double_quant else NF4_BYTES
        weights = q * lin + w * (psi - lin) + w * trainable
        bits = _say("nf4_dq") if setup.double_quant else _say("nf4")
        w_formula = "b_NF4·Ψ_linear + 2·(Ψ − Ψ_linear) + 2·Ψ_LoRA" if w == 2 else f"b_NF4·Ψ_linear + {w}·(Ψ − Ψ_linear) + {w}·Ψ_LoRA"
        w_sub = f"{q!r} × {_num(lin)} + {w} × {_num(psi - lin)} + {w} × {_num(trainable)}"
        w_note = _say("weights_qlora", bits=bits)
    grads = g * trainable
    masters = master * trainable
    if adjust.state_bytes is not None:
        states: int | float = adjust.state_bytes * trainable
        o_formula, o_sub, o_note = f"{adjust.state_bytes:g}·Ψ", f"{adjust.state_bytes:g} × {_num(trainable)}", _say("adjusted")
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

    zero_note = Said("", "")
    if stage:
        zero_note = _say("zero_split", stage=stage, n=N) if N > 1 else _say("zero_one", stage=stage)
    cpu_terms: list[Term] = []
    weights_gpu, wf, ws = part(weights, w_formula, w_sub, stage >= 3)
    grads_gpu, gf, gs = part(grads, f"{g}·{tsym}", f"{g} × {_num(trainable)}", stage >= 2)
    master_gpu, mf, ms = part(masters, f"{master}·{tsym}", f"{master} × {_num(trainable)}", stage >= 1)
    states_gpu, of, os_ = part(states, o_formula, o_sub, stage >= 1)
    g_note = _say("grads", bits=g * 8) + (_say("grads_16") if g == 2 else Said("", ""))
    m_note = _say("master")
    if setup.offload != "none":
        cpu_terms = [
            _term("gradients", grads_gpu, gf, gs, _say("grads_streamed")),
            _term("master_weights", master_gpu, mf, ms, _say("on_cpu", note=m_note)),
            _term("optimizer_states", states_gpu, of, os_, _say("on_cpu", note=o_note)),
        ]
        notes.append(_say("offload"))
        grads_gpu, gf, gs, g_note = 0, "0", "0", _say("grads_offloaded")
        master_gpu, mf, ms, m_note = 0, "0", "0", _say("offloaded")
        states_gpu, of, os_, o_note = 0, "0", "0", _say("offloaded")
        if setup.offload == "optimizer+params":
            cpu_terms.insert(0, _term("weights", weights_gpu, wf, ws, _say("weights_cpu")))
            weights_gpu = w * m.block_params
            wf, ws = f"{w}·Ψ_block", f"{w} × {_num(m.block_params)}"
            w_note = _say("weights_param_offload")

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
        terms.append(_term(name, value, formula, sub, note))
    cpu_terms = [t for t in cpu_terms if t.name not in adjust.zero]

    # --- activations ---
    if m.has_shape:
        parts = activation_parts(setup)
        act = sum(p.total for p in parts)
        formula, sub = activation_formula(parts)
        if "activations" in adjust.zero:
            act, sub = 0, "0 (left out)"
        profile = _say("profile_ideal") if setup.impl == "ideal" else _say("profile_hf")
        terms.append(_term(
            "activations", act, formula, sub,
            _say("activations", attention=setup.attention, recompute=setup.recompute, profile=profile),
            tuple(Term("activations", p.total, p.formula + (" ×L" if p.count > 1 else ""), p.substituted, p.name) for p in parts),
        ))
        notes.append(_say("activation_terms", s=setup.seq, b=setup.batch, p=setup.activation_bytes, impl=setup.impl))
        if setup.impl == "hf" and setup.loss == "standard":
            notes.append(_say("hf_logits"))
    else:
        notes.append(_say("no_activations"))
    if setup.overhead:
        terms.append(_term("overhead", setup.overhead, "overhead", _num(setup.overhead), _say("overhead")))

    # --- notes ---
    per = [w if full else 0, g, master, (states / trainable if trainable else 0)]
    if full and adjust == NO_ADJUST:
        name = {"adam": "Adam", "adamw": "Adam", "adamw-8bit": "8-bit Adam", "sgd": "SGD", "sgd-momentum": "momentum",
                "lion": "Lion", "adafactor": "Adafactor"}[setup.optimizer]
        pieces = [_say("piece_weights", n=_num(per[0])), _say("piece_grads", n=_num(per[1]))]
        pieces += [_say("piece_master", n=per[2])] if master else []
        pieces.append(_say("piece_optimizer", n=f"{per[3]:.4g}", name=name))
        joined = Said(" + ".join(p.en for p in pieces), " + ".join(p.zh for p in pieces))
        notes.insert(0, _say("per_param", total=f"{sum(per):.4g}", pieces=joined))
    elif not full:
        notes.insert(0, _say("lora", method=setup.method, n=_num(trainable), r=setup.lora_rank,
                             targets=setup.lora_targets))
        notes.append(_say("lora_activations"))
    notes.insert(1, _say("peak"))
    if stage and N == 1:
        notes.append(_say("zero_n1", stage=stage))
    return _finish(setup, psi, trainable, terms, notes, cpu_terms)


def _inference(setup: Setup, adjust: Adjust) -> Breakdown:
    m = setup.model
    psi = m.params
    wd = setup.weights_dtype
    if wd == "16-bit":
        per: float | int = 2
        note = _say("inf_16")
    elif wd == "int8":
        per, note = 1, _say("inf_int8")
    else:
        per = NF4_DQ_BYTES if setup.double_quant else NF4_BYTES
        note = _say("inf_4bit", dtype=wd, bits=_say("nf4_dq_inf") if setup.double_quant else _say("nf4_inf"))
    weights = per * psi
    terms = [_term("weights", weights if "weights" not in adjust.zero else 0, f"{per!r}·Ψ" if not isinstance(per, int) else f"{per}·Ψ",
                   f"{per!r} × {_num(psi)}", _say("all_params", note=note))]
    notes = [_say("inference"), _say("peak_inference")]
    if m.has_shape:
        pkv = {"16-bit": 2, "fp8": 1, "int8": 1, "int4": 0.5}[setup.kv_dtype]
        L, akv, d, s, b = m.layers, m.kv_heads, m.head_dim, setup.seq, setup.batch
        kv = 2 * L * akv * d * s * b * pkv
        kv = int(kv) if float(kv).is_integer() else kv
        if adjust.kv_divisor != 1:
            kv = _div(kv, adjust.kv_divisor)
        if "kv_cache" in adjust.zero:
            kv = 0
        gqa = _say("gqa", akv=akv, a=m.heads) if akv != m.heads else Said("", "")
        terms.append(_term("kv_cache", kv, "2·L·a_kv·d·s·b·p_kv", f"2 × {L} × {akv} × {d} × {_num(s)} × {b} × {pkv}",
                           _say("kv_cache", b=b, s=s, dtype=setup.kv_dtype, gqa=gqa)))
    else:
        notes.append(_say("no_kv"))
    if setup.overhead:
        terms.append(_term("overhead", setup.overhead, "overhead", _num(setup.overhead), _say("overhead")))
    return _finish(setup, psi, 0, terms, notes, [])


def _finish(setup, psi, trainable, terms, notes: list[Said], cpu_terms) -> Breakdown:
    total = sum(t.bytes for t in terms)
    states = sum(t.bytes for t in terms if t.name in STATE_TERMS)
    cpu = sum(t.bytes for t in cpu_terms)
    if cpu_terms:
        notes.append(_say("cpu", names=", ".join(t.name for t in cpu_terms)))
    return Breakdown(setup, psi, trainable, tuple(terms), total, states, cpu, tuple(n.en for n in notes),
                     tuple(cpu_terms), tuple(n.zh for n in notes))
