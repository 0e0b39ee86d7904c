"""Throughput, MFU and compute budgets (memory-model.md section 16).

MFU from a measured rate, the rate from an MFU, the 6·N·D budget, Chinchilla's compute-optimal
token count and training days. Pure functions of explicit numbers; the `Setup` wiring lives in
asks.py, which picks the peak (bf16, or fp8 with `compute: fp8`) and the FLOPs per token
(section 7, active parameters for MoE).
"""

from __future__ import annotations

CHINCHILLA_TOKENS_PER_PARAM = 20  # Hoffmann et al. 2022
SECONDS_PER_DAY = 86400


def mfu(tokens_per_s: float, flops_per_token: float, gpus: int, peak_flops: float) -> float:
    """tokens/s · FLOPs per token / (N · peak): with model FLOPs this is MFU, with executed FLOPs HFU."""
    return tokens_per_s * flops_per_token / (gpus * peak_flops)


def tokens_per_s(utilisation: float, flops_per_token: float, gpus: int, peak_flops: float) -> float:
    """The rate N GPUs reach at a utilisation: u · N · peak / FLOPs per token."""
    return utilisation * gpus * peak_flops / flops_per_token


def attention_train_flops_per_token(layers: int, heads: int, qk_dim: int, v_dim: int, seq: int) -> int:
    """Training attention FLOPs per token, 6·L·a·(d_qk + d_v)·s: 12·L·a·d·s for ordinary attention
    (section 7's 12·L·h·s when a·d = h), MLA 6·L·a·(d_n + d_r + d_v)·s."""
    return 6 * layers * heads * (qk_dim + v_dim) * seq


def compute_budget(active_params: int, train_tokens: float, attention_per_token: float = 0) -> float:
    """C = 6·N·D (+ the attention term per token times D when a shape is known)."""
    return (6 * active_params + attention_per_token) * train_tokens


def chinchilla_tokens(params: int) -> int:
    """Compute-optimal training tokens D = 20·N (dense models; the caller refuses MoE)."""
    return CHINCHILLA_TOKENS_PER_PARAM * params


def train_seconds(train_tokens: float, flops_per_token: float, gpus: int, peak_flops: float,
                  utilisation: float) -> float:
    """D tokens at `flops_per_token` each on N GPUs at a utilisation of the peak."""
    return train_tokens * flops_per_token / (gpus * peak_flops * utilisation)


def train_days(train_tokens: float, flops_per_token: float, gpus: int, peak_flops: float,
               utilisation: float) -> float:
    return train_seconds(train_tokens, flops_per_token, gpus, peak_flops, utilisation) / SECONDS_PER_DAY


# --- wired to a Setup ------------------------------------------------------------------------------
def _error(field: str, message: str):
    from quizapp.memory.setup import SetupError

    return SetupError(field, message)


def _peak(setup) -> float:
    from quizapp.memory.serving import peak_flops

    return peak_flops(setup)


def executed_flops_per_token(setup) -> float:
    """FLOPs the GPUs execute per token (section 7: recomputation included)."""
    from quizapp.memory.compute import flops_per_token

    return flops_per_token(setup)


def model_flops_per_token(setup) -> float:
    """FLOPs the model needs per token (section 7 without the recomputed forward): what MFU counts."""
    from quizapp.memory.compute import model_flops_per_token as model_flops

    return model_flops(setup)


def _training(setup, ask: str) -> None:
    if not setup.training:
        raise _error("method", f"{ask} is a training figure; expected a training method, not inference")


def utilisation(setup) -> tuple[float, float]:
    """(MFU, HFU) of the setup: from a measured `tokens_per_s` on all its GPUs, else from the
    utilisation setting `mfu`, which is the HFU (section 7), with MFU = HFU · model / executed FLOPs."""
    _training(setup, "mfu")
    model, executed = model_flops_per_token(setup), executed_flops_per_token(setup)
    if setup.tokens_per_s is not None:
        peak = _peak(setup)
        n = setup.world_size
        return mfu(setup.tokens_per_s, model, n, peak), mfu(setup.tokens_per_s, executed, n, peak)
    from quizapp.memory.compute import hfu, mfu_from_hfu

    return mfu_from_hfu(setup), hfu(setup)


def training_tokens_per_s(setup) -> float:
    """Tokens/s on all the setup's GPUs at its utilisation setting: the tokens of one step over the
    step time (compute.step_time_parts), so TP and PP divide the FLOPs per GPU and the pipeline bubble
    and offload transfer count. Without a bubble or offload this is u · N · peak / executed FLOPs."""
    from quizapp.memory.compute import step_time_parts

    _training(setup, "tokens_per_s")
    step = step_time_parts(setup)
    return step.tokens / step.total


def attention_budget_per_token(setup) -> int:
    """Section 16's attention term per training token, 0 without a shape."""
    from quizapp.memory.compute import attention_flops_per_token, attention_share

    # forward + backward (2x): 12·L·a·d·s, halved by the causal convention, none under 6N
    return int(3 * attention_flops_per_token(setup.model, setup.seq) * attention_share(setup))


def setup_compute_budget(setup) -> float:
    """C = 6·N_active·D + the attention term·D (D = `train_tokens`)."""
    if setup.train_tokens is None:
        raise _error("train_tokens", "the compute budget needs D, the training tokens (e.g. 1.4T)")
    return compute_budget(setup.model.active_params, setup.train_tokens, attention_budget_per_token(setup))


def setup_chinchilla_tokens(setup) -> int:
    """D = 20·N for a dense model; refused for MoE (the scaling law was fitted on dense models)."""
    m = setup.model
    if m.has_shape and m.is_moe:
        raise _error("model", "Chinchilla's D = 20·N was fitted on dense models; it does not apply to a "
                              "mixture of experts")
    return chinchilla_tokens(m.params)


def setup_train_days(setup) -> float:
    """Days to train on `train_tokens` tokens on all the setup's GPUs at its utilisation setting."""
    _training(setup, "train_days")
    if setup.train_tokens is None:
        raise _error("train_tokens", "training days need D, the training tokens (e.g. 1.4T)")
    # at the step-time rate (bubble and offload included), like training_tokens_per_s
    return setup.train_tokens / training_tokens_per_s(setup) / SECONDS_PER_DAY
