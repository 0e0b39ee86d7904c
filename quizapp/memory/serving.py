"""Serving figures (memory-model.md section 13): the paged KV budget, concurrency, the decode and
prefill rooflines and the critical batch.

The core is pure functions of explicit numbers (bytes, FLOP/s, counts), so each formula of the spec
is one small function a test can check against the spec's own numbers; `serving_figures(setup)` wires them
to a `Setup` through the helpers the breakdown side exposes (weight bytes by format, KV bytes per
token per GPU, active parameters). Every figure is a lower bound of time or an upper bound of
capacity: real kernels reach 70-90 % of the memory bandwidth (`bandwidth_efficiency` scales it),
and vLLM also loses the activation peak it profiles at start-up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

DEFAULT_KV_BLOCK = 16  # vLLM's block_size
DEFAULT_GPU_UTIL = 0.9  # vLLM's gpu_memory_utilization
DEFAULT_SERVING_OVERHEAD = 2**30  # spec section 13: 1 GiB reserved


# --- the paged KV cache ----------------------------------------------------------------------------
def kv_budget(capacity: float, weight_bytes_per_gpu: float, gpu_util: float = DEFAULT_GPU_UTIL,
              overhead: float = DEFAULT_SERVING_OVERHEAD) -> float:
    """Bytes one GPU gives the KV cache: u·capacity − W/t − overhead (may be negative: nothing fits)."""
    return gpu_util * capacity - weight_bytes_per_gpu - overhead


def blocks_for(tokens: int, block: int = DEFAULT_KV_BLOCK) -> int:
    """Blocks a sequence of `tokens` tokens holds: ⌈s/B⌉."""
    return -(-tokens // block)


def _largest_multiple(budget: float, unit: float) -> int:
    """The largest n >= 0 with n·unit <= budget, exact for the floats given (floor, then corrected)."""
    if unit <= 0:
        raise ValueError("a per-item size must be positive")
    if budget < unit:
        return 0
    n = math.floor(budget / unit)
    while n > 0 and n * unit > budget:
        n -= 1
    while (n + 1) * unit <= budget:
        n += 1
    return n


def kv_tokens(budget: float, kv_bytes_per_token: float, block: int = DEFAULT_KV_BLOCK) -> int:
    """vLLM's "GPU KV cache size: N tokens": ⌊budget / (B·kv)⌋·B."""
    return _largest_multiple(budget, block * kv_bytes_per_token) * block


def max_concurrency(budget: float, kv_bytes_per_token: float, context: int, block: int = DEFAULT_KV_BLOCK) -> int:
    """Sequences of `context` tokens that fit at once: ⌊budget / (⌈s/B⌉·B·kv)⌋."""
    return _largest_multiple(budget, blocks_for(context, block) * block * kv_bytes_per_token)


def max_context(budget: float, kv_bytes_per_token: float, concurrency: int, block: int = DEFAULT_KV_BLOCK) -> int:
    """The longest context (tokens, a whole number of blocks) that `concurrency` sequences can each hold."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    return _largest_multiple(budget, concurrency * block * kv_bytes_per_token) * block


# --- rooflines -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Roofline:
    """One step bounded by memory traffic or by arithmetic, whichever takes longer."""

    bytes: float  # read per GPU
    flops: float  # per GPU
    memory_s: float  # bytes / (bandwidth · efficiency)
    compute_s: float  # flops / (peak · utilisation)
    batch: int

    @property
    def step_s(self) -> float:
        return max(self.memory_s, self.compute_s)

    @property
    def bound(self) -> str:
        """"memory" or "compute": the side that sets the step time (memory on a tie)."""
        return "compute" if self.compute_s > self.memory_s else "memory"

    @property
    def tokens_per_s(self) -> float:
        """Aggregate decode rate: b / step."""
        return self.batch / self.step_s

    @property
    def per_seq_tokens_per_s(self) -> float:
        """Each sequence's rate: 1 / step (tpot = step)."""
        return 1 / self.step_s


