"""FLOPs per token, HFU and MFU, and step time (memory-model.md sections 7, 11 and 16).

`N` is the active parameter count (MoE: k of E routed experts), the attention term uses a·d (the
explicit head size) or, for MLA, a·(d_n + d_r + d_v). The utilization setting (`mfu`) is strictly the
hardware FLOPs utilization: the share of the peak reached on the FLOPs executed, recomputation
included. The MFU counts only the model's FLOPs, so under full recomputation it is lower (PaLM's and
Megatron's distinction): 0.4 HFU is 0.3 MFU.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from quizapp.memory.breakdown import lora_params
from quizapp.memory.comm import bubble
from quizapp.memory.gpus import GPU
from quizapp.memory.models import ModelSpec
from quizapp.memory.setup import Setup, SetupError


def attention_flops_per_token(model: ModelSpec, seq: int) -> int:
    """Forward attention FLOPs per token at context `seq`: 4·L·a·d·s (QKᵀ and AV, 2·d each per head);
    MLA 2·L·a·(d_n + d_r + d_v)·s, the non-absorbed count. 0 for a bare parameter count."""
    if not model.has_shape:
        return 0
    if model.is_mla:
        return 2 * model.layers * model.heads * (model.qk_nope_dim + model.qk_rope_dim + model.v_head_dim) * seq
    # section 18: a local layer attends to at most W tokens, Σ_l min(s, W_l) = L·s without a window
    return 4 * model.heads * model.head_dim * model.cached_tokens(seq)


def attention_share(setup: Setup) -> float:
    """What share of PaLM's full attention count a setup counts (section 19): 1, 0.5 causal, 0 for 6N."""
    return {"full": 1.0, "causal": 0.5, "none": 0.0}[setup.attention_flops]


def flops_per_token(setup: Setup) -> float:
    """Executed FLOPs per token. Training: 6·N + 12·L·a·d·s (PaLM appendix B; 12·L·h·s when a·d = h),
    + 2·N + 4·L·a·d·s with full recomputation (one more forward). Inference: one forward pass,
    2·N + 4·L·a·d·s. N is the active parameter count; a bare count has no attention term."""
    m = setup.model
    n = m.active_params if m.has_shape else m.params
    attention = attention_flops_per_token(m, setup.seq) * attention_share(setup)
    if not setup.training:
        return float(2 * n + attention)
    flops = 6 * n + 3 * attention
    if setup.recompute == "full":
        flops += 2 * n + attention
    return float(flops)


def model_flops_per_token(setup: Setup) -> float:
    """The model's FLOPs per token, without the recomputed forward: what MFU counts (section 7)."""
    if setup.training and setup.recompute == "full":
        return flops_per_token(replace(setup, recompute="none"))
    return flops_per_token(setup)


def hfu(setup: Setup) -> float:
    """The utilization setting, which is the HFU (share of the peak on the FLOPs executed)."""
    return setup.mfu


def mfu_from_hfu(setup: Setup, hardware_utilization: float | None = None) -> float:
    """MFU = HFU × model FLOPs / executed FLOPs: equal without recomputation, 3/4 of it with full
    recomputation (6N + 12A over 8N + 16A), so 0.4 HFU is 0.3 MFU."""
    u = setup.mfu if hardware_utilization is None else hardware_utilization
    return u * model_flops_per_token(setup) / flops_per_token(setup)


def hfu_from_mfu(setup: Setup, model_utilization: float) -> float:
    """The inverse: the HFU that a measured MFU implies."""
    return model_utilization * flops_per_token(setup) / model_flops_per_token(setup)


def peak_tflops(setup: Setup, gpu: GPU | None = None) -> float:
    """The dense peak the setup computes at: bf16, or the preset's fp8 with `compute: fp8`."""
    gpu = gpu or setup.gpu
    if gpu is None:
        raise SetupError("gpu", "a peak throughput needs a GPU preset")
    if setup.compute == "fp8":
        if not gpu.fp8_tflops:
            raise SetupError("compute", f"{gpu.name} has no fp8 tensor cores; expected bf16")
        return gpu.fp8_tflops
    return gpu.bf16_tflops


def offload_bytes_per_step(setup: Setup) -> float:
    """ZeRO-Offload moves 16-bit gradients down and 16-bit weights up: 4 bytes per trainable
    parameter per step (each rank its own partition once states are partitioned)."""
    if setup.offload == "none":
        return 0.0
    m = setup.model
    trainable = lora_params(m, setup.lora_rank, setup.lora_targets) if setup.method in ("lora", "qlora") else m.params
    share = setup.gpus if setup.zero >= 1 else 1
    # each GPU holds (and moves) 1/(t·pp) of the parameters under tensor and pipeline parallelism
    return 4 * trainable / (share * setup.tp * setup.pp)


@dataclass(frozen=True)
class StepTime:
    """One training step of one data-parallel replica (m micro-batches of b·s tokens), in seconds.

    `compute`: the ideal time, executed FLOPs per GPU / (peak × HFU), where each GPU executes
    1/(t·pp) of the replica's FLOPs (tensor parallelism splits every matrix, pipeline parallelism
    the layers, evenly); `bubble`: the pipeline bubble, (pp−1)/(v·m) of the ideal time (section 14);
    `offload`: the PCIe transfer of ZeRO-Offload (section 7). Communication is not in it: comm.py
    reports it separately, with no overlap assumed.
    """

    compute: float
    bubble: float
    offload: float
    tokens: int  # tokens the whole setup (all data-parallel replicas) trains on in one step

    @property
    def total(self) -> float:
        return self.compute + self.bubble + self.offload


def tokens_per_step(setup: Setup) -> int:
    """Tokens one step trains on: N data-parallel replicas × m micro-batches × b·s."""
    return setup.gpus * setup.microbatches * setup.tokens


def step_time_parts(setup: Setup, gpu: GPU | None = None) -> StepTime:
    """The step time and its parts (see StepTime) for dp × tp × pp."""
    gpu = gpu or setup.gpu
    if gpu is None:
        raise SetupError("gpu", "step time needs a GPU preset")
    if not setup.training:
        raise SetupError("method", "step time is a training figure; expected a training method (full, lora, ...)")
    replica_flops = flops_per_token(setup) * setup.microbatches * setup.tokens
    ideal = replica_flops / (setup.tp * setup.pp) / (peak_tflops(setup, gpu) * 1e12 * setup.mfu)
    idle = ideal * bubble(setup.pp, setup.microbatches, setup.interleave) if setup.pp > 1 else 0.0
    return StepTime(ideal, idle, offload_bytes_per_step(setup) / gpu.host_link, tokens_per_step(setup))


def step_time(setup: Setup, gpu: GPU | None = None) -> float:
    """Seconds for one training step (m micro-batches) on every GPU of a dp × tp × pp setup: executed
    FLOPs per GPU / (peak × HFU), plus the pipeline bubble and the offload transfer (StepTime)."""
    return step_time_parts(setup, gpu).total
