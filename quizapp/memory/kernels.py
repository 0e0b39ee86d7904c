"""Kernel arithmetic (memory-model.md section 17): the roofline of one operation on one GPU.

A `Kernel` is one operation: a GEMM `(m x k) @ (k x n)` (a decode GEMV is m = tokens in the batch), an
elementwise chain, or the attention of one head over one sequence (standard or FlashAttention-2). Its
FLOPs and HBM bytes give the arithmetic intensity `I = FLOPs / bytes`; the GPU's ridge point
`peak / bandwidth` says which side bounds it, and `time = max(FLOPs / peak, bytes / (bandwidth ·
efficiency))` is a lower bound (real kernels reach 70-90 % of either). Every figure comes with its
formula in symbols, the same with numbers, and a note code (rendered by quizapp.words.kernels), so a
worked solution derives the asked quantity rather than showing a memory table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from quizapp.memory.derivation import Derivation, Step
from quizapp.memory.gpus import GPU
from quizapp.memory.notes import EMPTY, Note, note

KERNEL_KINDS = ("gemm", "elementwise", "attention")
# element bytes, and which of the preset's peaks the dtype runs at
DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1}
DTYPES = tuple(DTYPE_BYTES)
DEFAULT_BLOCK_ROWS = 128  # FlashAttention-2's B_r (the query-block rows of its outer loop)
LSE_BYTES = 4  # the fp32 log-sum-exp FlashAttention writes per query row
KERNEL_ASKS = ("kernel_flops", "kernel_bytes", "intensity", "ridge", "kernel_time", "fusion_saving")


class KernelError(ValueError):
    """A bad kernel input; `field` names the setup key (quizapp.memory.setup turns it into SetupError)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Kernel:
    """One operation. gemm: `shape` (m, n, k); elementwise: `elements` E and `chain` ((inputs, outputs)
    per op), `chain_inputs`/`chain_outputs` (what the fused kernel reads and writes), `fused` (which
    of the two `kernel_bytes` is); attention: `seq` N, `head_dim` d, `flash`, `block_rows` B_r, `causal`
    (FLOPs halved by the mask, section 19)."""

    kind: str
    dtype: str = "bf16"
    shape: tuple[int, int, int] | None = None
    elements: int = 0
    chain: tuple[tuple[int, int], ...] = ()
    chain_inputs: int = 1
    chain_outputs: int = 1
    fused: bool = True
    seq: int = 0
    head_dim: int = 0
    flash: bool = False
    block_rows: int = DEFAULT_BLOCK_ROWS
    causal: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KERNEL_KINDS:
            raise KernelError("kernel", f"expected {' | '.join(KERNEL_KINDS)}, got {self.kind!r}")
        if self.dtype not in DTYPE_BYTES:
            raise KernelError("dtype", f"expected {' | '.join(DTYPES)}, got {self.dtype!r}")
        if self.kind == "gemm":
            if self.shape is None or len(self.shape) != 3 or any(not _positive(x) for x in self.shape):
                raise KernelError("shape", f"a gemm needs shape [m, n, k] of positive integers, got {self.shape!r}")
        elif self.kind == "elementwise":
            if not _positive(self.elements):
                raise KernelError("elements", f"an elementwise chain needs elements E > 0, got {self.elements!r}")
            if not self.chain:
                raise KernelError("chain", "an elementwise chain needs chain [[inputs, outputs], ...], one pair per op")
            for pair in self.chain:
                if len(pair) != 2 or any(not _positive(x) for x in pair):
                    raise KernelError("chain", f"each op is [inputs, outputs] of positive integers, got {list(pair)!r}")
            for name in ("chain_inputs", "chain_outputs"):
                if not _positive(getattr(self, name)):
                    raise KernelError(name, f"expected a positive integer, got {getattr(self, name)!r}")
        else:
            for name in ("seq", "head_dim", "block_rows"):
                if not _positive(getattr(self, name)):
                    raise KernelError(name, f"attention needs {name} > 0, got {getattr(self, name)!r}")

    @property
    def p(self) -> int:
        return DTYPE_BYTES[self.dtype]