def routed_weight_bytes(total_weight_bytes: float, expert_bytes: float, experts: int, moe_layers: int,
                        tokens_routed: int, top_k: int) -> float:
    """Weight bytes read in one pass: everything outside the routed experts plus min(E, n·k) routed
    experts per MoE block (an upper bound on the distinct experts `n` tokens hit). `expert_bytes` is
    one routed expert's bytes (3·h·f_e weights in the weight format)."""
    if not experts or not moe_layers:
        return total_weight_bytes
    hit = min(experts, tokens_routed * top_k)
    return total_weight_bytes - moe_layers * (experts - hit) * expert_bytes


def attention_flops_per_context_token(layers: int, heads: int, qk_dim: int, v_dim: int) -> int:
    """Forward attention FLOPs one new token spends per token of context: 2·L·a·(d_qk + d_v).

    = 4·L·a·d for ordinary attention (d_qk = d_v = d); MLA's non-absorbed count 2·L·a·(d_n + d_r + d_v)."""
    return 2 * layers * heads * (qk_dim + v_dim)


def decode_roofline(*, weight_read_bytes: float, kv_bytes_per_token: float, batch: int, context: int,
                    active_params: int, attention_flops_per_token: float, tp: int, peak_flops: float,
                    bandwidth: float, bandwidth_efficiency: float = 1.0) -> Roofline:
    """One decode step: one new token for each of `batch` sequences at context `context`.

    bytes per GPU W/t + b·s·kv (kv: per token per GPU); FLOPs per GPU b·(2·N_active + attn·s)/t;
    time max(bytes / (bandwidth·efficiency), FLOPs / peak) (decode kernels are not MFU-limited)."""
    read = weight_read_bytes / tp + batch * context * kv_bytes_per_token
    flops = batch * (2 * active_params + attention_flops_per_token * context) / tp
    return Roofline(read, flops, read / (bandwidth * bandwidth_efficiency), flops / peak_flops, batch)


def prefill_roofline(*, weight_read_bytes: float, batch: int, prompt: int, active_params: int,
                     attention_flops_per_token: float, tp: int, peak_flops: float, mfu: float,
                     bandwidth: float, bandwidth_efficiency: float = 1.0) -> Roofline:
    """Prefill of `batch` prompts of `prompt` tokens: FLOPs b·s·(2·N_active + attn·s)/t (PaLM's count,
    no causal halving), time max(FLOPs / (peak·mfu), W/(t·bandwidth·efficiency)); ttft = its step_s."""
    read = weight_read_bytes / tp
    flops = batch * prompt * (2 * active_params + attention_flops_per_token * prompt) / tp
    return Roofline(read, flops, read / (bandwidth * bandwidth_efficiency), flops / (peak_flops * mfu), batch)


def critical_batch(*, peak_flops: float, bandwidth: float, weight_bytes: float, active_params: int,
                   tp: int = 1, bandwidth_efficiency: float = 1.0) -> int:
    """The decode batch at which compute time reaches weight-read time, the KV cache ignored:
    ⌈peak·(W/t) / (bandwidth·2·N_active/t)⌉ (dense 16-bit: ⌈peak / bandwidth⌉). Exact rational
    arithmetic, so 312e12 / 2.039e12 = 153.01... is 154 and an exact ratio is not rounded up."""
    num = Fraction(peak_flops) * Fraction(weight_bytes) / tp
    den = Fraction(bandwidth) * Fraction(bandwidth_efficiency) * 2 * active_params / tp
    return math.ceil(num / den)


# --- wired to a Setup ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Serving:
    """Every serving figure of an inference setup; the GPU-dependent ones are None without a GPU."""

    kv_bytes_per_token: float  # per GPU
    weight_bytes: float  # the whole model in its format (all GPUs together)
    weight_bytes_per_gpu: float  # W/t
    active_params: int
    budget: float | None = None
    kv_tokens: int | None = None
    max_concurrency: int | None = None
    decode: Roofline | None = None
    prefill: Roofline | None = None
    critical_batch: int | None = None


def _setup_error(field: str, message: str):
    from quizapp.memory.setup import SetupError

    return SetupError(field, message)


def check_serving(setup) -> None:
    """SetupError unless `setup` is a shaped inference setup (what every serving figure needs)."""
    if setup.training:
        raise _setup_error("method", "serving figures are inference quantities; expected method inference")
    if not setup.model.has_shape:
        raise _setup_error("model", "serving figures need a shape (a preset or layers/hidden/heads), not a bare count")


