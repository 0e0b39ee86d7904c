"""FLOPs per token and step time at an MFU (memory-model.md section 7)."""

from __future__ import annotations

from quizapp.memory.breakdown import lora_params
from quizapp.memory.gpus import GPU
from quizapp.memory.setup import Setup, SetupError


def flops_per_token(setup: Setup) -> float:
    """Training: 6·N + 12·L·h·s (PaLM appendix B), + 2·N + 4·L·h·s with full recomputation.

    Inference: one forward pass, 2·N + 4·L·h·s (a third of the training figure). A bare parameter
    count has no L or h, so its attention term is left out.
    """
    m = setup.model
    n = m.params
    attention = m.layers * m.hidden * setup.seq if m.has_shape else 0
    if not setup.training:
        return float(2 * n + 4 * attention)
    flops = 6 * n + 12 * attention
    if setup.recompute == "full":
        flops += 2 * n + 4 * attention
    return float(flops)


def offload_bytes_per_step(setup: Setup) -> float:
    """ZeRO-Offload moves 16-bit gradients down and 16-bit weights up: 4 bytes per trainable
    parameter per step (each rank its own partition once states are partitioned)."""
    if setup.offload == "none":
        return 0.0
    m = setup.model
    trainable = m.params if setup.method == "full" else lora_params(m, setup.lora_rank, setup.lora_targets)
    share = setup.gpus if setup.zero >= 1 else 1
    return 4 * trainable / share


def step_time(setup: Setup, gpu: GPU | None = None) -> float:
    """Seconds for one micro-batch step on one GPU: FLOPs / (peak × MFU) + offload transfer."""
    gpu = gpu or setup.gpu
    if gpu is None:
        raise SetupError("gpu", "step time needs a GPU preset")
    if not setup.training:
        raise SetupError("method", "step time is a training figure; expected full, lora or qlora")
    compute = flops_per_token(setup) * setup.tokens / (gpu.bf16_tflops * 1e12 * setup.mfu)
    return compute + offload_bytes_per_step(setup) / gpu.host_link