def _positive(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x > 0


# --- the formulas (pure arithmetic) ----------------------------------------------------------------
def gemm_flops(m: int, n: int, k: int) -> int:
    """2·m·n·k: one multiply and one add per (row, column, inner index)."""
    return 2 * m * n * k


def gemm_bytes(m: int, n: int, k: int, p: int) -> int:
    """p·(m·k + k·n + m·n): each operand read once, the output written once (the tiled ideal)."""
    return p * (m * k + k * n + m * n)


def elementwise_bytes(elements: int, chain: tuple[tuple[int, int], ...], p: int) -> int:
    """Unfused: every op reads its inputs from and writes its outputs to HBM, Σ (in + out)·E·p."""
    return sum(i + o for i, o in chain) * elements * p


def fused_bytes(elements: int, inputs: int, outputs: int, p: int) -> int:
    """Fused: the distinct inputs read once and the final outputs written once, (in + out)·E·p."""
    return (inputs + outputs) * elements * p


def attention_flops(seq: int, head_dim: int, causal: bool = False) -> int | float:
    """4·N²·d per head and sequence (QKᵀ and PV, 2·N²·d each); halved by the causal mask."""
    full = 4 * seq * seq * head_dim
    return full // 2 if causal else full


def attention_bytes_standard(seq: int, head_dim: int, p: int) -> int:
    """p·(4·N·d + 4·N²): Q, K, V read and O written; S written and read, P written and read."""
    return p * (4 * seq * head_dim + 4 * seq * seq)


def attention_bytes_flash(seq: int, head_dim: int, p: int, block_rows: int = DEFAULT_BLOCK_ROWS) -> int:
    """FlashAttention-2: Q read once, O written once, K and V once per query block of B_r rows,
    p·(2·N·d + 2·⌈N/B_r⌉·N·d), plus the fp32 log-sum-exp 4·N."""
    return p * (2 * seq * head_dim + 2 * math.ceil(seq / block_rows) * seq * head_dim) + LSE_BYTES * seq


def peak_flops(gpu: GPU, dtype: str) -> float:
    """FLOP/s of `gpu` for `dtype`: the dense 16-bit tensor peak (bf16/fp16), the fp8 tensor peak, or the
    FP32 (non-tensor) peak. A card without fp8 (or without a published FP32 rate) is refused."""
    if dtype == "fp8":
        if not gpu.fp8_tflops:
            raise KernelError("dtype", f"{gpu.name} has no fp8 tensor cores; expected bf16, fp16 or fp32")
        return gpu.fp8_tflops * 1e12
    if dtype == "fp32":
        if not gpu.fp32_tflops:
            raise KernelError("dtype", f"{gpu.name} has no FP32 rate in its preset; expected bf16 or fp16")
        return gpu.fp32_tflops * 1e12
    return gpu.bf16_tflops * 1e12


def ridge_point(gpu: GPU, dtype: str) -> float:
    """peak / bandwidth, FLOP per byte: below it a kernel is memory-bound (A100 bf16: 153.0)."""
    return peak_flops(gpu, dtype) / gpu.mem_bandwidth


# --- one kernel, derived step by step ---------------------------------------------------------------
_KINDS = {"kernel_flops": "flops", "kernel_bytes": "bytes", "unfused_bytes": "bytes", "fused_bytes": "bytes",
          "intensity": "number", "ridge": "number", "fusion_saving": "number", "kernel_time": "seconds"}


def _step(name: str, value: float, formula: str, substituted: str, code: Note) -> Step:
    return Step(name, value, _KINDS[name], formula, substituted, code)


@dataclass(frozen=True)
class KernelFigures:
    flops: float
    bytes: float
    intensity: float
    ridge: float | None  # None without a GPU
    time_s: float | None
    compute_s: float | None
    memory_s: float | None
    bound: str | None  # "compute" | "memory"
    steps: tuple[Step, ...]
    unfused_bytes: float | None = None  # elementwise only
    fused_bytes: float | None = None

    @property
    def fusion_saving(self) -> float | None:
        if self.unfused_bytes is None or not self.fused_bytes:
            return None
        return self.unfused_bytes / self.fused_bytes

    def value(self, ask: str) -> float | None:
        return {"kernel_flops": self.flops, "kernel_bytes": self.bytes, "intensity": self.intensity,
                "ridge": self.ridge, "kernel_time": self.time_s, "fusion_saving": self.fusion_saving}[ask]

    def as_dict(self) -> dict[str, object]:
        return {"flops": _plain(self.flops), "bytes": _plain(self.bytes), "intensity": self.intensity,
                "ridge": self.ridge, "time_s": self.time_s, "bound": self.bound}


def _plain(x: float) -> int | float:
    return int(x) if float(x).is_integer() and abs(x) < 2**62 else x


def _num(x: float) -> str:
    if float(x).is_integer() and abs(x) < 1e18:
        return f"{int(x):,}"
    return f"{x:,.4g}" if abs(x) >= 1 else f"{x:.4g}"


def _sci(x: float) -> str:
    return f"{x:.4g}"


def kernel_figures(kernel: Kernel, gpu: GPU | None = None, bandwidth_efficiency: float = 1.0,
                   naive_scores: bool = False) -> KernelFigures:
    """Every figure of `kernel` (on `gpu` when given), each with its derivation step.

    `naive_scores` reproduces a natural mistake: standard attention without the S/P round trip
    through HBM (bytes p·4·N·d only)."""
    k = kernel
    p = k.p
    steps: list[Step] = []
    unfused = fused = None
    if k.kind == "gemm":
        m, n, kk = k.shape  # type: ignore[misc]
        flops: float = gemm_flops(m, n, kk)
        nbytes: float = gemm_bytes(m, n, kk, p)
        steps.append(_step("kernel_flops", flops, "2·m·n·k", f"2 × {m:,} × {n:,} × {kk:,}",
                          note("kernel.note.gemm_flops", m=m, n=n, k=kk)))
        gemv = note("kernel.note.gemv", b=m) if m <= 64 else EMPTY
        steps.append(_step("kernel_bytes", nbytes, "p·(m·k + k·n + m·n)",
                          f"{p} × ({m:,}·{kk:,} + {kk:,}·{n:,} + {m:,}·{n:,})",
                          note("kernel.note.gemm_bytes", dtype=k.dtype, p=p) + gemv))
    elif k.kind == "elementwise":
        E = k.elements
        flops = 0
        unfused = elementwise_bytes(E, k.chain, p)
        fused = fused_bytes(E, k.chain_inputs, k.chain_outputs, p)
        pairs = " + ".join(f"({i} + {o})" for i, o in k.chain)
        steps.append(_step("unfused_bytes", unfused, "Σ(in + out)·E·p", f"({pairs}) × {E:,} × {p}",
                          note("kernel.note.unfused", ops=len(k.chain))))
        steps.append(_step("fused_bytes", fused, "(in_fused + out_fused)·E·p",
                          f"({k.chain_inputs} + {k.chain_outputs}) × {E:,} × {p}",
                          note("kernel.note.fused", inputs=k.chain_inputs, outputs=k.chain_outputs)))
        saving = unfused / fused
        steps.append(_step("fusion_saving", saving, "unfused / fused", f"{_num(unfused)} / {_num(fused)}",
                          note("kernel.note.fusion_saving")))
        nbytes = fused if k.fused else unfused
        steps.append(_step("kernel_bytes", nbytes, "fused" if k.fused else "unfused", _num(nbytes),
                          note("kernel.note.ew_bytes_fused" if k.fused else "kernel.note.ew_bytes_unfused")))
        steps.append(_step("kernel_flops", 0, "0", "0", note("kernel.note.ew_flops")))
    else:
        N, d = k.seq, k.head_dim
        flops = attention_flops(N, d, k.causal)
        formula = "4·N²·d / 2" if k.causal else "4·N²·d"
        sub = f"4 × {N:,}² × {d}" + (" / 2" if k.causal else "")
        steps.append(_step("kernel_flops", flops, formula, sub,
                          note("kernel.note.attn_flops_causal" if k.causal else "kernel.note.attn_flops")))
        if k.flash:
            B = k.block_rows
            nbytes = attention_bytes_flash(N, d, p, B)
            steps.append(_step("kernel_bytes", nbytes, "p·(2·N·d + 2·⌈N/B_r⌉·N·d) + 4·N",
                              f"{p} × (2·{N:,}·{d} + 2·{math.ceil(N / B)}·{N:,}·{d}) + 4·{N:,}",
                              note("kernel.note.attn_bytes_flash", b=B, dtype=k.dtype)
                              + note("kernel.note.attn_dao")))
        elif naive_scores:
            nbytes = p * 4 * N * d
            steps.append(_step("kernel_bytes", nbytes, "p·4·N·d", f"{p} × 4·{N:,}·{d}", note("kernel.note.attn_naive")))
        else:
            nbytes = attention_bytes_standard(N, d, p)
            steps.append(_step("kernel_bytes", nbytes, "p·(4·N·d + 4·N²)", f"{p} × (4·{N:,}·{d} + 4·{N:,}²)",
                              note("kernel.note.attn_bytes_standard", dtype=k.dtype) + note("kernel.note.attn_dao")))
    intensity = flops / nbytes if nbytes else 0.0
    steps.append(_step("intensity", intensity, "FLOPs / bytes", f"{_num(flops)} / {_num(nbytes)}",
                      note("kernel.note.intensity")))
    ridge = time_s = compute_s = memory_s = None
    bound = None
    if gpu is not None:
        peak = peak_flops(gpu, k.dtype)
        bw = gpu.mem_bandwidth
        ridge = peak / bw
        steps.append(_step("ridge", ridge, "peak / bandwidth", f"{_sci(peak)} / {_sci(bw)}",
                          note("kernel.note.ridge", gpu=gpu.name, dtype=k.dtype)))
        compute_s = flops / peak
        memory_s = nbytes / (bw * bandwidth_efficiency)
        time_s = max(compute_s, memory_s)
        bound = "compute" if compute_s > memory_s else "memory"
        if bandwidth_efficiency != 1:
            formula = "max(FLOPs / peak, bytes / (bandwidth·efficiency))"
            memory = f"{_num(nbytes)} / ({_sci(bw)} × {bandwidth_efficiency:g})"
        else:
            formula, memory = "max(FLOPs / peak, bytes / bandwidth)", f"{_num(nbytes)} / {_sci(bw)}"
        steps.append(_step("kernel_time", time_s, formula, f"max({_num(flops)} / {_sci(peak)}, {memory})",
                          note("kernel.note.time", bound=note(f"kernel.note.bound_{bound}"),
                               compute=f"{compute_s:.4g}", memory=f"{memory_s:.4g}")))
    return KernelFigures(flops, nbytes, intensity, ridge, time_s, compute_s, memory_s, bound, tuple(steps),
                         unfused, fused)


def setup_kernel_figures(setup, naive_scores: bool = False) -> KernelFigures:
    """The figures of a Setup's kernel, on its GPU (None: no time or ridge)."""
    if setup.kernel is None:
        raise KernelError("kernel", "expected a kernel: gemm | elementwise | attention")
    kernel = setup.kernel
    if kernel.kind == "attention" and (setup.attention_flops == "causal") != kernel.causal:
        from dataclasses import replace

        kernel = replace(kernel, causal=setup.attention_flops == "causal")
    return kernel_figures(kernel, setup.gpu, setup.bandwidth_efficiency, naive_scores)


# which steps a worked solution shows for each ask (the asked one last)
_SHOWN = {
    "kernel_flops": ("kernel_flops",),
    "kernel_bytes": ("unfused_bytes", "fused_bytes", "kernel_bytes"),
    "intensity": ("kernel_flops", "kernel_bytes", "intensity"),
    "ridge": ("ridge",),
    "kernel_time": ("kernel_flops", "kernel_bytes", "intensity", "ridge", "kernel_time"),
    "fusion_saving": ("unfused_bytes", "fused_bytes", "fusion_saving"),
}


def ridge_step(gpu: GPU, dtype: str) -> Step:
    peak = peak_flops(gpu, dtype)
    return _step("ridge", peak / gpu.mem_bandwidth, "peak / bandwidth", f"{_sci(peak)} / {_sci(gpu.mem_bandwidth)}",
                 note("kernel.note.ridge", gpu=gpu.name, dtype=dtype))


def derive_kernel(setup, ask: str, naive_scores: bool = False) -> Derivation:
    """How `ask` (one of KERNEL_ASKS) follows from the setup's kernel and GPU, the asked step last."""
    if ask == "ridge" and setup.kernel is None:
        if setup.gpu is None:
            raise KernelError("gpu", "the ridge point needs a GPU preset")
        return Derivation(ask, (ridge_step(setup.gpu, setup.dtype),), (note("kernel.note.roofline"),))
    figures = setup_kernel_figures(setup, naive_scores)
    by_name = {s.name: s for s in figures.steps}
    steps = tuple(by_name[n] for n in _SHOWN[ask] if n in by_name)
    notes: tuple[Note, ...] = (note("kernel.note.roofline"),)
    if setup.kernel.kind == "attention":
        notes += (note("kernel.note.dao_backward"),)
    return Derivation(ask, steps, notes)