def attention_flops(setup) -> int:
    """Forward attention FLOPs per context token: section 13's 4·L·a·d, or MLA's 2·L·a·(d_n + d_r + d_v)
    (compute.attention_flops_per_token at s = 1)."""
    from quizapp.memory.compute import attention_flops_per_token

    return attention_flops_per_token(setup.model, 1)


def peak_flops(setup, gpu=None) -> float:
    """FLOP/s of the GPU: the dense bf16 peak, or the preset's fp8 peak with compute fp8."""
    from quizapp.memory.compute import peak_tflops

    return peak_tflops(setup, gpu) * 1e12


def budget_of(setup) -> float:
    """The KV budget per GPU of an inference setup on its GPU (overhead = reserve + overhead)."""
    from quizapp.memory import formats

    if setup.gpu is None:
        raise _setup_error("gpu", "the KV budget needs a GPU preset")
    return kv_budget(setup.gpu.capacity, formats.weights_per_gpu(setup), setup.gpu_util,
                     setup.reserve + setup.overhead)


def serving_figures(setup) -> Serving:
    """The paged KV budget, kv_tokens, max_concurrency at `seq`, the decode step of `batch` sequences
    at context `seq`, the prefill of `batch` prompts of `prompt` tokens, and the critical batch."""
    from quizapp.memory import formats

    check_serving(setup)
    m = setup.model
    kv = formats.kv_bytes_per_token_per_gpu(setup)
    stored = formats.setup_weights(setup)
    w = stored.total
    t = setup.tp
    n_active = m.active_params
    base = Serving(kv, w, w / t, n_active)
    gpu = setup.gpu
    if gpu is None:
        return base
    budget = kv_budget(gpu.capacity, w / t, setup.gpu_util, setup.reserve + setup.overhead)
    peak = peak_flops(setup, gpu)
    eff = setup.bandwidth_efficiency
    one_expert = stored.per_expert
    attn = attention_flops(setup)
    from quizapp.memory.compute import attention_share

    # A decode step attends to the whole context whatever the mask; the causal convention halves prefill.
    decode_attn = 0 if setup.attention_flops == "none" else attn
    prefill_attn = attn * attention_share(setup)
    if m.windowed:  # section 18: per context token on average, Σ_l min(s, W_l)·4·a·d / s
        from quizapp.memory.compute import attention_flops_per_token

        decode_attn = 0 if setup.attention_flops == "none" else attention_flops_per_token(m, setup.seq) / setup.seq
        prefill_attn = (attention_flops_per_token(m, setup.prompt_tokens) / setup.prompt_tokens
                        * attention_share(setup))
    decode_w = routed_weight_bytes(w, one_expert, m.experts, m.moe_layers, setup.batch, m.top_k)
    prefill_w = routed_weight_bytes(w, one_expert, m.experts, m.moe_layers, setup.batch * setup.prompt_tokens,
                                    m.top_k)
    decode = decode_roofline(weight_read_bytes=decode_w, kv_bytes_per_token=kv, batch=setup.batch,
                             context=setup.seq, active_params=n_active, attention_flops_per_token=decode_attn, tp=t,
                             peak_flops=peak, bandwidth=gpu.mem_bandwidth, bandwidth_efficiency=eff)
    prefill = prefill_roofline(weight_read_bytes=prefill_w, batch=setup.batch, prompt=setup.prompt_tokens,
                               active_params=n_active, attention_flops_per_token=prefill_attn, tp=t, peak_flops=peak,
                               mfu=setup.mfu, bandwidth=gpu.mem_bandwidth, bandwidth_efficiency=eff)
    critical = critical_batch(peak_flops=peak, bandwidth=gpu.mem_bandwidth, weight_bytes=w, active_params=n_active,
                              tp=t, bandwidth_efficiency=eff)
    return Serving(kv, w, w / t, n_active, budget, kv_tokens(budget, kv, setup.kv_block),
                   max_concurrency(budget, kv, setup.seq, setup.kv_block), decode, prefill, critical)
